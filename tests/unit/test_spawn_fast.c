/* test_spawn_fast.c - children run in place behind hot.limit (spawn.c,
 * arm_in_place), under everything that must turn that off again.
 *
 * A worker lets the inline spawn run children in place while its deque
 * holds enough records and no job stopped, no worker is hungry and no
 * orphan results wait; whoever changes one of those raises the worker's
 * limit.  Each part below has another thread change one while fib jobs
 * spawn as fast as they can, and checks what must then hold exactly: the
 * result, every invocation run once (cfib counts itself: the runtime does
 * not count spawns run in place), and a record taken by another thread
 * never run here. */
#include "../tap.h"
#include "apps.h"
#include "fib.h"
#include "pool.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>


/* fib, every call a spawn, each invocation counted as it runs. */
static atomic_long cfib_calls;
static int cfib_valid(const int64_t *n, satin_err *err)
{
    return *n < 0 || *n > 92 ? satin_err_set(err, "cfib: n out of range") : 0;
}
SATIN_TASK(int64_t, cfib, int64_t, cfib_valid);
static int64_t cfib(SATIN_FRAME, int64_t n)
{
    atomic_fetch_add_explicit(&cfib_calls, 1, memory_order_relaxed);
    if (n < 2)
        return n;
    int64_t x, y;
    satin_spawn(cfib, &x, n - 1);
    satin_spawn(cfib, &y, n - 2);
    satin_sync();
    return x + y;
}

static satin_job *fib_job(int64_t n)
{
    atomic_store(&cfib_calls, 0);
    return satin_job_new_task(SATIN_TASK_OF(cfib), &n, sizeof n, sizeof(int64_t));
}

/* The job's value; *calls the invocations that ran here, *queued and *run
 * its records (queued spawns and records run), *steals from siblings. */
static void job_counts(satin_job *job, int64_t *value, int64_t *calls, int64_t *queued,
                       int64_t *run, int64_t *steals)
{
    size_t len = 0;
    const void *res = satin_job_result(job, &len);
    *value = -1;
    if (!satin_job_failed(job) && len == sizeof *value)
        memcpy(value, res, sizeof *value);
    *calls = atomic_load(&cfib_calls);
    satin_kvlist stats;
    satin_kvlist_init(&stats);
    satin_job_stats(job, &stats);
    satin_kvlist_i64(&stats, "records_queued", queued);
    satin_kvlist_i64(&stats, "records_run", run);
    satin_kvlist_i64(&stats, "steals_intra", steals);
    satin_kvlist_free(&stats);
}

/* Sibling workers steal (each steal raises the victim's limit), and with a
 * hungry callback every dry worker raises all of them. */
static atomic_int hungry_calls;
static void on_hungry(void *arg)
{
    (void)arg;
    atomic_fetch_add(&hungry_calls, 1);
}

static void siblings(int workers, int hungry, int reps)
{
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = workers});
    if (hungry)
        satin_pool_on_hungry(pool, on_hungry, NULL);
    const int n = 25;
    int exact = 0;
    int64_t steals_total = 0;
    for (int r = 0; r < reps; r++) {
        satin_job *job = fib_job(n);
        satin_pool_run(pool, job);
        int64_t v, calls, queued, run, steals;
        job_counts(job, &v, &calls, &queued, &run, &steals);
        if (v == satin_fib_value(n) && calls == satin_fib_calls(n) && run == queued + 1)
            exact++;
        else
            diag("rep %d: value %lld calls %lld queued %lld run %lld", r, (long long)v,
                 (long long)calls, (long long)queued, (long long)run);
        steals_total += steals;
        satin_job_destroy(&job);
    }
    is_i64(exact, reps,
           "%d workers%s: fib(%d) %d times, each value exact, every invocation run exactly "
           "once, every queued record run once", workers, hungry ? " with a hungry callback" : "",
           n, reps);
    diag("%lld steals in all, %d hungry calls", (long long)steals_total,
         atomic_load(&hungry_calls));
    satin_pool_destroy(&pool);
}

/* Another node's thief: takes records as satind's control thread does and
 * completes each with its result, computed here.  Their subtrees never run
 * on the pool. */
typedef struct remote_thief {
    satin_pool *pool;
    atomic_int stop;
    int64_t taken, calls_elsewhere;
} remote_thief;

static void *remote_thief_main(void *arg)
{
    remote_thief *t = arg;
    while (!atomic_load(&t->stop)) {
        satin_record *recs[4];
        int got = satin_pool_take_for_remote(t->pool, recs, 4);
        for (int i = 0; i < got; i++) {
            size_t len;
            const void *a = satin_record_arg(recs[i], &len);
            int64_t n = 0;
            if (len == sizeof n)
                memcpy(&n, a, sizeof n);
            int64_t v = satin_fib_value(n);
            t->taken++;
            t->calls_elsewhere += satin_fib_calls(n);
            satin_record_complete(recs[i], 1, &v, sizeof v, NULL);
        }
        if (!got)
            sched_yield();
    }
    return NULL;
}

static void remote_takes(int workers, int reps)
{
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = workers});
    const int n = 27;
    int exact = 0;
    int64_t taken = 0;
    for (int r = 0; r < reps; r++) {
        remote_thief t = {.pool = pool};
        pthread_t th;
        satin_job *job = fib_job(n);
        satin_pool_start(pool, job, NULL, NULL);
        pthread_create(&th, NULL, remote_thief_main, &t);
        satin_job_wait(job);
        atomic_store(&t.stop, 1);
        pthread_join(th, NULL);
        int64_t v, calls, queued, run, steals;
        job_counts(job, &v, &calls, &queued, &run, &steals);
        int64_t want_calls = satin_fib_calls(n) - t.calls_elsewhere;
        /* Queued here: run here, or taken (the root too, when taken). */
        if (v == satin_fib_value(n) && calls == want_calls && run + t.taken == queued + 1)
            exact++;
        else
            diag("rep %d: value %lld, calls %lld (want %lld), queued %lld, run %lld, "
                 "%lld taken", r, (long long)v, (long long)calls, (long long)want_calls,
                 (long long)queued, (long long)run, (long long)t.taken);
        taken += t.taken;
        satin_job_destroy(&job);
    }
    is_i64(exact, reps,
           "%d worker(s), records taken for another node meanwhile: fib(%d) %d times, value "
           "exact, the invocations run here exactly those not taken", workers, n, reps);
    diag("%lld records taken for the other node in all", (long long)taken);
    satin_pool_destroy(&pool);
}

static int workers_busy(void *pool)
{
    return satin_pool_workers_busy(pool) > 0;
}

/* A job whose children all run in place must still stop when cancelled:
 * fib(60) would otherwise run for hours. */
static void cancel_in_place(int workers)
{
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = workers});
    satin_job *job = fib_job(60);
    satin_pool_start(pool, job, NULL, NULL);
    wait_for(60, workers_busy, pool, "fib(60) to run");   /* a running job is cancelled */
    satin_job_cancel(job, "enough");
    satin_job_wait(job);
    ok(satin_job_failed(job), "%d worker(s): fib(60) cancelled while its children run in place "
       "ends", workers);
    is_str(satin_job_error(job), "cancelled: enough", "with the reason");
    satin_job_destroy(&job);
    satin_pool_destroy(&pool);
}

/* Orphan results arriving while children run in place: the invocation at
 * that place takes the result instead of running.  The place of fib(n)'s
 * first child is not known to the test, so the orphan here is at a place
 * nothing has; what must hold is that the job, now looking up every
 * invocation, still gives the exact result and counts. */
static void orphans_arrive(void)
{
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = 2});
    const int n = 27;
    satin_job *job = fib_job(n);
    satin_pool_start(pool, job, NULL, NULL);
    int64_t zero = 0;
    satin_pool_add_orphan(pool, 0, 0x5eed, 0x5eed, &zero, sizeof zero, 1);
    satin_job_wait(job);
    int64_t v, calls, queued, run, steals;
    job_counts(job, &v, &calls, &queued, &run, &steals);
    ok(v == satin_fib_value(n) && calls == satin_fib_calls(n) && run == queued + 1,
       "an orphan result arriving mid-job turns look-ups on and the job stays exact "
       "(value %lld, calls %lld, queued %lld, run %lld)", (long long)v, (long long)calls,
       (long long)queued, (long long)run);
    satin_job_destroy(&job);
    satin_pool_destroy(&pool);
}

int main(void)
{
    alarm(300);   /* a job that ignored its stop would hang the test: fail instead */
    siblings(1, 0, 5);
    siblings(2, 0, 20);
    siblings(4, 0, 20);
    siblings(4, 1, 20);
    remote_takes(1, 10);
    remote_takes(2, 10);
    cancel_in_place(1);
    cancel_in_place(2);
    orphans_arrive();
    return done_testing();
}
