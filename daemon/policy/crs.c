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
 * cluster the first branch never runs and CRS is RS, draw for draw.
 *
 * In Figure 3 the loop runs without pause, so an idle node sends its next
 * wide-area steal right after the previous reply: one is always in flight.
 * Ours has an idle back-off (policy.c), and if the next wide-area steal
 * waited for the next local attempt it would wait up to backoff_max after
 * every reply.  So the reply itself decides: while the node is still idle, a
 * reply that brought jobs or came from a busy victim (work exists over
 * there) is followed by the next wide-area steal at once, as in Figure 3; an
 * empty reply from an idle victim by a back-off of its own (timer
 * SATIN_TIMER_WAN: backoff_min doubling per such reply up to backoff_max,
 * reset by a wide-area success), so that a grid with no work at all does not
 * keep a request crossing every wide-area link per round trip.  While that
 * timer runs, local attempts send no wide-area steal; a new idle period
 * (on_idle) drops it and steals across at once, as Figure 3's "whenever a
 * node becomes idle".  The local back-off counts local failures only (one
 * round = the other cluster members).
 */
#include "policy_internal.h"

typedef struct crs_state {
    int wan_busy;         /* Figure 3's stealing_remotely */
    uint64_t wan_id;
    int wan_armed;        /* SATIN_TIMER_WAN is set: the next wide-area steal waits */
    satin_backoff wan_backoff; /* empty replies from idle remote victims since a success */
} crs_state;

/* The node counts the steals (wide-area and local, async and sync), their
 * outcomes and the replies; which timer is a wide-area back-off only the
 * policy knows. */
static const int crs_counters[] = {SATIN_PC_BACKOFFS, SATIN_PC_WAN_BACKOFFS, SATIN_PC_WOKEN};

/* Figure 3's first branch. */
static void crs_wan_steal(satin_policy *p)
{
    crs_state *st = p->priv;
    if (satin_candidates_count(&p->remotes) == 0 || st->wan_busy || st->wan_armed)
        return;
    int victim = satin_policy_pick_remote(p);
    st->wan_busy = 1;
    st->wan_id = satin_policy_send_steal(p, victim, 0 /* async; WAN is added */);
}

static void crs_wan_disarm(satin_policy *p)
{
    crs_state *st = p->priv;
    if (!st->wan_armed)
        return;
    p->env.clear_timer(p->env.ctx, SATIN_TIMER_WAN);
    st->wan_armed = 0;
}

/* One pass of Figure 3's loop for an empty queue. */
static void crs_attempt(satin_policy *p)
{
    crs_wan_steal(p);
    satin_policy_sync_steal(p, &p->locals);
}

static satin_policy *crs_create(const satin_policy_topology *topo,
                                const satin_policy_params *params, const satin_policy_env *env)
{
    return satin_policy_base_create(&satin_policy_crs, topo, params, env, sizeof(crs_state));
}

static void crs_on_idle(satin_policy *p)
{
    crs_wan_disarm(p);
    if (p->sync_busy) {
        /* Figure 3's loop is blocked in the local steal; the wide-area
         * branch does not wait for it. */
        crs_wan_steal(p);
        return;
    }
    satin_policy_backoff_disarm(p);
    crs_attempt(p);
}

static void crs_wan_reply(satin_policy *p, int njobs, unsigned flags)
{
    crs_state *st = p->priv;
    st->wan_busy = 0;
    int64_t delay = 0;
    if (njobs > 0) {
        satin_backoff_reset(&st->wan_backoff);
        satin_backoff_reset(&p->backoff);
    } else if (!(flags & SATIN_STEAL_VICTIM_BUSY)) {
        delay = satin_backoff_fail(&st->wan_backoff, &p->params, 1);
    }
    if (!p->env.is_idle(p->env.ctx))
        return; /* busy: the next on_idle steals across at once */
    if (delay == 0) {
        crs_wan_steal(p);
        return;
    }
    p->env.set_timer(p->env.ctx, SATIN_TIMER_WAN, delay);
    st->wan_armed = 1;
    p->count[SATIN_PC_WAN_BACKOFFS]++;
}

static void crs_on_steal_reply(satin_policy *p, int victim, uint64_t id, int njobs,
                               unsigned flags)
{
    (void)victim;
    crs_state *st = p->priv;
    if (st->wan_busy && id == st->wan_id) {
        crs_wan_reply(p, njobs, flags);
        return;
    }
    p->reply_flags = flags;
    if (!satin_policy_sync_reply(p, id, njobs)) {
        p->reply_flags = 0;
        return; /* not ours (any more): ignored */
    }
    if (njobs <= 0)
        satin_policy_idle_failed(p, satin_candidates_count(&p->locals), crs_attempt);
    p->reply_flags = 0;
}

static void crs_on_timer(satin_policy *p, int timer_id)
{
    crs_state *st = p->priv;
    if (timer_id == SATIN_TIMER_WAN) {
        st->wan_armed = 0;
        if (p->env.is_idle(p->env.ctx))
            crs_wan_steal(p);
        return;
    }
    if (timer_id == SATIN_TIMER_BACKOFF && satin_policy_backoff_fired(p) && !p->sync_busy)
        crs_attempt(p);
}

static int crs_stats(const satin_policy *p, const char **names, int64_t *values, int max)
{
    return satin_policy_report(p, crs_counters,
                               (int)(sizeof crs_counters / sizeof crs_counters[0]), names,
                               values, max);
}

static const satin_policy_tunable *const crs_tunables[] = {
    &satin_tunable_backoff_min, &satin_tunable_backoff_max, &satin_tunable_steal_max_jobs, NULL};

const satin_policy_ops satin_policy_crs = {
    .name = "crs",
    .tunables = crs_tunables,
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
    .on_peer = satin_policy_ignore_peer,
    .stats = crs_stats,
};
