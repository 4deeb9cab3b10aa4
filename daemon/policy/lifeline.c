/*
 * lifeline.c - lifeline-based global load balancing (Saraswat et al.,
 * PPoPP 2011), as in the X10 code: w random steals, then the node's
 * lifelines on a cyclic hypercube over every node of the grid (z from
 * lifeline_z, else ceil(log2 nodes)), then quiescence until work comes.
 * Work flows back along remembered lifelines as pushes.  The scheme is in
 * lifeline_core.c; this file gives it the whole grid, clusters ignored.
 */
#include "lifeline_core.h"

static const int lifeline_counters[] = {SATIN_PC_QUIESCES, SATIN_PC_LIFELINES_NOTED};

static satin_policy *lifeline_create(const satin_policy_topology *topo,
                                     const satin_policy_params *params,
                                     const satin_policy_env *env)
{
    satin_policy *p =
        satin_policy_base_create(&satin_policy_lifeline, topo, params, env, sizeof(satin_ll));
    if (!p)
        return NULL;
    /* Vertices are the members in node order (the `others` list with self). */
    satin_ll_init(p->priv, &p->others, p->shape->order, p->shape->norder,
                  p->shape->rank_of[p->self], (int)p->params.lifeline_z);
    return p;
}

static void lifeline_on_idle(satin_policy *p)
{
    satin_ll_on_idle(p, p->priv);
}

static void lifeline_on_steal_request(satin_policy *p, int from, int thief, uint64_t id,
                                      unsigned flags)
{
    (void)from;
    satin_ll_on_steal_request(p, p->priv, thief, id, flags);
}

static void lifeline_on_steal_reply(satin_policy *p, int victim, uint64_t id, int njobs,
                                    unsigned flags)
{
    satin_ll_on_steal_reply(p, p->priv, victim, id, njobs, flags);
}

static void lifeline_on_queue_length(satin_policy *p, int64_t length)
{
    (void)length; /* distribute reads it again: pushes shorten it */
    satin_ll_distribute(p, p->priv);
}

static void lifeline_on_push(satin_policy *p, int from)
{
    satin_ll_on_push(p, p->priv, from);
}

/* A slot of the queue went; the queue may have stayed long without a new
 * on_queue_length. */
static void lifeline_on_push_ack(satin_policy *p, int target)
{
    (void)target;
    satin_ll_distribute(p, p->priv);
}

static void lifeline_on_timer(satin_policy *p, int timer_id)
{
    (void)p, (void)timer_id; /* it sets none: a quiesced node waits for work */
}

static void lifeline_on_peer(satin_policy *p, int peer, int alive)
{
    satin_ll_on_peer(p, p->priv, peer, alive);
}

static int lifeline_stats(const satin_policy *p, const char **names, int64_t *values, int max)
{
    return satin_policy_report(p, lifeline_counters,
                               (int)(sizeof lifeline_counters / sizeof lifeline_counters[0]),
                               names, values, max);
}

static const satin_policy_tunable *const lifeline_tunables[] = {
    &satin_tunable_steal_max_jobs, &satin_tunable_lifeline_w, &satin_tunable_lifeline_z, NULL};

const satin_policy_ops satin_policy_lifeline = {
    .name = "lifeline",
    /* Queue lengths tell it when to push along lifelines; a quiesced node
     * must not be woken by the idle re-check. */
    .caps = SATIN_POLICY_SAMPLES_QUEUE | SATIN_POLICY_WAITS_FOR_WORK,
    .tunables = lifeline_tunables,
    .create = lifeline_create,
    .destroy = satin_policy_base_destroy,
    .on_idle = lifeline_on_idle,
    .on_steal_request = lifeline_on_steal_request,
    .on_steal_reply = lifeline_on_steal_reply,
    .on_cancel = satin_policy_ignore_cancel,
    .on_queue_length = lifeline_on_queue_length,
    .on_push = lifeline_on_push,
    .on_push_ack = lifeline_on_push_ack,
    .on_load = satin_policy_ignore_load,
    .on_result = satin_policy_ignore_result,
    .on_timer = lifeline_on_timer,
    .on_peer = lifeline_on_peer,
    .stats = lifeline_stats,
};
