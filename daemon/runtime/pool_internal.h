/*
 * pool_internal.h - what the pool's own files share: invocation records,
 * workers, jobs and frames.  Nothing outside daemon/runtime includes it.
 */
#ifndef SATIN_POOL_INTERNAL_H
#define SATIN_POOL_INTERNAL_H

#include "arena.h"
#include "deque.h"
#include "pool.h"
#include "satin_digest.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdint.h>

enum {
    RECORD_ROOT = 1,     /* a job's root invocation, owned by the job */
    RECORD_STOLEN = 2,   /* taken from another worker's tail */
    RECORD_REMOTE = 4,   /* taken for another node; its result comes back by message */
};

/* An invocation record: what a queued spawn puts on the deque. */
typedef struct satin_record {
    const satin_task *task;
    satin_job *job;
    struct satin_record *next;   /* next sibling of the same frame; queue link for roots */
    void *result;                /* the slot the parent named */
    size_t result_cap, result_len;
    size_t len;
    uint64_t place;              /* in its job's spawn tree (satin_digest.h) */
    uint32_t flags;
    _Atomic int done;            /* release-set when result is written */
    _Alignas(16) unsigned char arg[];
} satin_record;

#define SATIN_STACK_JOBS 32

/* Where a record's run resumes when its kind's own code overflows the
 * worker stack (stack_guard.c): one per record running on a worker,
 * innermost first. */
typedef struct satin_recovery {
    sigjmp_buf env;
    struct satin_recovery *outer;
    const satin_task *task;          /* the record's */
    satin_job *job;
    satin_arena_mark mark;           /* the record arena when it started */
    int64_t base;                    /* the deque head when it started */
} satin_recovery;

typedef struct satin_worker {
    /* The worker thread's satin__hot (<satin/satin.h>), which its inline
     * spawns read; set before satin_pool_new returns, valid until
     * satin_pool_destroy (no worker thread ends before all have left their
     * loops, pool.c).  hot->limit is lowered by this worker only when a
     * child may run in place (spawn.c, arm_in_place); anyone who makes that
     * untrue raises it to UINTPTR_MAX. */
    satin__hot_t *hot;
    satin_pool *pool;
    int id;
    pthread_t thread;
    satin_deque deque;
    satin_arena arena;
    /* One comparison per invocation watches the stack: below stack_check
     * is either the depth guard (stack_floor) or, first, the line past
     * which a job has touched enough stack pages to give back afterwards
     * (pool.c, release_memory; crossing it sets went_deep and lowers
     * stack_check to the floor).  hot.limit is stack_check while children
     * may run in place. */
    uintptr_t stack_check;
    uintptr_t stack_floor;       /* below this the depth guard fails the job */
    uintptr_t stack_base;        /* the lowest address of the worker's stack */
    uintptr_t stack_release;     /* the release line, 1 MiB below the idle loop */
    int went_deep;
    /* The jobs of the records running on this worker's stack, outermost
     * first (only the first SATIN_STACK_JOBS are kept; njobs counts all):
     * whether a promised orphan may be waited for depends on them (spawn.c). */
    satin_job *jobs[SATIN_STACK_JOBS];
    int njobs;
    satin_recovery *recovery;    /* the innermost record's (stack_guard.c) */
    void *altstack;              /* its signal stack */
    uint64_t rng;

    /* Per-job counters, flushed into the job when the worker switches jobs
     * or finishes a stolen or root record: the spawns queued as records, the
     * records run and those stolen from siblings.  A spawn run in place is
     * a plain call, counted nowhere (a count would cost a third of fib's
     * time: the API's spawn is as cheap as a call).  queued only grows
     * (other threads read it): what of it was flushed is kept beside it. */
    uint64_t n_run, n_steals;
    uint64_t queued_flushed;
    _Atomic uint64_t queued;
    /* pool->wake_seq as read at the end of the last pause, i.e. before the
     * caller last looked for work (see satin_worker_pause). */
    uint64_t wake_seen;

    /* Read by other threads for statistics. */
    _Atomic uint64_t busy_ns, idle_ns, jobs_run;
    _Atomic int64_t state_since;  /* ns; > 0 busy since, < 0 idle since */
    _Atomic uint32_t times_seq;   /* odd while set_busy changes the three above (a seqlock) */
} satin_worker;

struct satin_pool {
    int nworkers;
    size_t max_record;
    size_t stack_size;
    satin_worker *workers;
    _Atomic int running;
    _Atomic int active_jobs;

    pthread_mutex_t lock;        /* guards the injection queue, sleeping, workers_up and _out */
    pthread_cond_t wake;
    int workers_up;              /* threads that set their worker's hot (pool.c) */
    int workers_out;             /* threads that left their loop (pool.c) */
    satin_record *inject_head, *inject_tail;
    _Atomic int injected;        /* queue length, read without the lock */
    /* Deque records taken for a peer that may not run them (its kinds
     * differ): the next free worker here runs them, oldest first.  Guarded
     * by lock; the count is read without it. */
    satin_record **handback;
    size_t handback_cap;
    _Atomic int nhandback;

    int spawn_reserve;           /* see satin_pool_set_spawn_reserve */
    /* Non-NULL only on the private 1-worker pool of a traced run (trace.c):
     * every spawn then runs in place, timed.  Next to spawn_reserve, which
     * satin_spawn reads anyway, so the check costs no extra cache line. */
    struct satin_trace *trace;
    /* Non-zero while orphan results wait here (orphans.c): only then does
     * an invocation look for one.  On the same line, for the same reason. */
    _Atomic int orphans;
    struct satin_orphans *orphan_table;
    /* Bumped whenever an origin gains its first orphan or loses its last:
     * a job's cached answer to "has my origin orphans?" is stale then. */
    _Atomic uint64_t orphan_gen;
    _Atomic int64_t orphan_wait_ns;  /* the longest wait for a promised orphan */
    _Atomic int parked;          /* workers waiting on `wake` with a timeout */
    _Atomic uint64_t wake_seq;   /* bumped by every satin_pool_notify */
    _Atomic int hungry;          /* a worker found no local work */
    _Atomic int wanted;          /* another node asked for work and got none */
    /* Records of other nodes (remote jobs): from their start here to a
     * worker taking them, summed, and how many (the last leg of a steal). */
    _Atomic int64_t remote_start_wait_ns;
    _Atomic uint64_t remote_starts;
    void (*hungry_fn)(void *);
    void *hungry_arg;
    /* Non-zero while a job's profile is being recorded here (profile.c):
     * only then does a worker's switch take the profiler's lock. */
    _Atomic int profiling;
    struct satin_profiler *profiler;
    /* Grid-wide values (values.c): one copy per submitted job on this node,
     * shared by its records here; the list and the callback under vals_lock. */
    pthread_mutex_t vals_lock;
    struct satin_vals *vals;
    void (*vals_fn)(void *arg, uint64_t origin);
    void *vals_arg;
};

struct satin_job {
    const satin_kind *kind;      /* a job a client submitted; NULL for another node's record */
    const satin_task *task;      /* its root's */
    int remote;                  /* runs another node's record (satin_job_set_remote) */
    _Atomic int promised;        /* its result is promised to other nodes (satin_job_set_promised) */
    satin_ancestry ancestry;     /* of its root (satin_job_set_ancestry) */
    uint64_t origin;             /* the submitted job it belongs to (satin_job_set_origin) */
    /* satin_orphans_for_job's answer for this job's origin, as of pool
     * orphan_gen G: G << 1 | answer (one word, so that a reader never pairs
     * a generation with another's answer); 0 before the first look. */
    _Atomic uint64_t orphans_seen;
    satin_record *root;          /* argument bytes follow it */
    unsigned char *result;       /* the root's result slot */
    _Atomic int stop;            /* cancelled or failed */
    _Atomic uint64_t spawned, run, steals;   /* records queued, records run, stolen */

    pthread_mutex_t lock;        /* guards what follows */
    pthread_cond_t finished_cond;
    int finished, failed;
    char error[256];
    satin_pool *pool;            /* set when started */
    satin_job_done_fn *done;
    void *done_arg;
    int64_t t_start, t_end;      /* ns, monotonic */
    int nworkers;
    uint64_t *busy0, *idle0, *busy1, *idle1;   /* per-worker snapshots */
    const satin_value_def *value_defs;   /* its kind's grid-wide values, NULL: none */
    struct satin_vals *vals;     /* their copy here, from its start to its end (values.c) */
};

/* values.c: a starting job takes its origin's copy of the values (made
 * when it is the first of them here), an ending one lets it go. */
void satin_vals_attach(satin_pool *pool, satin_job *job);
void satin_vals_detach(satin_pool *pool, satin_job *job);
void satin_vals_free_all(satin_pool *pool);

/* struct satin_frame is in <satin/satin.h>: its inline spawn uses it. */

/* The runtime's own per-thread state beside the public satin__hot: the
 * worker of a worker thread (NULL on others), and the job of the
 * invocation running on top, those of every frame this thread runs
 * (frames never move between threads). */
typedef struct satin_here_t {
    struct satin_worker *w;
    satin_job *job;
} satin_here_t;
extern _Thread_local satin_here_t satin_here;

/* The worker running on this thread, and the job of its innermost
 * invocation. */
static inline satin_worker *satin_worker_here(void)
{
    return satin_here.w;
}

static inline satin_job *satin_job_here(void)
{
    return satin_here.job;
}

/* Whether a child may run in place, as hot.limit says (spawn.c): cleared
 * for every worker by whoever makes it untrue for all (a job stopped, a
 * worker hungry, orphan results arrived), after the change. */
void satin_pool_clear_fast(satin_pool *pool);
/* Cleared for one worker by a thief that took from its deque. */
static inline void satin_worker_clear_fast(satin_worker *w)
{
    __atomic_store_n(&w->hot->limit, UINTPTR_MAX, __ATOMIC_SEQ_CST);
}

int64_t satin_now_ns(void);
/* Runs a record on worker w above a frame at nesting `depth` (0: the idle
 * loop) and marks it done (spawn.c). */
void satin_record_run(satin_worker *w, satin_record *r, int depth);
/* Fails the job with `msg` unless it already failed (job.c). */
void satin_job_fail(satin_job *job, const char *msg);
/* Root finished: stamp, snapshot and notify (job.c). */
void satin_job_finish(satin_job *job, satin_pool *pool);
void satin_job_begin(satin_job *job, satin_pool *pool);
/* Worker w's busy and idle time so far, including the open interval. */
void satin_worker_times(satin_worker *w, int64_t now, uint64_t *busy, uint64_t *idle);
/* Pushes this worker's cached counters into its current job. */
void satin_worker_flush(satin_worker *w);
/* One steal attempt over the siblings of w (random start); NULL if none. */
satin_record *satin_worker_steal(satin_worker *w);
/* Tells the node (once per dry spell) that a worker found no local work. */
void satin_pool_report_hungry(satin_pool *pool);
/* A record from the queue of started jobs, or NULL. */
satin_record *satin_pool_take_injected(satin_pool *pool);
/* What a worker takes from the started jobs (satin_pool_take_injected),
 * counting for another node's record how long it waited since it started
 * here (steal-latency's last leg). */
satin_record *satin_worker_take_started(satin_worker *w);
/* Backs off after a failed attempt: spin, then yield, then short parks. */
void satin_worker_pause(satin_worker *w, unsigned *round);
/* Wakes parked workers: new work or a remote result has arrived. */
void satin_pool_notify(satin_pool *pool);

/* profile.c: the recorder of profiles. */
typedef struct satin_profiler satin_profiler;
void satin_profiler_init(satin_pool *pool);
void satin_profiler_free(satin_pool *pool);
/* Worker `worker` switched to running a record (busy) or back, at `now`. */
void satin_profiler_worker(satin_pool *pool, int worker, int busy, int64_t now);

/* orphans.c: the table of results computed for dead owners. */
void satin_orphans_init(satin_pool *pool);
void satin_orphans_free(satin_pool *pool);
/* An orphan for the invocation about to run at `place`: TAKEN, its result
 * copied into `slot` (*len set); PROMISED, another node still runs it and
 * the caller `can_wait` (ask again later; *waited is set the first time,
 * for the statistics); NONE.  Called only while pool->orphans is set. */
enum { SATIN_ORPHAN_NONE, SATIN_ORPHAN_TAKEN, SATIN_ORPHAN_PROMISED };
/* A waiter gave up on a promise after pool->orphan_wait_ns (statistics). */
void satin_orphans_gave_up(satin_pool *pool);
/* Whether orphans of job's origin wait here (any thread): a relaxed load
 * while the table is empty, two seq_cst loads while the job's cached answer
 * is current, the table's lock only after a change of what origins it has. */
int satin_orphans_for_job(satin_pool *pool, satin_job *job);
int satin_orphans_take(satin_pool *pool, uint64_t place, const satin_task *task,
                       const void *arg, size_t arg_len, void *slot, size_t cap, size_t *len,
                       int can_wait, int *waited);

/* stack_guard.c: a kind's own overflow of the worker stack fails its job. */
void satin_stack_guard_install(void);           /* once per process, by any pool */
void satin_stack_guard_thread_begin(satin_worker *w);
void satin_stack_guard_thread_end(satin_worker *w);
/* After the jump back to rc, first thing: AddressSanitizer's view of the
 * abandoned frames is cleared (nothing without it). */
void satin_stack_guard_unpoison(satin_worker *w);
/* Then: the job fails, the arena is as rc found it. */
void satin_stack_guard_recovered(satin_worker *w, satin_recovery *rc);

/* The trace hook (trace.c), around an invocation that a traced spawn runs
 * in place: enter fails the job and returns -1 when the recording failed. */
typedef struct satin_trace satin_trace;
int satin_trace_enter(satin_trace *t, satin_job *job);
void satin_trace_leave(satin_trace *t, const satin_task *task, const void *arg, size_t len,
                       size_t result_len);

#endif
