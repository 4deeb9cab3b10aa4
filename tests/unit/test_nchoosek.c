/*
 * test_nchoosek.c - the nchoosek kind: C(n, k) against subsets counted here
 * one by one (n <= 20) and against Pascal's triangle built by additions,
 * whatever the threshold and the number of workers; the 64-bit limit
 * checked at the exact boundary (parse only: those values would take years
 * to count); and the error texts of bad parameters.
 */
#include "kinds.h"
#include "params.h"
#include "../tap.h"

#define KIND_UNDER_TEST "nchoosek"
#include "kind_kit.h"

#define ENUM_MAX 20
#define PASCAL_MAX 1000

static int64_t counted[ENUM_MAX + 1][ENUM_MAX + 1];

/* counted[n][k]: the subsets of {0..n-1} with k members, by enumeration. */
static void count_subsets(void)
{
    for (int n = 0; n <= ENUM_MAX; n++)
        for (uint32_t s = 0; s < (UINT32_C(1) << n); s++)
            counted[n][__builtin_popcount(s)]++;
}

/* C(n, k) for small k by Pascal's rule, in 64 bits (no overflow for k <= 2). */
static int64_t pascal(int n, int k)
{
    static int64_t row[PASCAL_MAX + 1];
    memset(row, 0, sizeof row);
    row[0] = 1;
    for (int i = 1; i <= n; i++)
        for (int j = (i < k ? i : k); j >= 1; j--)
            row[j] += row[j - 1];
    return row[k];
}

static int64_t run_nck(satin_pool *pool, int n, int k, int threshold)
{
    char pn[32], pk[32], pt[32];
    snprintf(pn, sizeof pn, "n=%d", n);
    snprintf(pk, sizeof pk, "k=%d", k);
    snprintf(pt, sizeof pt, "threshold=%d", threshold);
    const char *params[] = {pn, pk, threshold >= 0 ? pt : NULL, NULL};
    satin_outcome o;
    int64_t v = -1;
    satin_run_record(pool, kit_kinds(), "nchoosek", params, &o);
    if (o.failed)
        diag("nchoosek n=%d k=%d threshold=%d failed: %s", n, k, threshold, o.error);
    else if (satin_kvlist_i64(&o.result, "value", &v) < 0)
        diag("nchoosek gave no i64 'value'");
    satin_outcome_free(&o);
    return v;
}

static void check_enumerated(satin_pool *pool, int workers)
{
    /* Spawning everything costs about 2 C(n, k) spawns: smaller n there. */
    static const int thresholds[] = {-1, 0, 5, 1001};
    static const int nmax[] = {ENUM_MAX, 16, 18, ENUM_MAX};
    for (size_t t = 0; t < sizeof thresholds / sizeof thresholds[0]; t++) {
        int all_ok = 1;
        for (int n = 0; n <= nmax[t]; n++) {
            for (int k = 0; k <= n; k++) {
                int64_t got = run_nck(pool, n, k, thresholds[t]);
                if (got != counted[n][k]) {
                    diag("C(%d, %d) threshold=%d: got %lld, counted %lld", n, k,
                         thresholds[t], (long long)got, (long long)counted[n][k]);
                    all_ok = 0;
                }
            }
        }
        ok(all_ok, "C(n, k) for 0 <= k <= n <= %d = subsets counted, threshold=%d, "
                   "%d worker(s)",
           nmax[t], thresholds[t], workers);
    }
}

static void check_larger(satin_pool *pool, int workers)
{
    is_i64(run_nck(pool, 24, 12, -1), 2704156, "C(24, 12), %d worker(s)", workers);
    is_i64(run_nck(pool, 20, 10, 0), 184756, "C(20, 10) threshold=0, %d worker(s)", workers);
    is_i64(run_nck(pool, 25, 5, 10), pascal(25, 5), "C(25, 5) threshold=10, %d worker(s)",
           workers);
    /* Deep, narrow recursions: n - 1 levels of spawns with threshold 0. */
    is_i64(run_nck(pool, 1000, 1, 0), 1000, "C(1000, 1) threshold=0, %d worker(s)", workers);
    is_i64(run_nck(pool, 1000, 999, 0), 1000, "C(1000, 999) threshold=0, %d worker(s)",
           workers);
    is_i64(run_nck(pool, 1000, 2, -1), pascal(1000, 2), "C(1000, 2), %d worker(s)", workers);
    is_i64(run_nck(pool, 1000, 1000, -1), 1, "C(1000, 1000), %d worker(s)", workers);
    is_i64(run_nck(pool, 1000, 0, -1), 1, "C(1000, 0), %d worker(s)", workers);
}

/* Parse only: 1 when the kind accepts the parameters. */
static int accepts(const char *const *params, char *why, size_t why_len)
{
    const satin_kind *kind = satin_registry_kind(kit_kinds(), "nchoosek");
    satin_params *p = satin_params_new();
    satin_err err = {""};
    satin_bytes arg;
    int rc = 0;
    for (const char *const *kv = params; *kv && rc == 0; kv++)
        rc = satin_params_add_text(p, *kv, &err);
    if (rc == 0)
        rc = satin_kind_prepare(kind, p, SATIN_MAX_RECORD_DEFAULT, &arg, &err);
    if (rc == 0)
        satin_bytes_free(&arg);
    satin_params_destroy(&p);
    snprintf(why, why_len, "%s", err.msg);
    return rc == 0;
}

static void check_64bit_boundary(void)
{
    char why[256];
    /* C(66, 33) = 7.2e18 fits; C(67, 33) = 1.4e19 does not. */
    ok(accepts((const char *[]){"n=66", "k=33", NULL}, why, sizeof why), "C(66, 33) accepted");
    ok(!accepts((const char *[]){"n=67", "k=33", NULL}, why, sizeof why) &&
           strstr(why, "does not fit in a signed 64-bit integer"),
       "C(67, 33) rejected: '%s'", why);
    /* C(67, 29) = 9.07e18 fits; C(67, 30) = 9.99e18 does not; symmetric too. */
    ok(accepts((const char *[]){"n=67", "k=29", NULL}, why, sizeof why), "C(67, 29) accepted");
    ok(accepts((const char *[]){"n=67", "k=38", NULL}, why, sizeof why), "C(67, 38) accepted");
    ok(!accepts((const char *[]){"n=67", "k=30", NULL}, why, sizeof why), "C(67, 30) rejected");
    ok(!accepts((const char *[]){"n=67", "k=37", NULL}, why, sizeof why), "C(67, 37) rejected");
    /* C(1000, 7) = 1.9e17 fits; C(1000, 8) = 2.4e19 does not. */
    ok(accepts((const char *[]){"n=1000", "k=7", NULL}, why, sizeof why), "C(1000, 7) accepted");
    ok(!accepts((const char *[]){"n=1000", "k=8", NULL}, why, sizeof why),
       "C(1000, 8) rejected");
    ok(!accepts((const char *[]){"n=1000", "k=500", NULL}, why, sizeof why),
       "C(1000, 500) rejected");
}

static void check_bad_params(satin_pool *pool)
{
    check_bad(pool, (const char *[]){"k=3", NULL}, "needs parameter 'n'", "missing n");
    check_bad(pool, (const char *[]){"n=5", NULL}, "needs parameter 'k'", "missing k");
    check_bad(pool, (const char *[]){"n=-1", "k=0", NULL}, "out of range", "n=-1");
    check_bad(pool, (const char *[]){"n=1001", "k=1", NULL}, "out of range", "n=1001");
    check_bad(pool, (const char *[]){"n=5", "k=-1", NULL}, "out of range", "k=-1");
    check_bad(pool, (const char *[]){"n=5", "k=6", NULL}, "k=6 must not exceed n=5", "k > n");
    check_bad(pool, (const char *[]){"n=5", "k=two", NULL}, "not an integer", "k=two");
    check_bad(pool, (const char *[]){"n=70", "k=35", NULL},
              "C(70, 35) does not fit in a signed 64-bit integer", "C(70, 35)");
    check_bad(pool, (const char *[]){"n=5", "k=2", "threshold=-1", NULL}, "out of range",
              "threshold=-1");
    check_bad(pool, (const char *[]){"n=5", "k=2", "threshold=1002", NULL}, "out of range",
              "threshold=1002");
    check_bad(pool, (const char *[]){"n=5", "k=2", "m=3", NULL}, "unknown parameter 'm'",
              "unknown key");
}

int main(void)
{
    count_subsets();
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = 2});
    check_enumerated(pool, 2);
    check_larger(pool, 2);
    check_bad_params(pool);
    satin_pool_destroy(&pool);

    pool = satin_pool_new(&(satin_pool_config){.workers = 1});
    check_enumerated(pool, 1);
    check_larger(pool, 1);
    satin_pool_destroy(&pool);

    check_64bit_boundary();
    return done_testing();
}
