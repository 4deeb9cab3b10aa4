/*
 * synthetic.c - emulated processors for benchmarks, after the synthetic
 * workloads of SimMatrix: a complete divide-and-conquer tree of `depth`
 * levels below the root and `fanout` children per inner node, whose
 * fanout^depth leaves each WAIT for a drawn time instead of computing.
 *
 * Leaves are numbered 0 .. fanout^depth - 1 from left to right; the wait of
 * leaf L is syn_draw_us(dist, mean_us, shape, seed, L) (synthetic_draw.h), a
 * pure function, so the tree, the result and the total waiting time are the
 * same on any schedule.  Inner nodes spawn all their children (the leaves
 * are the tasks; there is no sequential threshold).
 *
 * A leaf waits with satin_leaf_wait (leaf_wait.c: clock_nanosleep to an
 * absolute deadline, cut short by cancellation).  A waiting leaf occupies its
 * worker (as a computing task would) but burns no CPU.
 *
 * Result: leaves (= fanout^depth) and total_us (the sum of the drawn waits,
 * exact); the wall time is not part of the result.  Statistics: parallelism
 * = total waiting time / wall time, the average number of leaves waiting at
 * once (at most the number of workers on the grid).
 *
 * Every node is an invocation of the typed task `synthetic` (its argument a
 * syn_arg, its result a syn_res).
 */
#include "apps.h"
#include "kind_shared.h"
#include "leaf_wait.h"
#include "synthetic_draw.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SYN_MAX_DEPTH 64
#define SYN_MAX_FANOUT 256
#define SYN_MAX_LEAVES (INT64_C(1) << 26)
#define SYN_MAX_MEAN_US INT64_C(1000000000) /* 1000 s */
#define SYN_MIN_SHAPE 0.001
#define SYN_MAX_SHAPE 1e6

/* Fixed-width fields with no padding: the bytes may cross machines. */
typedef struct syn_arg {
    uint64_t seed;
    uint64_t first_leaf;  /* index of this subtree's leftmost leaf */
    int64_t mean_us;
    double shape;
    int32_t depth;        /* levels below this node (0: a leaf) */
    int32_t fanout;
    int32_t dist;         /* SYN_DIST_* */
    int32_t reserved;     /* 0 */
} syn_arg;

typedef struct syn_res {
    int64_t leaves;
    int64_t total_us;
} syn_res;

static const char *const syn_dist_names[] = {"const", "uniform", "gamma"};
#define SYN_NDISTS ((int32_t)(sizeof syn_dist_names / sizeof syn_dist_names[0]))

static int syn_arg_ok(const syn_arg *a)
{
    return a->depth >= 0 && a->depth <= SYN_MAX_DEPTH && a->fanout >= 1 &&
           a->fanout <= SYN_MAX_FANOUT && a->dist >= 0 && a->dist < SYN_NDISTS &&
           a->mean_us >= 0 && a->mean_us <= SYN_MAX_MEAN_US && a->shape >= SYN_MIN_SHAPE &&
           a->shape <= SYN_MAX_SHAPE;
}

static int syn_valid(const syn_arg *a, satin_err *err);
SATIN_TASK(syn_res, synthetic, syn_arg, syn_valid);

/* The argument is what syn_valid accepts: parse's, a spawn's, or one that
 * passed the check. */
static syn_res synthetic(SATIN_FRAME, syn_arg a)
{
    syn_res r = {0, 0};
    if (a.depth == 0) {
        int64_t us = syn_draw_us(a.dist, a.mean_us, a.shape, a.seed, a.first_leaf);
        satin_leaf_wait(us);
        r.leaves = 1;
        r.total_us = us;
        return r;
    }
    /* Leaves under each child: fanout^(depth-1), at most 2^26. */
    uint64_t per_child = 1;
    for (int32_t i = 1; i < a.depth && per_child <= (uint64_t)SYN_MAX_LEAVES; i++)
        per_child *= (uint64_t)a.fanout;
    syn_res sub[SYN_MAX_FANOUT];
    memset(sub, 0, sizeof sub[0] * (size_t)a.fanout);
    for (int32_t i = 0; i < a.fanout; i++) {
        syn_arg child = a;
        child.depth = a.depth - 1;
        child.first_leaf = a.first_leaf + (uint64_t)i * per_child;
        satin_spawn(synthetic, &sub[i], child);
    }
    satin_sync();
    for (int32_t i = 0; i < a.fanout; i++) {
        r.leaves += sub[i].leaves;
        r.total_us += sub[i].total_us;
    }
    return r;
}

/* What parse allows and the spawns keep: the tree's parameters in range
 * and the subtree a whole one of a tree of at most SYN_MAX_LEAVES leaves
 * (its fanout^depth leaves numbered from a multiple of their count), so
 * that the waits add up within an int64. */
static int syn_valid(const syn_arg *a, satin_err *err)
{
    if (!syn_arg_ok(a))
        return satin_err_set(err, "synthetic: depth=%d, fanout=%d, dist=%d, mean_us=%lld or "
                                  "shape=%g is out of range",
                             (int)a->depth, (int)a->fanout, (int)a->dist,
                             (long long)a->mean_us, a->shape);
    if (a->reserved || a->seed > (uint64_t)INT64_MAX)
        return satin_err_set(err, "synthetic: seed above 2^63-1 or reserved not zero");
    uint64_t leaves = 1;
    for (int32_t i = 0; i < a->depth; i++) {
        leaves *= (uint64_t)a->fanout;
        if (leaves > (uint64_t)SYN_MAX_LEAVES)
            return satin_err_set(err, "synthetic: fanout^depth = %d^%d leaves is more than %lld",
                                 (int)a->fanout, (int)a->depth, (long long)SYN_MAX_LEAVES);
    }
    if (a->first_leaf % leaves || a->first_leaf > (uint64_t)SYN_MAX_LEAVES - leaves)
        return satin_err_set(err, "synthetic: a subtree of %llu leaves cannot start at leaf %llu",
                             (unsigned long long)leaves, (unsigned long long)a->first_leaf);
    return 0;
}

int satin_synthetic_arg_read(const void *arg, size_t len, satin_syn_tree *t, int32_t *depth,
                             uint64_t *first_leaf)
{
    syn_arg a;
    if (len != sizeof a)
        return -1;
    memcpy(&a, arg, sizeof a);
    if (!syn_arg_ok(&a))
        return -1;
    *t = (satin_syn_tree){.seed = a.seed, .mean_us = a.mean_us, .shape = a.shape,
                          .fanout = a.fanout, .dist = a.dist};
    *depth = a.depth;
    *first_leaf = a.first_leaf;
    return 0;
}

size_t satin_synthetic_arg_write(const satin_syn_tree *t, int32_t depth, uint64_t first_leaf,
                                 void *out, size_t cap)
{
    syn_arg a;
    memset(&a, 0, sizeof a);
    a.seed = t->seed;
    a.first_leaf = first_leaf;
    a.mean_us = t->mean_us;
    a.shape = t->shape;
    a.depth = depth;
    a.fanout = t->fanout;
    a.dist = t->dist;
    if (cap < sizeof a)
        return 0;
    memcpy(out, &a, sizeof a);
    return sizeof a;
}

static int syn_find_dist(const char *name, int32_t *dist, satin_err *err)
{
    for (int32_t i = 0; i < SYN_NDISTS; i++) {
        if (strcmp(syn_dist_names[i], name) == 0) {
            *dist = i;
            return 0;
        }
    }
    return satin_err_set(err, "synthetic: unknown distribution dist=%s (valid: const, uniform, gamma)",
                         name);
}

static int syn_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    int64_t depth, fanout, mean_us, seed;
    double shape;
    const char *dist = "";
    syn_arg a;
    memset(&a, 0, sizeof a);
    if (satin_param_i64(p, "depth", 0, SYN_MAX_DEPTH, &depth, err) < 0 ||
        satin_param_i64(p, "fanout", 1, SYN_MAX_FANOUT, &fanout, err) < 0 ||
        satin_param_str(p, "dist", &dist, err) < 0 || syn_find_dist(dist, &a.dist, err) < 0 ||
        satin_param_i64(p, "mean_us", 0, SYN_MAX_MEAN_US, &mean_us, err) < 0 ||
        satin_param_f64(p, "shape", SYN_MIN_SHAPE, SYN_MAX_SHAPE, &shape, err) < 0 ||
        satin_param_i64(p, "seed", 0, INT64_MAX, &seed, err) < 0)
        return -1;
    if (a.dist != SYN_DIST_GAMMA && satin_param_given(p, "shape"))
        return satin_err_set(err, "synthetic: shape= only applies to dist=gamma (dist=%s)", dist);
    int64_t leaves = 1;
    for (int64_t i = 0; i < depth; i++) {
        leaves *= fanout;
        if (leaves > SYN_MAX_LEAVES)
            return satin_err_set(err,
                                 "synthetic: fanout^depth = %lld^%lld leaves is more than "
                                 "the limit of %lld",
                                 (long long)fanout, (long long)depth,
                                 (long long)SYN_MAX_LEAVES);
    }
    a.seed = (uint64_t)seed;
    a.first_leaf = 0;
    a.mean_us = mean_us;
    a.shape = shape;
    a.depth = (int32_t)depth;
    a.fanout = (int32_t)fanout;
    return satin_bytes_put(arg, &a, sizeof a, err);
}

static void syn_format(const void *res, size_t len, double wall_s, satin_result *result,
                       satin_result *stats)
{
    syn_res r = {0, 0};
    if (len == sizeof r)
        memcpy(&r, res, sizeof r);
    satin_result_i64(result, "leaves", r.leaves);
    satin_result_i64(result, "total_us", r.total_us);
    if (wall_s > 0)
        satin_result_f64(stats, "parallelism", (double)r.total_us / 1e6 / wall_s);
}

static const satin_param_def syn_params[] = {
    {"depth", NULL, 1, "levels of the tree below the root, 0..64 (fanout^depth <= 2^26 leaves)"},
    {"fanout", NULL, 1, "children of each inner node, 1..256"},
    {"dist", "const", 0, "distribution of the leaf waits: const, uniform (on [0, 2*mean_us]) "
                         "or gamma"},
    {"mean_us", "1000", 0, "mean leaf wait in microseconds, 0..1e9"},
    {"shape", "1", 0, "gamma shape k (scale mean_us/k), 0.001..1e6; only with dist=gamma"},
    {"seed", "1", 0, "seed of the leaf waits, 0..2^63-1"},
    {NULL, NULL, 0, NULL},
};

SATIN_KIND(synthetic,
           .summary = "emulated processors: a D&C tree whose leaves sleep for drawn times "
                      "(benchmarks)",
           .params = syn_params, .parse = syn_parse, .root = SATIN_TASK_OF(synthetic),
           .format = syn_format);
