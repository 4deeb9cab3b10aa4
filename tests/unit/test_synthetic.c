/*
 * test_synthetic.c - the synthetic kind: fanout^depth leaves, total_us equal
 * to the sum of the draws recomputed here, the same on one and two workers;
 * the draw function's distributions (range, mean, variance); leaves that
 * really wait, without burning the CPU; and the error texts of bad
 * parameters.
 */
#include "kinds.h"
#include "synthetic_draw.h"
#include "../tap.h"

#define KIND_UNDER_TEST "synthetic"
#include "kind_kit.h"

#include <stdint.h>
#include <sys/resource.h>

typedef struct syn_out {
    int64_t leaves, total_us;
    double wall_s;
} syn_out;

static int run_syn(satin_pool *pool, const char *const *params, syn_out *r)
{
    satin_outcome o;
    int rc = 0;
    r->leaves = r->total_us = -1;
    satin_run_record(pool, kit_kinds(), "synthetic", params, &o);
    if (o.failed) {
        diag("synthetic failed: %s", o.error);
        rc = -1;
    } else if (satin_kvlist_i64(&o.result, "leaves", &r->leaves) < 0 ||
               satin_kvlist_i64(&o.result, "total_us", &r->total_us) < 0) {
        diag("synthetic gave no i64 'leaves' and 'total_us'");
        rc = -1;
    }
    r->wall_s = o.wall_s;
    satin_outcome_free(&o);
    return rc;
}

static int dist_code(const char *name)
{
    return strcmp(name, "uniform") == 0 ? SYN_DIST_UNIFORM
           : strcmp(name, "gamma") == 0 ? SYN_DIST_GAMMA
                                        : SYN_DIST_CONST;
}

typedef struct tree_case {
    int depth, fanout;
    const char *dist;
    int mean_us;
    double shape;
    long long seed;
} tree_case;

static void check_trees(satin_pool *pool, int workers)
{
    static const tree_case cases[] = {
        {0, 1, "const", 50, 1, 1},     {0, 7, "uniform", 50, 1, 3},  {1, 1, "gamma", 50, 2, 1},
        {3, 1, "const", 40, 1, 1},     {2, 5, "const", 30, 1, 1},    {3, 4, "uniform", 50, 1, 1},
        {3, 4, "uniform", 50, 1, 2},   {2, 9, "gamma", 50, 0.5, 7},  {4, 3, "gamma", 20, 3, 11},
        {1, 16, "gamma", 50, 0.0173, 5}, {3, 3, "const", 0, 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const tree_case *c = &cases[i];
        char pd[32], pf[32], pdist[32], pm[32], psh[48], pse[48];
        snprintf(pd, sizeof pd, "depth=%d", c->depth);
        snprintf(pf, sizeof pf, "fanout=%d", c->fanout);
        snprintf(pdist, sizeof pdist, "dist=%s", c->dist);
        snprintf(pm, sizeof pm, "mean_us=%d", c->mean_us);
        snprintf(psh, sizeof psh, "shape=%.17g", c->shape);
        snprintf(pse, sizeof pse, "seed=%lld", c->seed);
        int gamma = strcmp(c->dist, "gamma") == 0;
        const char *params[] = {pd, pf, pdist, pm, pse, gamma ? psh : NULL, NULL};
        int64_t leaves = 1;
        for (int d = 0; d < c->depth; d++)
            leaves *= c->fanout;
        int64_t total = 0;
        for (int64_t l = 0; l < leaves; l++)
            total += syn_draw_us(dist_code(c->dist), c->mean_us, c->shape, (uint64_t)c->seed,
                                 (uint64_t)l);
        syn_out r;
        run_syn(pool, params, &r);
        is_i64(r.leaves, leaves, "depth=%d fanout=%d %s: %lld leaves, %d worker(s)", c->depth,
               c->fanout, c->dist, (long long)leaves, workers);
        is_i64(r.total_us, total, "depth=%d fanout=%d %s mean_us=%d shape=%g seed=%lld: total_us",
               c->depth, c->fanout, c->dist, c->mean_us, c->shape, c->seed);
        if (strcmp(c->dist, "const") == 0)
            is_i64(r.total_us, leaves * c->mean_us, "const: leaves * mean_us");
    }
}

/* The draw function itself: ranges and moments over many leaves. */
static void check_draws(void)
{
    const int n = 200000;
    /* uniform on [0, 2*mean]: within range, both ends reached, mean ~ mean. */
    int64_t lo = INT64_MAX, hi = -1;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        int64_t v = syn_draw_us(SYN_DIST_UNIFORM, 10, 1, 1, (uint64_t)i);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        sum += (double)v;
    }
    ok(lo == 0 && hi == 20, "uniform mean 10: draws cover [0, 20] (got [%lld, %lld])",
       (long long)lo, (long long)hi);
    ok(fabs(sum / n - 10) < 0.1, "uniform mean 10: sample mean %.3f", sum / n);

    static const double shapes[] = {0.0173, 0.5, 1, 2, 9.5};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        double shape = shapes[k], mean = 1e6, s = 0, s2 = 0;
        int64_t neg = 0;
        for (int i = 0; i < n; i++) {
            double v = (double)syn_draw_us(SYN_DIST_GAMMA, (int64_t)mean, shape, 3, (uint64_t)i);
            neg += v < 0;
            s += v;
            s2 += v * v;
        }
        double m = s / n, var = s2 / n - m * m;
        double want_var = mean * mean / shape;
        /* Standard error of the mean: sqrt(var/n); allow 5 of them. */
        double se = sqrt(want_var / n);
        ok(neg == 0 && fabs(m - mean) < 5 * se,
           "gamma shape %g: sample mean %.0f ~ %.0f (+-%.0f)", shape, m, mean, 5 * se);
        /* The variance estimate is noisy for small shapes (heavy tail). */
        double tol = shape < 0.1 ? 0.35 : 0.05;
        ok(fabs(var / want_var - 1) < tol, "gamma shape %g: sample variance / mean^2/shape = %.3f",
           shape, var / want_var);
    }
    ok(syn_draw_us(SYN_DIST_GAMMA, 500, 2, 9, 77) == syn_draw_us(SYN_DIST_GAMMA, 500, 2, 9, 77),
       "a draw is a function of its arguments");
    int differ = 0;
    for (int i = 0; i < 100; i++)
        differ += syn_draw_us(SYN_DIST_UNIFORM, 1000, 1, 1, (uint64_t)i) !=
                  syn_draw_us(SYN_DIST_UNIFORM, 1000, 1, 2, (uint64_t)i);
    ok(differ > 90, "another seed gives other draws (%d of 100 differ)", differ);
    is_i64(syn_draw_us(SYN_DIST_CONST, 1234, 1, 5, 6), 1234, "const draws the mean");
    is_i64(syn_draw_us(SYN_DIST_GAMMA, 0, 1, 5, 6), 0, "mean 0 draws 0");
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

/* One worker, 8 leaves of 25 ms: the job takes at least 200 ms of wall time
 * and (the process having no other thread at work) little CPU. */
static void check_waits(satin_pool *pool1)
{
    syn_out r;
    double cpu0 = cpu_seconds();
    run_syn(pool1, (const char *[]){"depth=3", "fanout=2", "mean_us=25000", NULL}, &r);
    double cpu = cpu_seconds() - cpu0;
    is_i64(r.total_us, 200000, "8 leaves of 25 ms: total_us");
    ok(r.wall_s >= 0.2, "the leaves waited: wall %.3f s >= 0.2 s", r.wall_s);
    ok(cpu < 0.25 * r.wall_s, "waiting burns no CPU: %.3f s CPU in %.3f s", cpu, r.wall_s);
}

/* Two workers: the same exact result, and never faster than the waits
 * allow (that they overlap is a speed, measured in bench/, not here). */
static void check_overlap(satin_pool *pool2)
{
    syn_out r;
    run_syn(pool2, (const char *[]){"depth=1", "fanout=8", "mean_us=25000", NULL}, &r);
    ok(r.wall_s >= 0.1, "8 leaves of 25 ms on 2 workers: wall %.3f s >= 0.1 s", r.wall_s);
}

static void check_bad_params(satin_pool *pool)
{
    check_bad(pool, (const char *[]){"fanout=2", NULL}, "needs parameter 'depth'",
              "missing depth");
    check_bad(pool, (const char *[]){"depth=2", NULL}, "needs parameter 'fanout'",
              "missing fanout");
    check_bad(pool, (const char *[]){"depth=-1", "fanout=2", NULL}, "out of range", "depth=-1");
    check_bad(pool, (const char *[]){"depth=65", "fanout=1", NULL}, "out of range", "depth=65");
    check_bad(pool, (const char *[]){"depth=2", "fanout=0", NULL}, "out of range", "fanout=0");
    check_bad(pool, (const char *[]){"depth=2", "fanout=257", NULL}, "out of range",
              "fanout=257");
    check_bad(pool, (const char *[]){"depth=27", "fanout=2", NULL},
              "fanout^depth = 2^27 leaves is more than the limit", "2^27 leaves");
    check_bad(pool, (const char *[]){"depth=4", "fanout=100", NULL},
              "fanout^depth = 100^4 leaves is more than the limit", "100^4 leaves");
    check_bad(pool, (const char *[]){"depth=2", "fanout=2", "dist=pareto", NULL},
              "unknown distribution dist=pareto (valid: const, uniform, gamma)", "dist=pareto");
    check_bad(pool, (const char *[]){"depth=2", "fanout=2", "mean_us=-1", NULL}, "out of range",
              "mean_us=-1");
    check_bad(pool, (const char *[]){"depth=2", "fanout=2", "mean_us=1000000001", NULL},
              "out of range", "mean_us=1e9+1");
    check_bad(pool, (const char *[]){"depth=2", "fanout=2", "mean_us=1.5", NULL},
              "not an integer", "mean_us=1.5");
    check_bad(pool, (const char *[]){"depth=2", "fanout=2", "dist=gamma", "shape=0", NULL},
              "out of range", "shape=0");
    check_bad(pool, (const char *[]){"depth=2", "fanout=2", "dist=gamma", "shape=nan", NULL},
              "not a finite number", "shape=nan");
    check_bad(pool, (const char *[]){"depth=2", "fanout=2", "shape=2", NULL},
              "shape= only applies to dist=gamma", "shape without gamma");
    check_bad(pool, (const char *[]){"depth=2", "fanout=2", "seed=-5", NULL}, "out of range",
              "seed=-5");
    check_bad(pool, (const char *[]){"depth=2", "fanout=2", "replay=x", NULL},
              "unknown parameter 'replay'", "unknown key");
}

int main(void)
{
    check_draws();

    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = 2});
    check_trees(pool, 2);
    check_overlap(pool);
    check_bad_params(pool);
    satin_pool_destroy(&pool);

    pool = satin_pool_new(&(satin_pool_config){.workers = 1});
    check_trees(pool, 1);
    check_waits(pool);
    satin_pool_destroy(&pool);
    return done_testing();
}
