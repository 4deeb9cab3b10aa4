/*
 * test_knapsack.c - the knapsack kind against answers computed here without
 * branch and bound: every subset (Gray code order) for small n, the
 * capacity-indexed dynamic program for larger n.  The instance generator is
 * the kind's documented one, repeated below.  Also: thresholds, one worker
 * vs two, and the error texts of bad parameters.
 */
#include "kinds.h"
#include "../tap.h"

#define KIND_UNDER_TEST "knapsack"
#include "kind_kit.h"

#define MAX_ITEMS 128

typedef struct inst {
    int n;
    int64_t w[MAX_ITEMS], v[MAX_ITEMS];
    int64_t capacity;
} inst;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* type: 'u'ncorrelated, 'w'eak, 's'trong; capacity < 0: the default. */
static void make_inst(inst *in, int n, uint64_t seed, char type, int64_t capacity)
{
    uint64_t s = seed;
    int64_t total = 0;
    in->n = n;
    for (int i = 0; i < n; i++) {
        in->w[i] = 1 + (int64_t)(splitmix(&s) % 1000);
        if (type == 'u') {
            in->v[i] = 1 + (int64_t)(splitmix(&s) % 1000);
        } else if (type == 'w') {
            in->v[i] = in->w[i] - 100 + (int64_t)(splitmix(&s) % 201);
            if (in->v[i] < 1)
                in->v[i] = 1;
        } else {
            in->v[i] = in->w[i] + 100;
        }
        total += in->w[i];
    }
    in->capacity = capacity >= 0 ? capacity : total / 2;
}

/* Every subset, one item flipped per step (Gray code). */
static int64_t brute_force(const inst *in)
{
    int64_t w = 0, v = 0, best = 0;
    for (uint32_t k = 1; k < (UINT32_C(1) << in->n); k++) {
        int i = __builtin_ctz(k);
        uint32_t gray = k ^ (k >> 1);
        if (gray & (UINT32_C(1) << i)) {
            w += in->w[i];
            v += in->v[i];
        } else {
            w -= in->w[i];
            v -= in->v[i];
        }
        if (w <= in->capacity && v > best)
            best = v;
    }
    return best;
}

/* best[c]: the best value of weight at most c. */
static int64_t dynamic_program(const inst *in)
{
    int64_t cap = in->capacity;
    int64_t *best = calloc((size_t)cap + 1, sizeof *best);
    if (!best)
        abort();
    for (int i = 0; i < in->n; i++)
        for (int64_t c = cap; c >= in->w[i]; c--)
            if (best[c - in->w[i]] + in->v[i] > best[c])
                best[c] = best[c - in->w[i]] + in->v[i];
    int64_t r = best[cap];
    free(best);
    return r;
}

static const char *type_name(char type)
{
    return type == 'u' ? "uncorrelated" : type == 'w' ? "weak" : "strong";
}

/* Runs knapsack (capacity, threshold, probe < 0: the defaults); returns the
 * value, or -1 with a diagnostic. */
static int64_t run_ks_probe(satin_pool *pool, int n, uint64_t seed, char type,
                            int64_t capacity, int threshold, int probe)
{
    char pn[32], ps[48], pt[32], pc[48], pth[32], pp[32];
    snprintf(pn, sizeof pn, "n=%d", n);
    snprintf(ps, sizeof ps, "seed=%llu", (unsigned long long)seed);
    snprintf(pt, sizeof pt, "type=%s", type_name(type));
    snprintf(pc, sizeof pc, "capacity=%lld", (long long)capacity);
    snprintf(pth, sizeof pth, "threshold=%d", threshold);
    snprintf(pp, sizeof pp, "probe=%d", probe);
    const char *params[7] = {pn, ps, pt, NULL, NULL, NULL, NULL};
    int k = 3;
    if (capacity >= 0)
        params[k++] = pc;
    if (threshold >= 0)
        params[k++] = pth;
    if (probe >= 0)
        params[k++] = pp;
    satin_outcome o;
    int64_t v = -1;
    satin_run_record(pool, kit_kinds(), "knapsack", params, &o);
    if (o.failed)
        diag("knapsack n=%d seed=%llu failed: %s", n, (unsigned long long)seed, o.error);
    else if (satin_kvlist_i64(&o.result, "value", &v) < 0)
        diag("knapsack gave no i64 'value'");
    satin_outcome_free(&o);
    return v;
}

static int64_t run_ks(satin_pool *pool, int n, uint64_t seed, char type, int64_t capacity,
                      int threshold)
{
    return run_ks_probe(pool, n, seed, type, capacity, threshold, -1);
}

static void check_brute_force(satin_pool *pool, int workers)
{
    static const char types[] = {'u', 'w', 's'};
    for (int t = 0; t < 3; t++) {
        for (uint64_t seed = 1; seed <= 3; seed++) {
            int n = 12 + (int)seed * 2; /* 14, 16, 18 */
            inst in;
            make_inst(&in, n, seed, types[t], -1);
            int64_t want = brute_force(&in);
            is_i64(run_ks(pool, n, seed, types[t], -1, -1), want,
                   "knapsack n=%d seed=%llu type=%s = all subsets, %d worker(s)", n,
                   (unsigned long long)seed, type_name(types[t]), workers);
            /* No probes: the spawn tree goes down to 8 items left. */
            is_i64(run_ks_probe(pool, n, seed, types[t], -1, 8, 0), want,
                   "knapsack n=%d seed=%llu type=%s probe=0 threshold=8 = all subsets, "
                   "%d worker(s)",
                   n, (unsigned long long)seed, type_name(types[t]), workers);
        }
    }
    /* Tiny and edge cases, every threshold from all sequential to all spawned. */
    static const int cases[][3] = {/* n, seed, threshold */
                                   {1, 5, 0}, {1, 5, 1}, {2, 6, 2}, {3, 7, 0}, {5, 8, 5},
                                   {8, 9, 3}, {10, 10, 1000}, {12, 11, 0}, {12, 11, 4}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        inst in;
        make_inst(&in, cases[i][0], (uint64_t)cases[i][1], 'u', -1);
        is_i64(run_ks_probe(pool, cases[i][0], (uint64_t)cases[i][1], 'u', -1, cases[i][2], 0),
               brute_force(&in), "knapsack n=%d seed=%d threshold=%d probe=0 = all subsets",
               cases[i][0], cases[i][1], cases[i][2]);
    }
}

static void check_capacity(satin_pool *pool)
{
    inst in;
    make_inst(&in, 16, 4, 'w', 0);
    is_i64(run_ks(pool, 16, 4, 'w', 0, -1), 0, "capacity=0: nothing fits");
    make_inst(&in, 16, 4, 'w', 1000000);
    int64_t all = 0;
    for (int i = 0; i < in.n; i++)
        all += in.v[i];
    is_i64(run_ks(pool, 16, 4, 'w', 1000000, -1), all, "capacity above the total: all items");
    for (int64_t cap = 1; cap <= 4001; cap += 1000) {
        make_inst(&in, 17, 9, 's', cap);
        is_i64(run_ks(pool, 17, 9, 's', cap, -1), brute_force(&in),
               "strong n=17 capacity=%lld = all subsets", (long long)cap);
    }
}

static void check_dynamic_program(satin_pool *pool, int workers)
{
    static const struct {
        int n;
        uint64_t seed;
        char type;
    } cases[] = {{60, 1, 'u'}, {100, 2, 'u'}, {60, 3, 'w'}, {40, 4, 's'}, {45, 5, 's'}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        inst in;
        make_inst(&in, cases[i].n, cases[i].seed, cases[i].type, -1);
        is_i64(run_ks(pool, cases[i].n, cases[i].seed, cases[i].type, -1, -1),
               dynamic_program(&in), "knapsack n=%d seed=%llu type=%s = DP, %d worker(s)",
               cases[i].n, (unsigned long long)cases[i].seed, type_name(cases[i].type),
               workers);
    }
}

/* The same instance, thresholds from all sequential to deep spawning. */
static void check_thresholds(satin_pool *pool)
{
    inst in;
    make_inst(&in, 50, 7, 's', -1);
    int64_t want = dynamic_program(&in);
    static const int ts[] = {0, 1, 5, 20, 30, 50};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
        is_i64(run_ks(pool, 50, 7, 's', -1, ts[i]), want, "strong n=50 seed=7 threshold=%d",
               ts[i]);
        is_i64(run_ks_probe(pool, 50, 7, 's', -1, ts[i] < 30 ? 30 : ts[i], 1000), want,
               "strong n=50 seed=7 threshold=%d probe=1000", ts[i] < 30 ? 30 : ts[i]);
    }
}

/* bound=local and bound=shared (the default) reach the DP's value; the
 * search nodes are in the result. */
static int64_t run_bound(satin_pool *pool, int n, uint64_t seed, const char *bound,
                         int64_t *explored)
{
    char pn[32], ps[48], pb[32];
    snprintf(pn, sizeof pn, "n=%d", n);
    snprintf(ps, sizeof ps, "seed=%llu", (unsigned long long)seed);
    snprintf(pb, sizeof pb, "bound=%s", bound);
    const char *params[] = {pn, ps, "type=strong", "probe=0", pb, NULL};
    int64_t v;
    kit_run_pair(pool, params, "value", &v, "explored", explored);
    return v;
}

static void check_bounds(satin_pool *pool, int workers)
{
    for (int n = 30; n <= 40; n += 5) {
        inst in;
        make_inst(&in, n, (uint64_t)n, 's', -1);
        int64_t want = dynamic_program(&in), el, es;
        int64_t local = run_bound(pool, n, (uint64_t)n, "local", &el);
        int64_t shared = run_bound(pool, n, (uint64_t)n, "shared", &es);
        ok(local == want && shared == want && el > 0 && es > 0,
           "strong n=%d seed=%d probe=0, %d worker(s): bound=local %lld (%lld nodes), "
           "bound=shared %lld (%lld nodes), DP %lld", n, n, workers, (long long)local,
           (long long)el, (long long)shared, (long long)es, (long long)want);
    }
}

static void check_bad_params(satin_pool *pool)
{
    check_bad(pool, (const char *[]){"n=8", "bound=global", NULL},
              "knapsack: bound=global is not shared or local", "bound=global");
    check_bad(pool, (const char *[]){NULL}, "needs parameter 'n'", "missing n");
    check_bad(pool, (const char *[]){"n=0", NULL}, "out of range", "n=0");
    check_bad(pool, (const char *[]){"n=1001", NULL}, "out of range", "n=1001");
    check_bad(pool, (const char *[]){"n=ten", NULL}, "not an integer", "n=ten");
    check_bad(pool, (const char *[]){"n=10", "seed=-1", NULL}, "out of range", "seed=-1");
    check_bad(pool, (const char *[]){"n=10", "capacity=-5", NULL}, "out of range",
              "capacity=-5");
    check_bad(pool, (const char *[]){"n=10", "capacity=2000000000000", NULL}, "out of range",
              "capacity too large");
    check_bad(pool, (const char *[]){"n=10", "type=hard", NULL}, "unknown type 'hard'",
              "type=hard");
    check_bad(pool, (const char *[]){"n=10", "threshold=-1", NULL}, "out of range",
              "threshold=-1");
    check_bad(pool, (const char *[]){"n=10", "threshold=1001", NULL}, "out of range",
              "threshold=1001");
    check_bad(pool, (const char *[]){"n=10", "probe=-1", NULL}, "out of range", "probe=-1");
    check_bad(pool, (const char *[]){"n=10", "items=10", NULL}, "unknown parameter 'items'",
              "unknown key");
}

/* Same parameters, same answer, whatever the number of workers: the values
 * from the two pools must agree too. */
static void check_workers_agree(satin_pool *one, satin_pool *two)
{
    static const struct {
        int n;
        uint64_t seed;
        char type;
    } cases[] = {{70, 2, 's'}, {200, 3, 'w'}, {1000, 4, 'u'}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t a = run_ks(one, cases[i].n, cases[i].seed, cases[i].type, -1, -1);
        int64_t b = run_ks(two, cases[i].n, cases[i].seed, cases[i].type, -1, -1);
        ok(a > 0 && a == b, "n=%d seed=%llu type=%s: %lld on 1 worker, %lld on 2",
           cases[i].n, (unsigned long long)cases[i].seed, type_name(cases[i].type),
           (long long)a, (long long)b);
    }
}

int main(void)
{
    satin_pool *two = satin_pool_new(&(satin_pool_config){.workers = 2});
    satin_pool *one = satin_pool_new(&(satin_pool_config){.workers = 1});
    check_brute_force(two, 2);
    check_capacity(two);
    check_dynamic_program(two, 2);
    check_thresholds(two);
    check_bad_params(two);
    check_dynamic_program(one, 1);
    check_workers_agree(one, two);
    check_bounds(one, 1);
    check_bounds(two, 2);
    satin_pool_destroy(&two);
    satin_pool_destroy(&one);
    return done_testing();
}
