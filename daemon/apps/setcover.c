/*
 * setcover.c - minimum set cover by branch and bound (one of the paper's
 * applications): the fewest of m given subsets of a universe {0..n-1} whose
 * union is the whole universe.
 *
 * Instance.  SplitMix64 seeded with `seed`; for set j = 0..m-1 and element
 * e = 0..n-1 in turn, e is in set j when next() % 100 < density.  Then every
 * element e = 0..n-1 in no set yet is added to set next() % m, so a cover
 * always exists.  The generator is part of the kind's definition: the unit
 * test repeats it.
 *
 * Search: include/exclude decisions.  At a node some sets are chosen, some
 * excluded, the rest available.  The element with the fewest available sets
 * containing it (ties: the lowest element) must be covered; of those sets
 * the one covering the most uncovered elements (ties: the lowest set) is
 * decided: first "include it", then "exclude it".  A node is pruned when an
 * uncovered element has no available set left, or when
 *     chosen + lower bound >= the best cover size known,
 * the lower bound being the larger of ceil(uncovered / largest available
 * coverage) and the number of uncovered elements found, in element order,
 * whose available sets are disjoint from those of the ones found before
 * (each needs a set of its own).
 *
 * Jobs and bounds.  A job's argument holds the instance, its decisions so
 * far and `ub`: the job returns the first (in include-before-exclude order,
 * after its own greedy completion) cover of its subtree that has fewer than
 * ub sets, or "none".  Each job first tries a greedy completion (repeatedly
 * the available set covering the most uncovered elements, ties the lowest
 * set), which usually lowers its bound.  Jobs cannot share an incumbent
 * while they run (results only come back through satin_return), so a job
 * knows only the ub handed down from its ancestors; the root's is m + 1.
 * Because every job is a pure function of its argument bytes and the parent
 * combines its children in a fixed order, the result, including which
 * minimum cover is reported, is the same on any number of workers.  While
 * fewer than `threshold` decisions are made a job spawns its two children;
 * below that it searches sequentially with its own incumbent.
 *
 * Result: size (the minimum number of sets) and cover (the chosen sets as a
 * bitmask, bit j = set j; m <= 63 keeps it a non-negative int64).
 */
#include "apps.h"

#include <stdint.h>
#include <string.h>

#define SC_MAX_N 64
#define SC_MAX_M 63
#define SC_DEFAULT_THRESHOLD "8"
#define SC_DEFAULT_DENSITY "20"
/* The sequential search looks at the cancel flag once per this many nodes. */
#define SC_CANCEL_MASK 0xffffu

/* Fixed-width fields with no padding: the bytes may cross machines.  Only
 * sets[0..m-1] are used; the rest are 0. */
typedef struct sc_arg {
    int32_t n, m;
    int32_t depth;       /* decisions made above this job */
    int32_t threshold;   /* spawn children while depth < threshold */
    int64_t ub;          /* only covers of fewer than ub sets are wanted */
    uint64_t chosen;     /* bit j: set j is in */
    uint64_t excluded;   /* bit j: set j is out */
    uint64_t covered;    /* union of the chosen sets */
    uint64_t sets[SC_MAX_M];
} sc_arg;

typedef struct sc_res {
    int64_t size;        /* -1: no cover of fewer than ub sets here */
    uint64_t cover;
} sc_res;

typedef struct sc_inst {
    int32_t n, m;
    uint64_t all;        /* the universe */
    uint64_t allsets;    /* every set index */
    const uint64_t *sets;
    uint64_t cand[SC_MAX_N]; /* bit j of cand[e]: set j contains e */
} sc_inst;

static uint64_t sc_next(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static uint64_t sc_mask(int32_t bits)
{
    return bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
}

static int sc_popcount(uint64_t x)
{
    return __builtin_popcountll(x);
}

static int sc_lowest(uint64_t x)
{
    return __builtin_ctzll(x);
}

static void sc_inst_init(sc_inst *in, int32_t n, int32_t m, const uint64_t *sets)
{
    in->n = n;
    in->m = m;
    in->all = sc_mask(n);
    in->allsets = sc_mask(m);
    in->sets = sets;
    memset(in->cand, 0, sizeof in->cand);
    for (int32_t j = 0; j < m; j++)
        for (uint64_t s = sets[j]; s; s &= s - 1)
            in->cand[sc_lowest(s)] |= UINT64_C(1) << j;
}

/* A lower bound on the sets still needed to cover `covered`'s complement
 * with sets from `avail`, or -1 when some element cannot be covered.  Sets
 * *pick to the set to decide next. */
static int sc_examine(const sc_inst *in, uint64_t covered, uint64_t avail, int *pick)
{
    uint64_t unc = in->all & ~covered;
    uint64_t used = 0;
    int disjoint = 0, fewest = 65, e_best = -1;
    for (uint64_t u = unc; u; u &= u - 1) {
        int e = sc_lowest(u);
        uint64_t cm = in->cand[e] & avail;
        if (!cm)
            return -1;
        int k = sc_popcount(cm);
        if (k < fewest) {
            fewest = k;
            e_best = e;
        }
        if (!(cm & used)) {
            disjoint++;
            used |= cm;
        }
    }
    int maxcov = 0;
    for (uint64_t a = avail; a; a &= a - 1) {
        int c = sc_popcount(in->sets[sc_lowest(a)] & unc);
        if (c > maxcov)
            maxcov = c;
    }
    int best_cov = -1;
    *pick = -1;
    for (uint64_t cm = in->cand[e_best] & avail; cm; cm &= cm - 1) {
        int j = sc_lowest(cm);
        int c = sc_popcount(in->sets[j] & unc);
        if (c > best_cov) {
            best_cov = c;
            *pick = j;
        }
    }
    int nunc = sc_popcount(unc);
    int bysize = (nunc + maxcov - 1) / maxcov; /* maxcov >= 1: e_best has a set */
    return bysize > disjoint ? bysize : disjoint;
}

/* Greedy completion: the number of sets added (their mask in *picked), or
 * -1 when the available sets cannot cover the rest. */
static int sc_greedy(const sc_inst *in, uint64_t covered, uint64_t avail, uint64_t *picked)
{
    int count = 0;
    *picked = 0;
    while ((covered & in->all) != in->all) {
        int best = -1, best_cov = 0;
        for (uint64_t a = avail; a; a &= a - 1) {
            int j = sc_lowest(a);
            int c = sc_popcount(in->sets[j] & ~covered & in->all);
            if (c > best_cov) {
                best_cov = c;
                best = j;
            }
        }
        if (best < 0)
            return -1;
        covered |= in->sets[best];
        avail &= ~(UINT64_C(1) << best);
        *picked |= UINT64_C(1) << best;
        count++;
    }
    return count;
}

typedef struct sc_search {
    satin_ctx *c;
    const sc_inst *in;
    int stop;
    uint32_t nodes;
    int64_t best;        /* size of the best cover so far (or the ub) */
    uint64_t cover;
} sc_search;

static void sc_dfs(sc_search *s, uint64_t chosen, uint64_t excluded, uint64_t covered,
                   int64_t count)
{
    if ((covered & s->in->all) == s->in->all) {
        if (count < s->best) {
            s->best = count;
            s->cover = chosen;
        }
        return;
    }
    if (s->stop)
        return;
    if ((++s->nodes & SC_CANCEL_MASK) == 0 && satin_cancelled(s->c)) {
        s->stop = 1;
        return;
    }
    uint64_t avail = s->in->allsets & ~chosen & ~excluded;
    int pick;
    int lb = sc_examine(s->in, covered, avail, &pick);
    if (lb < 0 || count + lb >= s->best)
        return;
    uint64_t bit = UINT64_C(1) << pick;
    sc_dfs(s, chosen | bit, excluded, covered | s->in->sets[pick], count + 1);
    sc_dfs(s, chosen, excluded | bit, covered, count);
}

static void sc_run(satin_ctx *c, const void *arg, size_t len, satin_out *out)
{
    sc_arg a;
    if (len != sizeof a) {
        satin_fail(out, "setcover: argument of %zu bytes, expected %zu", len, sizeof a);
        return;
    }
    memcpy(&a, arg, sizeof a);
    if (a.n < 1 || a.n > SC_MAX_N || a.m < 1 || a.m > SC_MAX_M || a.ub < 0 ||
        a.ub > SC_MAX_M + 1 || ((a.chosen | a.excluded) & ~sc_mask(a.m)) ||
        (a.chosen & a.excluded)) {
        satin_fail(out, "setcover: corrupt argument (n=%d, m=%d, depth=%d)", (int)a.n,
                   (int)a.m, (int)a.depth);
        return;
    }
    sc_inst in;
    sc_inst_init(&in, a.n, a.m, a.sets);
    uint64_t avail = in.allsets & ~a.chosen & ~a.excluded;
    int64_t count = sc_popcount(a.chosen);
    sc_search s = {c, &in, 0, 0, a.ub, 0};

    uint64_t picked;
    int g = sc_greedy(&in, a.covered, avail, &picked);
    if (g >= 0 && count + g < s.best) {
        s.best = count + g;
        s.cover = a.chosen | picked;
    }
    if (a.depth >= a.threshold || (a.covered & in.all) == in.all) {
        sc_dfs(&s, a.chosen, a.excluded, a.covered, count);
    } else {
        int pick;
        int lb = sc_examine(&in, a.covered, avail, &pick);
        if (lb >= 0 && count + lb < s.best) {
            uint64_t bit = UINT64_C(1) << pick;
            sc_arg inc = a, exc = a;
            inc.depth = exc.depth = a.depth + 1;
            inc.ub = exc.ub = s.best;
            inc.chosen |= bit;
            inc.covered |= a.sets[pick];
            exc.excluded |= bit;
            sc_res ri = {-1, 0}, re = {-1, 0};
            satin_spawn(c, &satin_kind_setcover, &inc, sizeof inc, &ri, sizeof ri);
            satin_spawn(c, &satin_kind_setcover, &exc, sizeof exc, &re, sizeof re);
            satin_sync(c);
            if (ri.size >= 0 && ri.size < s.best) {
                s.best = ri.size;
                s.cover = ri.cover;
            }
            if (re.size >= 0 && re.size < s.best) {
                s.best = re.size;
                s.cover = re.cover;
            }
        }
    }
    sc_res r = {-1, 0};
    if (s.best < a.ub) {
        r.size = s.best;
        r.cover = s.cover;
    }
    satin_return(out, &r, sizeof r);
}

static int sc_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    int64_t n, m, seed, density, threshold;
    if (satin_param_i64(p, "n", 1, SC_MAX_N, &n, err) < 0 ||
        satin_param_i64(p, "m", 1, SC_MAX_M, &m, err) < 0 ||
        satin_param_i64(p, "seed", 0, INT64_MAX, &seed, err) < 0 ||
        satin_param_i64(p, "density", 1, 100, &density, err) < 0 ||
        satin_param_i64(p, "threshold", 0, SC_MAX_M, &threshold, err) < 0)
        return -1;
    sc_arg a;
    memset(&a, 0, sizeof a);
    a.n = (int32_t)n;
    a.m = (int32_t)m;
    a.threshold = (int32_t)threshold;
    a.ub = m + 1;
    uint64_t rng = (uint64_t)seed, covered = 0;
    for (int32_t j = 0; j < a.m; j++)
        for (int32_t e = 0; e < a.n; e++)
            if ((int64_t)(sc_next(&rng) % 100) < density)
                a.sets[j] |= UINT64_C(1) << e;
    for (int32_t j = 0; j < a.m; j++)
        covered |= a.sets[j];
    for (int32_t e = 0; e < a.n; e++)
        if (!(covered & (UINT64_C(1) << e)))
            a.sets[sc_next(&rng) % (uint64_t)a.m] |= UINT64_C(1) << e;
    return satin_bytes_put(arg, &a, sizeof a, err);
}

static void sc_format(const void *res, size_t len, double wall_s,
                      satin_result *result, satin_result *stats)
{
    (void)wall_s;
    (void)stats;
    sc_res r = {-1, 0};
    if (len == sizeof r)
        memcpy(&r, res, sizeof r);
    satin_result_i64(result, "size", r.size);
    satin_result_i64(result, "cover", (int64_t)r.cover);
}

static const satin_param_def sc_params[] = {
    {"n", NULL, 1, "universe size, 1..64"},
    {"m", NULL, 1, "number of sets, 1..63"},
    {"seed", "1", 0, "instance seed, 0..2^63-1"},
    {"density", SC_DEFAULT_DENSITY, 0, "percent chance that a set holds an element, 1..100"},
    {"threshold", SC_DEFAULT_THRESHOLD, 0,
     "spawn include/exclude children while fewer than this many sets are decided "
     "(0: all sequential)"},
    {NULL, NULL, 0, NULL},
};

const satin_kind satin_kind_setcover = {
    .name = "setcover",
    .summary = "minimum set cover of a seeded instance by branch and bound",
    .params = sc_params,
    .parse = sc_parse,
    .run = sc_run,
    .result_size = sizeof(sc_res),
    .format = sc_format,
};
