/*
 * test_fib.c - the fib kind through whole job records: values on one and two
 * workers, the spawn threshold, and the error texts of bad parameters.
 */
#include "kinds.h"
#include "../tap.h"

#define KIND_UNDER_TEST "fib"
#include "kind_kit.h"

/* Runs fib with the given parameters; returns the value, or -1 with a
 * diagnostic when the job failed or gave no value. */
static int64_t run_fib(satin_pool *pool, const char *const *params)
{
    satin_outcome o;
    int64_t v = -1;
    satin_run_record(pool, kit_kinds(), "fib", params, &o);
    if (o.failed)
        diag("fib failed: %s", o.error);
    else if (satin_kvlist_i64(&o.result, "value", &v) < 0)
        diag("fib gave no i64 'value'");
    satin_outcome_free(&o);
    return v;
}

static int64_t run_fib_n(satin_pool *pool, int n, int threshold)
{
    char pn[32], pt[32];
    snprintf(pn, sizeof pn, "n=%d", n);
    snprintf(pt, sizeof pt, "threshold=%d", threshold);
    return run_fib(pool, (const char *[]){pn, pt, NULL});
}

static void check_small(satin_pool *pool, int workers)
{
    int64_t want = 0, next = 1; /* fib(0), fib(1) */
    int all_ok = 1;
    for (int n = 0; n <= 20; n++) {
        int64_t got = run_fib_n(pool, n, 0);
        if (got != want) {
            diag("fib(%d) on %d workers: got %" PRId64 ", expected %" PRId64, n, workers,
                 got, want);
            all_ok = 0;
        }
        int64_t t = want + next;
        want = next;
        next = t;
    }
    ok(all_ok, "fib(0..20) on %d worker(s)", workers);
}

static void check_30(satin_pool *pool, int workers)
{
    is_i64(run_fib(pool, (const char *[]){"n=30", NULL}), 832040,
           "fib 30 on %d worker(s), no threshold", workers);
    /* Spawns in the top 20, top 10 and no levels. */
    static const int thresholds[] = {10, 20, 31};
    for (size_t i = 0; i < sizeof thresholds / sizeof thresholds[0]; i++) {
        int t = thresholds[i];
        is_i64(run_fib_n(pool, 30, t), 832040, "fib 30 threshold=%d on %d worker(s)", t,
               workers);
    }
}

static void check_sequential_leaves(satin_pool *pool)
{
    /* Spawns only in the top ten levels, plain C recursion below. */
    is_i64(run_fib(pool, (const char *[]){"n=35", "threshold=25", NULL}), 9227465,
           "fib 35 with threshold 25");
    is_i64(run_fib(pool, (const char *[]){"n=25", "threshold=92", NULL}), 75025,
           "fib 25 with threshold 92 (no spawns at all)");
}

/* The record must be rejected with an error containing `want`. */

static void check_bad_params(satin_pool *pool)
{
    check_bad(pool, (const char *[]){"n=-1", NULL}, "out of range", "n=-1");
    check_bad(pool, (const char *[]){"n=93", NULL}, "out of range", "n=93");
    check_bad(pool, (const char *[]){"n=abc", NULL}, "not an integer", "n=abc");
    check_bad(pool, (const char *[]){"n=", NULL}, "not an integer", "empty n");
    check_bad(pool, (const char *[]){"n=12x", NULL}, "not an integer", "n=12x");
    check_bad(pool, (const char *[]){NULL}, "needs parameter 'n'", "missing n");
    check_bad(pool, (const char *[]){"threshold=3", NULL}, "needs parameter 'n'",
              "only threshold");
    check_bad(pool, (const char *[]){"n=10", "depth=3", NULL}, "unknown parameter 'depth'",
              "unknown key");
    check_bad(pool, (const char *[]){"n=10", "threshold=-1", NULL}, "out of range",
              "threshold=-1");
    check_bad(pool, (const char *[]){"n=10", "n=11", NULL}, "given twice", "n twice");
}

int main(void)
{
    for (int workers = 1; workers <= 2; workers++) {
        satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = workers});
        ok(pool != NULL, "pool of %d worker(s)", workers);
        check_small(pool, workers);
        check_30(pool, workers);
        if (workers == 2) {
            check_sequential_leaves(pool);
            check_bad_params(pool);
        }
        satin_pool_destroy(&pool);
        ok(pool == NULL, "pool of %d worker(s) destroyed", workers);
    }
    return done_testing();
}
