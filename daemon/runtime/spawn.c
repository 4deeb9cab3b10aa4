/*
 * spawn.c - the out-of-line halves of satin_spawn and satin_sync
 * (<satin/satin.h>), and running one invocation record.  This is the hot
 * path: no malloc, no lock, no atomic read-modify-write on the common path
 * (a spawned record that its own worker takes back).
 */
#include "pool_internal.h"
#include "satin_digest.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

__attribute__((noinline, cold)) static void fail_too_large(satin_job *job, const satin_task *task,
                                                           size_t len, size_t max)
{
    char msg[200];
    snprintf(msg, sizeof msg,
             "%s spawned a %zu-byte argument record; the maximum record size is %zu",
             task->name, len, max);
    satin_job_fail(job, msg);
}

/* Every thread starts so: no child in place (<satin/satin.h>), no worker. */
_Thread_local satin__hot_t satin__hot = {UINTPTR_MAX};
_Thread_local satin_here_t satin_here = {NULL, NULL};

/* While another node wants work, spawns queue until the deque holds this
 * many times the spawn reserve. */
#define WANTED_QUEUE 8

static size_t invoke(satin_worker *w, satin_job *job, const satin_task *task, const void *arg,
                     size_t len, void *slot, size_t cap, uint64_t place, int spawned, int depth);
static void count_run(satin_worker *w);

/* A frame's place in its job's spawn tree and its nesting depth.  A child
 * run in place records only its parent and its index among the parent's
 * spawns (satin__enter); both are computed here, when a queued child, an
 * orphan look-up, tracing or the depth guard first needs them.  The frames
 * whose place is unknown may be as many as the stack holds, so they are
 * walked without recursion: up to the nearest known place reversing the
 * parent links, then down computing each place and depth and clearing the
 * links (only this worker sees its frames). */
static uint64_t frame_place(satin_frame *c)
{
    satin_frame *below = NULL, *cur = c;
    while (cur->satin__parent) {
        satin_frame *up = cur->satin__parent;
        cur->satin__parent = below;
        below = cur;
        cur = up;
    }
    uint64_t place = cur->satin__place;
    int depth = cur->satin__depth;
    while (below) {
        satin_frame *next = below->satin__parent;
        place = satin_place_child(place, below->satin__index);
        below->satin__place = place;
        below->satin__depth = ++depth;
        below->satin__parent = NULL;
        below = next;
    }
    return c->satin__place;
}

static int frame_depth(satin_frame *c)
{
    frame_place(c);
    return c->satin__depth;
}

/* A spawn under tracing (trace.c): the child runs at once, in place, between
 * the hook's two clock readings, so the recorded tree is the logical one and
 * does not depend on what the lazy-spawn rule would have queued. */
__attribute__((noinline, cold)) static void traced_spawn(satin_frame *c, const satin_task *task,
                                                         const void *arg, size_t len,
                                                         void *result, size_t result_cap,
                                                         uint64_t index)
{
    satin_worker *w = satin_worker_here();
    satin_job *job = satin_job_here();
    if (len > w->pool->max_record) {
        fail_too_large(job, task, len, w->pool->max_record);
        return;
    }
    uint64_t place = satin_place_child(frame_place(c), index);
    if (satin_trace_enter(w->pool->trace, job) < 0)
        return;
    size_t got = invoke(w, job, task, arg, len, result, result_cap, place, 1,
                        frame_depth(c) + 1);
    satin_trace_leave(w->pool->trace, task, arg, len, got);
}

/* Lazy spawn: while this worker's deque already holds enough records for
 * thieves (the oldest, coarsest ones, which is what stealing takes) and no
 * worker of the node is looking for work, the child runs at once in place
 * of being queued.  Kinds are pure and results are only defined after the
 * sync, so this is the same computation; it spares the record, the copy and
 * two deque operations on the fine-grained end.  Seq_cst loads: see
 * arm_in_place. */
static int may_run_in_place(satin_worker *w, satin_pool *pool, satin_job *job)
{
    int64_t b = atomic_load_explicit(&w->deque.bottom, memory_order_relaxed);
    int64_t t = atomic_load_explicit(&w->deque.top, memory_order_seq_cst);
    return b - t >= pool->spawn_reserve &&
           !atomic_load_explicit(&pool->hungry, memory_order_seq_cst) &&
           !atomic_load_explicit(&pool->wanted, memory_order_seq_cst) &&
           !atomic_load_explicit(&job->stop, memory_order_seq_cst) && pool->trace == NULL &&
           !satin_orphans_for_job(pool, job);
}

/* hot.limit lets <satin/satin.h>'s inline spawn run children in place without
 * looking at anything else.  It is lowered here, by the worker, to the
 * stack's line when may_run_in_place holds, and raised to UINTPTR_MAX by
 * whoever makes that untrue: this worker when it takes from its own deque
 * (sync), a thief after a steal from it, and for every worker whoever stops
 * a job, turns hungry, asks for work for another node (satin_pool_set_wanted)
 * or brings orphan results.  The worker stores the
 * line and then reads the conditions; the others change a condition and
 * then store UINTPTR_MAX, all seq_cst: so either the worker sees the
 * change, or their store lands after its own.  A needless raise costs one
 * spawn through here. */
static void arm_in_place(satin_worker *w, satin_pool *pool, satin_job *job)
{
    __atomic_store_n(&w->hot->limit, w->stack_check, __ATOMIC_SEQ_CST);
    if (!may_run_in_place(w, pool, job))
        __atomic_store_n(&w->hot->limit, UINTPTR_MAX, __ATOMIC_RELAXED);
}

void satin_pool_clear_fast(satin_pool *pool)
{
    for (int i = 0; i < pool->nworkers; i++)
        satin_worker_clear_fast(&pool->workers[i]);
}

/* Every spawn the inline fast path does not take: hot.limit raised
 * (tracing, orphan results waiting, a stopped job, a hungry worker, too few
 * records queued, or only not lowered again yet) or the stack past its
 * line.  `index`: the child's among the frame's spawns. */
void satin__spawn_queued(satin_frame *c, uint64_t index, const satin_task *task, const void *arg,
                         size_t len, void *result, size_t result_cap)
{
    satin_worker *w = satin_worker_here();
    satin_pool *pool = w->pool;
    satin_job *job = satin_job_here();
    if (atomic_load_explicit(&job->stop, memory_order_relaxed))
        return;
    if (__builtin_expect(pool->trace != NULL, 0)) {
        traced_spawn(c, task, arg, len, result, result_cap, index);
        return;
    }
    /* Wanted by another node (satin_pool_set_wanted): queue until the deque
     * holds plenty, then no longer, whether a request came again or not. */
    if (atomic_load_explicit(&pool->wanted, memory_order_relaxed) &&
        satin_deque_size(&w->deque) >= WANTED_QUEUE * pool->spawn_reserve)
        atomic_store_explicit(&pool->wanted, 0, memory_order_relaxed);
    if (satin_deque_size(&w->deque) >= pool->spawn_reserve &&
        !atomic_load_explicit(&pool->hungry, memory_order_relaxed) &&
        !atomic_load_explicit(&pool->wanted, memory_order_relaxed)) {
        /* In place (orphans may be waiting: invoke looks, by the place);
         * and the next ones inline, unless something else forbids it.  The
         * relaxed test first: a hungry node queues every spawn, without a
         * seq_cst store each. */
        arm_in_place(w, pool, job);
        uint64_t place = satin_place_child(frame_place(c), index);
        invoke(w, job, task, arg, len, result, result_cap, place, 1, c->satin__depth + 1);
        return;
    }
    if (len > pool->max_record) {
        fail_too_large(job, task, len, pool->max_record);
        return;
    }
    if (c->satin__queued == 0) {
        c->satin__children = NULL;
        c->satin__base = satin_deque_head(&w->deque);
        satin_arena_mark m = satin_arena_get_mark(&w->arena);
        c->satin__mark_block = m.block;
        c->satin__mark_used = m.used;
    }
    satin_record *r = satin_arena_alloc(&w->arena, sizeof *r + len);
    r->task = task;
    r->job = job;
    r->result = result;
    r->result_cap = result_cap;
    r->result_len = 0;
    r->len = len;
    r->place = satin_place_child(frame_place(c), index);
    r->flags = 0;
    atomic_store_explicit(&r->done, 0, memory_order_relaxed);
    if (len)
        memcpy(r->arg, arg, len);
    r->next = c->satin__children;
    c->satin__children = r;
    c->satin__queued++;
    atomic_store_explicit(&w->queued, atomic_load_explicit(&w->queued, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    satin_deque_push(&w->deque, r);
}

/* Room left on the worker's stack before the depth guard fails the job.
 * Tree depth is legal input, so a too-deep chain of nested invocations must
 * end in a clear job error, never in a crashed daemon. */
static int stack_exhausted(const satin_worker *w)
{
    char here;
    return (uintptr_t)&here < w->stack_floor;
}

/* One step of waiting for something another worker or node will provide:
 * run other work when it is safe, else back off.  `depth`: the nesting of
 * the frame that waits. */
static void help_once(satin_worker *w, unsigned *round, int depth)
{
    /* Helping nests other work on this stack; leave room for it.  Jobs that
     * came from other nodes count as help too: a child stolen by a remote
     * node may take a wide-area round trip to come back. */
    satin_record *other = NULL;
    if (!stack_exhausted(w)) {
        /* Our own deque first: what is left there belongs to outer frames
         * (this frame's children are all gone), and running one now is
         * what their sync would do later anyway. */
        other = satin_deque_take(&w->deque);
        if (other)
            __atomic_store_n(&w->hot->limit, UINTPTR_MAX, __ATOMIC_RELAXED);   /* as in sync */
        else
            other = satin_worker_steal(w);
        if (!other)
            other = satin_worker_take_started(w);
    }
    if (other) {
        if (atomic_load_explicit(&w->pool->hungry, memory_order_relaxed))
            atomic_store_explicit(&w->pool->hungry, 0, memory_order_relaxed);
        satin_record_run(w, other, depth);
        *round = 0;
    } else {
        /* Blocked with nothing local to run: as in Satin, the node may
         * steal from other nodes meanwhile. */
        satin_pool_report_hungry(w->pool);
        satin_worker_pause(w, round);
    }
}

/* Waits for a stolen child, running other work meanwhile when it is safe. */
static void wait_for(satin_worker *w, satin_record *r, int depth)
{
    unsigned round = 0;
    while (!atomic_load_explicit(&r->done, memory_order_acquire))
        help_once(w, &round, depth);
}

/* Whether an invocation of `job` may wait here for the promised orphan at
 * `place` (a record another node still runs for its dead owner).  While it
 * waits, every frame beneath it on this worker's stack waits too, so none
 * may be something the promised record waits for, even through other
 * workers and nodes:
 *  - a record this node has itself promised (other nodes may wait for it,
 *    and the promised record may be one of them: two such waits across two
 *    nodes, each above the other's promise, would never end);
 *  - a record descending from the promised one (the promised record waits
 *    for its descendants): other nodes' records whose ancestry may hold its
 *    place, or which are that record itself.
 * Frames of the waiting job are its own ancestors; those of jobs submitted
 * here descend from no other node's record. */
static int may_wait(const satin_worker *w, const satin_job *job, uint64_t place)
{
    if (w->njobs > SATIN_STACK_JOBS)
        return 0;
    for (int i = 0; i < w->njobs; i++) {
        const satin_job *below = w->jobs[i];
        if (below == job || !below->remote)
            continue;
        if (atomic_load_explicit(&below->promised, memory_order_relaxed) ||
            below->root->place == place || satin_ancestry_may_hold(&below->ancestry, place))
            return 0;
    }
    return 1;
}

/* An orphan result for this invocation: taken (1, *got set), or none (0).
 * A promised one is waited for by an invocation its parent spawned here
 * (`spawned`) when may_wait allows it, for pool->orphan_wait_ns at most.  A
 * job's root never waits: it may be the promised record itself, come back
 * here or taken by a thief, and would wait for itself.  Those that may not
 * wait, or waited the longest, run the record. */
__attribute__((noinline, cold)) static int orphan_result(satin_worker *w, satin_job *job,
                                                          uint64_t place, const satin_task *task,
                                                          const void *arg, size_t len, void *slot,
                                                          size_t cap, int spawned, int depth,
                                                          size_t *got)
{
    unsigned round = 0;
    int waited = 0;
    int64_t since = 0;
    for (;;) {
        int r = satin_orphans_take(w->pool, place, task, arg, len, slot, cap, got,
                                   spawned && may_wait(w, job, place), &waited);
        if (r == SATIN_ORPHAN_TAKEN)
            return 1;
        if (r == SATIN_ORPHAN_NONE || atomic_load_explicit(&job->stop, memory_order_relaxed))
            return 0;
        int64_t now = satin_now_ns();
        if (!since)
            since = now;
        else if (now - since > atomic_load_explicit(&w->pool->orphan_wait_ns,
                                                    memory_order_relaxed)) {
            satin_orphans_gave_up(w->pool);
            return 0;
        }
        help_once(w, &round, depth - 1);
    }
}

void satin__sync_queued(satin_frame *c)
{
    satin_worker *w = satin_worker_here();
    /* Known: the frame's queued spawns computed its place and depth. */
    uint32_t ran = 0;
    /* Everything above the frame's base on our own deque is our own child
     * (nested frames synced before returning here): run them LIFO. */
    while (satin_deque_head(&w->deque) > c->satin__base) {
        satin_record *r = satin_deque_take(&w->deque);
        if (!r)
            break;
        satin_record_run(w, r, c->satin__depth);
        ran++;
    }
    /* The deque is shorter now: the next spawn asks again (arm_in_place). */
    if (ran)
        __atomic_store_n(&w->hot->limit, UINTPTR_MAX, __ATOMIC_RELAXED);
    if (ran != c->satin__queued)
        for (satin_record *r = c->satin__children; r; r = r->next)
            wait_for(w, r, c->satin__depth);
    c->satin__children = NULL;
    c->satin__queued = 0;
    satin_arena_reset(&w->arena,
                      (satin_arena_mark){c->satin__mark_block, c->satin__mark_used});
}

void satin__return_too_large(satin_frame *f, size_t len)
{
    char msg[160];
    snprintf(msg, sizeof msg, "a %zu-byte result does not fit its %zu-byte slot", len,
             f->satin__out.cap);
    satin_job_fail(satin_job_here(), msg);
}

void satin_fail(const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    satin_job_fail(satin_job_here(), msg);   /* the invocation's job is the thread's */
}

int satin_cancelled(void)
{
    return atomic_load_explicit(&satin_job_here()->stop, memory_order_relaxed);
}

static void switch_job(satin_worker *w, satin_job *job)
{
    satin_worker_flush(w);
    satin_here.job = job;
    /* The limit was lowered for the job before, which may have no orphans
     * where this one has: the next spawn asks again (arm_in_place). */
    if (atomic_load_explicit(&w->pool->orphans, memory_order_relaxed))
        __atomic_store_n(&w->hot->limit, UINTPTR_MAX, __ATOMIC_RELAXED);
}

/* The stack went below w->stack_check at `sp`: past the depth guard, the
 * job fails (1); past the release line, the stack pages are given back
 * after the job (pool.c) and only the guard is watched from now on (0). */
__attribute__((noinline, cold)) static int stack_crossed(satin_worker *w, satin_job *job,
                                                         uintptr_t sp, int depth)
{
    if (sp >= w->stack_floor) {
        w->went_deep = 1;
        w->stack_check = w->stack_floor;
        satin_worker_clear_fast(w);   /* lowered again to the new line */
        return 0;
    }
    char msg[200];
    snprintf(msg, sizeof msg,
             "recursion too deep: the worker stack (%zu MiB) is exhausted at nesting depth %d",
             w->pool->stack_size >> 20, depth);
    satin_job_fail(job, msg);
    return 1;
}

/* Runs one invocation in a fresh frame at nesting `depth` on this worker;
 * returns the length of the result it wrote into `slot`.  An orphan result
 * for the same place, kind and arguments (a run for an owner that died) is
 * taken instead of running it again.  (satin_spawn's fast path is the same
 * for the common case: no orphans, the stack above the line.) */
static size_t invoke(satin_worker *w, satin_job *job, const satin_task *task, const void *arg,
                     size_t len, void *slot, size_t cap, uint64_t place, int spawned, int depth)
{
    if (atomic_load_explicit(&job->stop, memory_order_relaxed))
        return 0;
    if (__builtin_expect(atomic_load_explicit(&w->pool->orphans, memory_order_relaxed), 0) &&
        satin_orphans_for_job(w->pool, job)) {
        size_t got;
        if (orphan_result(w, job, place, task, arg, len, slot, cap, spawned, depth, &got))
            return got;
    }
    char here;
    if ((uintptr_t)&here < w->stack_check && stack_crossed(w, job, (uintptr_t)&here, depth))
        return 0;
    satin_frame c;
    c.satin__queued = 0;
    c.satin__depth = depth;
    c.satin__index = 0;
    c.satin__parent = NULL;
    c.satin__place = place;
    c.satin__out.slot = slot;
    c.satin__out.cap = cap;
    c.satin__out.len = 0;
    task->run(&c, 0, arg, len);
    if (c.satin__queued)
        satin__sync_queued(&c); /* an implicit sync ends every invocation, as in Cilk */
    return c.satin__out.len;
}

static void count_run(satin_worker *w)
{
    w->n_run++;
    /* Only this worker writes it: a plain load and store, no locked add. */
    atomic_store_explicit(&w->jobs_run,
                          atomic_load_explicit(&w->jobs_run, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

void satin_record_run(satin_worker *w, satin_record *r, int depth)
{
    satin_job *job = r->job, *prev = satin_here.job;
    if (job != prev)
        switch_job(w, job);
    if (r->flags & RECORD_STOLEN)
        w->n_steals++;
    if (w->njobs < SATIN_STACK_JOBS)
        w->jobs[w->njobs] = job;
    w->njobs++;
    satin_recovery rc = {.outer = w->recovery, .task = r->task, .job = job,
                         .mark = satin_arena_get_mark(&w->arena),
                         .base = satin_deque_head(&w->deque)};
    w->recovery = &rc;
    if (sigsetjmp(rc.env, 0) == 0) {
        r->result_len = invoke(w, job, r->task, r->arg, r->len, r->result, r->result_cap,
                               r->place, !(r->flags & RECORD_ROOT), depth + 1);
    } else {
        /* The kind's own code overflowed the stack (stack_guard.c). */
        satin_stack_guard_unpoison(w);
        r->result_len = 0;
        satin_stack_guard_recovered(w, &rc);
    }
    w->recovery = rc.outer;
    w->njobs--;
    count_run(w);
    if (r->flags & (RECORD_STOLEN | RECORD_ROOT) || job != prev) {
        /* Counts must reach the job before anyone can see it finish. */
        switch_job(w, prev);
    }
    if (r->flags & RECORD_ROOT) {
        satin_job_finish(job, w->pool);
        return;   /* the job (and r) may be gone now */
    }
    atomic_store_explicit(&r->done, 1, memory_order_release);
}

const satin_task *satin_record_task(const satin_record *r)
{
    return r->task;
}

const void *satin_record_arg(const satin_record *r, size_t *len)
{
    *len = r->len;
    return r->arg;
}

uint64_t satin_record_place(const satin_record *r)
{
    return r->place;
}

uint64_t satin_record_origin(const satin_record *r)
{
    return r->job->origin;
}

void satin_record_ancestry(const satin_record *r, uint64_t out[2])
{
    satin_ancestry a = r->job->ancestry;
    /* A record of a job that came from another node descends from that
     * job's root, unless it is that root (given on before it started). */
    if (r->job->remote && !(r->flags & RECORD_ROOT))
        satin_ancestry_add(&a, r->job->root->place);
    out[0] = a.w[0];
    out[1] = a.w[1];
}

size_t satin_record_result_cap(const satin_record *r)
{
    return r->result_cap;
}

satin_job *satin_record_job(const satin_record *r)
{
    return r->job;
}

void satin_record_complete(satin_record *r, int ok, const void *result, size_t len,
                           const char *error)
{
    if (!ok)
        satin_job_fail(r->job, error && *error ? error : "a job run on another node failed");
    else if (len > r->result_cap) {
        char msg[160];
        snprintf(msg, sizeof msg, "a remote %zu-byte result does not fit its %zu-byte slot", len,
                 r->result_cap);
        satin_job_fail(r->job, msg);
    } else {
        if (len)
            memcpy(r->result, result, len);
        r->result_len = len;
    }
    /* A root has no parent frame waiting: its job ends here, as it would
     * had a worker run it (the done callback then runs on this thread). */
    if (r->flags & RECORD_ROOT) {
        satin_job_finish(r->job, r->job->pool);
        return;   /* the job (and r) may be gone now */
    }
    /* Once done is set the parent may reuse r's memory: read what we need first. */
    satin_pool *pool = r->job->pool;
    atomic_store_explicit(&r->done, 1, memory_order_release);
    satin_pool_notify(pool);
}
