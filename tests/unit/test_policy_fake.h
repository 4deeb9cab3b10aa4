/*
 * test_policy_fake.h - a scripted environment for the policy unit tests.
 *
 * It records every action a policy asks for, in order, with its arguments
 * and the fake time; a test then walks the log with expect_*().  The clock
 * only moves when the test says so (fake_advance / fake_fire_next fire the
 * due timers).  random() returns the draws a test scripted (FAKE_DRAWS), so a
 * test picks the victims; beyond the script it counts the extra draws and
 * goes on with a fixed xorshift sequence.  The queue length and the idle
 * flag are plain fields; reply() and push() take jobs from `queue`.
 *
 * It also counts what the node engine counts at the policy's boundary
 * (fake_node_stat, below): a policy counts only what the node cannot see.
 *
 * White-box on purpose: the timer ids come from policy_internal.h.
 */
#ifndef TEST_POLICY_FAKE_H
#define TEST_POLICY_FAKE_H

#include "../tap.h"
#include "policy/policy.h"
#include "policy/policy_internal.h"

#include <stdint.h>
#include <stdlib.h>

enum fake_kind {
    FAKE_STEAL = 1, FAKE_REPLY, FAKE_FORWARD, FAKE_CANCEL, FAKE_PUSH, FAKE_LOAD,
    FAKE_SET_TIMER, FAKE_CLEAR_TIMER,
};

static const char *const fake_kind_name[] = {
    "?", "steal", "reply", "forward", "cancel", "push", "load", "set_timer", "clear_timer",
};

typedef struct fake_action {
    int kind;
    int node;        /* steal/cancel: victim; reply: thief; forward: to; push: target;
                        load: coordinator; set/clear_timer: timer id */
    int thief;       /* forward/cancel: the request's thief */
    uint64_t id;     /* steal: the id handed out; reply/forward/cancel: the request's */
    unsigned flags;  /* steal/reply/forward */
    int64_t value;   /* reply: max_jobs; load: the load; set_timer: the delay */
    int result;      /* reply: jobs sent; push: 1 if a job went */
    int64_t at;      /* fake clock when asked */
    int answered;    /* steal: a reply to it was delivered */
    int withdrawn;   /* steal: the policy cancelled it */
} fake_action;

#define FAKE_MAX_ACTIONS 4096
#define FAKE_MAX_DRAWS 1024
#define FAKE_MAX_TIMERS 8

typedef struct fake_env {
    satin_policy_env env;
    fake_action act[FAKE_MAX_ACTIONS];
    int nact;            /* recorded */
    int seen;            /* the next one expect_*() checks */
    uint64_t next_id;    /* steal ids: 101, 102, ... */
    int64_t clock;
    int64_t queue;       /* fake queue length */
    int idle;            /* fake is_idle() */
    uint64_t draw[FAKE_MAX_DRAWS];
    int ndraw, ndrawn;
    int unscripted;      /* draws taken after the script ran out */
    uint64_t rng;
    int64_t due[FAKE_MAX_TIMERS]; /* -1: not set */
    const satin_policy_topology *topo; /* set by fake_create: what WAN and "own" mean */
    /* The events fake_on_*() delivered, counted as the node counts them. */
    int64_t successes_lan, successes_wan, failures, late_replies, prefetch_successes;
    int64_t cancels_received, pushes_received, push_acks;
} fake_env;

static fake_action *fake_record_(fake_env *fe, int kind)
{
    static fake_action overflow;
    if (fe->nact >= FAKE_MAX_ACTIONS) {
        ok(0, "fake: action log overflow");
        return &overflow;
    }
    fake_action *a = &fe->act[fe->nact++];
    memset(a, 0, sizeof *a);
    a->kind = kind;
    a->at = fe->clock;
    return a;
}

static uint64_t fake_steal_(void *ctx, int victim, unsigned flags)
{
    fake_env *fe = ctx;
    fake_action *a = fake_record_(fe, FAKE_STEAL);
    a->node = victim;
    a->flags = flags;
    a->id = fe->next_id++;
    return a->id;
}

static int fake_reply_(void *ctx, int thief, uint64_t id, unsigned flags, int max_jobs)
{
    fake_env *fe = ctx;
    fake_action *a = fake_record_(fe, FAKE_REPLY);
    int64_t n = max_jobs < fe->queue ? max_jobs : fe->queue;
    if (n < 0)
        n = 0;
    fe->queue -= n;
    a->node = thief;
    a->id = id;
    a->flags = flags;
    a->value = max_jobs;
    a->result = (int)n;
    return (int)n;
}

static void fake_forward_(void *ctx, int to, int thief, uint64_t id, unsigned flags)
{
    fake_action *a = fake_record_(ctx, FAKE_FORWARD);
    a->node = to;
    a->thief = thief;
    a->id = id;
    a->flags = flags;
}

/* The steal request `id` this fake handed out, or NULL. */
static fake_action *fake_find_steal_(fake_env *fe, uint64_t id)
{
    for (int i = 0; i < fe->nact; i++)
        if (fe->act[i].kind == FAKE_STEAL && fe->act[i].id == id)
            return &fe->act[i];
    return NULL;
}

static int fake_self_(const fake_env *fe)
{
    return fe->topo ? fe->topo->self : -1;
}

static void fake_cancel_(void *ctx, int victim, int thief, uint64_t id)
{
    fake_env *fe = ctx;
    fake_action *a = fake_record_(fe, FAKE_CANCEL);
    a->node = victim;
    a->thief = thief;
    a->id = id;
    fake_action *s = thief == fake_self_(fe) ? fake_find_steal_(fe, id) : NULL;
    /* As the node does: an own request still out is marked (its reply will
     * be late) and the cancel counted; result says so. */
    if (s && !s->answered) {
        s->withdrawn = 1;
        a->result = 1;
    }
}

static int fake_push_(void *ctx, int target)
{
    fake_env *fe = ctx;
    fake_action *a = fake_record_(fe, FAKE_PUSH);
    a->node = target;
    a->result = fe->queue > 0;
    if (a->result)
        fe->queue--;
    return a->result;
}

static void fake_send_load_(void *ctx, int coordinator, int64_t load)
{
    fake_action *a = fake_record_(ctx, FAKE_LOAD);
    a->node = coordinator;
    a->value = load;
}

static void fake_set_timer_(void *ctx, int timer_id, int64_t delay_ns)
{
    fake_env *fe = ctx;
    fake_action *a = fake_record_(fe, FAKE_SET_TIMER);
    a->node = timer_id;
    a->value = delay_ns;
    if (timer_id >= 0 && timer_id < FAKE_MAX_TIMERS)
        fe->due[timer_id] = fe->clock + delay_ns;
    else
        ok(0, "fake: timer id %d out of range", timer_id);
}

static void fake_clear_timer_(void *ctx, int timer_id)
{
    fake_env *fe = ctx;
    fake_action *a = fake_record_(fe, FAKE_CLEAR_TIMER);
    a->node = timer_id;
    if (timer_id >= 0 && timer_id < FAKE_MAX_TIMERS)
        fe->due[timer_id] = -1;
}

static uint64_t fake_random_(void *ctx)
{
    fake_env *fe = ctx;
    if (fe->ndrawn < fe->ndraw)
        return fe->draw[fe->ndrawn++];
    fe->unscripted++;
    fe->rng ^= fe->rng << 13;
    fe->rng ^= fe->rng >> 7;
    fe->rng ^= fe->rng << 17;
    return fe->rng;
}

static int64_t fake_now_(void *ctx) { return ((fake_env *)ctx)->clock; }
static int64_t fake_queue_length_(void *ctx) { return ((fake_env *)ctx)->queue; }
static int fake_is_idle_(void *ctx) { return ((fake_env *)ctx)->idle; }

/* A fresh environment: idle, empty queue, clock 0, no draws scripted. */
static fake_env *fake_new(void)
{
    fake_env *fe = calloc(1, sizeof *fe);
    if (!fe)
        abort();
    fe->env = (satin_policy_env){
        .ctx = fe, .steal = fake_steal_, .reply = fake_reply_, .forward = fake_forward_,
        .cancel = fake_cancel_, .push = fake_push_, .send_load = fake_send_load_,
        .set_timer = fake_set_timer_, .clear_timer = fake_clear_timer_,
        .random = fake_random_, .now = fake_now_, .queue_length = fake_queue_length_,
        .is_idle = fake_is_idle_,
    };
    fe->next_id = 101;
    fe->idle = 1;
    fe->rng = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < FAKE_MAX_TIMERS; i++)
        fe->due[i] = -1;
    return fe;
}

/* Appends draws to the script: FAKE_DRAWS(fe, 2, 0, 5). */
#define FAKE_DRAWS(fe, ...) \
    fake_script_((fe), (const uint64_t[]){__VA_ARGS__}, \
                 (int)(sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t)))

static void fake_script_(fake_env *fe, const uint64_t *d, int n)
{
    for (int i = 0; i < n && fe->ndraw < FAKE_MAX_DRAWS; i++)
        fe->draw[fe->ndraw++] = d[i];
}

/* Draws scripted but not yet taken. */
static int fake_draws_left(const fake_env *fe)
{
    return fe->ndraw - fe->ndrawn;
}

/* ---- topology: clusters of the given sizes, nodes numbered in cluster order ---- */

#define FAKE_MAX_NODES 128
#define FAKE_MAX_CLUSTERS 16

typedef struct fake_topo {
    satin_policy_topology t;
    int cluster_of[FAKE_MAX_NODES];
    int cluster_size[FAKE_MAX_CLUSTERS];
    int store[FAKE_MAX_NODES];
    const int *members[FAKE_MAX_CLUSTERS];
} fake_topo;

/* `ft` must stay where it is (the topology points into it). */
static void fake_topo_init(fake_topo *ft, int self, int nclusters, const int *sizes)
{
    memset(ft, 0, sizeof *ft);
    int n = 0;
    for (int c = 0; c < nclusters; c++) {
        ft->cluster_size[c] = sizes[c];
        ft->members[c] = &ft->store[n];
        for (int i = 0; i < sizes[c]; i++, n++) {
            ft->store[n] = n;
            ft->cluster_of[n] = c;
        }
    }
    ft->t = (satin_policy_topology){
        .nnodes = n, .self = self, .nclusters = nclusters, .cluster_of = ft->cluster_of,
        .cluster_size = ft->cluster_size, .members = ft->members,
    };
}

static satin_policy *fake_create(const satin_policy_ops *ops, const fake_topo *ft,
                                 fake_env *fe, const satin_policy_params *pp)
{
    satin_policy_params def;
    if (!pp) {
        satin_policy_params_default(&def);
        pp = &def;
    }
    fe->topo = &ft->t;
    satin_policy *p = ops->create(&ft->t, pp, &fe->env);
    if (!p)
        abort();
    return p;
}

/* ---- time ------------------------------------------------------------------ */

/* Jumps the clock to the earliest set timer and fires it; its id, or -1. */
static int fake_fire_next(fake_env *fe, const satin_policy_ops *ops, satin_policy *p)
{
    int best = -1;
    for (int i = 0; i < FAKE_MAX_TIMERS; i++)
        if (fe->due[i] >= 0 && (best < 0 || fe->due[i] < fe->due[best]))
            best = i;
    if (best < 0)
        return -1;
    if (fe->due[best] > fe->clock)
        fe->clock = fe->due[best];
    fe->due[best] = -1;
    ops->on_timer(p, best);
    return best;
}

/* Moves the clock forward by `ns`, firing every timer due on the way, in order. */
static int fake_advance(fake_env *fe, const satin_policy_ops *ops, satin_policy *p, int64_t ns)
{
    int64_t end = fe->clock + ns, fired = 0;
    for (;;) {
        int best = -1;
        for (int i = 0; i < FAKE_MAX_TIMERS; i++)
            if (fe->due[i] >= 0 && fe->due[i] <= end && (best < 0 || fe->due[i] < fe->due[best]))
                best = i;
        if (best < 0)
            break;
        fake_fire_next(fe, ops, p);
        fired++;
    }
    fe->clock = end;
    return (int)fired;
}

/* ---- checking the log --------------------------------------------------------- */

static void fake_show_(const fake_action *a)
{
    if (!a) {
        diag("   got: no action");
        return;
    }
    diag("   got: %s node=%d thief=%d id=%" PRIu64 " flags=0x%x value=%" PRId64
         " result=%d at=%" PRId64,
         fake_kind_name[a->kind], a->node, a->thief, a->id, a->flags, a->value, a->result,
         a->at);
}

static const fake_action *fake_next_(fake_env *fe)
{
    return fe->seen < fe->nact ? &fe->act[fe->seen++] : NULL;
}

static const fake_action *fake_expect_(fake_env *fe, int kind, int node, int thief,
                                       unsigned flags, int64_t value, int check_value,
                                       const char *what)
{
    const fake_action *a = fake_next_(fe);
    int good = a && a->kind == kind && a->node == node &&
               (kind != FAKE_FORWARD || a->thief == thief) &&
               (!(kind == FAKE_STEAL || kind == FAKE_FORWARD || kind == FAKE_REPLY) ||
                a->flags == flags) &&
               (!check_value || a->value == value);
    if (!ok(good, "%s", what)) {
        diag("wanted: %s node=%d thief=%d flags=0x%x value=%" PRId64, fake_kind_name[kind], node,
             thief, flags, value);
        fake_show_(a);
    }
    return a;
}

/* Each checks the next recorded action and returns what it needs. */
static uint64_t expect_steal(fake_env *fe, int victim, unsigned flags, const char *what)
{
    const fake_action *a = fake_expect_(fe, FAKE_STEAL, victim, 0, flags, 0, 0, what);
    return a ? a->id : 0;
}

static void expect_reply(fake_env *fe, int thief, uint64_t id, unsigned flags, int max_jobs,
                         const char *what)
{
    const fake_action *a = fake_expect_(fe, FAKE_REPLY, thief, 0, flags, max_jobs, 1, what);
    if (a && a->id != id)
        ok(0, "%s: reply to request %" PRIu64 ", not %" PRIu64, what, id, a->id);
}

static void expect_forward(fake_env *fe, int to, int thief, uint64_t id, unsigned flags,
                           const char *what)
{
    const fake_action *a = fake_expect_(fe, FAKE_FORWARD, to, thief, flags, 0, 0, what);
    if (a && a->id != id)
        ok(0, "%s: forwards request %" PRIu64 ", not %" PRIu64, what, id, a->id);
}

static void expect_cancel(fake_env *fe, int victim, int thief, uint64_t id, const char *what)
{
    const fake_action *a = fake_expect_(fe, FAKE_CANCEL, victim, 0, 0, 0, 0, what);
    if (a && a->id != id)
        ok(0, "%s: cancels request %" PRIu64 ", not %" PRIu64, what, id, a->id);
    if (a && a->thief != thief)
        ok(0, "%s: cancels thief %d's request, not %d's", what, thief, a->thief);
}

static void expect_push(fake_env *fe, int target, const char *what)
{
    fake_expect_(fe, FAKE_PUSH, target, 0, 0, 0, 0, what);
}

static void expect_load(fake_env *fe, int coordinator, int64_t load, const char *what)
{
    fake_expect_(fe, FAKE_LOAD, coordinator, 0, 0, load, 1, what);
}

static void expect_timer(fake_env *fe, int timer_id, int64_t delay_ns, const char *what)
{
    fake_expect_(fe, FAKE_SET_TIMER, timer_id, 0, 0, delay_ns, 1, what);
}

static void expect_clear(fake_env *fe, int timer_id, const char *what)
{
    fake_expect_(fe, FAKE_CLEAR_TIMER, timer_id, 0, 0, 0, 0, what);
}

static void expect_none(fake_env *fe, const char *what)
{
    const fake_action *a = fe->seen < fe->nact ? &fe->act[fe->seen] : NULL;
    if (!ok(a == NULL, "%s", what))
        fake_show_(a);
    fe->seen = fe->nact;
}

/* Skips whatever has not been checked yet. */
static void fake_skip(fake_env *fe)
{
    fe->seen = fe->nact;
}

/* How many recorded actions (from index `from`) are of `kind`. */
static int fake_count(const fake_env *fe, int from, int kind)
{
    int n = 0;
    for (int i = from; i < fe->nact; i++)
        n += fe->act[i].kind == kind;
    return n;
}

/* The value of counter `name` in p's stats, or -1 if it does not report it. */
static int64_t fake_stat(const satin_policy_ops *ops, const satin_policy *p, const char *name)
{
    const char *names[64];
    int64_t values[64];
    int n = ops->stats(p, names, values, 64);
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return values[i];
    return -1;
}

/* ---- what the node counts -------------------------------------------------
 * The node engine counts every action a policy takes and every event it feeds
 * one (daemon/engine/README.md, "Counters"); a policy counts only what the
 * node cannot see.  The fake counts the same facts the same way, under the
 * node's names: actions from the log, events as the fake_on_*() below hand
 * them to the policy.  Unlike the node, fake_on_steal_reply also hands over
 * a reply to a request that is not out (counted as late, as the node does),
 * so that a test can check that the policy ignores it. */

static int fake_remote_(const fake_env *fe, int node)
{
    const satin_policy_topology *t = fe->topo;
    if (!t || node < 0 || node >= t->nnodes) {
        ok(0, "fake: node %d has no cluster (fake_create sets the topology)", node);
        return 0;
    }
    return t->cluster_of[node] != t->cluster_of[t->self];
}

/* The node counter `name` as the node would count this fake's log and
 * events; -1 for a name the node does not count at the boundary. */
static int64_t fake_node_stat(const fake_env *fe, const char *name)
{
    int64_t lan = 0, wan = 0, sync = 0, async = 0, prefetches = 0, served = 0, given = 0;
    int64_t forwarded = 0, cancels = 0, cancels_forwarded = 0, pushes = 0, loads = 0;
    for (int i = 0; i < fe->nact; i++) {
        const fake_action *a = &fe->act[i];
        switch (a->kind) {
        case FAKE_STEAL:
            *(fake_remote_(fe, a->node) ? &wan : &lan) += 1;
            *((a->flags & SATIN_STEAL_SYNC) ? &sync : &async) += 1;
            prefetches += !!(a->flags & SATIN_STEAL_PREFETCH);
            break;
        case FAKE_REPLY:
            served++;
            given += a->result;
            break;
        case FAKE_FORWARD:
            forwarded++;
            break;
        case FAKE_CANCEL:
            if (a->thief != fake_self_(fe))
                cancels_forwarded++;
            else
                cancels += a->result;
            break;
        case FAKE_PUSH:
            pushes += a->result;
            given += a->result;
            break;
        case FAKE_LOAD:
            loads++;
            break;
        }
    }
    const struct { const char *name; int64_t value; } all[] = {
        {"steal_attempts_lan", lan}, {"steal_attempts_wan", wan},
        {"steal_attempts_sync", sync}, {"steal_attempts_async", async},
        {"steal_successes_lan", fe->successes_lan}, {"steal_successes_wan", fe->successes_wan},
        {"steal_failures", fe->failures}, {"late_replies", fe->late_replies},
        {"steal_cancels", cancels}, {"requests_served", served},
        {"requests_forwarded", forwarded}, {"steal_cancels_received", fe->cancels_received},
        {"steal_cancels_forwarded", cancels_forwarded}, {"jobs_given", given},
        {"pushes", pushes}, {"pushes_received", fe->pushes_received},
        {"push_acks", fe->push_acks}, {"load_reports", loads}, {"prefetches", prefetches},
        {"prefetch_successes", fe->prefetch_successes},
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i].name, name) == 0)
            return all[i].value;
    return -1;
}

/* steal_successes_lan + steal_successes_wan: replies that brought jobs. */
static int64_t fake_node_successes(const fake_env *fe)
{
    return fake_node_stat(fe, "steal_successes_lan") + fake_node_stat(fe, "steal_successes_wan");
}

/* steal_attempts_lan + steal_attempts_wan: steal requests sent. */
static int64_t fake_node_attempts(const fake_env *fe)
{
    return fake_node_stat(fe, "steal_attempts_lan") + fake_node_stat(fe, "steal_attempts_wan");
}

/* The reply of `victim` to our request `id`, as the node settles it: late
 * when the request is not out (never sent, answered already) or was
 * withdrawn; else a success (with jobs) or a failure. */
static void fake_on_steal_reply(fake_env *fe, const satin_policy_ops *ops, satin_policy *p,
                                int victim, uint64_t id, int njobs, unsigned flags)
{
    fake_action *s = fake_find_steal_(fe, id);
    if (!s || s->answered || s->withdrawn) {
        fe->late_replies++;
    } else if (njobs <= 0) {
        fe->failures++;
    } else {
        *(fake_remote_(fe, victim) ? &fe->successes_wan : &fe->successes_lan) += 1;
        fe->prefetch_successes += !!(s->flags & SATIN_STEAL_PREFETCH);
    }
    if (s)
        s->answered = 1;
    ops->on_steal_reply(p, victim, id, njobs, flags);
}

static void fake_on_cancel(fake_env *fe, const satin_policy_ops *ops, satin_policy *p, int from,
                           uint64_t id)
{
    fe->cancels_received++;
    ops->on_cancel(p, from, id);
}

static void fake_on_push(fake_env *fe, const satin_policy_ops *ops, satin_policy *p, int from)
{
    fe->pushes_received++;
    ops->on_push(p, from);
}

static void fake_on_push_ack(fake_env *fe, const satin_policy_ops *ops, satin_policy *p,
                             int target)
{
    fe->push_acks++;
    ops->on_push_ack(p, target);
}

/* Delivers `n` requests (ids 9001..) from `thief` and checks each got exactly
 * one answer (a reply or a forward) carrying its id. */
static void fake_check_answers_once(fake_env *fe, const satin_policy_ops *ops, satin_policy *p,
                                    int thief, unsigned flags, int n, const char *what)
{
    int from = fe->nact, good = 1;
    for (int i = 0; i < n; i++)
        ops->on_steal_request(p, thief, thief, 9001 + (uint64_t)i, flags);
    for (int i = 0; i < n; i++) {
        int answers = 0;
        for (int k = from; k < fe->nact; k++)
            if ((fe->act[k].kind == FAKE_REPLY || fe->act[k].kind == FAKE_FORWARD) &&
                fe->act[k].id == 9001 + (uint64_t)i)
                answers++;
        good &= answers == 1;
    }
    good &= fake_count(fe, from, FAKE_REPLY) + fake_count(fe, from, FAKE_FORWARD) == n;
    ok(good, "%s: %d requests, each answered exactly once", what, n);
    fe->seen = fe->nact;
}

/* Silences -Wunused-function for helpers a given test does not use. */
static inline void fake_unused_(void)
{
    (void)expect_steal, (void)expect_reply, (void)expect_forward, (void)expect_cancel;
    (void)expect_push, (void)expect_load, (void)expect_timer, (void)expect_clear;
    (void)expect_none, (void)fake_skip, (void)fake_count, (void)fake_stat;
    (void)fake_check_answers_once, (void)fake_advance, (void)fake_fire_next;
    (void)fake_draws_left, (void)fake_create, (void)fake_topo_init, (void)fake_new;
    (void)fake_node_stat, (void)fake_node_successes, (void)fake_node_attempts;
    (void)fake_on_steal_reply, (void)fake_on_cancel, (void)fake_on_push, (void)fake_on_push_ack;
}

#endif
