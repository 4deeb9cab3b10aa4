/*
 * cls.c - Cluster-aware Load-based Stealing (paper 3.4).
 *
 * Inside a cluster: random stealing, as RS restricted to the cluster.
 * Across clusters: the cluster's first member is its coordinator.  Every
 * other node reports its load (queue length) to it when the load changed,
 * at most once per cls_load_interval (a quiet-period timer), and a 0 at
 * once when it goes idle.  The coordinator sums the reports and its own
 * queue; while the sum is below cls_threshold and no prefetch is in flight
 * it sends one asynchronous wide-area steal (WAN|PREFETCH) to a random node
 * of a random other cluster.  The job lands in the coordinator's queue, where
 * the cluster's nodes steal it.  Failed prefetches back off like idle
 * stealing (one round = every remote node) so that an idle grid stays quiet.
 * With one cluster there is neither reporting nor prefetching: CLS is RS.
 * When the coordinator dies the next member this node believes alive takes
 * over (each node decides alone; they agree once they see the same deaths):
 * it starts from zero loads, and members report theirs to it afresh.
 */
#include "policy_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct cls_state {
    int coordinator;          /* node id: the first member of the cluster not dead */
    unsigned char *dead;      /* [cluster size] 1: the node took that member for dead */
    /* every node but the coordinator: reporting */
    int64_t load;             /* latest known queue length */
    int64_t reported;         /* last value sent (the coordinator starts from 0) */
    int quiet;                /* SATIN_TIMER_LOAD is set: no report until it fires */
    /* the coordinator */
    int64_t *loads;           /* [cluster size] last report of each member */
    int64_t others_total;     /* sum of loads[] */
    int prefetch_busy, prefetch_waiting;
    uint64_t prefetch_id;
    satin_backoff prefetch_backoff;
} cls_state;

/* The node counts the steals and prefetches (PREFETCH steals), their
 * outcomes, the replies and the load reports sent; which reports a
 * coordinator takes in only the policy knows. */
static const int cls_counters[] = {SATIN_PC_LOADS_RECEIVED, SATIN_PC_BACKOFFS, SATIN_PC_WOKEN};

static int is_coordinator(const satin_policy *p)
{
    return p->self == ((const cls_state *)p->priv)->coordinator;
}

static void cls_attempt(satin_policy *p)
{
    satin_policy_sync_steal(p, &p->locals);
}

/* Coordinator: prefetch if the cluster runs low. */
static void cls_consider_prefetch(satin_policy *p)
{
    cls_state *st = p->priv;
    if (!is_coordinator(p) || p->nremote_nodes == 0 || st->prefetch_busy ||
        st->prefetch_waiting)
        return;
    int64_t total = st->others_total + p->env.queue_length(p->env.ctx);
    if (total >= p->params.cls_threshold)
        return;
    int victim = satin_policy_pick_remote(p);
    st->prefetch_busy = 1;
    st->prefetch_id = satin_policy_send_steal(p, victim, SATIN_STEAL_PREFETCH);
}

static void cls_send_load(satin_policy *p, int64_t load)
{
    cls_state *st = p->priv;
    p->env.send_load(p->env.ctx, st->coordinator, load);
    st->reported = load;
    if (!st->quiet) {
        st->quiet = 1;
        p->env.set_timer(p->env.ctx, SATIN_TIMER_LOAD, p->params.cls_load_interval_ns);
    }
}

/* Our load is now `load`; `idle` reports a 0 without waiting for the quiet period. */
static void cls_load_changed(satin_policy *p, int64_t load, int idle)
{
    cls_state *st = p->priv;
    if (satin_candidates_count(&p->remotes) == 0)
        return; /* one cluster: nobody prefetches, nobody needs loads */
    if (is_coordinator(p)) {
        cls_consider_prefetch(p);
        return;
    }
    st->load = load;
    if (load != st->reported && (idle || !st->quiet))
        cls_send_load(p, load);
}

static satin_policy *cls_create(const satin_policy_topology *topo,
                                const satin_policy_params *params, const satin_policy_env *env)
{
    satin_policy *p =
        satin_policy_base_create(&satin_policy_cls, topo, params, env, sizeof(cls_state));
    if (!p)
        return NULL;
    cls_state *st = p->priv;
    st->coordinator = p->members[p->cluster][0];
    st->loads = calloc((size_t)p->cluster_size[p->cluster], sizeof(int64_t));
    st->dead = calloc((size_t)p->cluster_size[p->cluster], 1);
    if (!st->loads || !st->dead) {
        satin_policy_base_destroy(p);
        return NULL;
    }
    return p;
}

static void cls_destroy(satin_policy *p)
{
    if (p) {
        free(((cls_state *)p->priv)->loads);
        free(((cls_state *)p->priv)->dead);
    }
    satin_policy_base_destroy(p);
}

static void cls_on_idle(satin_policy *p)
{
    cls_load_changed(p, 0, 1);
    if (p->sync_busy)
        return;
    satin_policy_backoff_disarm(p);
    cls_attempt(p);
}

static void cls_on_steal_reply(satin_policy *p, int victim, uint64_t id, int njobs,
                               unsigned flags)
{
    p->reply_flags = flags;
    (void)victim, (void)flags;
    cls_state *st = p->priv;
    if (st->prefetch_busy && id == st->prefetch_id) {
        st->prefetch_busy = 0;
        if (njobs > 0) {
            satin_backoff_reset(&st->prefetch_backoff);
            cls_consider_prefetch(p); /* the queue now counts the prefetched jobs */
            return;
        }
        int64_t delay = satin_backoff_fail(&st->prefetch_backoff, &p->params, p->nremote_nodes);
        if (delay == 0) {
            cls_consider_prefetch(p);
        } else {
            st->prefetch_waiting = 1;
            p->env.set_timer(p->env.ctx, SATIN_TIMER_PREFETCH, delay);
            p->count[SATIN_PC_BACKOFFS]++;
        }
        return;
    }
    if (!satin_policy_sync_reply(p, id, njobs))
        return; /* not ours (any more): ignored */
    if (njobs <= 0)
        satin_policy_idle_failed(p, satin_candidates_count(&p->locals), cls_attempt);
}

static void cls_on_queue_length(satin_policy *p, int64_t length)
{
    cls_load_changed(p, length, 0);
}

static void cls_on_load(satin_policy *p, int from, int64_t load)
{
    cls_state *st = p->priv;
    if (!is_coordinator(p) || from < 0 || from >= p->nnodes || from == p->self ||
        satin_policy_is_remote(p, from))
        return;
    p->count[SATIN_PC_LOADS_RECEIVED]++;
    int i = p->index_of[from];
    st->others_total += load - st->loads[i];
    st->loads[i] = load;
    cls_consider_prefetch(p);
}

static void cls_on_timer(satin_policy *p, int timer_id)
{
    cls_state *st = p->priv;
    switch (timer_id) {
    case SATIN_TIMER_BACKOFF:
        if (satin_policy_backoff_fired(p) && !p->sync_busy)
            cls_attempt(p);
        break;
    case SATIN_TIMER_LOAD:
        st->quiet = 0;
        if (st->load != st->reported)
            cls_send_load(p, st->load); /* what changed during the quiet period */
        break;
    case SATIN_TIMER_PREFETCH:
        st->prefetch_waiting = 0;
        cls_consider_prefetch(p);
        break;
    }
}

static void cls_on_peer(satin_policy *p, int peer, int alive)
{
    cls_state *st = p->priv;
    if (peer < 0 || peer >= p->nnodes || peer == p->self)
        return;
    /* Only members of our cluster can be its coordinator. */
    if (satin_policy_is_remote(p, peer))
        return;
    st->dead[p->index_of[peer]] = !alive;
    int next = p->self;
    for (int i = 0; i < p->cluster_size[p->cluster]; i++) {
        int m = p->members[p->cluster][i];
        if (m == p->self || !st->dead[i]) {
            next = m;
            break;
        }
    }
    if (next == st->coordinator)
        return;
    st->coordinator = next;
    /* A new coordinator knows no loads: it starts from zero, and every
     * member reports what it has now. */
    memset(st->loads, 0, (size_t)p->cluster_size[p->cluster] * sizeof *st->loads);
    st->others_total = 0;
    st->reported = 0;
    if (is_coordinator(p))
        cls_consider_prefetch(p);
    else if (st->load != 0 && satin_candidates_count(&p->remotes) > 0)
        cls_send_load(p, st->load);
}

static int cls_stats(const satin_policy *p, const char **names, int64_t *values, int max)
{
    return satin_policy_report(p, cls_counters,
                               (int)(sizeof cls_counters / sizeof cls_counters[0]), names,
                               values, max);
}

/* Why these defaults: README.md, "Tunables". */
static const satin_policy_tunable cls_load_interval = {
    "cls_load_interval_ms", SATIN_TUNABLE_MS, 0, 60000, 10000000,
    offsetof(satin_policy_params, cls_load_interval_ns), NULL};
static const satin_policy_tunable cls_threshold = {
    "cls_threshold", SATIN_TUNABLE_COUNT, 0, 1000000, 1,
    offsetof(satin_policy_params, cls_threshold), NULL};
static const satin_policy_tunable *const cls_tunables[] = {
    &satin_tunable_backoff_min, &satin_tunable_backoff_max, &satin_tunable_steal_max_jobs,
    &cls_load_interval, &cls_threshold, NULL};

const satin_policy_ops satin_policy_cls = {
    .name = "cls",
    .caps = SATIN_POLICY_SAMPLES_QUEUE,
    .tunables = cls_tunables,
    .create = cls_create,
    .destroy = cls_destroy,
    .on_idle = cls_on_idle,
    .on_steal_request = satin_policy_give,
    .on_steal_reply = cls_on_steal_reply,
    .on_cancel = satin_policy_ignore_cancel,
    .on_queue_length = cls_on_queue_length,
    .on_push = satin_policy_ignore_push,
    .on_push_ack = satin_policy_ignore_push_ack,
    .on_load = cls_on_load,
    .on_result = satin_policy_ignore_result,
    .on_timer = cls_on_timer,
    .on_peer = cls_on_peer,
    .stats = cls_stats,
};
