/*
 * test_kind_cancel.c - a cancelled job of every built-in kind lets its
 * worker go, even one at its parameters' bounds, which would run for years:
 * a kind's sequential code looks at satin_cancelled() often enough.
 *
 * Each job runs on a 1-worker pool; once the worker runs it, it is
 * cancelled, and it must end within CANCEL_SECS with the cancel's message.
 * (The records fuzz target holds every argument a check accepts to the
 * same, with a grace of 1 s of CPU; tests/fuzz/corpus/records/ has the
 * roots below.)
 */
#include "apps.h"
#include "kinds.h"
#include "pool.h"
#include "../tap.h"

/* Generous: before the kinds looked, these took minutes to centuries. */
#define CANCEL_SECS 10.0

#define P(...) ((const char *const[]){__VA_ARGS__, NULL})

typedef struct long_job {
    const char *kind;
    const char *const *params;
} long_job;

static const long_job long_jobs[] = {
    /* fib's sequential recursion below threshold: fib_seq(91) */
    {"fib", P("n=92", "threshold=92")},
    {"fib", P("n=92", "threshold=0")},
    /* 2^17 elements a leaf, 10^6 rounds of mix each */
    {"array", P("n=68719476736", "leaf=131072", "carry=131072", "work=1000000")},
    /* 10^6 hashes a node: 4096 nodes between two looks were an hour */
    {"uts", P("gen=std", "t=3", "a=3", "d=2147483647", "m=2147483647", "g=1000000",
              "b=1000000000", "f=1000", "r=4294967295", "q=0.999999", "chunk=1")},
    {"uts", P("gen=2003", "children=2147483647", "m=256", "q=0.0039")},
    {"nqueens", P("n=20", "threshold=20")},
    {"integrate", P("f=exp", "a=-1000000", "b=600", "eps=1e-300", "max_depth=60")},
    {"ida", P("moves=1000", "seed=9223372036854775807", "max_moves=80", "split=40")},
    {"matmul", P("n=16384", "leaf=128")},
    {"raytracer", P("width=16384", "height=16384", "depth=16", "tile=268435456")},
    {"synthetic", P("depth=26", "fanout=2", "mean_us=1000000000")},
    {"setcover", P("n=256", "m=256", "density=5", "threshold=256", "probe=0")},
    {"knapsack", P("n=1000", "type=strong", "threshold=1000", "probe=0")},
    {"nchoosek", P("n=66", "k=33", "threshold=1001")},
    /* k < 8 below the top: no look while C(n, 7) ran, 10^17 calls at n=1000 */
    {"nchoosek", P("n=99", "k=12", "threshold=139")},
    {"nchoosek", P("n=1000", "k=6", "threshold=1001")},
    {"primefactors", P("lo=1099507433473", "hi=1099511627776", "threshold=4194304")},
    {"tsp", P("n=20", "threshold=20", "probe=4294967296")},
};

static satin_pool *pool;

/* The job runs on the worker, or it ended. */
static int running_or_done(void *done)
{
    return satin_pool_workers_busy(pool) == 1 || atomic_load((atomic_int *)done);
}

static void set_done(satin_job *job, void *arg)
{
    (void)job;
    atomic_store((atomic_int *)arg, 1);
}

static void cancelled_job_ends(const satin_registry *reg, const long_job *l)
{
    const satin_kind *kind;
    satin_bytes arg;
    satin_outcome o;
    if (satin_record_prepare(reg, l->kind, l->params, SATIN_MAX_RECORD_DEFAULT, &kind, &arg,
                             &o) < 0) {
        ok(0, "%s %s: parse accepts it (%s)", l->kind, l->params[0], o.error);
        satin_outcome_free(&o);
        return;
    }
    satin_outcome_free(&o);
    satin_job *job = satin_job_new(kind, arg.data, arg.len);
    static atomic_int done;
    atomic_store(&done, 0);
    satin_pool_start(pool, job, set_done, &done);
    poll_until(CANCEL_SECS, running_or_done, &done);
    /* Not long after all: then the cancel would only change its error. */
    int early = atomic_load(&done);
    satin_job_cancel(job, "test");
    int64_t t0 = tap_now_ns_();
    if (!ok(poll_until(CANCEL_SECS, flag_is_set, &done), "%s %s: cancelled, it ends within %g s",
            l->kind, l->params[1] ? l->params[1] : l->params[0], CANCEL_SECS)) {
        printf("Bail out! %s still runs: its worker is lost\n", l->kind);
        exit(1);
    }
    double s = (double)(tap_now_ns_() - t0) / 1e9;
    diag("%s: ended %.1f ms after the cancel", l->kind, s * 1e3);
    ok(!early, "%s: it still ran when it was cancelled", l->kind);
    is_str(satin_job_error(job), "cancelled: test", "%s: it failed with the cancel's message",
           l->kind);
    satin_job_destroy(&job);
    satin_bytes_free(&arg);
}

int main(void)
{
    satin_registry *reg = satin_registry_linked(satin_module_entry());
    pool = satin_pool_new(&(satin_pool_config){.workers = 1});
    for (size_t i = 0; i < sizeof long_jobs / sizeof long_jobs[0]; i++)
        cancelled_job_ends(reg, &long_jobs[i]);
    satin_pool_destroy(&pool);
    satin_registry_destroy(&reg);
    return done_testing();
}
