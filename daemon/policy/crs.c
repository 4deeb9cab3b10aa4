/*
 * crs.c - Cluster-aware Random Stealing (paper 3.5, Figure 3).
 *
 *   idle:  if (nclusters > 1 && !stealing_remotely) {
 *              stealing_remotely = 1;  async steal to a random node of a random other cluster
 *          }
 *          sync steal from a random node of our own cluster
 *   wide-area reply: stealing_remotely = 0   (its jobs were queued by the node)
 *
 * So a node has at most one wide-area steal in flight, ever, and never
 * waits for one; local stealing hides the wide-area round trip.  On one
 * cluster the first branch never runs and CRS is RS, draw for draw.  The
 * idle back-off counts local failures (one round = the other cluster
 * members); a node alone in its cluster backs off on wide-area failures.
 */
#include "policy_internal.h"

typedef struct crs_state {
    int wan_busy;         /* Figure 3's stealing_remotely */
    uint64_t wan_id;
    int wan_victim;
} crs_state;

static const int crs_counters[] = {
    SATIN_PC_STEAL_SENT, SATIN_PC_STEAL_SENT_WAN, SATIN_PC_STEAL_SYNC, SATIN_PC_STEAL_ASYNC,
    SATIN_PC_STEAL_OK, SATIN_PC_STEAL_OK_WAN, SATIN_PC_STEAL_FAILED, SATIN_PC_LATE_REPLIES,
    SATIN_PC_ANSWERED, SATIN_PC_JOBS_GIVEN, SATIN_PC_PUSHES_RECEIVED, SATIN_PC_CANCELS_RECEIVED,
    SATIN_PC_BACKOFFS,
};

/* One pass of Figure 3's loop for an empty queue. */
static void crs_attempt(satin_policy *p)
{
    crs_state *st = p->priv;
    if (p->nremotes > 0 && !st->wan_busy) {
        st->wan_victim = satin_policy_pick_remote(p);
        st->wan_busy = 1;
        st->wan_id = satin_policy_send_steal(p, st->wan_victim, 0 /* async; WAN is added */);
    }
    satin_policy_sync_steal(p, p->locals, p->nlocals);
}

static satin_policy *crs_create(const satin_policy_topology *topo,
                                const satin_policy_params *params, const satin_policy_env *env)
{
    return satin_policy_base_create(&satin_policy_crs, topo, params, env, sizeof(crs_state));
}

static void crs_on_idle(satin_policy *p)
{
    if (p->sync_busy)
        return; /* Figure 3's loop is blocked in the local steal */
    satin_policy_backoff_disarm(p);
    crs_attempt(p);
}

static void crs_on_steal_reply(satin_policy *p, int victim, uint64_t id, int njobs,
                               unsigned flags)
{
    p->reply_flags = flags;
    (void)victim, (void)flags;
    crs_state *st = p->priv;
    if (st->wan_busy && id == st->wan_id) {
        st->wan_busy = 0;
        satin_policy_count_reply(p, st->wan_victim, njobs);
        if (njobs > 0)
            satin_backoff_reset(&p->backoff);
        else if (p->nlocals == 0)
            /* no local victims: the wide-area steal is the whole loop */
            satin_policy_idle_failed(p, p->nremote_nodes, crs_attempt);
        /* else the local loop sends the next one when it next runs */
        return;
    }
    if (!satin_policy_sync_reply(p, id, njobs)) {
        p->count[SATIN_PC_LATE_REPLIES]++;
        return;
    }
    if (njobs <= 0)
        satin_policy_idle_failed(p, p->nlocals, crs_attempt);
}

static void crs_on_timer(satin_policy *p, int timer_id)
{
    if (timer_id == SATIN_TIMER_BACKOFF && satin_policy_backoff_fired(p) && !p->sync_busy)
        crs_attempt(p);
}

static int crs_stats(const satin_policy *p, const char **names, int64_t *values, int max)
{
    return satin_policy_report(p, crs_counters,
                               (int)(sizeof crs_counters / sizeof crs_counters[0]), names,
                               values, max);
}

const satin_policy_ops satin_policy_crs = {
    .name = "crs",
    .create = crs_create,
    .destroy = satin_policy_base_destroy,
    .on_idle = crs_on_idle,
    .on_steal_request = satin_policy_give,
    .on_steal_reply = crs_on_steal_reply,
    .on_cancel = satin_policy_ignore_cancel,
    .on_queue_length = satin_policy_ignore_queue_length,
    .on_push = satin_policy_ignore_push,
    .on_push_ack = satin_policy_ignore_push_ack,
    .on_load = satin_policy_ignore_load,
    .on_result = satin_policy_ignore_result,
    .on_timer = crs_on_timer,
    .stats = crs_stats,
};
