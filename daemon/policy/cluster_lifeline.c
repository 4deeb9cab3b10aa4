/*
 * cluster_lifeline.c - lifelines that know the clusters (README.md,
 * "cluster-lifeline").
 *
 * Inside a cluster it is `lifeline` restricted to the cluster: w random
 * steals from the other members, then lifelines on a cyclic hypercube over
 * the cluster's members, then quiescence.  Across clusters, only the first
 * `wan_lifelines` members of a cluster (its gateways) hold a lifeline each:
 * gateway g's goes to member g of the cluster its g-th edge reaches in a
 * cyclic hypercube over the clusters with wan_lifelines dimensions.  A
 * gateway sends it, asynchronously (CRS's wide-area steal, one in flight),
 * only when it has quiesced inside its cluster, and not again until work
 * came back from it.  So a cluster holds at most wan_lifelines wide-area
 * requests, an idle grid sends nothing across, and work crosses when a
 * remote buddy has more than it needs, pushed like any lifeline's: at least
 * wan_lifeline_queue records queued, since a record that crosses when little
 * work is left makes the job wait a wide-area round trip for its result
 * (lifeline_core.c holds such a thief back, remembered).
 */
#include "lifeline_core.h"

typedef struct cll_state {
    satin_ll ll;               /* first: lifeline_core's handlers take it */
    int wan_buddy;             /* -1: not a gateway, or no edge */
    int wan_busy;              /* the request is out */
    uint64_t wan_id;
    int wan_activated;         /* the buddy remembers us and has not delivered */
} cll_state;

static const int cll_counters[] = {SATIN_PC_QUIESCES, SATIN_PC_LIFELINES_NOTED};

static void cll_wan_lifeline(satin_policy *p)
{
    cll_state *st = p->priv;
    if (st->wan_buddy < 0 || st->wan_busy || st->wan_activated)
        return;
    st->wan_busy = 1;
    st->wan_id = satin_policy_send_steal(p, st->wan_buddy, SATIN_STEAL_LIFELINE);
}

/* Gateway `position`'s buddy, or -1. */
static int wan_buddy_of(const satin_policy *p)
{
    const satin_grid_shape *s = p->shape;
    int k = (int)p->params.wan_lifelines;
    if (p->position >= k || s->nused < 2)
        return -1;
    int edge[SATIN_LIFELINE_MAX_Z];
    satin_lifeline_edges(s->nused, k, s->used_rank[p->cluster], 1, edge);
    if (edge[p->position] < 0)
        return -1;
    int c = s->used[edge[p->position]];
    return s->members[c][p->position % s->cluster_size[c]];
}

static satin_policy *cll_create(const satin_policy_topology *topo,
                                const satin_policy_params *params, const satin_policy_env *env)
{
    satin_policy *p = satin_policy_base_create(&satin_policy_cluster_lifeline, topo, params, env,
                                               sizeof(cll_state));
    if (!p)
        return NULL;
    cll_state *st = p->priv;
    satin_ll_init(&st->ll, &p->locals, p->members[p->cluster], p->cluster_size[p->cluster],
                  p->position, (int)p->params.lifeline_z);
    st->ll.quiesced = cll_wan_lifeline;
    st->ll.wan_jobs = p->params.wan_lifeline_jobs;
    st->ll.wan_min_queue = p->params.wan_lifeline_queue;
    st->wan_buddy = wan_buddy_of(p);
    return p;
}

static void cll_on_idle(satin_policy *p)
{
    cll_state *st = p->priv;
    satin_ll_on_idle(p, &st->ll);
}

static void cll_on_steal_request(satin_policy *p, int from, int thief, uint64_t id,
                                 unsigned flags)
{
    cll_state *st = p->priv;
    (void)from;
    satin_ll_on_steal_request(p, &st->ll, thief, id, flags);
}

static void cll_on_steal_reply(satin_policy *p, int victim, uint64_t id, int njobs,
                               unsigned flags)
{
    cll_state *st = p->priv;
    if (st->wan_busy && id == st->wan_id) {
        st->wan_busy = 0;
        st->wan_activated = njobs <= 0; /* empty: the buddy remembers us */
        return;
    }
    satin_ll_on_steal_reply(p, &st->ll, victim, id, njobs, flags);
}

static void cll_on_queue_length(satin_policy *p, int64_t length)
{
    cll_state *st = p->priv;
    (void)length;
    satin_ll_distribute(p, &st->ll);
}

static void cll_on_push(satin_policy *p, int from)
{
    cll_state *st = p->priv;
    satin_ll_on_push(p, &st->ll, from);
    if (from == st->wan_buddy)
        st->wan_activated = 0;
}

static void cll_on_push_ack(satin_policy *p, int target)
{
    cll_state *st = p->priv;
    (void)target;
    satin_ll_distribute(p, &st->ll);
}

static void cll_on_timer(satin_policy *p, int timer_id)
{
    (void)p, (void)timer_id; /* it sets none */
}

static void cll_on_peer(satin_policy *p, int peer, int alive)
{
    cll_state *st = p->priv;
    satin_ll_on_peer(p, &st->ll, peer, alive);
    if (peer == st->wan_buddy)
        st->wan_activated = 0;
}

static int cll_stats(const satin_policy *p, const char **names, int64_t *values, int max)
{
    return satin_policy_report(p, cll_counters,
                               (int)(sizeof cll_counters / sizeof cll_counters[0]), names,
                               values, max);
}

/* Why these defaults: README.md, "Tunables". */
static const satin_policy_tunable wan_lifelines = {
    "wan_lifelines", SATIN_TUNABLE_COUNT, 1, 8, 2,
    offsetof(satin_policy_params, wan_lifelines), NULL};
static const satin_policy_tunable wan_lifeline_jobs = {
    "wan_lifeline_jobs", SATIN_TUNABLE_COUNT, 1, 1024, 1,
    offsetof(satin_policy_params, wan_lifeline_jobs), NULL};
static const satin_policy_tunable wan_lifeline_queue = {
    "wan_lifeline_queue", SATIN_TUNABLE_COUNT, 0, 1000000, 0,
    offsetof(satin_policy_params, wan_lifeline_queue), NULL};
static const satin_policy_tunable *const cll_tunables[] = {
    &satin_tunable_steal_max_jobs, &satin_tunable_lifeline_w, &satin_tunable_lifeline_z,
    &wan_lifelines, &wan_lifeline_jobs, &wan_lifeline_queue, NULL};

const satin_policy_ops satin_policy_cluster_lifeline = {
    .name = "cluster-lifeline",
    .caps = SATIN_POLICY_SAMPLES_QUEUE | SATIN_POLICY_WAITS_FOR_WORK,
    .tunables = cll_tunables,
    .create = cll_create,
    .destroy = satin_policy_base_destroy,
    .on_idle = cll_on_idle,
    .on_steal_request = cll_on_steal_request,
    .on_steal_reply = cll_on_steal_reply,
    .on_cancel = satin_policy_ignore_cancel,
    .on_queue_length = cll_on_queue_length,
    .on_push = cll_on_push,
    .on_push_ack = cll_on_push_ack,
    .on_load = satin_policy_ignore_load,
    .on_result = satin_policy_ignore_result,
    .on_timer = cll_on_timer,
    .on_peer = cll_on_peer,
    .stats = cll_stats,
};
