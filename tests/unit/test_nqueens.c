/*
 * test_nqueens.c - the nqueens kind: the known solution counts for n = 1..12
 * whatever the spawn threshold and the number of workers, and the error
 * texts of bad parameters.
 */
#include "kinds.h"
#include "../tap.h"

#include <stdlib.h>

#define KIND_UNDER_TEST "nqueens"
#include "kind_kit.h"

/* OEIS A000170, n = 1..12. */
static const int64_t known[] = {1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200};
#define KNOWN_MAX ((int)(sizeof known / sizeof known[0]))

/* The solution count of nqueens n (threshold < 0: the default one), or -1
 * with a diagnostic when the job failed. */
static int64_t run_nq(satin_pool *pool, int n, int threshold)
{
    char pn[32], pt[32];
    snprintf(pn, sizeof pn, "n=%d", n);
    snprintf(pt, sizeof pt, "threshold=%d", threshold);
    const char *params[] = {pn, threshold >= 0 ? pt : NULL, NULL};
    satin_outcome o;
    int64_t v = -1;
    satin_run_record(pool, kit_kinds(), "nqueens", params, &o);
    if (o.failed)
        diag("nqueens n=%d threshold=%d failed: %s", n, threshold, o.error);
    else if (satin_kvlist_i64(&o.result, "solutions", &v) < 0)
        diag("nqueens gave no i64 'solutions'");
    satin_outcome_free(&o);
    return v;
}

/* first=1: one placement, verified by the kind and again here, for every
 * board that has one; none for n = 2 and 3. */
static void check_first(satin_pool *pool, int workers, int threshold)
{
    for (int n = 1; n <= KNOWN_MAX; n++) {
        char pn[32], pt[32];
        snprintf(pn, sizeof pn, "n=%d", n);
        snprintf(pt, sizeof pt, "threshold=%d", threshold);
        const char *params[] = {pn, "first=1", pt, NULL};
        satin_outcome o;
        satin_run_record(pool, kit_kinds(), "nqueens", params, &o);
        int64_t sols = -1, verified = -1;
        const char *placement = "";
        satin_kvlist_i64(&o.result, "solutions", &sols);
        satin_kvlist_i64(&o.result, "verified", &verified);
        if (satin_kvlist_str(&o.result, "placement"))
            placement = satin_kvlist_str(&o.result, "placement");
        int cols[32], k = 0, good = 1;
        for (const char *c = placement; *c && k < 32; k++) {
            cols[k] = (int)strtol(c, (char **)&c, 10);
            if (*c == ',')
                c++;
        }
        for (int i = 0; i < k; i++)
            for (int j = 0; j < i; j++)
                good &= cols[i] != cols[j] && abs(cols[i] - cols[j]) != i - j;
        if (known[n - 1] == 0)
            ok(!o.failed && sols == 0 && !placement[0],
               "nqueens n=%d first=1 threshold=%d, %d worker(s): no placement", n, threshold,
               workers);
        else
            ok(!o.failed && sols == 1 && verified == 1 && k == n && good,
               "nqueens n=%d first=1 threshold=%d, %d worker(s): %s, verified", n, threshold,
               workers, placement);
        satin_outcome_free(&o);
    }
}

static void check_known(satin_pool *pool)
{
    for (int n = 1; n <= KNOWN_MAX; n++)
        is_i64(run_nq(pool, n, -1), known[n - 1], "nqueens n=%d, 2 workers", n);
}

/* Thresholds from "all sequential" to "spawn down to complete boards" must
 * not change the count. */
static void check_thresholds(satin_pool *pool, int workers)
{
    static const int cases[][2] = {
        {8, 0}, {8, 1}, {8, 2}, {8, 8}, {8, 20}, {1, 0}, {1, 1}, {2, 2},
        {3, 3}, {6, 6}, {10, 3}, {10, 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int n = cases[i][0], t = cases[i][1];
        is_i64(run_nq(pool, n, t), known[n - 1], "nqueens n=%d threshold=%d, %d worker(s)",
               n, t, workers);
    }
}

static void check_one_worker(satin_pool *pool)
{
    static const int ns[] = {1, 2, 4, 5, 8, 11};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        is_i64(run_nq(pool, ns[i], -1), known[ns[i] - 1], "nqueens n=%d, 1 worker", ns[i]);
}

static void check_bad_params(satin_pool *pool)
{
    check_bad(pool, (const char *[]){"n=0", NULL}, "out of range", "n=0");
    check_bad(pool, (const char *[]){"n=8", "first=2", NULL}, "out of range", "first=2");
    check_bad(pool, (const char *[]){"n=-3", NULL}, "out of range", "n=-3");
    check_bad(pool, (const char *[]){"n=21", NULL}, "out of range", "n=21");
    check_bad(pool, (const char *[]){"n=eight", NULL}, "not an integer", "n=eight");
    check_bad(pool, (const char *[]){"n=8.5", NULL}, "not an integer", "n=8.5");
    check_bad(pool, (const char *[]){NULL}, "needs parameter 'n'", "missing n");
    check_bad(pool, (const char *[]){"n=8", "threshold=-1", NULL}, "out of range",
              "threshold=-1");
    check_bad(pool, (const char *[]){"n=8", "threshold=21", NULL}, "out of range",
              "threshold=21");
    check_bad(pool, (const char *[]){"n=8", "threshold=x", NULL}, "not an integer",
              "threshold=x");
    check_bad(pool, (const char *[]){"n=8", "board=8", NULL}, "unknown parameter 'board'",
              "unknown key");
}

int main(void)
{
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = 2});
    check_known(pool);
    check_thresholds(pool, 2);
    check_bad_params(pool);
    check_first(pool, 2, 4);
    check_first(pool, 2, 20);
    satin_pool_destroy(&pool);

    pool = satin_pool_new(&(satin_pool_config){.workers = 1});
    check_one_worker(pool);
    check_thresholds(pool, 1);
    check_first(pool, 1, 0);
    check_first(pool, 1, 4);
    satin_pool_destroy(&pool);
    return done_testing();
}
