/*
 * knapsack.c - 0/1 knapsack by branch and bound (one of the paper's
 * applications): the largest total value of a subset of n items whose total
 * weight is at most the capacity.
 *
 * Instance.  Items come from SplitMix64 seeded with `seed`; for item
 * i = 0..n-1 in turn: w = 1 + next() % 1000, then the value by `type`:
 *   uncorrelated  v = 1 + next() % 1000
 *   weak          v = max(1, w - 100 + next() % 201)
 *   strong        v = w + 100            (no draw; the hard classic)
 * The default capacity is half the total weight (rounded down).  The
 * generator is part of the kind's definition: the unit test repeats it.
 *
 * Search.  parse sorts the items by value/weight, best first (ties: lower
 * item number first), and the search decides them in that order, taking an
 * item before leaving it out.  The upper bound of a node is Dantzig's: fill
 * the room with the next items in order and a fraction of the first one
 * that does not fit (rounded down).  A job carries the items still to decide,
 * the room and value so far, and `lb`, the value of a feasible solution of
 * the whole instance known when the job was made.  It returns
 *     max(lb, the best value reachable in its subtree),
 * pruning nodes whose bound is <= the best value it knows.  That makes a
 * job's result a pure function of its argument bytes whatever prunes what,
 * so the value is the same on any number of workers.
 *
 * Incumbents.  With bound=local a job knows only the lb handed down by its
 * parent, and a sibling's better solution helps only after the sync.  With
 * bound=shared (the default) it also prunes by the job's grid-wide value
 * `best` (satin_value), the greatest value any node of the job reached: a
 * node is pruned when its bound cannot reach it, never when it ties it, so
 * the value is exact however late `best` comes (a record run again after
 * its node died finds that node's solution again).  `explored` counts the
 * search nodes of every job; with bound=shared it depends on the schedule.  A
 * sequential depth-first search, by contrast, usually finds a near-optimal
 * solution within its first few thousand nodes and prunes the rest with it;
 * without that, strongly correlated instances took 10-100 times longer.  So
 * a job first raises lb with a greedy completion (take each remaining item
 * that still fits), and a job that is to spawn first runs the sequential
 * search of its own subtree for a limited number of nodes (the "probe":
 * parameter probe >> 2*depth, at least min(probe, KS_PROBE_MIN); probe=0
 * turns probes off, as the unit test does to exercise the spawning).  A
 * probe that finishes is the job's answer (small subtrees are not split);
 * otherwise its best value is the lb the children get.
 *
 * Threshold.  A job with more than `threshold` undecided items spawns its
 * "take" and "leave" children; one with at most that many runs the whole
 * search of its subtree sequentially with its own incumbent.  The threshold
 * counts the items left, not the ones decided, because the search tree of
 * the hard (strongly correlated) instances is narrow at the top and bushy
 * only around the critical item, about halfway down: a cut at a fixed depth
 * near the top left one leaf job with nearly all the work.  Measured with
 * the default 30 on strong instances of n = 80..100 items: 1.03-1.11 times
 * the nodes of the sequential search, and the largest job (the root's probe)
 * 0.2-3% of the work.
 */
#include "apps.h"
#include "kind_shared.h"
#include "splitmix.h"

#include <stdint.h>
#include <string.h>

#define KS_MAX_N 1000
#define KS_MAX_WEIGHT 1000
#define KS_MAX_VALUE (KS_MAX_WEIGHT + 100)   /* strong: w + 100; weak: at most w + 100 */
#define KS_MAX_CAPACITY (INT64_C(1) << 40)
#define KS_DEFAULT_THRESHOLD "30"
/* The sequential search looks at the cancel flag once per this many nodes. */
#define KS_CANCEL_MASK 0xffffu
/* The probe budget of the root (parameter probe=) and its floor for deeper
 * jobs (see ks_probe_budget). */
#define KS_DEFAULT_PROBE "1048576"
#define KS_MAX_PROBE (INT64_C(1) << 32)
#define KS_PROBE_MIN 256

enum { KS_UNCORRELATED, KS_WEAK, KS_STRONG };
static const char *const ks_types[] = {"uncorrelated", "weak", "strong"};
#define KS_NTYPES ((int)(sizeof ks_types / sizeof ks_types[0]))

/* Fixed-width fields with no padding: the bytes may cross machines.  The
 * argument is a ks_head followed by `n` ks_items, the undecided ones. */
typedef struct ks_item {
    int32_t w, v;
} ks_item;

typedef struct ks_head {
    int32_t n;          /* items still to decide (they follow the head) */
    int32_t depth;      /* items decided above this job */
    int32_t threshold;  /* spawn children while n > threshold */
    int32_t shared;     /* 1: prune by the job's grid-wide best too (bound=shared); 0: not */
    int64_t room;       /* capacity left */
    int64_t value;      /* value of the items taken */
    int64_t lb;         /* value of some feasible solution of the whole instance */
    int64_t probe;      /* the root's probe budget (see ks_probe_budget) */
} ks_head;

typedef struct ks_job {
    ks_head h;
    ks_item it[KS_MAX_N];
} ks_job;

/* Dantzig's bound for items it[i..n-1] sorted by ratio. */
static int64_t ks_bound(const ks_item *it, int32_t n, int32_t i, int64_t room, int64_t value)
{
    for (; i < n; i++) {
        if (it[i].w <= room) {
            room -= it[i].w;
            value += it[i].v;
        } else {
            return value + (int64_t)it[i].v * room / it[i].w;
        }
    }
    return value;
}

/* A feasible completion: every remaining item that still fits, in order. */
static int64_t ks_greedy(const ks_item *it, int32_t n, int64_t room, int64_t value)
{
    for (int32_t i = 0; i < n; i++) {
        if (it[i].w <= room) {
            room -= it[i].w;
            value += it[i].v;
        }
    }
    return value;
}

/* The nodes a spawning job at `depth` searches on its own before it spawns:
 * probe >> 2*depth, at least min(probe, KS_PROBE_MIN); 0: no probe. */
static uint64_t ks_probe_budget(int64_t probe, int32_t depth)
{
    uint64_t p = (uint64_t)probe, b = depth < 32 ? p >> (2 * depth) : 0;
    uint64_t least = p < KS_PROBE_MIN ? p : KS_PROBE_MIN;
    return b > least ? b : least;
}

typedef struct ks_search {
    const ks_item *it;
    int32_t n;
    int stop;            /* 1: budget used up or job cancelled: search incomplete */
    uint64_t nodes;
    uint64_t budget;     /* stop after this many nodes; 0: no limit */
    int64_t best;
    int shared;          /* the job's grid-wide best (value 0) prunes too */
} ks_search;

/* The grid-wide best: the greatest value any node of the job reached so far. */
#define KS_SHARED_BEST 0

/* A node whose bound is b may still beat this job's best, and reach the
 * grid's (a tie with the grid's best is explored, not pruned: its finder's
 * result may be lost with its node, and the re-run must find it again). */
static int ks_wanted(const ks_search *s, int64_t b)
{
    return b > s->best && (!s->shared || b >= satin_value(KS_SHARED_BEST));
}

static void ks_found(ks_search *s, int64_t value)
{
    if (value > s->best) {
        s->best = value;
        if (s->shared)
            satin_value_join(KS_SHARED_BEST, value);
    }
}

static void ks_dfs(ks_search *s, int32_t i, int64_t room, int64_t value)
{
    ks_found(s, value);
    if (i == s->n || s->stop)
        return;
    s->nodes++;
    if ((s->budget && s->nodes > s->budget) ||
        ((s->nodes & KS_CANCEL_MASK) == 0 && satin_cancelled())) {
        s->stop = 1;
        return;
    }
    if (!ks_wanted(s, ks_bound(s->it, s->n, i, room, value)))
        return;
    if (s->it[i].w <= room)
        ks_dfs(s, i + 1, room - s->it[i].w, value + s->it[i].v);
    ks_dfs(s, i + 1, room, value);
}

/* A job's answer: max(lb, the best value in its subtree), and the search
 * nodes its subtree explored on every node (probes too). */
typedef struct ks_res {
    int64_t value;
    int64_t explored;
} ks_res;

/* A job's argument is its header and the n items still to decide, a length
 * only the header gives: a bytes task. */
static int ks_check(const void *arg, size_t len, satin_err *err);
SATIN_BYTES_TASK(knapsack, ks_check);

/* The check (below) held a record of another node to what parse allows; the
 * body keeps its own guard of the lengths and items, whoever spawned it. */
static void knapsack(SATIN_FRAME, const void *arg, size_t len)
{
    ks_job j;
    if (len < sizeof j.h) {
        satin_fail("knapsack: argument of %zu bytes, expected at least %zu", len, sizeof j.h);
        return;
    }
    memcpy(&j.h, arg, sizeof j.h);
    if (j.h.n < 0 || j.h.n > KS_MAX_N || j.h.depth < 0) {
        satin_fail("knapsack: corrupt argument (n=%d, depth=%d)", (int)j.h.n, (int)j.h.depth);
        return;
    }
    size_t want = sizeof j.h + (size_t)j.h.n * sizeof(ks_item);
    if (len != want) {
        satin_fail("knapsack: argument of %zu bytes, expected %zu", len, want);
        return;
    }
    memcpy(j.it, (const unsigned char *)arg + sizeof j.h, (size_t)j.h.n * sizeof(ks_item));
    int corrupt = j.h.room < 0 || j.h.room > KS_MAX_CAPACITY || j.h.value < 0 || j.h.lb < 0 ||
                  j.h.probe < 0;
    for (int32_t i = 0; i < j.h.n && !corrupt; i++)
        corrupt = j.it[i].w < 1 || j.it[i].w > KS_MAX_WEIGHT || j.it[i].v < 1 ||
                  j.it[i].v > KS_MAX_VALUE;
    if (corrupt) {
        satin_fail("knapsack: corrupt argument (room=%lld, value=%lld)", (long long)j.h.room,
                   (long long)j.h.value);
        return;
    }

    int64_t lb = j.h.lb, g = ks_greedy(j.it, j.h.n, j.h.room, j.h.value);
    /* Below the threshold: the whole subtree.  Above it: the probe, which
     * either finishes the subtree at once or gives the children the good
     * incumbent that the first descents of a depth-first search find. */
    int spawning = j.h.n > j.h.threshold;
    uint64_t budget = spawning ? ks_probe_budget(j.h.probe, j.h.depth) : 0;
    ks_search s = {j.it, j.h.n, 0, 0, budget, lb, j.h.shared};
    ks_found(&s, g);
    if (!spawning || budget > 0)
        ks_dfs(&s, 0, j.h.room, j.h.value);
    lb = s.best;
    ks_res r = {lb, (int64_t)s.nodes};
    if (spawning && (budget == 0 || s.stop) && !satin_cancelled() &&
        ks_wanted(&s, ks_bound(j.it, j.h.n, 0, j.h.room, j.h.value))) {
        /* The children decide item 0 and carry items 1..n-1. */
        ks_job child;
        child.h = j.h;
        child.h.n = j.h.n - 1;
        child.h.depth = j.h.depth + 1;
        child.h.lb = lb;
        memcpy(child.it, j.it + 1, (size_t)child.h.n * sizeof(ks_item));
        size_t clen = sizeof child.h + (size_t)child.h.n * sizeof(ks_item);
        ks_res rt = {lb, 0}, rl = {lb, 0};
        if (j.it[0].w <= j.h.room) {
            child.h.room = j.h.room - j.it[0].w;
            child.h.value = j.h.value + j.it[0].v;
            satin_spawn_bytes(knapsack, &child, clen, &rt, sizeof rt);
        }
        child.h.room = j.h.room;
        child.h.value = j.h.value;
        satin_spawn_bytes(knapsack, &child, clen, &rl, sizeof rl);
        satin_sync();
        r.explored += rt.explored + rl.explored;
        if (rt.value > r.value)
            r.value = rt.value;
        if (rl.value > r.value)
            r.value = rl.value;
    }
    satin_return(&r, sizeof r);
}

/* True when item a should be decided before item b (better ratio first). */
static int ks_before(const ks_item *a, int32_t ia, const ks_item *b, int32_t ib)
{
    int64_t l = (int64_t)a->v * b->w, rr = (int64_t)b->v * a->w;
    return l != rr ? l > rr : ia < ib;
}

static int ks_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    int64_t n, seed, capacity = -1, threshold, probe;
    const char *type = "uncorrelated", *bound = "shared";
    if (satin_param_i64(p, "n", 1, KS_MAX_N, &n, err) < 0 ||
        satin_param_i64(p, "seed", 0, INT64_MAX, &seed, err) < 0 ||
        satin_param_i64(p, "capacity", 0, KS_MAX_CAPACITY, &capacity, err) < 0 ||
        satin_param_i64(p, "threshold", 0, KS_MAX_N, &threshold, err) < 0 ||
        satin_param_i64(p, "probe", 0, KS_MAX_PROBE, &probe, err) < 0 ||
        satin_param_str(p, "type", &type, err) < 0 ||
        satin_param_str(p, "bound", &bound, err) < 0)
        return -1;
    if (strcmp(bound, "shared") != 0 && strcmp(bound, "local") != 0)
        return satin_err_set(err, "knapsack: bound=%s is not shared or local", bound);
    int t = -1;
    for (int i = 0; i < KS_NTYPES; i++)
        if (strcmp(type, ks_types[i]) == 0)
            t = i;
    if (t < 0)
        return satin_err_set(err,
                             "knapsack: unknown type '%s' (valid: uncorrelated, weak, strong)",
                             type);

    ks_job local;
    memset(&local.h, 0, sizeof local.h);
    uint64_t rng = (uint64_t)seed;
    int32_t idx[KS_MAX_N];
    int64_t total = 0;
    for (int32_t i = 0; i < (int32_t)n; i++) {
        ks_item x;
        x.w = 1 + (int32_t)(satin_splitmix_next(&rng) % KS_MAX_WEIGHT);
        if (t == KS_UNCORRELATED) {
            x.v = 1 + (int32_t)(satin_splitmix_next(&rng) % KS_MAX_WEIGHT);
        } else if (t == KS_WEAK) {
            x.v = x.w - 100 + (int32_t)(satin_splitmix_next(&rng) % 201);
            if (x.v < 1)
                x.v = 1;
        } else {
            x.v = x.w + 100;
        }
        total += x.w;
        /* Insertion sort: stable, and n <= 1000. */
        int32_t k = i;
        while (k > 0 && ks_before(&x, i, &local.it[k - 1], idx[k - 1])) {
            local.it[k] = local.it[k - 1];
            idx[k] = idx[k - 1];
            k--;
        }
        local.it[k] = x;
        idx[k] = i;
    }
    if (capacity < 0)
        capacity = total / 2;
    local.h.n = (int32_t)n;
    local.h.depth = 0;
    local.h.threshold = (int32_t)threshold;
    local.h.room = capacity;
    local.h.value = 0;
    local.h.lb = 0;
    local.h.probe = probe;
    local.h.shared = strcmp(bound, "shared") == 0;
    return satin_bytes_put(arg, &local,
                           sizeof local.h + (size_t)local.h.n * sizeof(ks_item), err);
}

/* What parse makes and the spawns keep: at most KS_MAX_N items in all,
 * `depth` decided and `n` still to decide, each within the generator's
 * weights and values and in the order parse sorted them; the value taken
 * and lb at most what the decided (all) items can be worth, so that no sum
 * overflows. */
static int ks_valid(const ks_head *h, const unsigned char *item_bytes, satin_err *err)
{
    ks_item it[KS_MAX_N];
    memcpy(it, item_bytes, (size_t)h->n * sizeof(ks_item));
    if (satin_arg_range("knapsack", "depth", h->depth, 0, KS_MAX_N - h->n, err) < 0 ||
        satin_arg_range("knapsack", "threshold", h->threshold, 0, KS_MAX_N, err) < 0 ||
        satin_arg_range("knapsack", "shared", h->shared, 0, 1, err) < 0 ||
        satin_arg_range("knapsack", "room", h->room, 0, KS_MAX_CAPACITY, err) < 0 ||
        satin_arg_range("knapsack", "value", h->value, 0, (int64_t)h->depth * KS_MAX_VALUE,
                        err) < 0 ||
        satin_arg_range("knapsack", "lb", h->lb, 0, (int64_t)KS_MAX_N * KS_MAX_VALUE, err) < 0 ||
        satin_arg_range("knapsack", "probe", h->probe, 0, KS_MAX_PROBE, err) < 0)
        return -1;
    for (int32_t i = 0; i < h->n; i++) {
        if (it[i].w < 1 || it[i].w > KS_MAX_WEIGHT || it[i].v < 1 || it[i].v > KS_MAX_VALUE)
            return satin_err_set(err, "knapsack: item %d (weight %d, value %d) is out of range",
                                 (int)i, (int)it[i].w, (int)it[i].v);
        if (i > 0 && (int64_t)it[i].v * it[i - 1].w > (int64_t)it[i - 1].v * it[i].w)
            return satin_err_set(err, "knapsack: item %d is not in value/weight order", (int)i);
    }
    return 0;
}

SATIN_ARG_CHECK_ITEMS(ks_check, "knapsack", ks_head, n, 0, KS_MAX_N, sizeof(ks_item), "items",
                      ks_valid)

static void ks_format(const void *res, size_t len, double wall_s, satin_result *result,
                      satin_result *stats)
{
    (void)wall_s, (void)stats;
    ks_res r = {-1, 0};
    if (len == sizeof r)
        memcpy(&r, res, sizeof r);
    satin_result_i64(result, "value", r.value);
    satin_result_i64(result, "explored", r.explored);
}

static const satin_value_def ks_values[] = {
    [KS_SHARED_BEST] = {"best", SATIN_GREATEST},
    {NULL, 0},
};

static const satin_param_def ks_params[] = {
    {"n", NULL, 1, "number of items, 1..1000"},
    {"seed", "1", 0, "instance seed, 0..2^63-1"},
    {"capacity", NULL, 0, "knapsack capacity, 0..2^40 (default: half the total weight)"},
    {"type", "uncorrelated", 0,
     "item values: uncorrelated (1..1000), weak (weight +- 100) or strong (weight + 100)"},
    {"threshold", KS_DEFAULT_THRESHOLD, 0,
     "subtrees with at most this many undecided items are searched sequentially "
     "(0: spawn down to the last item; >= n: all sequential)"},
    {"bound", "shared", 0,
     "shared: every job prunes by the greatest value any node of the job reached (a grid-wide "
     "value); local: by its own and its parent's only, as a job of the paper does"},
    {"probe", KS_DEFAULT_PROBE, 0,
     "nodes the root searches alone for a good incumbent before it spawns, 0..2^32 "
     "(a spawning job at depth d: probe/4^d, at least min(probe, 256); 0: no probes)"},
    {NULL, NULL, 0, NULL},
};

SATIN_KIND(knapsack,
           .summary = "0/1 knapsack on a seeded instance by branch and bound: the best value",
           .params = ks_params, .parse = ks_parse, .root = SATIN_TASK_OF(knapsack),
           .result_size = sizeof(ks_res), .format = ks_format, .values = ks_values);
