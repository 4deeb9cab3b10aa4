/*
 * test_tsp.c - the tsp kind: the optimal tour length against every
 * permutation (n <= 9) and the Held-Karp dynamic program (n <= 13) on the
 * same seeded instances, whatever the threshold and the number of workers;
 * larger instances the same on one worker and two; and the error texts of
 * bad parameters.  The instance generator is the kind's documented one,
 * repeated below (with the rounding done in floating point here).
 */
#include "kinds.h"
#include "../tap.h"

#define KIND_UNDER_TEST "tsp"
#include "kind_kit.h"

#define MAX_CITIES 20
#define HK_MAX 13

typedef struct inst {
    int n;
    int64_t d[MAX_CITIES][MAX_CITIES];
} inst;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static void make_inst(inst *in, int n, uint64_t seed)
{
    double x[MAX_CITIES], y[MAX_CITIES];
    uint64_t s = seed;
    in->n = n;
    for (int i = 0; i < n; i++) {
        x[i] = (double)(splitmix(&s) % 1000);
        y[i] = (double)(splitmix(&s) % 1000);
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            in->d[i][j] = (int64_t)lround(hypot(x[i] - x[j], y[i] - y[j]));
}

/* Every order of cities 1..n-1 after city 0. */
static void permute(const inst *in, int *order, int k, int64_t len, int64_t *best)
{
    if (k == in->n) {
        int64_t t = len + in->d[order[k - 1]][0];
        if (t < *best)
            *best = t;
        return;
    }
    for (int i = k; i < in->n; i++) {
        int tmp = order[k];
        order[k] = order[i];
        order[i] = tmp;
        permute(in, order, k + 1, len + in->d[order[k - 1]][order[k]], best);
        order[i] = order[k];
        order[k] = tmp;
    }
}

static int64_t brute_force(const inst *in)
{
    int order[MAX_CITIES];
    for (int i = 0; i < in->n; i++)
        order[i] = i;
    int64_t best = INT64_MAX;
    permute(in, order, 1, 0, &best);
    return best;
}

/* Held-Karp: f[S][j] = the shortest path from 0 through the cities of S
 * (a subset of 1..n-1, bit i-1 for city i) ending at j in S. */
static int64_t held_karp(const inst *in)
{
    int m = in->n - 1;
    if (m == 0)
        return 0;
    size_t subsets = (size_t)1 << m;
    int64_t *f = malloc(subsets * (size_t)m * sizeof *f);
    if (!f)
        abort();
    for (size_t s = 1; s < subsets; s++) {
        for (int j = 0; j < m; j++) {
            int64_t *cell = &f[s * (size_t)m + (size_t)j];
            *cell = INT64_MAX;
            if (!(s >> j & 1))
                continue;
            size_t rest = s & ~((size_t)1 << j);
            if (!rest) {
                *cell = in->d[0][j + 1];
                continue;
            }
            for (int i = 0; i < m; i++) {
                if (!(rest >> i & 1))
                    continue;
                int64_t v = f[rest * (size_t)m + (size_t)i] + in->d[i + 1][j + 1];
                if (v < *cell)
                    *cell = v;
            }
        }
    }
    int64_t best = INT64_MAX;
    for (int j = 0; j < m; j++) {
        int64_t v = f[(subsets - 1) * (size_t)m + (size_t)j] + in->d[j + 1][0];
        if (v < best)
            best = v;
    }
    free(f);
    return best;
}

/* threshold, probe < 0: the defaults. */
static int64_t run_tsp_probe(satin_pool *pool, int n, uint64_t seed, int threshold, int probe)
{
    char pn[32], ps[48], pt[32], pp[32];
    snprintf(pn, sizeof pn, "n=%d", n);
    snprintf(ps, sizeof ps, "seed=%llu", (unsigned long long)seed);
    snprintf(pt, sizeof pt, "threshold=%d", threshold);
    snprintf(pp, sizeof pp, "probe=%d", probe);
    const char *params[5] = {pn, ps, NULL, NULL, NULL};
    int k = 2;
    if (threshold >= 0)
        params[k++] = pt;
    if (probe >= 0)
        params[k++] = pp;
    satin_outcome o;
    int64_t v = -1;
    satin_run_record(pool, kit_kinds(), "tsp", params, &o);
    if (o.failed)
        diag("tsp n=%d seed=%llu failed: %s", n, (unsigned long long)seed, o.error);
    else if (satin_kvlist_i64(&o.result, "length", &v) < 0)
        diag("tsp gave no i64 'length'");
    satin_outcome_free(&o);
    return v;
}

static int64_t run_tsp(satin_pool *pool, int n, uint64_t seed, int threshold)
{
    return run_tsp_probe(pool, n, seed, threshold, -1);
}

static void check_brute_force(satin_pool *pool, int workers)
{
    for (int n = 1; n <= 9; n++) {
        for (uint64_t seed = 1; seed <= 3; seed++) {
            inst in;
            make_inst(&in, n, seed);
            int64_t want = brute_force(&in);
            is_i64(run_tsp(pool, n, seed, -1), want,
                   "n=%d seed=%llu = every permutation, %d worker(s)", n,
                   (unsigned long long)seed, workers);
            is_i64(run_tsp_probe(pool, n, seed, -1, 0), want,
                   "n=%d seed=%llu probe=0 = every permutation, %d worker(s)", n,
                   (unsigned long long)seed, workers);
        }
    }
}

static void check_held_karp(satin_pool *pool, int workers)
{
    for (int n = 10; n <= HK_MAX; n++) {
        for (uint64_t seed = 1; seed <= 2; seed++) {
            inst in;
            make_inst(&in, n, seed * 7 + (uint64_t)n);
            int64_t want = held_karp(&in);
            is_i64(run_tsp(pool, n, seed * 7 + (uint64_t)n, -1), want,
                   "n=%d seed=%llu = Held-Karp, %d worker(s)", n,
                   (unsigned long long)(seed * 7 + (uint64_t)n), workers);
            is_i64(run_tsp_probe(pool, n, seed * 7 + (uint64_t)n, -1, 0), want,
                   "n=%d seed=%llu probe=0 = Held-Karp, %d worker(s)", n,
                   (unsigned long long)(seed * 7 + (uint64_t)n), workers);
        }
    }
    /* The two references agree with each other, too. */
    inst in;
    make_inst(&in, 9, 42);
    is_i64(held_karp(&in), brute_force(&in), "Held-Karp = permutations on n=9 seed=42");
}

static void check_thresholds(satin_pool *pool)
{
    inst in;
    make_inst(&in, 11, 5);
    int64_t want = held_karp(&in);
    static const int ts[] = {0, 1, 2, 3, 6, 11, 20};
    static const int probes[] = {-1, 0, 300};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        for (size_t p = 0; p < sizeof probes / sizeof probes[0]; p++)
            is_i64(run_tsp_probe(pool, 11, 5, ts[i], probes[p]), want,
                   "n=11 seed=5 threshold=%d probe=%d", ts[i], probes[p]);
    /* Two cities: there and back. */
    make_inst(&in, 2, 9);
    is_i64(run_tsp(pool, 2, 9, 20), 2 * in.d[0][1], "n=2: twice the distance");
    is_i64(run_tsp(pool, 1, 9, 20), 0, "n=1: length 0");
}

static void check_workers_agree(satin_pool *one, satin_pool *two)
{
    static const int cases[][2] = {{13, 1}, {14, 2}, {14, 3}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int n = cases[i][0], seed = cases[i][1];
        int64_t a = run_tsp(one, n, (uint64_t)seed, -1);
        int64_t b = run_tsp(two, n, (uint64_t)seed, -1);
        int64_t s = run_tsp(one, n, (uint64_t)seed, 0);
        int64_t z = run_tsp_probe(two, n, (uint64_t)seed, -1, 0);
        ok(a > 0 && a == b && a == s && a == z,
           "n=%d seed=%d: %lld on 1 worker, %lld on 2, %lld all sequential, %lld probe=0", n,
           seed, (long long)a, (long long)b, (long long)s, (long long)z);
    }
}

/* bound=local and bound=shared (the default) give the one optimum; the
 * search nodes each explored are in the result. */
static int64_t run_bound(satin_pool *pool, int n, uint64_t seed, const char *bound,
                         int64_t *explored)
{
    char pn[32], ps[48], pb[32];
    snprintf(pn, sizeof pn, "n=%d", n);
    snprintf(ps, sizeof ps, "seed=%llu", (unsigned long long)seed);
    snprintf(pb, sizeof pb, "bound=%s", bound);
    const char *params[] = {pn, ps, pb, NULL};
    int64_t v;
    kit_run_pair(pool, params, "length", &v, "explored", explored);
    return v;
}

static void check_bounds(satin_pool *pool, int workers)
{
    for (int n = 10; n <= 12; n++) {
        inst in;
        make_inst(&in, n, (uint64_t)n + 100);
        int64_t want = held_karp(&in), el, es;
        int64_t local = run_bound(pool, n, (uint64_t)n + 100, "local", &el);
        int64_t shared = run_bound(pool, n, (uint64_t)n + 100, "shared", &es);
        ok(local == want && shared == want && el > 0 && es > 0,
           "n=%d seed=%d, %d worker(s): bound=local %lld (%lld nodes), bound=shared %lld "
           "(%lld nodes), Held-Karp %lld", n, n + 100, workers, (long long)local, (long long)el,
           (long long)shared, (long long)es, (long long)want);
    }
    if (workers != 1)
        return;
    /* Where the first tours are not yet the best, a job's later siblings
     * prune by what the earlier found (on 1 worker, one run in one order). */
    inst in;
    make_inst(&in, 15, 1);
    int64_t want = held_karp(&in), el, es;
    int64_t local = run_bound(pool, 15, 1, "local", &el);
    int64_t shared = run_bound(pool, 15, 1, "shared", &es);
    ok(local == want && shared == want && es < el,
       "n=15 seed=1, 1 worker: bound=shared explores %lld nodes, fewer than bound=local's %lld, "
       "both %lld (Held-Karp %lld)", (long long)es, (long long)el, (long long)shared,
       (long long)want);
}

static void check_bad_params(satin_pool *pool)
{
    check_bad(pool, (const char *[]){"n=8", "bound=global", NULL},
              "tsp: bound=global is not shared or local", "bound=global");
    check_bad(pool, (const char *[]){NULL}, "needs parameter 'n'", "missing n");
    check_bad(pool, (const char *[]){"n=0", NULL}, "out of range", "n=0");
    check_bad(pool, (const char *[]){"n=21", NULL}, "out of range", "n=21");
    check_bad(pool, (const char *[]){"n=ten", NULL}, "not an integer", "n=ten");
    check_bad(pool, (const char *[]){"n=8", "seed=-2", NULL}, "out of range", "seed=-2");
    check_bad(pool, (const char *[]){"n=8", "threshold=21", NULL}, "out of range",
              "threshold=21");
    check_bad(pool, (const char *[]){"n=8", "probe=-1", NULL}, "out of range", "probe=-1");
    check_bad(pool, (const char *[]){"n=8", "cities=8", NULL}, "unknown parameter 'cities'",
              "unknown key");
}

int main(void)
{
    satin_pool *two = satin_pool_new(&(satin_pool_config){.workers = 2});
    satin_pool *one = satin_pool_new(&(satin_pool_config){.workers = 1});
    check_brute_force(two, 2);
    check_held_karp(two, 2);
    check_thresholds(two);
    check_bad_params(two);
    check_brute_force(one, 1);
    check_held_karp(one, 1);
    check_workers_agree(one, two);
    check_bounds(one, 1);
    check_bounds(two, 2);
    satin_pool_destroy(&two);
    satin_pool_destroy(&one);
    return done_testing();
}
