/*
 * tsp.c - the travelling salesperson problem by branch and bound (one of the
 * paper's applications): the length of a shortest closed tour through n
 * cities.
 *
 * Instance.  SplitMix64 seeded with `seed` gives city i = 0..n-1 the
 * coordinates x = next() % 1000, then y = next() % 1000; the distance of two
 * cities is their Euclidean distance rounded to the nearest integer (exact
 * integer arithmetic, halves cannot occur), so the tour length is an exact
 * integer.  The generator is part of the kind's definition: the unit test
 * repeats it.
 *
 * Search.  Tours start at city 0.  A node is a path from city 0; its
 * children append one unvisited city, nearest first (ties: lower city).  The
 * lower bound of a node is
 *     path length + the shortest edge from the path's end to an unvisited
 *     city + for each unvisited city, its shortest edge to another unvisited
 *     city or to city 0
 * (every tour through the node leaves each of those cities once along such
 * an edge), and a node is pruned when it is >= the best length known.
 *
 * Jobs and bounds.  A job's argument holds the distance matrix, the path's
 * end, the visited set, the path length and `ub`; the job returns the length
 * of the shortest completion that is shorter than ub, or -1 for "none", and
 * the search nodes its subtree explored.  A job's own bound is the one
 * handed down by its parent when it was spawned (the root's is "none"),
 * then whatever it finds itself.  With bound=shared (the default) it also
 * prunes by the job's grid-wide value `best`, the shortest tour any node
 * of the job found so far (satin_value): every tour found is joined into
 * it, and a path is pruned when it cannot beat it, never when it ties it,
 * so the length is exact however late the value comes, and a record run
 * again after its node died finds that node's tour again.  With
 * bound=local siblings do not see each other's tours, and `explored` is the
 * same on any number of workers and nodes.  To start from a good bound, as a sequential
 * depth-first search soon has, each job first completes its path by nearest
 * neighbour improved by 2-opt and or-opt moves (within 0-2% of the optimum
 * on the 18-city instances tried), and a job that is to spawn first runs the
 * sequential search of its own subtree for a limited number of nodes (the
 * "probe": parameter probe >> 2*(depth-1), at least min(probe,
 * TSP_PROBE_MIN); probe=0 turns probes off, as the unit test does to
 * exercise the spawning).  A probe that finishes is the job's answer (small
 * subtrees are not split); otherwise its best tour is the bound its children
 * get.  While the path holds fewer than `threshold` cities a job spawns one
 * child per unvisited city whose edge keeps it below the bound; below that
 * it searches sequentially with its own incumbent.  Measured on 18 cities (seeds 1-5)
 * with the defaults: 1.05-1.4 times the nodes of the sequential search, the
 * largest job 0.5-4% of the work.
 *
 * Every job is an invocation of the typed task `tsp`: its argument a
 * tsp_arg (1648 bytes with the matrix, passed by value: a job spawns at most
 * 19 children and then searches far longer than their copies take), its
 * result the length.
 */
#include "apps.h"
#include "kind_shared.h"
#include "splitmix.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define TSP_MAX_N 20
#define TSP_COORD 1000
#define TSP_MAX_EDGE (2 * TSP_COORD)   /* more than any two cities' distance */
#define TSP_DEFAULT_THRESHOLD "5"
/* The sequential search looks at the cancel flag once per this many nodes. */
#define TSP_CANCEL_MASK 0xffffu
/* The probe budget of the root (parameter probe=) and its floor for deeper
 * jobs (see tsp_probe_budget). */
#define TSP_DEFAULT_PROBE "4096"
#define TSP_MAX_PROBE (INT64_C(1) << 32)
#define TSP_PROBE_MIN 256

/* Fixed-width fields with no padding: the bytes may cross machines.  The
 * matrix always has stride TSP_MAX_N; entries beyond n are 0. */
typedef struct tsp_arg {
    int32_t n;
    int32_t depth;       /* cities on the path (city 0 first), >= 1 */
    int32_t threshold;   /* spawn children while depth < threshold */
    int32_t last;        /* the path's end */
    uint32_t visited;    /* bit i: city i is on the path */
    int32_t shared;      /* 1: prune by the job's grid-wide best too (bound=shared); 0: not */
    int64_t len;         /* length of the path */
    int64_t ub;          /* only tours shorter than this are wanted; -1: no bound */
    int64_t probe;       /* the root's probe budget (see tsp_probe_budget) */
    int32_t dist[TSP_MAX_N * TSP_MAX_N];
} tsp_arg;

typedef struct tsp_inst {
    int32_t n;
    uint32_t all;
    const int32_t *d;                  /* d[i * TSP_MAX_N + j] */
    int8_t nb[TSP_MAX_N][TSP_MAX_N];  /* other cities, nearest first */
} tsp_inst;

static int32_t tsp_d(const tsp_inst *in, int i, int j)
{
    return in->d[i * TSP_MAX_N + j];
}

static void tsp_inst_init(tsp_inst *in, int32_t n, const int32_t *d)
{
    in->n = n;
    in->all = (uint32_t)((UINT64_C(1) << n) - 1);
    in->d = d;
    for (int i = 0; i < n; i++) {
        int k = 0;
        for (int j = 0; j < n; j++) {
            if (j == i)
                continue;
            /* Insertion by (distance, city). */
            int p = k++;
            while (p > 0 && tsp_d(in, i, in->nb[i][p - 1]) > tsp_d(in, i, j)) {
                in->nb[i][p] = in->nb[i][p - 1];
                p--;
            }
            in->nb[i][p] = (int8_t)j;
        }
    }
}

/* The lower bound of a node whose path is not yet complete. */
static int64_t tsp_bound(const tsp_inst *in, int last, uint32_t visited, int64_t len)
{
    uint32_t unv = in->all & ~visited, ok = unv | 1u;
    int64_t b = len;
    for (int k = 0; k < in->n - 1; k++) {
        int v = in->nb[last][k];
        if (unv & (1u << v)) {
            b += tsp_d(in, last, v);
            break;
        }
    }
    for (uint32_t u = unv; u; u &= u - 1) {
        int v = __builtin_ctz(u);
        for (int k = 0; k < in->n - 1; k++) {
            int w = in->nb[v][k];
            if (ok & (1u << w)) {
                b += tsp_d(in, v, w);
                break;
            }
        }
    }
    return b;
}

/* One improving 2-opt move on the open path p[0..k-1] (end points fixed):
 * reversing p[i+1..j] swaps the edges (p[i], p[i+1]) and (p[j], p[j+1]) for
 * (p[i], p[j]) and (p[i+1], p[j+1]).  Returns 1 when it made one. */
static int tsp_two_opt(const tsp_inst *in, int *p, int k)
{
    for (int i = 0; i + 3 < k; i++) {
        for (int j = i + 2; j + 1 < k; j++) {
            int32_t before = tsp_d(in, p[i], p[i + 1]) + tsp_d(in, p[j], p[j + 1]);
            int32_t after = tsp_d(in, p[i], p[j]) + tsp_d(in, p[i + 1], p[j + 1]);
            if (after < before) {
                for (int l = i + 1, r = j; l < r; l++, r--) {
                    int t = p[l];
                    p[l] = p[r];
                    p[r] = t;
                }
                return 1;
            }
        }
    }
    return 0;
}

/* One improving or-opt move: a segment p[i..i+len-1] of 1..3 inner cities
 * moved, either way round, between two other neighbours p[j], p[j+1]. */
static int tsp_or_opt(const tsp_inst *in, int *p, int k)
{
    for (int len = 1; len <= 3; len++) {
        for (int i = 1; i + len < k; i++) {
            int f = p[i], l = p[i + len - 1], prev = p[i - 1], next = p[i + len];
            int32_t gain = tsp_d(in, prev, f) + tsp_d(in, l, next) - tsp_d(in, prev, next);
            for (int j = 0; j + 1 < k; j++) {
                if (j >= i - 1 && j <= i + len - 1)
                    continue;
                int a = p[j], b = p[j + 1];
                int32_t fwd = tsp_d(in, a, f) + tsp_d(in, l, b) - tsp_d(in, a, b);
                int32_t rev = tsp_d(in, a, l) + tsp_d(in, f, b) - tsp_d(in, a, b);
                int reverse = rev < fwd;
                if ((reverse ? rev : fwd) >= gain)
                    continue;
                int q[TSP_MAX_N + 1], m = 0, seg[3];
                for (int t = 0; t < len; t++)
                    seg[t] = p[reverse ? i + len - 1 - t : i + t];
                for (int t = 0; t < k; t++) {
                    if (t >= i && t < i + len)
                        continue;
                    q[m++] = p[t];
                    if (t == j)
                        for (int u = 0; u < len; u++)
                            q[m++] = seg[u];
                }
                memcpy(p, q, sizeof q[0] * (size_t)k);
                return 1;
            }
        }
    }
    return 0;
}

/* A good completion's tour length: nearest neighbour from the path's end,
 * then 2-opt and or-opt moves on the open path from the end through the new
 * cities to city 0 until none shortens it (each move shortens it by at least
 * 1, so this ends). */
static int64_t tsp_greedy(const tsp_inst *in, int last, uint32_t visited, int64_t len)
{
    int p[TSP_MAX_N + 1], k = 0;
    p[k++] = last;
    while (visited != in->all) {
        for (int i = 0; i < in->n - 1; i++) {
            int v = in->nb[last][i];
            if (!(visited & (1u << v))) {
                visited |= 1u << v;
                p[k++] = last = v;
                break;
            }
        }
    }
    p[k++] = 0;
    while (tsp_two_opt(in, p, k) || tsp_or_opt(in, p, k))
        ;
    for (int i = 0; i + 1 < k; i++)
        len += tsp_d(in, p[i], p[i + 1]);
    return len;
}

/* The nodes a spawning job with `depth` cities on its path searches on its
 * own before it spawns: probe >> 2*(depth-1), at least min(probe,
 * TSP_PROBE_MIN); 0: no probe. */
static uint64_t tsp_probe_budget(int64_t probe, int32_t depth)
{
    uint64_t p = (uint64_t)probe, b = depth <= 32 ? p >> (2 * (depth - 1)) : 0;
    uint64_t least = p < TSP_PROBE_MIN ? p : TSP_PROBE_MIN;
    return b > least ? b : least;
}

typedef struct tsp_search {
    const tsp_inst *in;
    int stop;            /* 1: budget used up or job cancelled: search incomplete */
    uint64_t nodes;
    uint64_t budget;     /* stop after this many nodes; 0: no limit */
    int64_t best;        /* INT64_MAX: none yet */
    int shared;          /* the job's grid-wide best (value 0) prunes too */
} tsp_search;

/* The grid-wide best: the shortest tour any node of the job found so far,
 * as this node knows it (INT64_MAX: none). */
#define TSP_SHARED_BEST 0

/* A path of length (or lower bound) b can still lead to a tour we want:
 * shorter than this job's own best, and no longer than the grid-wide best.
 * A tie with the grid's best is explored, not pruned: its finder's result
 * may be lost with its node, and the re-run must find the tour again
 * (values travel late, and never decide a result). */
static int tsp_wanted(const tsp_search *s, int64_t b)
{
    return b < s->best && (!s->shared || b <= satin_value(TSP_SHARED_BEST));
}

static void tsp_found(tsp_search *s, int64_t t)
{
    if (t < s->best) {
        s->best = t;
        if (s->shared)
            satin_value_join(TSP_SHARED_BEST, t);
    }
}

static void tsp_dfs(tsp_search *s, int last, uint32_t visited, int64_t len)
{
    const tsp_inst *in = s->in;
    if (visited == in->all) {
        tsp_found(s, len + tsp_d(in, last, 0));
        return;
    }
    if (s->stop)
        return;
    s->nodes++;
    if ((s->budget && s->nodes > s->budget) ||
        ((s->nodes & TSP_CANCEL_MASK) == 0 && satin_cancelled())) {
        s->stop = 1;
        return;
    }
    if (!tsp_wanted(s, tsp_bound(in, last, visited, len)))
        return;
    for (int k = 0; k < in->n - 1; k++) {
        int v = in->nb[last][k];
        if (visited & (1u << v))
            continue;
        int64_t nl = len + tsp_d(in, last, v);
        if (!tsp_wanted(s, nl))
            break;   /* the next cities are no nearer */
        tsp_dfs(s, v, visited | (1u << v), nl);
    }
}

/* A job's answer: the shortest completion shorter than its ub (-1: none),
 * and the search nodes its subtree explored on every node (probes too). */
typedef struct tsp_res {
    int64_t len;
    int64_t explored;
} tsp_res;

static int tsp_valid(const tsp_arg *a, satin_err *err);
SATIN_TASK(tsp_res, tsp, tsp_arg, tsp_valid);

/* The argument is what tsp_valid accepts: parse's, a spawn's, or one that
 * passed the check. */
static tsp_res tsp(SATIN_FRAME, tsp_arg a)
{
    tsp_inst in;
    tsp_inst_init(&in, a.n, a.dist);
    int64_t ub = a.ub < 0 ? INT64_MAX : a.ub;
    int spawning = a.depth < a.threshold && a.visited != in.all;
    uint64_t budget = spawning ? tsp_probe_budget(a.probe, a.depth) : 0;
    tsp_search s = {&in, 0, 0, budget, ub, a.shared};
    tsp_found(&s, tsp_greedy(&in, a.last, a.visited, a.len));
    if (!spawning || budget > 0)
        tsp_dfs(&s, a.last, a.visited, a.len);
    int64_t explored = (int64_t)s.nodes;
    if (spawning && (budget == 0 || s.stop) && !satin_cancelled() &&
        tsp_wanted(&s, tsp_bound(&in, a.last, a.visited, a.len))) {
        tsp_res sub[TSP_MAX_N];
        for (int k = 0; k < TSP_MAX_N; k++)
            sub[k] = (tsp_res){-1, 0};
        tsp_arg child = a;
        child.depth = a.depth + 1;
        child.ub = s.best;
        for (int k = 0; k < a.n - 1; k++) {
            int v = in.nb[a.last][k];
            if (a.visited & (1u << v))
                continue;
            child.len = a.len + tsp_d(&in, a.last, v);
            if (!tsp_wanted(&s, child.len))
                break;
            child.last = v;
            child.visited = a.visited | (1u << v);
            satin_spawn(tsp, &sub[v], child);
        }
        satin_sync();
        for (int v = 0; v < a.n; v++) {
            explored += sub[v].explored;
            if (sub[v].len >= 0 && sub[v].len < s.best)
                s.best = sub[v].len;
        }
    }
    return (tsp_res){s.best < ub ? s.best : -1, explored};
}

/* round(sqrt(s)) in integers: s - r^2 > r means sqrt(s) > r + 1/2 (and
 * s = r^2 + r + 1/4 cannot happen for integers). */
static int32_t tsp_round_sqrt(int64_t s)
{
    int64_t r = (int64_t)sqrt((double)s);
    while (r * r > s)
        r--;
    while ((r + 1) * (r + 1) <= s)
        r++;
    return (int32_t)(s - r * r > r ? r + 1 : r);
}

static int tsp_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    int64_t n, seed, threshold, probe;
    const char *bound;
    if (satin_param_i64(p, "n", 1, TSP_MAX_N, &n, err) < 0 ||
        satin_param_i64(p, "seed", 0, INT64_MAX, &seed, err) < 0 ||
        satin_param_i64(p, "threshold", 0, TSP_MAX_N, &threshold, err) < 0 ||
        satin_param_i64(p, "probe", 0, TSP_MAX_PROBE, &probe, err) < 0 ||
        satin_param_str(p, "bound", &bound, err) < 0)
        return -1;
    if (strcmp(bound, "shared") != 0 && strcmp(bound, "local") != 0)
        return satin_err_set(err, "tsp: bound=%s is not shared or local", bound);
    tsp_arg a;
    memset(&a, 0, sizeof a);
    a.n = (int32_t)n;
    a.depth = 1;
    a.threshold = (int32_t)threshold;
    a.last = 0;
    a.visited = 1u;
    a.len = 0;
    a.ub = -1;
    a.probe = probe;
    a.shared = strcmp(bound, "shared") == 0;
    int64_t x[TSP_MAX_N], y[TSP_MAX_N];
    uint64_t rng = (uint64_t)seed;
    for (int i = 0; i < a.n; i++) {
        x[i] = (int64_t)(satin_splitmix_next(&rng) % TSP_COORD);
        y[i] = (int64_t)(satin_splitmix_next(&rng) % TSP_COORD);
    }
    for (int i = 0; i < a.n; i++)
        for (int j = 0; j < a.n; j++)
            a.dist[i * TSP_MAX_N + j] = tsp_round_sqrt((x[i] - x[j]) * (x[i] - x[j]) +
                                                       (y[i] - y[j]) * (y[i] - y[j]));
    return satin_bytes_put(arg, &a, sizeof a, err);
}

/* What parse makes and the spawns keep: a symmetric matrix of n cities
 * with a zero diagonal and zeros beyond n (2-opt and or-opt end only when
 * a reversed path is as long as it was), a path from city 0 of `depth`
 * cities ending at `last`, and lengths no tour of n edges exceeds. */
static int tsp_valid(const tsp_arg *a, satin_err *err)
{
    const int64_t longest = (int64_t)TSP_MAX_N * TSP_MAX_EDGE;
    if (satin_arg_range("tsp", "n", a->n, 1, TSP_MAX_N, err) < 0 ||
        satin_arg_range("tsp", "depth", a->depth, 1, a->n, err) < 0 ||
        satin_arg_range("tsp", "threshold", a->threshold, 0, TSP_MAX_N, err) < 0 ||
        satin_arg_range("tsp", "last", a->last, 0, a->n - 1, err) < 0 ||
        satin_arg_range("tsp", "shared", a->shared, 0, 1, err) < 0 ||
        satin_arg_range("tsp", "len", a->len, 0, (int64_t)(a->depth - 1) * TSP_MAX_EDGE, err) < 0 ||
        satin_arg_range("tsp", "ub", a->ub, -1, longest, err) < 0 ||
        satin_arg_range("tsp", "probe", a->probe, 0, TSP_MAX_PROBE, err) < 0)
        return -1;
    uint32_t all = (uint32_t)((UINT64_C(1) << a->n) - 1);
    if (!(a->visited & 1u) || !(a->visited & (1u << a->last)) || (a->visited & ~all) ||
        __builtin_popcount(a->visited) != a->depth)
        return satin_err_set(err, "tsp: visited=%#x is not a path of %d cities from 0 to %d",
                             (unsigned)a->visited, (int)a->depth, (int)a->last);
    for (int i = 0; i < TSP_MAX_N; i++)
        for (int j = 0; j < TSP_MAX_N; j++) {
            int32_t d = a->dist[i * TSP_MAX_N + j];
            int inside = i < a->n && j < a->n && i != j;
            if (d < 0 || d > (inside ? TSP_MAX_EDGE : 0) || d != a->dist[j * TSP_MAX_N + i])
                return satin_err_set(err, "tsp: distance %d from %d to %d (a symmetric matrix of "
                                          "0..%d, 0 on the diagonal and beyond n=%d, expected)",
                                     (int)d, i, j, TSP_MAX_EDGE, (int)a->n);
        }
    return 0;
}

static void tsp_format(const void *res, size_t len, double wall_s,
                       satin_result *result, satin_result *stats)
{
    (void)wall_s;
    (void)stats;
    tsp_res r = {-1, 0};
    if (len == sizeof r)
        memcpy(&r, res, sizeof r);
    satin_result_i64(result, "length", r.len);
    satin_result_i64(result, "explored", r.explored);
}

static const satin_value_def tsp_values[] = {
    [TSP_SHARED_BEST] = {"best", SATIN_LEAST},
    {NULL, 0},
};

static const satin_param_def tsp_params[] = {
    {"n", NULL, 1, "number of cities, 1..20 (18: a second or two, 20: about 15 s on one core)"},
    {"seed", "1", 0, "instance seed, 0..2^63-1"},
    {"threshold", TSP_DEFAULT_THRESHOLD, 0,
     "spawn one child per next city while the path holds fewer than this many cities "
     "(city 0 counts; 0 or 1: all sequential)"},
    {"bound", "shared", 0,
     "shared: every job prunes by the shortest tour any node of the job found (a grid-wide "
     "value); local: by its own and its parent's only, as a job of the paper does"},
    {"probe", TSP_DEFAULT_PROBE, 0,
     "nodes the root searches alone for a good bound before it spawns, 0..2^32 "
     "(a spawning job with d cities on its path: probe/4^(d-1), at least min(probe, 256); "
     "0: no probes)"},
    {NULL, NULL, 0, NULL},
};

SATIN_KIND(tsp,
           .summary = "travelling salesperson: shortest tour of n seeded cities by branch and "
                      "bound",
           .params = tsp_params, .parse = tsp_parse, .root = SATIN_TASK_OF(tsp),
           .format = tsp_format, .values = tsp_values);
