/* test_stack_guard.c - a kind's own recursion that overflows the worker
 * stack fails its job, and the pool goes on (stack_guard.c).
 *
 * `dive` recurses in plain C, never spawning, as deep as its argument says:
 * past the 256 MiB stack for a large one.  `fan` first queues children that
 * siblings steal and run (their results land in its frame), then dives:
 * the overflow must wait for them before the frame is abandoned.  After
 * each failure the same pool runs an exact job. */
#include "../tap.h"
#include "pool.h"

#include <stdatomic.h>
#include <string.h>

/* volatile and used after the call: no tail call, a real frame each level. */
__attribute__((noinline)) static int64_t dive_rec(int64_t n)
{
    volatile char pad[256];
    pad[0] = (char)n;
    if (n <= 0)
        return pad[0];
    return dive_rec(n - 1) + pad[0];
}

static int any_i64(const int64_t *a, satin_err *err)
{
    (void)a;
    (void)err;
    return 0;
}

SATIN_TASK(int64_t, dive, int64_t, any_i64);
static int64_t dive(SATIN_FRAME, int64_t n)
{
    return dive_rec(n);
}

static atomic_int fan_children_done;

SATIN_TASK(int64_t, leaf, int64_t, any_i64);
static int64_t leaf(SATIN_FRAME, int64_t n)
{
    uint64_t s = 0;
    for (int64_t i = 0; i < n; i++)
        s += (uint64_t)i ^ (s >> 3);
    atomic_fetch_add(&fan_children_done, 1);
    return (int64_t)(s >> 1);
}

/* Queues 64 children (more than the lazy-spawn reserve: most are queued
 * and siblings steal them), then dives before its sync. */
SATIN_TASK(int64_t, fan, int64_t, any_i64);
static int64_t fan(SATIN_FRAME, int64_t depth)
{
    int64_t res[64];
    for (int i = 0; i < 64; i++)
        satin_spawn(leaf, &res[i], 20000000);
    int64_t r = dive_rec(depth);
    satin_sync();
    return r;
}

static satin_job *run_job(satin_pool *pool, const satin_task *task, int64_t arg)
{
    satin_job *job = satin_job_new_task(task, &arg, sizeof arg, sizeof(int64_t));
    satin_pool_run(pool, job);
    return job;
}

static int64_t value_of(satin_job *job)
{
    size_t len = 0;
    const void *res = satin_job_result(job, &len);
    int64_t v = -1;
    if (!satin_job_failed(job) && len == sizeof v)
        memcpy(&v, res, sizeof v);
    return v;
}

int main(void)
{
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = 2});
    satin_job *job = run_job(pool, SATIN_TASK_OF(dive), 1000);
    int64_t want = 0;
    for (int64_t n = 1; n <= 1000; n++)
        want += (char)n;
    is_i64(value_of(job), want, "a shallow dive runs to its value");
    satin_job_destroy(&job);

    for (int round = 0; round < 3; round++) {
        job = run_job(pool, SATIN_TASK_OF(dive), INT64_C(1) << 40);
        ok(satin_job_failed(job), "round %d: a dive past the stack fails its job", round);
        ok(strstr(satin_job_error(job), "recursion too deep: dive's own code overflowed the "
                                        "worker stack (256 MiB)") != NULL,
           "round %d: with the reason (%s)", round, satin_job_error(job));
        satin_job_destroy(&job);
        job = run_job(pool, SATIN_TASK_OF(dive), 1000);
        ok(!satin_job_failed(job), "round %d: the same pool runs the next job", round);
        satin_job_destroy(&job);
    }

    atomic_store(&fan_children_done, 0);
    job = run_job(pool, SATIN_TASK_OF(fan), INT64_C(1) << 40);
    ok(satin_job_failed(job) && strstr(satin_job_error(job), "fan's own code overflowed") != NULL,
       "a frame with queued and stolen children that overflows fails its job (%s)",
       satin_job_error(job));
    diag("%d of its 64 children ran", atomic_load(&fan_children_done));
    satin_job_destroy(&job);
    atomic_store(&fan_children_done, 0);
    job = run_job(pool, SATIN_TASK_OF(fan), 100);
    ok(!satin_job_failed(job) && atomic_load(&fan_children_done) == 64,
       "then the same kind, shallow, runs all 64 children and ends");
    satin_job_destroy(&job);
    satin_pool_destroy(&pool);
    return done_testing();
}
