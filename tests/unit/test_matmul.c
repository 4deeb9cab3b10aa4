/*
 * test_matmul.c - the matmul kind: its checksum against C = A B computed
 * here with a naive triple loop from the documented element definition,
 * for sizes that are and are not multiples of the leaf size, whatever the
 * leaf size and the number of workers; and the error texts of bad
 * parameters.
 */
#include "kinds.h"
#include "../tap.h"

#define KIND_UNDER_TEST "matmul"
#include "kind_kit.h"

#include <stdint.h>

/* The definition in matmul.c's header comment, written out again. */
static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t pos(int i, int j)
{
    return (uint64_t)i << 32 | (uint64_t)j;
}

static uint64_t naive_checksum(int n, uint64_t seed)
{
    uint64_t ka = mix(seed ^ mix(1)), kb = mix(seed ^ mix(2)), kw = mix(0x5bd1e995);
    uint64_t *a = malloc(sizeof *a * (size_t)n * (size_t)n);
    uint64_t *b = malloc(sizeof *b * (size_t)n * (size_t)n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            a[(size_t)i * (size_t)n + (size_t)j] = mix(ka ^ pos(i, j));
            b[(size_t)i * (size_t)n + (size_t)j] = mix(kb ^ pos(i, j));
        }
    uint64_t sum = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            uint64_t c = 0;
            for (int k = 0; k < n; k++)
                c += a[(size_t)i * (size_t)n + (size_t)k] * b[(size_t)k * (size_t)n + (size_t)j];
            sum += (mix(kw ^ pos(i, j)) | 1) * c;
        }
    free(a);
    free(b);
    return sum;
}

static int64_t as_i64(uint64_t v)
{
    int64_t s;
    memcpy(&s, &v, sizeof s);
    return s;
}

/* The checksum of matmul (leaf < 0: the default), or 0 with a diagnostic. */
static int64_t run_mm(satin_pool *pool, int n, long long seed, int leaf)
{
    char pn[32], ps[32], pl[32];
    snprintf(pn, sizeof pn, "n=%d", n);
    snprintf(ps, sizeof ps, "seed=%lld", seed);
    snprintf(pl, sizeof pl, "leaf=%d", leaf);
    const char *params[] = {pn, ps, leaf >= 0 ? pl : NULL, NULL};
    satin_outcome o;
    int64_t v = 0;
    satin_run_record(pool, satin_builtin_kinds, "matmul", params, &o);
    if (o.failed)
        diag("matmul n=%d seed=%lld leaf=%d failed: %s", n, seed, leaf, o.error);
    else if (satin_kvlist_i64(&o.result, "checksum", &v) < 0)
        diag("matmul gave no i64 'checksum'");
    satin_outcome_free(&o);
    return v;
}

static void check_naive(satin_pool *pool, int workers)
{
    /* n, seed, leaf (-1: default 48) */
    static const int cases[][3] = {
        {1, 1, -1}, {2, 7, -1}, {3, 1, 1}, {5, 2, 2},   {17, 3, 4},  {47, 1, -1},
        {48, 1, -1}, {49, 1, -1}, {96, 1, -1}, {97, 5, -1}, {100, 9, 16}, {130, 4, -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int n = cases[i][0], seed = cases[i][1], leaf = cases[i][2];
        is_i64(run_mm(pool, n, seed, leaf), as_i64(naive_checksum(n, (uint64_t)seed)),
               "n=%d seed=%d leaf=%d: checksum of the naive product, %d worker(s)", n, seed,
               leaf, workers);
    }
}

/* The leaf size changes the recursion, never the checksum. */
static void check_leaves(satin_pool *pool, int workers)
{
    int64_t want = as_i64(naive_checksum(96, 42));
    static const int leaves[] = {1, 5, 7, 24, 48, 95, 96, 128};
    for (size_t i = 0; i < sizeof leaves / sizeof leaves[0]; i++) {
        if (leaves[i] == 1 && workers == 1)
            continue;  /* 96^3 leaf jobs: once is enough */
        is_i64(run_mm(pool, 96, 42, leaves[i]), want, "n=96 seed=42 leaf=%d, %d worker(s)",
               leaves[i], workers);
    }
}

static void check_seeds(satin_pool *pool)
{
    int64_t a = run_mm(pool, 64, 1, -1), b = run_mm(pool, 64, 2, -1);
    ok(a != b, "seeds 1 and 2 give different checksums");
    is_i64(run_mm(pool, 64, 0x7fffffffffffffffLL, -1),
           as_i64(naive_checksum(64, 0x7fffffffffffffffu)), "the largest seed");
}

static void check_bad_params(satin_pool *pool)
{
    check_bad(pool, (const char *[]){NULL}, "needs parameter 'n'", "missing n");
    check_bad(pool, (const char *[]){"n=0", NULL}, "out of range", "n=0");
    check_bad(pool, (const char *[]){"n=16385", NULL}, "out of range", "n=16385");
    check_bad(pool, (const char *[]){"n=9x", NULL}, "not an integer", "n=9x");
    check_bad(pool, (const char *[]){"n=96", "seed=-1", NULL}, "out of range", "seed=-1");
    check_bad(pool, (const char *[]){"n=96", "seed=one", NULL}, "not an integer", "seed=one");
    check_bad(pool, (const char *[]){"n=96", "leaf=0", NULL}, "out of range", "leaf=0");
    check_bad(pool, (const char *[]){"n=96", "leaf=129", NULL}, "out of range", "leaf=129");
    check_bad(pool, (const char *[]){"n=96", "m=3", NULL}, "unknown parameter 'm'",
              "unknown key");
}

int main(void)
{
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = 2});
    check_naive(pool, 2);
    check_leaves(pool, 2);
    check_seeds(pool);
    check_bad_params(pool);
    satin_pool_destroy(&pool);

    pool = satin_pool_new(&(satin_pool_config){.workers = 1});
    check_naive(pool, 1);
    check_leaves(pool, 1);
    satin_pool_destroy(&pool);
    return done_testing();
}
