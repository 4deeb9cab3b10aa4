/*
 * pool.c - the worker threads of one node and their idle loop.
 *
 * An idle worker looks, in order, at the queue of newly started jobs and at
 * its siblings' tails (shared memory, cheap).  While any job is active it
 * backs off briefly between rounds (spin, yield, then sleeps doubling up to
 * a fraction of a millisecond; a worker without siblings sleeps until woken);
 * when no job is active it sleeps on a condition variable until one starts,
 * so an idle daemon costs nothing.
 */
#include "pool_internal.h"

#include <malloc.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_STACK_SIZE ((size_t)256 << 20)
/* Room kept below the depth guard: one kind's frame plus the runtime's, with
 * a wide margin for sanitizer builds, whose frames are much larger. */
#define STACK_GUARD ((size_t)4 << 20)
/* A job that went this far below the idle loop's frame touched stack pages
 * nobody needs once it is over: they are given back (release_memory). */
#define STACK_RELEASE_MIN ((size_t)1 << 20)
/* Stack kept resident just below the idle loop: its own calls, the next job's
 * first frames. */
#define STACK_KEEP ((size_t)64 << 10)
/* Record arena blocks a worker keeps between jobs (256 KiB each). */
#define ARENA_KEEP_BLOCKS 4
#define BACKOFF_MAX_NS 200000
#define LONE_PARK_NS 50000000L

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

void satin_worker_flush(satin_worker *w)
{
    satin_job *job = satin_here.job;
    uint64_t queued = atomic_load_explicit(&w->queued, memory_order_relaxed);
    uint64_t q = queued - w->queued_flushed;
    if (job) {
        if (q)
            atomic_fetch_add_explicit(&job->spawned, q, memory_order_relaxed);
        if (w->n_run)
            atomic_fetch_add_explicit(&job->run, w->n_run, memory_order_relaxed);
        if (w->n_steals)
            atomic_fetch_add_explicit(&job->steals, w->n_steals, memory_order_relaxed);
    }
    w->n_run = w->n_steals = 0;
    w->queued_flushed = queued;
}

void satin_worker_times(satin_worker *w, int64_t now, uint64_t *busy, uint64_t *idle)
{
    /* The accumulators and `since` of one moment (set_busy's seqlock): read
     * apart, a switch between the reads would count an interval twice or
     * not at all. */
    uint32_t s1, s2;
    int64_t since;
    uint64_t b, i;
    for (;;) {
        s1 = atomic_load_explicit(&w->times_seq, memory_order_acquire);
        if (s1 & 1) {
            sched_yield();   /* the worker is inside a switch (maybe preempted there) */
            continue;
        }
        since = atomic_load_explicit(&w->state_since, memory_order_relaxed);
        b = atomic_load_explicit(&w->busy_ns, memory_order_relaxed);
        i = atomic_load_explicit(&w->idle_ns, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        s2 = atomic_load_explicit(&w->times_seq, memory_order_relaxed);
        if (s1 == s2)
            break;
    }
    int64_t start = since > 0 ? since : -since;
    if (start <= now) {
        if (since > 0)
            b += (uint64_t)(now - start);
        else
            i += (uint64_t)(now - start);
    } else {
        /* The worker switched after `now` (the caller was slow to read):
         * the state before ran until `start`, so its time past `now` is
         * taken back.  Exact for one switch since `now`; a worker that
         * switched more often in between is off by what it did then. */
        uint64_t late = (uint64_t)(start - now);
        uint64_t *before = since > 0 ? &i : &b;
        *before -= late < *before ? late : *before;
    }
    *busy = b;
    *idle = i;
}

/* Closes the current busy or idle interval and opens the other kind. */
static void set_busy(satin_worker *w, int busy)
{
    /* The switch is a seqlock's write (satin_worker_times), the clock read
     * inside it: a reader's cut falls wholly before or after it. */
    uint32_t seq = atomic_load_explicit(&w->times_seq, memory_order_relaxed);
    atomic_store_explicit(&w->times_seq, seq + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    int64_t now = satin_now_ns();
    int64_t since = atomic_load_explicit(&w->state_since, memory_order_relaxed);
    _Atomic uint64_t *acc = since > 0 ? &w->busy_ns : &w->idle_ns;
    int64_t start = since > 0 ? since : -since;
    if (now > start)
        atomic_store_explicit(acc, atomic_load_explicit(acc, memory_order_relaxed) +
                                       (uint64_t)(now - start),
                              memory_order_relaxed);
    /* seq_cst, as profiling's store and the snapshot's load in
     * satin_pool_profile_begin: a switch is noted, or seen there. */
    atomic_store(&w->state_since, busy ? now : -now);
    atomic_store_explicit(&w->times_seq, seq + 2, memory_order_release);
    if (atomic_load(&w->pool->profiling))
        satin_profiler_worker(w->pool, w->id, busy, now);
}

satin_record *satin_worker_steal(satin_worker *w)
{
    satin_pool *pool = w->pool;
    int n = pool->nworkers;
    if (n < 2)
        return NULL;
    int start = (int)(xorshift(&w->rng) % (uint64_t)n);
    for (int i = 0; i < n; i++) {
        int v = (start + i) % n;
        if (v == w->id)
            continue;
        satin_record *r = satin_deque_steal(&pool->workers[v].deque);
        if (r) {
            satin_worker_clear_fast(&pool->workers[v]);
            r->flags |= RECORD_STOLEN;
            return r;
        }
    }
    return NULL;
}

void satin_worker_pause(satin_worker *w, unsigned *round)
{
    unsigned r = (*round)++;
    satin_pool *pool = w->pool;
    if (r < 16) {
        for (int i = 0; i < 32; i++)
            __asm__ __volatile__("" ::: "memory");
    } else if (r < 32) {
        sched_yield();
    } else {
        /* Park until someone brings work (a started job, a result from
         * another node).  Siblings' spawns do not ring, so with siblings the
         * timeout stays short, doubling up to BACKOFF_MAX_NS; a lone worker
         * has no siblings and sleeps until it is woken (a long timeout is
         * only a safety net): 64 idle nodes on 2 cores must not poll. */
        long ns = 1000L << (r - 32 < 8 ? r - 32 : 8);
        if (ns > BACKOFF_MAX_NS)
            ns = BACKOFF_MAX_NS;
        if (pool->nworkers == 1)
            ns = LONE_PARK_NS;
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += ns / 1000000000L;
        until.tv_nsec += ns % 1000000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&pool->lock);
        atomic_fetch_add(&pool->parked, 1);
        /* A notify since the caller last looked for work changed wake_seq:
         * then it may have brought that work, so do not sleep.  (parked is
         * raised before wake_seq is read, and a notifier bumps wake_seq
         * before it reads parked: one of the two sees the other.) */
        if (atomic_load(&pool->running) && !pool->inject_head &&
            atomic_load(&pool->nhandback) == 0 && atomic_load(&pool->wake_seq) == w->wake_seen)
            pthread_cond_timedwait(&pool->wake, &pool->lock, &until);
        atomic_fetch_sub(&pool->parked, 1);
        pthread_mutex_unlock(&pool->lock);
    }
    w->wake_seen = atomic_load(&pool->wake_seq);
}

/* The oldest record handed back (hand_back), or NULL. */
static satin_record *take_handed_back(satin_pool *pool)
{
    if (atomic_load_explicit(&pool->nhandback, memory_order_acquire) == 0)
        return NULL;
    pthread_mutex_lock(&pool->lock);
    satin_record *r = NULL;
    int n = atomic_load_explicit(&pool->nhandback, memory_order_relaxed);
    if (n > 0) {
        r = pool->handback[0];
        memmove(pool->handback, pool->handback + 1, (size_t)(n - 1) * sizeof *pool->handback);
        atomic_store_explicit(&pool->nhandback, n - 1, memory_order_release);
    }
    pthread_mutex_unlock(&pool->lock);
    return r;
}

satin_record *satin_worker_take_started(satin_worker *w)
{
    satin_pool *pool = w->pool;
    satin_record *handed = take_handed_back(pool);
    if (handed)
        return handed;
    satin_record *r = satin_pool_take_injected(pool);
    satin_job *job = r ? satin_record_job(r) : NULL;
    if (job && job->remote) {
        atomic_fetch_add_explicit(&pool->remote_start_wait_ns, satin_now_ns() - job->t_start,
                                  memory_order_relaxed);
        atomic_fetch_add_explicit(&pool->remote_starts, 1, memory_order_relaxed);
    }
    return r;
}

void satin_pool_remote_start_waits(satin_pool *pool, uint64_t *count, double *seconds)
{
    *count = atomic_load_explicit(&pool->remote_starts, memory_order_relaxed);
    *seconds = (double)atomic_load_explicit(&pool->remote_start_wait_ns, memory_order_relaxed) / 1e9;
}

void satin_pool_notify(satin_pool *pool)
{
    atomic_fetch_add(&pool->wake_seq, 1);
    if (atomic_load(&pool->parked) == 0)
        return;
    pthread_mutex_lock(&pool->lock);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
}

satin_record *satin_pool_take_injected(satin_pool *pool)
{
    if (atomic_load_explicit(&pool->injected, memory_order_relaxed) == 0)
        return NULL;
    pthread_mutex_lock(&pool->lock);
    satin_record *r = pool->inject_head;
    if (r) {
        pool->inject_head = r->next;
        if (!pool->inject_head)
            pool->inject_tail = NULL;
        atomic_fetch_sub_explicit(&pool->injected, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&pool->lock);
    return r;
}

static void sleep_until_job(satin_pool *pool)
{
    pthread_mutex_lock(&pool->lock);
    while (atomic_load(&pool->running) && atomic_load(&pool->active_jobs) == 0 &&
           !pool->inject_head)
        pthread_cond_wait(&pool->wake, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
}

/* A worker found nothing to run.  The flag matters inside the node too, not
 * only to a grid's callback: it makes the busy siblings queue their spawns
 * instead of running them in place, or a sibling's deque holds only the few
 * records that the lazy-spawn rule keeps. */
void satin_pool_report_hungry(satin_pool *pool)
{
    if (atomic_load_explicit(&pool->hungry, memory_order_relaxed))
        return;
    if (!atomic_exchange_explicit(&pool->hungry, 1, memory_order_seq_cst)) {
        satin_pool_clear_fast(pool);   /* spawns queue again, for the hungry */
        if (pool->hungry_fn)
            pool->hungry_fn(pool->hungry_arg);
    }
}

/* After a top-level record, on the idle loop's frame: a deep job (uts with
 * a huge tree can nest thousands of frames, up to the whole 256 MiB stack,
 * and as many records) would otherwise keep its stack pages and arena
 * blocks resident for the life of the daemon.  Shallow jobs, the common
 * case, cost one comparison. */
static void release_memory(satin_worker *w)
{
    char here;
    uintptr_t sp = (uintptr_t)&here;
    int released = 0;
    if (w->went_deep && w->stack_base) {
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        uintptr_t lo = w->stack_base;
        uintptr_t hi = (sp - STACK_KEEP) & ~(page - 1);
        /* Nothing lives below sp (the workers take no signals: satind
         * blocks them), so these pages may read back as zeros. */
        if (hi > lo && madvise((void *)lo, hi - lo, MADV_DONTNEED) == 0)
            released = 1;
    }
    w->went_deep = 0;
    w->stack_check = w->stack_release;
    satin_worker_clear_fast(w);   /* lowered again to the new line */
    if (satin_arena_trim(&w->arena, ARENA_KEEP_BLOCKS) > 0)
        released = 1;
    /* free() keeps what it got back in the worker's malloc arena. */
    if (released)
        malloc_trim(0);
}

static void *worker_main(void *arg)
{
    satin_worker *w = arg;
    /* This thread's satin_here becomes the worker's.  Other threads write
     * its limit through w->hot (siblings, and anyone once satin_pool_new
     * returns): no worker starts, and satin_pool_new does not return,
     * until every worker has set it. */
    satin_here.w = w;
    pthread_mutex_lock(&w->pool->lock);
    w->hot = &satin__hot;
    w->pool->workers_up++;
    pthread_cond_broadcast(&w->pool->wake);
    while (w->pool->workers_up < w->pool->nworkers)
        pthread_cond_wait(&w->pool->wake, &w->pool->lock);
    pthread_mutex_unlock(&w->pool->lock);
    /* Short parks must be short: the default 50 us timer slack would
     * stretch every one of them. */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    pthread_attr_t attr;
    void *stack_addr;
    size_t stack_size;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        pthread_attr_getstack(&attr, &stack_addr, &stack_size);
        pthread_attr_destroy(&attr);
        w->stack_floor = (uintptr_t)stack_addr + STACK_GUARD;
        w->stack_base = (uintptr_t)stack_addr;
        /* A job that goes 1 MiB below this frame touched stack pages worth
         * giving back when it is over (release_memory). */
        char here;
        uintptr_t line = (uintptr_t)&here - STACK_RELEASE_MIN;
        w->stack_release = line > w->stack_floor ? line : w->stack_floor;
    }
    w->stack_check = w->stack_release;
    satin_worker_clear_fast(w);
    satin_stack_guard_thread_begin(w);
    set_busy(w, 0);
    unsigned round = 0;
    while (atomic_load_explicit(&w->pool->running, memory_order_relaxed)) {
        satin_record *r = satin_worker_take_started(w);
        if (!r)
            r = satin_worker_steal(w);
        if (r) {
            if (atomic_load_explicit(&w->pool->hungry, memory_order_relaxed))
                atomic_store_explicit(&w->pool->hungry, 0, memory_order_relaxed);
            set_busy(w, 1);
            satin_record_run(w, r, 0);
            satin_worker_flush(w);
            satin_here.job = NULL;
            release_memory(w);
            set_busy(w, 0);
            round = 0;
        } else {
            satin_pool_report_hungry(w->pool);
            if (atomic_load_explicit(&w->pool->active_jobs, memory_order_relaxed) > 0) {
                satin_worker_pause(w, &round);
            } else {
                sleep_until_job(w->pool);
                round = 0;
            }
        }
    }
    satin_stack_guard_thread_end(w);
    /* Siblings still in their loop write this thread's satin_here (a hungry
     * one raises every limit), and it goes away with the thread: no worker
     * returns until every worker has left its loop. */
    pthread_mutex_lock(&w->pool->lock);
    w->pool->workers_out++;
    pthread_cond_broadcast(&w->pool->wake);
    while (w->pool->workers_out < w->pool->nworkers)
        pthread_cond_wait(&w->pool->wake, &w->pool->lock);
    pthread_mutex_unlock(&w->pool->lock);
    return NULL;
}

static int online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

satin_pool *satin_pool_new(const satin_pool_config *config)
{
    satin_pool *pool = calloc(1, sizeof *pool);
    if (!pool)
        abort();
    pool->nworkers = config && config->workers > 0 ? config->workers : online_cpus();
    pool->max_record = config && config->max_record ? config->max_record
                                                    : SATIN_MAX_RECORD_DEFAULT;
    pool->stack_size = config && config->stack_size ? config->stack_size : DEFAULT_STACK_SIZE;
    if (pool->stack_size < 2 * STACK_GUARD)
        pool->stack_size = 2 * STACK_GUARD;
    pool->workers = calloc((size_t)pool->nworkers, sizeof *pool->workers);
    if (!pool->workers)
        abort();
    pthread_mutex_init(&pool->lock, NULL);
    pthread_mutex_init(&pool->vals_lock, NULL);
    pthread_condattr_t cattr;
    pthread_condattr_init(&cattr);
    pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
    pthread_cond_init(&pool->wake, &cattr);
    pthread_condattr_destroy(&cattr);
    atomic_init(&pool->running, 1);
    atomic_init(&pool->active_jobs, 0);
    atomic_init(&pool->injected, 0);
    atomic_init(&pool->remote_start_wait_ns, 0);
    atomic_init(&pool->remote_starts, 0);
    atomic_init(&pool->parked, 0);
    pool->spawn_reserve = 4;
    satin_orphans_init(pool);
    satin_profiler_init(pool);

    satin_stack_guard_install();
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    /* A large reservation costs only address space until touched; a guard
     * wider than a page meets a large frame that overflows (stack_guard.c). */
    pthread_attr_setstacksize(&attr, pool->stack_size);
    pthread_attr_setguardsize(&attr, (size_t)1 << 20);
    for (int i = 0; i < pool->nworkers; i++) {
        satin_worker *w = &pool->workers[i];
        w->pool = pool;
        w->id = i;
        w->rng = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
        satin_deque_init(&w->deque, 10);
        satin_arena_init(&w->arena);
        atomic_init(&w->state_since, -satin_now_ns());
        atomic_init(&w->times_seq, 0);
    }
    for (int i = 0; i < pool->nworkers; i++)
        if (pthread_create(&pool->workers[i].thread, &attr, worker_main, &pool->workers[i])) {
            perror("satin: cannot start a worker thread");
            abort();
        }
    pthread_attr_destroy(&attr);
    pthread_mutex_lock(&pool->lock);
    while (pool->workers_up < pool->nworkers)
        pthread_cond_wait(&pool->wake, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
    return pool;
}

void satin_pool_destroy(satin_pool **self)
{
    satin_pool *pool = *self;
    if (!pool)
        return;
    pthread_mutex_lock(&pool->lock);
    atomic_store(&pool->running, 0);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (int i = 0; i < pool->nworkers; i++)
        pthread_join(pool->workers[i].thread, NULL);
    for (int i = 0; i < pool->nworkers; i++) {
        satin_deque_free(&pool->workers[i].deque);
        satin_arena_free(&pool->workers[i].arena);
    }
    satin_orphans_free(pool);
    satin_profiler_free(pool);
    free(pool->handback);
    pthread_mutex_destroy(&pool->lock);
    satin_vals_free_all(pool);
    pthread_mutex_destroy(&pool->vals_lock);
    pthread_cond_destroy(&pool->wake);
    free(pool->workers);
    free(pool);
    *self = NULL;
}

int satin_pool_workers(const satin_pool *self)
{
    return self->nworkers;
}

size_t satin_pool_max_record(const satin_pool *self)
{
    return self->max_record;
}

uint64_t satin_pool_records_run(satin_pool *self)
{
    uint64_t n = 0;
    for (int i = 0; i < self->nworkers; i++)
        n += atomic_load_explicit(&self->workers[i].jobs_run, memory_order_relaxed);
    return n;
}

void satin_pool_start(satin_pool *pool, satin_job *job, satin_job_done_fn *done,
                      void *done_arg)
{
    job->done = done;
    job->done_arg = done_arg;
    satin_job_begin(job, pool);
    pthread_mutex_lock(&pool->lock);
    job->root->next = NULL;
    if (pool->inject_tail)
        pool->inject_tail->next = job->root;
    else
        pool->inject_head = job->root;
    pool->inject_tail = job->root;
    atomic_fetch_add_explicit(&pool->injected, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&pool->active_jobs, 1, memory_order_relaxed);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
}

int64_t satin_pool_queue_length(satin_pool *pool)
{
    int64_t n = atomic_load_explicit(&pool->injected, memory_order_relaxed);
    for (int i = 0; i < pool->nworkers; i++)
        n += satin_deque_size(&pool->workers[i].deque);
    return n;
}

void satin_pool_on_hungry(satin_pool *pool, void (*fn)(void *arg), void *arg)
{
    pthread_mutex_lock(&pool->lock);
    pool->hungry_arg = arg;
    pool->hungry_fn = fn;
    pthread_mutex_unlock(&pool->lock);
    /* Workers already asleep will not report: a node without work starts
     * dry.  They may have made the pool hungry before there was anyone to
     * tell (satin_pool_report_hungry), so the flag says nothing here. */
    if (fn && atomic_load(&pool->active_jobs) == 0) {
        atomic_store_explicit(&pool->hungry, 1, memory_order_seq_cst);
        satin_pool_clear_fast(pool);
        fn(arg);
    }
}

void satin_pool_set_wanted(satin_pool *pool, int wanted)
{
    if (!wanted) {
        atomic_store_explicit(&pool->wanted, 0, memory_order_relaxed);
        return;
    }
    if (!atomic_exchange_explicit(&pool->wanted, 1, memory_order_seq_cst))
        satin_pool_clear_fast(pool);   /* spawns queue again, for the next thief */
}

int satin_pool_is_hungry(satin_pool *pool)
{
    return atomic_load_explicit(&pool->hungry, memory_order_relaxed) &&
           satin_pool_queue_length(pool) == 0;
}

/* A deque record this node took for a peer that may not run it: a free
 * worker here runs it (RECORD_STOLEN: as a sibling's steal), and its
 * parent's sync finds it done as usual. */
static void hand_back(satin_pool *pool, satin_record *r)
{
    r->flags |= RECORD_STOLEN;
    pthread_mutex_lock(&pool->lock);
    int n = atomic_load_explicit(&pool->nhandback, memory_order_relaxed);
    if ((size_t)n == pool->handback_cap) {
        pool->handback_cap = pool->handback_cap ? 2 * pool->handback_cap : 16;
        pool->handback = realloc(pool->handback, pool->handback_cap * sizeof *pool->handback);
        if (!pool->handback)
            abort();
    }
    pool->handback[n] = r;
    atomic_store_explicit(&pool->nhandback, n + 1, memory_order_release);
    pthread_mutex_unlock(&pool->lock);
    satin_pool_notify(pool);
}

/* Up to `max` deque tails, from the worker with the longest queue on (its
 * tail is likely the coarsest job on the node); with `accept`, only
 * records of tasks it accepts (the others are handed back). */
static int take_tails_for(satin_pool *pool, satin_record **out, int n, int max,
                          satin_record_filter *accept, void *arg)
{
    int start = 0;
    int64_t longest = -1;
    for (int i = 0; i < pool->nworkers; i++) {
        int64_t len = satin_deque_size(&pool->workers[i].deque);
        if (len > longest) {
            longest = len;
            start = i;
        }
    }
    satin_record *r;
    for (int k = 0; k < pool->nworkers && n < max; k++) {
        satin_worker *victim = &pool->workers[(start + k) % pool->nworkers];
        int took = 0;
        while (n < max && (r = satin_deque_steal(&victim->deque)) != NULL) {
            took = 1;
            if (accept && !accept(arg, r->task)) {
                hand_back(pool, r);
                break;   /* the rest of that deque is likely of the same kind */
            }
            r->flags |= RECORD_REMOTE;
            out[n++] = r;
        }
        if (took)
            satin_worker_clear_fast(victim);
    }
    return n;
}

static int take_tails(satin_pool *pool, satin_record **out, int n, int max)
{
    return take_tails_for(pool, out, n, max, NULL, NULL);
}

/* Up to `max` started jobs no worker has taken yet, oldest first; with
 * `accept`, only roots of tasks it accepts (the others stay queued). */
static int take_started_for(satin_pool *pool, satin_record **out, int n, int max,
                            satin_record_filter *accept, void *arg)
{
    if (!accept) {
        satin_record *r;
        while (n < max && (r = satin_pool_take_injected(pool)) != NULL) {
            r->flags |= RECORD_REMOTE;
            out[n++] = r;
        }
        return n;
    }
    if (atomic_load_explicit(&pool->injected, memory_order_relaxed) == 0)
        return n;
    pthread_mutex_lock(&pool->lock);
    satin_record *prev = NULL, *r = pool->inject_head;
    while (r && n < max) {
        satin_record *next = r->next;
        if (accept(arg, r->task)) {
            if (prev)
                prev->next = next;
            else
                pool->inject_head = next;
            if (pool->inject_tail == r)
                pool->inject_tail = prev;
            atomic_fetch_sub_explicit(&pool->injected, 1, memory_order_relaxed);
            r->flags |= RECORD_REMOTE;
            out[n++] = r;
        } else {
            prev = r;
        }
        r = next;
    }
    pthread_mutex_unlock(&pool->lock);
    return n;
}

static int take_started(satin_pool *pool, satin_record **out, int n, int max)
{
    return take_started_for(pool, out, n, max, NULL, NULL);
}

int satin_pool_take_for_peer(satin_pool *pool, satin_record **out, int max, int push,
                             satin_record_filter *accept, void *arg)
{
    int n = push ? 0 : take_started_for(pool, out, 0, max, accept, arg);
    return take_tails_for(pool, out, n, max, accept, arg);
}

int satin_pool_take_for_remote(satin_pool *pool, satin_record **out, int max)
{
    /* Started jobs no worker has taken yet go first, oldest first.  Each is
     * a whole job (a client's root, or a tail record that arrived by steal,
     * push or prefetch), while every deque record descends from a job that
     * some worker already started here, so it is at most as coarse as that
     * job was.  And a record that came from elsewhere can move on at once:
     * nothing on this node has run from it, its finish is only a message. */
    int n = take_started(pool, out, 0, max);
    return take_tails(pool, out, n, max);
}

int satin_pool_take_for_push(satin_pool *pool, satin_record **out, int max)
{
    /* Our own tails only.  A record pushed here and pushed on adds a hop its
     * result must travel back through, and a grid of busy RP nodes (every
     * queue above the threshold, workers on long jobs) passed such records
     * round at the round-trip rate, each acknowledgement freeing the slot
     * for the next push (satin-sim showed it: bench/README.md, `paper`). */
    return take_tails(pool, out, 0, max);
}

int satin_pool_active_jobs(satin_pool *pool)
{
    return atomic_load_explicit(&pool->active_jobs, memory_order_relaxed);
}

double satin_pool_idle_seconds(satin_pool *pool)
{
    int64_t now = satin_now_ns();
    uint64_t total = 0;
    for (int i = 0; i < pool->nworkers; i++) {
        uint64_t busy, idle;
        satin_worker_times(&pool->workers[i], now, &busy, &idle);
        total += idle;
    }
    return (double)total / 1e9;
}

int satin_pool_workers_busy(satin_pool *pool)
{
    int busy = 0;
    for (int i = 0; i < pool->nworkers; i++)
        busy += atomic_load_explicit(&pool->workers[i].state_since, memory_order_relaxed) > 0;
    return busy;
}

void satin_pool_set_spawn_reserve(satin_pool *pool, int reserve)
{
    /* Set before jobs run (the daemon does it at start-up): workers read it
     * without synchronisation on every spawn. */
    pool->spawn_reserve = reserve > 1 ? reserve : 1;
}
