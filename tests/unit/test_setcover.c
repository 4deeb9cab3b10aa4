/*
 * test_setcover.c - the setcover kind: the minimum cover size against every
 * subset of the sets (m <= 16), and the reported cover (the checksum is the
 * cover's bitmask for m <= 60) checked to be a cover of that size; universes
 * across the 64-bit word boundaries up to 256 elements; thresholds; one
 * worker vs two, bit for bit; and the error texts of bad parameters.  The
 * instance generator is the kind's documented one, repeated below.
 */
#include "kinds.h"
#include "../tap.h"

#define KIND_UNDER_TEST "setcover"
#include "kind_kit.h"

#define WORDS 4
#define MAX_ELEMS 256
#define MAX_SETS 256
#define BRUTE_MAX_SETS 16

typedef struct bits {
    uint64_t w[WORDS];
} bits;

typedef struct inst {
    int n, m;
    bits set[MAX_SETS];
} inst;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static void put(bits *b, int i)
{
    b->w[i / 64] |= UINT64_C(1) << (i % 64);
}

static int has(const bits *b, int i)
{
    return (int)((b->w[i / 64] >> (i % 64)) & 1);
}

static void make_inst(inst *in, int n, int m, int density, uint64_t seed)
{
    memset(in, 0, sizeof *in);
    in->n = n;
    in->m = m;
    uint64_t s = seed;
    for (int j = 0; j < m; j++)
        for (int e = 0; e < n; e++)
            if ((int)(splitmix(&s) % 100) < density)
                put(&in->set[j], e);
    for (int e = 0; e < n; e++) {
        int covered = 0;
        for (int j = 0; j < m && !covered; j++)
            covered = has(&in->set[j], e);
        if (!covered)
            put(&in->set[splitmix(&s) % (uint64_t)m], e);
    }
}

/* 1 when the sets in `mask` (m <= 64) cover the universe. */
static int covers(const inst *in, uint64_t mask)
{
    bits u;
    memset(&u, 0, sizeof u);
    for (int j = 0; j < in->m; j++)
        if (mask >> j & 1)
            for (int k = 0; k < WORDS; k++)
                u.w[k] |= in->set[j].w[k];
    for (int e = 0; e < in->n; e++)
        if (!has(&u, e))
            return 0;
    return 1;
}

/* The fewest sets that cover, over all 2^m subsets (unions built from the
 * subset without its lowest member). */
static int brute_force(const inst *in)
{
    size_t count = (size_t)1 << in->m;
    bits *uni = calloc(count, sizeof *uni);
    if (!uni)
        abort();
    int best = in->m + 1;
    for (size_t mask = 1; mask < count; mask++) {
        int low = __builtin_ctzll(mask);
        for (int k = 0; k < WORDS; k++)
            uni[mask].w[k] = uni[mask & (mask - 1)].w[k] | in->set[low].w[k];
        int size = __builtin_popcountll(mask);
        if (size >= best)
            continue;
        int all = 1;
        for (int e = 0; e < in->n && all; e++)
            all = has(&uni[mask], e);
        if (all)
            best = size;
    }
    free(uni);
    return best;
}

typedef struct answer {
    int64_t size, checksum;
} answer;

/* threshold, probe < 0: the defaults. */
static answer run_sc_probe(satin_pool *pool, int n, int m, int density, uint64_t seed,
                           int threshold, int probe)
{
    char pn[32], pm[32], pd[32], ps[48], pt[32], pp[32];
    snprintf(pn, sizeof pn, "n=%d", n);
    snprintf(pm, sizeof pm, "m=%d", m);
    snprintf(pd, sizeof pd, "density=%d", density);
    snprintf(ps, sizeof ps, "seed=%llu", (unsigned long long)seed);
    snprintf(pt, sizeof pt, "threshold=%d", threshold);
    snprintf(pp, sizeof pp, "probe=%d", probe);
    const char *params[7] = {pn, pm, pd, ps, NULL, NULL, NULL};
    int k = 4;
    if (threshold >= 0)
        params[k++] = pt;
    if (probe >= 0)
        params[k++] = pp;
    satin_outcome o;
    answer a = {-1, -1};
    satin_run_record(pool, kit_kinds(), "setcover", params, &o);
    if (o.failed)
        diag("setcover n=%d m=%d failed: %s", n, m, o.error);
    else if (satin_kvlist_i64(&o.result, "size", &a.size) < 0 ||
             satin_kvlist_i64(&o.result, "checksum", &a.checksum) < 0)
        diag("setcover gave no i64 size/checksum");
    satin_outcome_free(&o);
    return a;
}

static answer run_sc(satin_pool *pool, int n, int m, int density, uint64_t seed,
                     int threshold)
{
    return run_sc_probe(pool, n, m, density, seed, threshold, -1);
}

/* The answer's checksum is the bitmask of a cover with `size` sets. */
static int valid_cover(const inst *in, answer a)
{
    uint64_t mask = (uint64_t)a.checksum;
    return a.checksum >= 0 && (in->m == 64 || mask >> in->m == 0) &&
           __builtin_popcountll(mask) == a.size && covers(in, mask);
}

static void check_brute_force(satin_pool *pool, int workers)
{
    static const int cases[][4] = {
        /* n, m, density, seed */
        {1, 1, 100, 1}, {5, 3, 1, 2},    {10, 8, 30, 1},   {20, 12, 20, 2},
        {64, 16, 15, 3}, {65, 14, 20, 4}, {130, 16, 25, 5}, {200, 16, 30, 6},
        {256, 12, 40, 7}, {30, 16, 5, 8}, {40, 16, 10, 9},  {64, 16, 50, 10},
    };
    static inst in;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int n = cases[i][0], m = cases[i][1], d = cases[i][2], seed = cases[i][3];
        make_inst(&in, n, m, d, (uint64_t)seed);
        int want = brute_force(&in);
        answer a = run_sc(pool, n, m, d, (uint64_t)seed, -1);
        is_i64(a.size, want, "n=%d m=%d density=%d seed=%d: size = all subsets, %d worker(s)",
               n, m, d, seed, workers);
        ok(valid_cover(&in, a), "n=%d m=%d density=%d seed=%d: checksum %lld is a cover of "
                                "that size",
           n, m, d, seed, (long long)a.checksum);
        /* No probes: spawns down to 6 decisions. */
        a = run_sc_probe(pool, n, m, d, (uint64_t)seed, 6, 0);
        is_i64(a.size, want, "n=%d m=%d density=%d seed=%d probe=0 threshold=6: size",
               n, m, d, seed);
        ok(valid_cover(&in, a), "probe=0: checksum %lld is a cover of that size",
           (long long)a.checksum);
    }
}

/* Thresholds from all sequential to spawning at every decision. */
static void check_thresholds(satin_pool *pool)
{
    static inst in;
    make_inst(&in, 40, 16, 12, 11);
    int want = brute_force(&in);
    static const int ts[] = {0, 1, 3, 6, 256};
    static const int probes[] = {-1, 0, 100};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
        for (size_t p = 0; p < sizeof probes / sizeof probes[0]; p++) {
            answer a = run_sc_probe(pool, 40, 16, 12, 11, ts[i], probes[p]);
            is_i64(a.size, want, "n=40 m=16 threshold=%d probe=%d: size", ts[i], probes[p]);
            ok(valid_cover(&in, a), "n=40 m=16 threshold=%d probe=%d: a valid cover", ts[i],
               probes[p]);
        }
    }
}

/* Larger instances: two workers give exactly the one-worker answer (size
 * and which cover), and the cover is valid whenever m <= 60. */
static void check_workers_agree(satin_pool *one, satin_pool *two)
{
    static const int cases[][4] = {
        {60, 60, 10, 1}, {100, 60, 10, 2}, {200, 100, 50, 3}, {130, 80, 40, 4}, {70, 130, 25, 5},
    };
    static inst in;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int n = cases[i][0], m = cases[i][1], d = cases[i][2], seed = cases[i][3];
        answer a = run_sc(one, n, m, d, (uint64_t)seed, -1);
        answer b = run_sc(two, n, m, d, (uint64_t)seed, -1);
        answer s = run_sc(one, n, m, d, (uint64_t)seed, 0);
        ok(a.size > 0 && a.size == b.size && a.checksum == b.checksum,
           "n=%d m=%d density=%d seed=%d: 1 worker size=%lld checksum=%lld, 2 workers "
           "%lld %lld",
           n, m, d, seed, (long long)a.size, (long long)a.checksum, (long long)b.size,
           (long long)b.checksum);
        is_i64(s.size, a.size, "n=%d m=%d: the same size all sequential", n, m);
        answer z = run_sc_probe(two, n, m, d, (uint64_t)seed, -1, 0);
        is_i64(z.size, a.size, "n=%d m=%d: the same size with probe=0", n, m);
        if (m <= 60) {
            make_inst(&in, n, m, d, (uint64_t)seed);
            ok(valid_cover(&in, a), "n=%d m=%d: a valid cover", n, m);
            ok(valid_cover(&in, z), "n=%d m=%d probe=0: a valid cover", n, m);
        }
    }
}

static void check_bad_params(satin_pool *pool)
{
    check_bad(pool, (const char *[]){"m=5", NULL}, "needs parameter 'n'", "missing n");
    check_bad(pool, (const char *[]){"n=5", NULL}, "needs parameter 'm'", "missing m");
    check_bad(pool, (const char *[]){"n=0", "m=5", NULL}, "out of range", "n=0");
    check_bad(pool, (const char *[]){"n=257", "m=5", NULL}, "out of range", "n=257");
    check_bad(pool, (const char *[]){"n=5", "m=0", NULL}, "out of range", "m=0");
    check_bad(pool, (const char *[]){"n=5", "m=257", NULL}, "out of range", "m=257");
    check_bad(pool, (const char *[]){"n=5", "m=5", "density=0", NULL}, "out of range",
              "density=0");
    check_bad(pool, (const char *[]){"n=5", "m=5", "density=101", NULL}, "out of range",
              "density=101");
    check_bad(pool, (const char *[]){"n=5", "m=5", "seed=x", NULL}, "not an integer",
              "seed=x");
    check_bad(pool, (const char *[]){"n=5", "m=5", "threshold=-1", NULL}, "out of range",
              "threshold=-1");
    check_bad(pool, (const char *[]){"n=5", "m=5", "probe=-1", NULL}, "out of range",
              "probe=-1");
    check_bad(pool, (const char *[]){"n=5", "m=5", "sets=5", NULL}, "unknown parameter 'sets'",
              "unknown key");
}

int main(void)
{
    satin_pool *two = satin_pool_new(&(satin_pool_config){.workers = 2});
    satin_pool *one = satin_pool_new(&(satin_pool_config){.workers = 1});
    check_brute_force(two, 2);
    check_brute_force(one, 1);
    check_thresholds(two);
    check_workers_agree(one, two);
    check_bad_params(two);
    satin_pool_destroy(&two);
    satin_pool_destroy(&one);
    return done_testing();
}
