/*
 * rp.c - Random Pushing (paper 3.2).  Never steals.  When the queue is
 * longer than rp_threshold, the tail job goes to a uniformly random other
 * node, as long as fewer than rp_max_in_transit pushes are unacknowledged
 * (the bound Satin's RP adds to keep buffers and memory bounded).  Nodes with
 * empty queues just wait.
 */
#include "policy_internal.h"

typedef struct rp_state {
    int in_transit;   /* pushes not yet acknowledged */
} rp_state;

static void rp_push_while_long(satin_policy *p, int64_t length)
{
    rp_state *st = p->priv;
    while (length > p->params.rp_threshold && st->in_transit < p->params.rp_max_in_transit &&
           satin_candidates_count(&p->others) > 0) {
        int target = satin_policy_pick(p, &p->others);
        if (!p->env.push(p->env.ctx, target))
            break; /* a worker took the job meanwhile */
        st->in_transit++;
        length--;
    }
}

static satin_policy *rp_create(const satin_policy_topology *topo,
                               const satin_policy_params *params, const satin_policy_env *env)
{
    return satin_policy_base_create(&satin_policy_rp, topo, params, env, sizeof(rp_state));
}

/* RP nodes send no requests, but a mixed or misconfigured grid might: an
 * empty reply keeps the thief from waiting forever. */
static void rp_on_steal_request(satin_policy *p, int from, int thief, uint64_t id,
                                unsigned flags)
{
    (void)from;
    p->env.reply(p->env.ctx, thief, id, flags, 0);
}

static void rp_on_steal_reply(satin_policy *p, int victim, uint64_t id, int njobs,
                              unsigned flags)
{
    (void)p, (void)victim, (void)id, (void)njobs, (void)flags; /* RP never asked */
}

static void rp_on_queue_length(satin_policy *p, int64_t length)
{
    rp_push_while_long(p, length);
}

/* An ack frees a slot.  The queue may have stayed long without changing
 * (no new on_queue_length), so look again now. */
static void rp_on_push_ack(satin_policy *p, int target)
{
    (void)target;
    rp_state *st = p->priv;
    if (st->in_transit > 0)
        st->in_transit--;
    rp_push_while_long(p, p->env.queue_length(p->env.ctx));
}

static void rp_on_timer(satin_policy *p, int timer_id)
{
    (void)p, (void)timer_id;
}

/* None of its own: its pushes, the acks, the pushes it gets and its
 * (empty) replies are all messages the node counts. */
static int rp_stats(const satin_policy *p, const char **names, int64_t *values, int max)
{
    (void)p, (void)names, (void)values, (void)max;
    return 0;
}

/* Why these defaults: README.md, "Tunables". */
static const satin_policy_tunable rp_threshold = {
    "rp_threshold", SATIN_TUNABLE_COUNT, 0, 1000000, 4,
    offsetof(satin_policy_params, rp_threshold), NULL};
static const satin_policy_tunable rp_max_in_transit = {
    "rp_max_in_transit", SATIN_TUNABLE_COUNT, 1, 1000000, 8,
    offsetof(satin_policy_params, rp_max_in_transit), NULL};
/* RP never steals: the back-off and steal_max_jobs are not its. */
static const satin_policy_tunable *const rp_tunables[] = {&rp_threshold, &rp_max_in_transit,
                                                          NULL};

const satin_policy_ops satin_policy_rp = {
    .name = "rp",
    .caps = SATIN_POLICY_SAMPLES_QUEUE | SATIN_POLICY_WAITS_FOR_WORK | SATIN_POLICY_PUSHES,
    .tunables = rp_tunables,
    .create = rp_create,
    .destroy = satin_policy_base_destroy,
    .on_idle = satin_policy_ignore_idle, /* RP waits for pushed work */
    .on_steal_request = rp_on_steal_request,
    .on_steal_reply = rp_on_steal_reply,
    .on_cancel = satin_policy_ignore_cancel,
    .on_queue_length = rp_on_queue_length,
    .on_push = satin_policy_ignore_push,
    .on_push_ack = rp_on_push_ack,
    .on_load = satin_policy_ignore_load,
    .on_result = satin_policy_ignore_result,
    .on_timer = rp_on_timer,
    .on_peer = satin_policy_ignore_peer,
    .stats = rp_stats,
};
