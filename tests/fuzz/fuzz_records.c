/*
 * fuzz_records.c - libFuzzer target for the records another node sends: a
 * task's argument bytes, judged by the task's check and, once it accepts
 * them, run.
 *
 * A PUSH or STEAL_REPLY brings JOBRECs whose argument bytes no parser of
 * this node made.  satind (daemon/grid.c, env_start) looks the task up,
 * calls its check and refuses the record when the check does; else it runs
 * the record as a job of its own on its pool (satin_job_new_task).  This
 * target takes the same path for every task of every built-in kind:
 *
 *   - the check returns 0, or -1 with a non-empty reason (NUL-terminated
 *     in its buffer) that an ERROR can carry;
 *   - an accepted argument runs to a result no larger than its slot, or to
 *     a failed job with a reason: a stack overflow in the kind's own
 *     recursion is a failed job (daemon/runtime/stack_guard.c), never a
 *     signal;
 *   - once cancelled (the time limit below), the job ends soon after;
 *   - nothing leaks (LeakSanitizer, after each input under libFuzzer).
 * abort() when one of these is broken, so that libFuzzer keeps the input.
 *
 * Input layout: byte 0 picks the task, (byte & 0x7F) % number of tasks,
 * the tasks in the order of their names (records_tasks.h), and the result
 * slot: bit 7 clear, the slot a record of the task gets from its own kind
 * (a typed task's result size; a bytes task's, the record limit, as a
 * spawn of data may name), set, a smaller one (half a typed task's result;
 * for a bytes task, the result size of its kind's root), which a larger
 * result must fail, not overflow.  Then, when the next bytes are '#', a
 * task's name and '\n', that task is used instead, which is how the
 * committed seeds say which task they are for ("#fib\n" and 16 bytes); the
 * rest are the argument bytes, unaligned and exactly as long as the input,
 * as a borrowed JOBREC's are.
 *
 * Limits, so that one input takes milliseconds and little memory:
 *
 *   - time: the job is cancelled once the process has used BUDGET_CPU_NS
 *     of CPU time since its start, or after BUDGET_WALL_NS of wall time
 *     (synthetic and replay wait rather than compute), as a client's
 *     CANCEL would; from then on it must end within
 *     CANCEL_GRACE_CPU_NS of CPU time (or CANCEL_GRACE_WALL_NS of wall
 *     time, for a worker that blocks), else the kind ignored its
 *     cancellation: abort().  Within its check's bounds a kind may run for
 *     years (fib n=92 threshold=92 is one sequential recursion); what it
 *     may not do is hold the worker after it was told to stop.
 *   - memory: one pool of one worker, with satind's default record limit
 *     (SATIN_MAX_RECORD_DEFAULT, 1 MiB): no spawn queues a larger record and
 *     no slot is larger, and every kind's check bounds what its run
 *     allocates by that limit; a worker stack of STACK_SIZE instead of
 *     256 MiB, so that an overflow is found after 64 MiB of recursion.
 *
 * The pool is made at the first input and kept, as satind keeps its own
 * across the records it runs.
 */
#include "kinds.h"
#include "apps.h"
#include "pool.h"
#include "fuzz_reply.h"
#include "records_tasks.h"
#include "satin_proto.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUDGET_CPU_NS (20 * 1000000LL)
#define BUDGET_WALL_NS (100 * 1000000LL)
#define CANCEL_GRACE_CPU_NS (1000 * 1000000LL)
/* A bound for a worker that blocks, not a speed: a cancelled job that
 * computes is caught by its CPU time, which a loaded machine does not
 * advance; wall time it does (make check replays this beside other tests). */
#define CANCEL_GRACE_WALL_NS (30000 * 1000000LL)
#define STACK_SIZE ((size_t)64 << 20)
/* The longest task name a seed's label may give. */
#define LABEL_MAX 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- the tasks, in name order ------------------------------------------- */

static const satin_registry *reg;
static const satin_task **tasks;
static size_t ntasks;

/* The built-in kinds, linked in whole (mk/fuzz.mk). */
static void tasks_init(void)
{
    if (reg)
        return;
    reg = satin_registry_linked(satin_module_entry());
    tasks = records_tasks(reg, &ntasks);
}

/* The task a "#name\n" label at p names (and the bytes after it), or NULL. */
static const satin_task *labelled(const uint8_t *p, size_t len, size_t *skip)
{
    if (len < 2 || p[0] != '#')
        return NULL;
    const uint8_t *nl = memchr(p, '\n', len < LABEL_MAX + 2 ? len : LABEL_MAX + 2);
    if (!nl)
        return NULL;
    char name[LABEL_MAX + 1];
    size_t n = (size_t)(nl - p) - 1;
    memcpy(name, p + 1, n);
    name[n] = '\0';
    *skip = n + 2;
    return satin_registry_task(reg, name);
}

/* The result size of the kind whose root `t` is, 0 when none is. */
static size_t root_result_size(const satin_task *t)
{
    for (size_t i = 0; i < satin_registry_nkinds(reg); i++) {
        const satin_kind *k = satin_registry_kind_at(reg, i);
        if (k->root == t)
            return k->result_size ? k->result_size : t->result_size;
    }
    return 0;
}

static size_t result_cap(const satin_task *t, int small)
{
    if (t->result_size)
        return small ? t->result_size / 2 : t->result_size;
    if (!small)
        return SATIN_MAX_RECORD_DEFAULT;
    size_t root = root_result_size(t);
    return root ? root : 8;
}

/* ---- the run ---------------------------------------------------------------- */

static satin_pool *pool;

/* The job's end, told by the worker that finished it. */
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond;
static int done;

static void on_done(satin_job *job, void *arg)
{
    (void)job;
    (void)arg;
    pthread_mutex_lock(&done_lock);
    done = 1;
    pthread_cond_signal(&done_cond);
    pthread_mutex_unlock(&done_lock);
}

static void pool_init(void)
{
    if (pool)
        return;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&done_cond, &ca);
    pthread_condattr_destroy(&ca);
    satin_pool_config cfg = {
        .workers = 1, .max_record = SATIN_MAX_RECORD_DEFAULT, .stack_size = STACK_SIZE};
    pool = satin_pool_new(&cfg);
}

static int64_t clock_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Waits for the job's end until the CPU clock reaches cpu_deadline or the
 * wall clock wall_deadline: 1 when it ended.  The worker uses at most one
 * CPU, so the CPU clock cannot reach its deadline before the wall clock has
 * gone as far: each wait is to there. */
static int wait_done(int64_t cpu_deadline, int64_t wall_deadline)
{
    pthread_mutex_lock(&done_lock);
    for (;;) {
        int64_t cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID), now = clock_ns(CLOCK_MONOTONIC);
        if (done || cpu >= cpu_deadline || now >= wall_deadline)
            break;
        int64_t until = now + (cpu_deadline - cpu);
        if (until > wall_deadline)
            until = wall_deadline;
        struct timespec ts = {(time_t)(until / 1000000000LL), (long)(until % 1000000000LL)};
        pthread_cond_timedwait(&done_cond, &done_lock, &ts);
    }
    int d = done;
    pthread_mutex_unlock(&done_lock);
    return d;
}

/* A reason satind sends back (a JOB_RESULT's error, an ERROR's text): not
 * empty, within its buffer, and sendable. */
static void reason_must_hold(const char *what, const char *msg, size_t cap)
{
    if (!msg[0] || !memchr(msg, '\0', cap)) {
        fprintf(stderr, "fuzz_records: %s without a reason\n", what);
        abort();
    }
    fuzz_error_reply_must_encode(0, SATIN_PROTO_BAD_MESSAGE, msg);
}

/* Runs an accepted record as satind runs a stand-in, within the budget. */
static void run(const satin_task *task, const uint8_t *arg, size_t len, size_t cap)
{
    pool_init();
    satin_job *job = satin_job_new_task(task, arg, len, cap);
    satin_job_set_remote(job);
    satin_job_set_values(job, satin_registry_task_values(reg, task));   /* as env_start does */
    done = 0;
    int64_t cpu0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    satin_pool_start(pool, job, on_done, NULL);
    if (!wait_done(cpu0 + BUDGET_CPU_NS, clock_ns(CLOCK_MONOTONIC) + BUDGET_WALL_NS)) {
        satin_job_cancel(job, "the fuzz budget ran out");
        int64_t cpu1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID), t1 = clock_ns(CLOCK_MONOTONIC);
        if (!wait_done(cpu1 + CANCEL_GRACE_CPU_NS, t1 + CANCEL_GRACE_WALL_NS)) {
            fprintf(stderr,
                    "fuzz_records: %s (%zu argument bytes) still runs %.1f s of CPU after "
                    "it was cancelled\n",
                    task->name, len, (double)CANCEL_GRACE_CPU_NS / 1e9);
            abort();
        }
    }
    satin_job_wait(job);
    size_t rlen;
    satin_job_result(job, &rlen);
    if (satin_job_failed(job)) {
        reason_must_hold("a failed job", satin_job_error(job), 256);
    } else if (rlen > cap) {
        fprintf(stderr, "fuzz_records: %s returned %zu bytes into a slot of %zu\n", task->name,
                rlen, cap);
        abort();
    }
    satin_job_destroy(&job);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tasks_init();
    if (size == 0 || ntasks == 0)
        return 0;
    const satin_task *task = tasks[(data[0] & 0x7Fu) % ntasks];
    int small = (data[0] & 0x80u) != 0;
    const uint8_t *arg = data + 1;
    size_t len = size - 1, skip = 0;
    const satin_task *named = labelled(arg, len, &skip);
    if (named) {
        task = named;
        arg += skip;
        len -= skip;
    }

    satin_err err;
    memset(&err, 0, sizeof err);
    int rc = task->check(arg, len, &err);
    if (rc == -1) {
        reason_must_hold("a refusal", err.msg, sizeof err.msg);
        return 0;
    }
    if (rc != 0) {
        fprintf(stderr, "fuzz_records: %s's check returned %d\n", task->name, rc);
        abort();
    }
    run(task, arg, len, result_cap(task, small));
    return 0;
}
