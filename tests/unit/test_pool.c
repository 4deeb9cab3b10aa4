/* test_pool.c - the worker pool: exact results on any number of workers,
 * concurrent jobs, failures, cancellation, the recursion-depth guard, and
 * records handed to other nodes. */
#include "../tap.h"
#include "kinds.h"
#include "apps.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__)
#define SMALL_STACK ((size_t)6 << 20)
#else
#define SMALL_STACK ((size_t)16 << 20)
#endif

static int any_i64(const int64_t *a, satin_err *err)
{
    (void)a;
    (void)err;
    return 0;
}

/* A task that recurses `depth` levels deep, one spawn per level: the shape
 * that must end in a clear error, not a crashed daemon, when too deep. */
SATIN_TASK(int64_t, chain, int64_t, any_i64);
static int64_t chain(SATIN_FRAME, int64_t d)
{
    int64_t r = 0;
    if (d > 0) {
        satin_spawn(chain, &r, d - 1);
        satin_sync();
    }
    return r + 1;
}

/* Spawns `n` children in one frame (a wide, flat frame grows the deque); a
 * leaf (n < 0) returns its own index. */
SATIN_TASK(int64_t, wide, int64_t, any_i64);
static int64_t wide(SATIN_FRAME, int64_t n)
{
    if (n < 0)
        return -n;
    int64_t *res = calloc((size_t)n, sizeof *res);
    for (int64_t i = 0; i < n; i++)
        satin_spawn(wide, &res[i], -(i + 1));
    satin_sync();
    int64_t sum = 0;
    for (int64_t i = 0; i < n; i++)
        sum += res[i];
    free(res);
    return sum;
}

/* A binary tree of depth d whose every invocation counts itself: each runs
 * exactly once whatever ran in place, was queued or was stolen. */
static atomic_long tree_calls;
SATIN_TASK(int64_t, tree, int64_t, any_i64);
static int64_t tree(SATIN_FRAME, int64_t d)
{
    atomic_fetch_add_explicit(&tree_calls, 1, memory_order_relaxed);
    if (d == 0)
        return 1;
    int64_t a, b;
    satin_spawn(tree, &a, d - 1);
    satin_spawn(tree, &b, d - 1);
    satin_sync();
    return a + b;
}

static int any_bytes(const void *arg, size_t len, satin_err *err)
{
    (void)arg;
    (void)len;
    (void)err;
    return 0;
}

/* Returns more bytes than its slot holds. */
SATIN_BYTES_TASK(big, any_bytes);
static void big(SATIN_FRAME, const void *arg, size_t len)
{
    (void)arg;
    (void)len;
    char buf[64] = {0};
    satin_return(buf, sizeof buf);
}

/* Keeps spawning chains until the job is cancelled. */
static atomic_int spin_started;
SATIN_TASK(int64_t, spin, int64_t, any_i64);
static int64_t spin(SATIN_FRAME, int64_t unused)
{
    (void)unused;
    int64_t r;
    atomic_store(&spin_started, 1);
    while (!satin_cancelled()) {
        satin_spawn(chain, &r, 1000);
        satin_sync();
    }
    return 0;
}

static satin_job *task_job(const satin_task *t, int64_t arg)
{
    return satin_job_new_task(t, &arg, sizeof arg, sizeof(int64_t));
}

static int64_t run_i64(satin_pool *pool, const satin_task *t, int64_t arg, satin_job **keep)
{
    satin_job *job = task_job(t, arg);
    satin_pool_run(pool, job);
    size_t len;
    int64_t v = -1;
    const void *res = satin_job_result(job, &len);
    if (!satin_job_failed(job) && len == sizeof v)
        memcpy(&v, res, sizeof v);
    if (keep)
        *keep = job;
    else
        satin_job_destroy(&job);
    return v;
}

static satin_registry *reg;

static void fib_on(int workers)
{
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = workers});
    satin_outcome o;
    satin_run_record(pool, reg, "fib", (const char *[]){"n=27", NULL}, &o);
    int64_t v = 0, queued = -1, run = 0;
    satin_kvlist_i64(&o.result, "value", &v);
    satin_kvlist_i64(&o.stats, "records_queued", &queued);
    satin_kvlist_i64(&o.stats, "records_run", &run);
    is_i64(v, 196418, "fib 27 on %d worker(s)", workers);
    /* Nothing is taken for another node here: every queued record ran once
     * on this pool, and the root is a record too. */
    ok(queued >= 0 && run == queued + 1, "every queued record ran once, plus the root (%d: %lld "
       "queued, %lld run)", workers, (long long)queued, (long long)run);
    satin_outcome_free(&o);
    atomic_store(&tree_calls, 0);
    is_i64(run_i64(pool, SATIN_TASK_OF(tree), 17, NULL), 1 << 17,
           "a tree of depth 17 on %d worker(s)", workers);
    is_i64(atomic_load(&tree_calls), (1 << 18) - 1,
           "each of its invocations ran exactly once on %d worker(s)", workers);
    is_i64(run_i64(pool, SATIN_TASK_OF(wide), 50000, NULL), 50000LL * 50001 / 2,
           "one frame with 50000 children (deque growth) on %d", workers);
    satin_pool_destroy(&pool);
}

static satin_pool *shared_pool;
static void *client_thread(void *arg)
{
    intptr_t n = (intptr_t)arg;
    char param[32];
    snprintf(param, sizeof param, "n=%d", (int)n);
    satin_outcome o;
    satin_run_record(shared_pool, reg, "fib", (const char *[]){param, NULL}, &o);
    int64_t v = -1;
    satin_kvlist_i64(&o.result, "value", &v);
    satin_outcome_free(&o);
    return (void *)(intptr_t)v;
}

static void concurrent_jobs(void)
{
    shared_pool = satin_pool_new(&(satin_pool_config){.workers = 2});
    static const int64_t want[] = {6765, 10946, 17711, 28657, 46368, 75025};
    pthread_t t[6];
    for (int i = 0; i < 6; i++)
        pthread_create(&t[i], NULL, client_thread, (void *)(intptr_t)(20 + i));
    int all = 1;
    for (int i = 0; i < 6; i++) {
        void *r;
        pthread_join(t[i], &r);
        if ((int64_t)(intptr_t)r != want[i]) {
            all = 0;
            diag("fib %d gave %lld", 20 + i, (long long)(intptr_t)r);
        }
    }
    ok(all, "six concurrent jobs on one pool each got their own exact result");
    satin_pool_destroy(&shared_pool);
}

static void failures(void)
{
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = 2, .max_record = 4096});
    satin_job *job = satin_job_new_task(SATIN_TASK_OF(big), NULL, 0, 8);
    satin_pool_run(pool, job);
    ok(satin_job_failed(job), "a result larger than its slot fails the job");
    ok(strstr(satin_job_error(job), "does not fit") != NULL, "with a clear error: %s",
       satin_job_error(job));
    satin_job_destroy(&job);

    is_i64(run_i64(pool, SATIN_TASK_OF(chain), 10000, NULL), 10001, "a chain 10000 spawns deep is fine");

    /* A small stack makes the guard trip well before the machine's limit
     * (and, under ThreadSanitizer, before its own shadow call stack fills). */
    satin_pool *small = satin_pool_new(&(satin_pool_config){.workers = 1, .stack_size = SMALL_STACK});
    run_i64(small, SATIN_TASK_OF(chain), 10000000, &job);
    ok(satin_job_failed(job), "ten million nested spawns fail the job instead of crashing");
    ok(strstr(satin_job_error(job), "recursion too deep") != NULL, "error: %s",
       satin_job_error(job));
    satin_job_destroy(&job);
    is_i64(run_i64(small, SATIN_TASK_OF(chain), 100, NULL), 101, "the pool works on after that");
    satin_pool_destroy(&small);

    satin_outcome o;
    satin_run_record(pool, reg, "nosuchkind", NULL, &o);
    ok(o.failed && strstr(o.error, "unknown job kind 'nosuchkind'"), "unknown kind: %s", o.error);
    satin_outcome_free(&o);
    satin_run_record(pool, reg, "fib", (const char *[]){"n=3", "colour=red", NULL}, &o);
    ok(o.failed && strstr(o.error, "unknown parameter 'colour' for kind fib"), "unknown key: %s",
       o.error);
    satin_outcome_free(&o);
    satin_run_record(pool, reg, "fib", (const char *[]){"n=3", "n=4", NULL}, &o);
    ok(o.failed && strstr(o.error, "given twice"), "duplicate key: %s", o.error);
    satin_outcome_free(&o);
    satin_pool_destroy(&pool);
}

static void cancellation(void)
{
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = 2});
    satin_job *job = task_job(SATIN_TASK_OF(spin), 0);
    satin_pool_start(pool, job, NULL, NULL);
    wait_flag(60, &spin_started, "the spinning job to start");   /* a running job is cancelled */
    satin_job_cancel(job, "test over");
    satin_job_wait(job);
    ok(satin_job_failed(job), "a cancelled job ends as failed");
    is_str(satin_job_error(job), "cancelled: test over", "with the reason");
    satin_job_destroy(&job);
    satin_pool_destroy(&pool);
}

/* Spawns two leaves of wide_kind, then holds its worker until released,
 * before its sync: the leaves wait in the deque meanwhile. */
static atomic_int hold_started, hold_release;
SATIN_TASK(int64_t, hold, int64_t, any_i64);
static int64_t hold(SATIN_FRAME, int64_t unused)
{
    (void)unused;
    int64_t res[2] = {0, 0};
    for (int i = 0; i < 2; i++)
        satin_spawn(wide, &res[i], -(i + 1));
    atomic_store(&hold_started, 1);
    poll_until(600, flag_is_set, &hold_release);   /* until the test lets it go on */
    satin_sync();
    return res[0] + res[1];
}

static atomic_int done_calls;
static void count_done(satin_job *job, void *arg)
{
    (void)job; (void)arg;
    atomic_fetch_add(&done_calls, 1);
}

/* A job started on a pool whose only worker is busy has not run yet: it can
 * go to another node like a deque tail, before them, and its result coming
 * back finishes it. */
static void started_jobs_move_on(void)
{
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = 1});
    satin_job *holder = task_job(SATIN_TASK_OF(hold), 0);
    satin_pool_start(pool, holder, NULL, NULL);
    if (!wait_flag(60, &hold_started, "the holder to spawn its leaves"))
        abort();   /* the rest would take records that were never made */
    is_i64(satin_pool_queue_length(pool), 2, "the busy worker's two leaves are queued");

    satin_job *moved = task_job(SATIN_TASK_OF(chain), 10);
    satin_job *failing = task_job(SATIN_TASK_OF(chain), 10);
    satin_pool_start(pool, moved, count_done, NULL);
    satin_pool_start(pool, failing, count_done, NULL);
    is_i64(satin_pool_queue_length(pool), 4, "two started jobs no worker took count too");

    satin_record *out[8];
    int n = satin_pool_take_for_remote(pool, out, 8);
    is_i64(n, 4, "take_for_remote hands out exactly what queue_length counted");
    ok(n == 4 && satin_record_job(out[0]) == moved && satin_record_job(out[1]) == failing &&
           satin_record_job(out[2]) == holder && satin_record_job(out[3]) == holder,
       "started jobs first, oldest first, then the deque tails");
    is_i64(satin_pool_queue_length(pool), 0, "nothing is left to give");
    ok(n == 4 && satin_record_result_cap(out[0]) == sizeof(int64_t),
       "a root carries its job's result slot size");
    if (n != 4)
        abort(); /* the rest would complete records that were never taken */

    int64_t remote = 42;
    satin_record_complete(out[0], 1, &remote, sizeof remote, NULL);
    satin_job_wait(moved);
    size_t len;
    const void *res = satin_job_result(moved, &len);
    int64_t v = -1;
    if (len == sizeof v)
        memcpy(&v, res, sizeof v);
    ok(!satin_job_failed(moved) && v == 42,
       "completing a given root finishes its job with the result that came back");
    satin_record_complete(out[1], 0, NULL, 0, "node b1 failed it");
    satin_job_wait(failing);
    ok(satin_job_failed(failing), "a failed remote root fails its job");
    is_str(satin_job_error(failing), "node b1 failed it", "with the remote error");
    is_i64(atomic_load(&done_calls), 2, "each job's done callback ran once");
    is_i64(satin_pool_active_jobs(pool), 1, "only the holder is still active");

    int64_t r0 = 100, r1 = 200;
    satin_record_complete(out[2], 1, &r0, sizeof r0, NULL);
    satin_record_complete(out[3], 1, &r1, sizeof r1, NULL);
    atomic_store(&hold_release, 1);
    satin_job_wait(holder);
    res = satin_job_result(holder, &len);
    v = -1;
    if (len == sizeof v)
        memcpy(&v, res, sizeof v);
    is_i64(v, 300, "the holder synced on the results of its given tails");
    satin_job_destroy(&moved);
    satin_job_destroy(&failing);
    satin_job_destroy(&holder);
    satin_pool_destroy(&pool);
}

/* Holds its worker until released, spawning nothing. */
static atomic_int busy_started, busy_release;
SATIN_TASK(int64_t, busy, int64_t, any_i64);
static int64_t busy(SATIN_FRAME, int64_t unused)
{
    (void)unused;
    atomic_store(&busy_started, 1);
    poll_until(600, flag_is_set, &busy_release);   /* until the test lets it go on */
    return 7;
}

/* A worker that finds nothing to do while a job runs is hungry, with or
 * without a hungry callback (a satind without a grid has none): that is
 * what makes its busy siblings queue their spawns for it instead of
 * running them in place (spawn.c, may_run_in_place). */
static atomic_int told_dry;
static void count_dry(void *arg)
{
    (void)arg;
    atomic_fetch_add(&told_dry, 1);
}

static int is_hungry(void *pool)
{
    return satin_pool_is_hungry(pool);
}

static void hungry_without_callback(void)
{
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = 2});
    /* Idle workers made the pool hungry with no one to tell: a callback
     * installed later still hears that the node is dry (satind's grid is
     * made after the pool). */
    ok(poll_until(60, is_hungry, pool), "an idle pool without a callback is hungry");
    satin_pool_on_hungry(pool, count_dry, NULL);
    is_i64(atomic_load(&told_dry), 1, "a callback installed then is told once that it is dry");
    satin_pool_on_hungry(pool, NULL, NULL);
    satin_job *job = task_job(SATIN_TASK_OF(busy), 0);
    satin_pool_start(pool, job, NULL, NULL);
    wait_flag(60, &busy_started, "the busy job to start");
    ok(poll_until(60, is_hungry, pool),
       "2 workers, no hungry callback: the idle one makes the pool hungry");
    atomic_store(&busy_release, 1);
    satin_job_wait(job);
    ok(!satin_job_failed(job), "the busy job ends");
    satin_job_destroy(&job);
    satin_pool_destroy(&pool);
}

/* Spawns `n` leaves of wide_kind and, before its sync, notes how many
 * records the pool holds (queued_seen). */
static satin_pool *seen_pool;
static int64_t queued_seen;
SATIN_TASK(int64_t, note_queue, int64_t, any_i64);
static int64_t note_queue(SATIN_FRAME, int64_t n)
{
    int64_t sum = 0;
    int64_t *res = calloc((size_t)n, sizeof *res);
    for (int64_t i = 0; i < n; i++)
        satin_spawn(wide, &res[i], -(i + 1));
    queued_seen = satin_pool_queue_length(seen_pool);
    satin_sync();
    for (int64_t i = 0; i < n; i++)
        sum += res[i];
    free(res);
    return sum;
}

/* One worker, so nothing is stolen: spawns run in place once 4 (the spawn
 * reserve) are queued; while another node wants work (a steal request
 * found none) every spawn queues, up to 8 times the reserve. */
static void wanted_by_another_node(void)
{
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = 1});
    seen_pool = pool;
    int64_t v = run_i64(pool, SATIN_TASK_OF(note_queue), 10, NULL);
    ok(v == 55 && queued_seen == 4, "not wanted: 4 of 10 spawns queued, 6 in place (sum %lld)",
       (long long)v);
    satin_pool_set_wanted(pool, 1);
    v = run_i64(pool, SATIN_TASK_OF(note_queue), 10, NULL);
    ok(v == 55 && queued_seen == 10, "wanted: all 10 spawns queued (%lld)", (long long)queued_seen);
    v = run_i64(pool, SATIN_TASK_OF(note_queue), 40, NULL);
    ok(v == 820 && queued_seen == 32,
       "wanted: 32 of 40 queued, then in place again (%lld)", (long long)queued_seen);
    v = run_i64(pool, SATIN_TASK_OF(note_queue), 10, NULL);
    ok(v == 55 && queued_seen == 4, "and no longer wanted after that (%lld)",
       (long long)queued_seen);
    satin_pool_set_wanted(pool, 1);
    satin_pool_set_wanted(pool, 0);
    v = run_i64(pool, SATIN_TASK_OF(note_queue), 10, NULL);
    ok(v == 55 && queued_seen == 4, "a request that got work ends it (%lld)",
       (long long)queued_seen);
    satin_pool_destroy(&pool);
}

int main(void)
{
    reg = satin_registry_linked(satin_module_entry());
    fib_on(1);
    fib_on(2);
    fib_on(4);
    concurrent_jobs();
    failures();
    cancellation();
    started_jobs_move_on();
    hungry_without_callback();
    wanted_by_another_node();
    satin_registry_destroy(&reg);
    return done_testing();
}
