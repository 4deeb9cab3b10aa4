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
#include <stdatomic.h>
#include <stdint.h>

enum {
    RECORD_ROOT = 1,     /* a job's root invocation, owned by the job */
    RECORD_STOLEN = 2,   /* taken from another worker's tail */
    RECORD_REMOTE = 4,   /* taken for another node; its result comes back by message */
};

/* An invocation record: what satin_spawn puts on the deque. */
typedef struct satin_record {
    const satin_kind *kind;
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

typedef struct satin_worker {
    satin_pool *pool;
    int id;
    pthread_t thread;
    satin_deque deque;
    satin_arena arena;
    uintptr_t stack_floor;       /* below this the depth guard fails the job */
    uintptr_t stack_base;        /* the lowest address of the worker's stack */
    uintptr_t stack_low;         /* the deepest invocation frame since the last release */
    int depth;                   /* nesting of running invocations */
    /* The jobs of the records running on this worker's stack, outermost
     * first (only the first SATIN_STACK_JOBS are kept; njobs counts all):
     * whether a promised orphan may be waited for depends on them (spawn.c). */
    satin_job *jobs[SATIN_STACK_JOBS];
    int njobs;
    uint64_t rng;

    /* Per-job counters, kept here without atomics and flushed into the job
     * when the worker switches jobs or finishes a stolen or root record. */
    satin_job *cur_job;
    uint64_t n_spawned, n_run, n_steals;
    /* pool->wake_seq as read at the end of the last pause, i.e. before the
     * caller last looked for work (see satin_worker_pause). */
    uint64_t wake_seen;

    /* Read by other threads for statistics. */
    _Atomic uint64_t busy_ns, idle_ns, jobs_run;
    _Atomic int64_t state_since;  /* ns; > 0 busy since, < 0 idle since */
} satin_worker;

struct satin_pool {
    int nworkers;
    size_t max_record;
    size_t stack_size;
    satin_worker *workers;
    _Atomic int running;
    _Atomic int active_jobs;

    pthread_mutex_t lock;        /* guards the injection queue and sleeping */
    pthread_cond_t wake;
    satin_record *inject_head, *inject_tail;
    _Atomic int injected;        /* queue length, read without the lock */

    int spawn_reserve;           /* see satin_pool_set_spawn_reserve */
    /* Non-NULL only on the private 1-worker pool of a traced run (trace.c):
     * every spawn then runs in place, timed.  Next to spawn_reserve, which
     * satin_spawn reads anyway, so the check costs no extra cache line. */
    struct satin_trace *trace;
    /* Non-zero while orphan results wait here (orphans.c): only then does
     * an invocation look for one.  On the same line, for the same reason. */
    _Atomic int orphans;
    struct satin_orphans *orphan_table;
    _Atomic int64_t orphan_wait_ns;  /* the longest wait for a promised orphan */
    _Atomic int parked;          /* workers waiting on `wake` with a timeout */
    _Atomic uint64_t wake_seq;   /* bumped by every satin_pool_notify */
    _Atomic int hungry;          /* a worker found no local work */
    void (*hungry_fn)(void *);
    void *hungry_arg;
};

struct satin_job {
    const satin_kind *kind;
    int remote;                  /* runs another node's record (satin_job_set_remote) */
    _Atomic int promised;        /* its result is promised to other nodes (satin_job_set_promised) */
    satin_ancestry ancestry;     /* of its root (satin_job_set_ancestry) */
    satin_record *root;          /* argument bytes follow it */
    unsigned char *result;       /* the root's result slot */
    _Atomic int stop;            /* cancelled or failed */
    _Atomic uint64_t spawned, run, steals;

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
};

/* The frame of a running invocation. */
struct satin_ctx {
    satin_worker *w;
    satin_job *job;
    satin_record *children;      /* spawned since the last sync, newest first */
    int64_t base;                /* deque head when the frame began */
    satin_arena_mark mark;
    uint32_t nspawned, nran;
    uint64_t place;              /* of this invocation in its job's spawn tree */
    uint32_t nchildren;          /* spawns so far, across syncs: the next child's index */
};

struct satin_out {
    void *slot;
    size_t cap, len;
    satin_job *job;
};

int64_t satin_now_ns(void);
/* Runs a record on worker w and marks it done (spawn.c). */
void satin_record_run(satin_worker *w, satin_record *r);
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
/* Backs off after a failed attempt: spin, then yield, then short parks. */
void satin_worker_pause(satin_worker *w, unsigned *round);
/* Wakes parked workers: new work or a remote result has arrived. */
void satin_pool_notify(satin_pool *pool);

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
int satin_orphans_take(satin_pool *pool, uint64_t place, const satin_kind *kind,
                       const void *arg, size_t arg_len, void *slot, size_t cap, size_t *len,
                       int can_wait, int *waited);

/* The trace hook (trace.c), around an invocation that a traced spawn runs
 * in place: enter fails the job and returns -1 when the recording failed. */
typedef struct satin_trace satin_trace;
int satin_trace_enter(satin_trace *t, satin_job *job);
void satin_trace_leave(satin_trace *t, const satin_kind *kind, const void *arg, size_t len,
                       size_t result_len);

#endif
