/*
 * rs.c - Random Stealing (paper 3.1).  An idle node sends one synchronous
 * steal request to a uniformly random other node of any cluster and waits
 * for the reply; never more than one in flight.  Empty replies lead to the
 * shared idle back-off (one round = every other node).
 */
#include "policy_internal.h"

/* The node counts its steals, replies and their outcomes (policy.h, stats). */
static const int rs_counters[] = {SATIN_PC_BACKOFFS, SATIN_PC_WOKEN};

static void rs_attempt(satin_policy *p)
{
    satin_policy_sync_steal(p, &p->others);
}

static satin_policy *rs_create(const satin_policy_topology *topo,
                               const satin_policy_params *params, const satin_policy_env *env)
{
    return satin_policy_base_create(&satin_policy_rs, topo, params, env, 0);
}

static void rs_on_idle(satin_policy *p)
{
    if (p->sync_busy)
        return; /* still waiting for the reply */
    satin_policy_backoff_disarm(p);
    rs_attempt(p);
}

static void rs_on_steal_reply(satin_policy *p, int victim, uint64_t id, int njobs,
                              unsigned flags)
{
    p->reply_flags = flags;
    (void)victim, (void)flags;
    if (!satin_policy_sync_reply(p, id, njobs))
        return; /* not ours (any more): ignored */
    if (njobs <= 0)
        satin_policy_idle_failed(p, satin_candidates_count(&p->others), rs_attempt);
}

static void rs_on_timer(satin_policy *p, int timer_id)
{
    if (timer_id == SATIN_TIMER_BACKOFF && satin_policy_backoff_fired(p) && !p->sync_busy)
        rs_attempt(p);
}

static int rs_stats(const satin_policy *p, const char **names, int64_t *values, int max)
{
    return satin_policy_report(p, rs_counters, (int)(sizeof rs_counters / sizeof rs_counters[0]),
                               names, values, max);
}

static const satin_policy_tunable *const rs_tunables[] = {
    &satin_tunable_backoff_min, &satin_tunable_backoff_max, &satin_tunable_steal_max_jobs, NULL};

const satin_policy_ops satin_policy_rs = {
    .name = "rs",
    .tunables = rs_tunables,
    .create = rs_create,
    .destroy = satin_policy_base_destroy,
    .on_idle = rs_on_idle,
    .on_steal_request = satin_policy_give,
    .on_steal_reply = rs_on_steal_reply,
    .on_cancel = satin_policy_ignore_cancel,
    .on_queue_length = satin_policy_ignore_queue_length,
    .on_push = satin_policy_ignore_push,
    .on_push_ack = satin_policy_ignore_push_ack,
    .on_load = satin_policy_ignore_load,
    .on_result = satin_policy_ignore_result,
    .on_timer = rs_on_timer,
    .on_peer = satin_policy_ignore_peer,
    .stats = rs_stats,
};
