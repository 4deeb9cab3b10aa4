/*
 * test_array.c - the array kind: its sum, xor and count against the array
 * summed here in one loop, whatever the leaf, the carry (which records take
 * their data along) and the number of workers; records of 512 KiB of
 * elements, within the default record limit; and the error texts of bad parameters.
 */
#include "kinds.h"
#include "params.h"
#include "../tap.h"

#define KIND_UNDER_TEST "array"
#include "kind_kit.h"

#include <inttypes.h>
#include <stdio.h>

/* SplitMix64's finalizer, as the kind's documentation defines the elements. */
static uint64_t splitmix(uint64_t z)
{
    z += UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* "SUM XOR COUNT" of the array, in one loop. */
static void expected(uint64_t n, uint64_t seed, int work, char *out, size_t len)
{
    uint64_t sum = 0, x = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = splitmix(seed + i);
        for (int r = 0; r < work; r++)
            v = splitmix(v);
        sum += v;
        x ^= v;
    }
    snprintf(out, len, "%016" PRIx64 " %016" PRIx64 " %" PRIu64, sum, x, n);
}

static void got(satin_pool *pool, const char *const *params, char *out, size_t len)
{
    satin_outcome o;
    satin_run_record(pool, kit_kinds(), "array", params, &o);
    int64_t count = -1;
    const char *sum = satin_kvlist_str(&o.result, "sum"), *x = satin_kvlist_str(&o.result, "xor");
    satin_kvlist_i64(&o.result, "elements", &count);
    if (o.failed)
        snprintf(out, len, "failed: %s", o.error);
    else
        snprintf(out, len, "%s %s %" PRId64, sum ? sum : "?", x ? x : "?", count);
    satin_outcome_free(&o);
}

static void check_sums(satin_pool *pool, int workers)
{
    static const struct {
        const char *n, *seed, *leaf, *carry, *work;
        uint64_t nv, seedv;
        int workv;
    } cases[] = {
        {"n=1", "seed=1", "leaf=1", "carry=1", "work=0", 1, 1, 0},
        {"n=7", "seed=5", "leaf=1", "carry=2", "work=0", 7, 5, 0},
        {"n=1000", "seed=0", "leaf=3", "carry=3", "work=2", 1000, 0, 2},
        {"n=100000", "seed=42", "leaf=64", "carry=1000", "work=1", 100000, 42, 1},
        {"n=300001", "seed=9", "leaf=4096", "carry=32768", "work=0", 300001, 9, 0},
        /* carry 131072: records of 512 KiB of elements, within the default limit. */
        {"n=262144", "seed=3", "leaf=65536", "carry=131072", "work=0", 262144, 3, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *params[] = {cases[i].n, cases[i].seed, cases[i].leaf, cases[i].carry,
                                cases[i].work, NULL};
        char want[96], have[320];
        expected(cases[i].nv, cases[i].seedv, cases[i].workv, want, sizeof want);
        got(pool, params, have, sizeof have);
        is_str(have, want, "array %s %s %s %s %s: sum, xor and count, %d worker(s)", cases[i].n,
               cases[i].seed, cases[i].leaf, cases[i].carry, cases[i].work, workers);
    }
}

static void check_bad_params(satin_pool *pool)
{
    check_bad(pool, (const char *[]){"n=0", NULL}, "n", "n=0");
    check_bad(pool, (const char *[]){"n=10", "leaf=9", "carry=8", NULL},
              "array: leaf=9 must not exceed carry=8", "leaf above carry");
    check_bad(pool, (const char *[]){"n=10", "carry=131073", NULL}, "carry", "carry too large");
    check_bad(pool, (const char *[]){"n=10", "work=-1", NULL}, "work", "negative work");
}

int main(void)
{
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = 2});
    check_sums(pool, 2);
    check_bad_params(pool);
    satin_pool_destroy(&pool);
    pool = satin_pool_new(&(satin_pool_config){.workers = 1});
    check_sums(pool, 1);
    satin_pool_destroy(&pool);
    return done_testing();
}
