/*
 * pool.h - the worker pool of one node: W worker threads, one work-stealing
 * deque each, running jobs written with satin_spawn/satin_sync.
 *
 * A job is started by handing its root invocation to the pool (any thread);
 * the pool calls the job's done callback from the worker that finished it.
 * Nothing here knows about sockets: the daemon's control thread, the tests
 * and the benchmarks all drive the pool through this interface.
 */
#ifndef SATIN_POOL_H
#define SATIN_POOL_H

#include "clock.h"
#include "satin.h"
#include "satin_kv.h"

#include <stddef.h>
#include <stdint.h>

#define SATIN_MAX_RECORD_DEFAULT ((size_t)1 << 20) /* 1 MiB */

typedef struct satin_pool satin_pool;
typedef struct satin_job satin_job;

typedef struct satin_pool_config {
    int workers;           /* <= 0: the number of online CPUs */
    size_t max_record;     /* largest argument record of one spawn; 0: default */
    size_t stack_size;     /* per worker thread; 0: default (256 MiB, reserved lazily) */
} satin_pool_config;

satin_pool *satin_pool_new(const satin_pool_config *config);
/* Stops the workers; every job must have finished (or been cancelled and done). */
void satin_pool_destroy(satin_pool **self);
int satin_pool_workers(const satin_pool *self);
size_t satin_pool_max_record(const satin_pool *self);
/* Invocations run on this node so far (all jobs; for progress lines). */
uint64_t satin_pool_jobs_run(const satin_pool *self);

typedef void satin_job_done_fn(satin_job *job, void *arg);

/* A job for `kind` whose root invocation gets a copy of `arg`. */
satin_job *satin_job_new(const satin_kind *kind, const void *arg, size_t len);
/* The same with a result slot of `result_cap` bytes (a record from another
 * node carries its parent's slot size). */
satin_job *satin_job_new_with_cap(const satin_kind *kind, const void *arg, size_t len,
                                  size_t result_cap);
void satin_job_destroy(satin_job **self);
/* Starts the job; `done` is called once when the root invocation has
 * finished (successfully, failed or cancelled): from a worker thread, or
 * from the thread that called satin_record_complete() when the root was
 * taken for another node. */
void satin_pool_start(satin_pool *self, satin_job *job, satin_job_done_fn *done,
                      void *done_arg);
/* Asks a running job to stop; it finishes soon with `why` as its error. */
void satin_job_cancel(satin_job *job, const char *why);
/* 1 once the job was cancelled or failed (any thread, while it runs). */
int satin_job_stopping(const satin_job *job);

/* After done: */
const satin_kind *satin_job_kind(const satin_job *job);
int satin_job_failed(const satin_job *job);
const char *satin_job_error(const satin_job *job);       /* "" when ok */
const void *satin_job_result(const satin_job *job, size_t *len);
double satin_job_wall_seconds(const satin_job *job);
/* Appends the job's statistics (spawned, run, steals, per-worker busy/idle,
 * wall time) to `stats`. */
void satin_job_stats(const satin_job *job, satin_kvlist *stats);

/* Blocks the caller until the job is done. */
void satin_job_wait(satin_job *job);
/* Starts the job and waits for it (tests, benchmarks). */
void satin_pool_run(satin_pool *self, satin_job *job);

/* ---- for the grid: records that leave this node and jobs that enter it ----
 * Only the daemon's control thread calls these. */

typedef struct satin_record satin_record;

/* Takes up to `max` records for another node; returns how many.  First the
 * roots of started jobs that no worker has taken yet (oldest first: jobs of
 * local clients and records that came from other nodes), then the tails of
 * this node's deques (the oldest, coarsest work there): exactly what
 * satin_pool_queue_length() counts.  A deque record stays owned by its
 * parent frame, which waits until satin_record_complete(); a root stays
 * owned by its job, which satin_record_complete() finishes (its done
 * callback then runs on the caller's thread). */
int satin_pool_take_for_remote(satin_pool *self, satin_record **out, int max);
/* The same for a push (unasked): this node's own deque tails first, then
 * started jobs that no worker has taken. */
int satin_pool_take_for_push(satin_pool *self, satin_record **out, int max);
const satin_kind *satin_record_kind(const satin_record *r);
const void *satin_record_arg(const satin_record *r, size_t *len);
size_t satin_record_result_cap(const satin_record *r);
satin_job *satin_record_job(const satin_record *r);
/* The result of a record run elsewhere came back: copies it into the slot
 * its parent named (or fails the job with `error`) and releases the parent;
 * for a job's root, finishes the job instead. */
void satin_record_complete(satin_record *r, int ok, const void *result, size_t len,
                           const char *error);
/* Adds counts of work done elsewhere for this job to its statistics. */
void satin_job_add_counts(satin_job *job, uint64_t spawned, uint64_t run, uint64_t steals);
/* Jobs spawned and run so far (flushed counts; for stolen-job results). */
void satin_job_counts(const satin_job *job, uint64_t *spawned, uint64_t *run, uint64_t *steals);

/* Seconds the workers of this node have spent idle, summed over workers. */
double satin_pool_idle_seconds(satin_pool *self);
/* How many records a worker keeps queued for thieves before further spawns
 * run in place (default 4; a policy that pushes needs more). */
void satin_pool_set_spawn_reserve(satin_pool *self, int reserve);
/* Jobs started on this pool and not finished (local and from other nodes). */
int satin_pool_active_jobs(satin_pool *self);
/* Records waiting on this node: deque lengths plus started jobs not yet
 * taken; satin_pool_take_for_remote() can take every one of them. */
int64_t satin_pool_queue_length(satin_pool *self);
/* `fn(arg)` is called (from a worker thread) when the node runs dry: a
 * worker found no local work.  Called again only after work was found. */
void satin_pool_on_hungry(satin_pool *self, void (*fn)(void *arg), void *arg);
/* 1 while some worker is dry and the node has no queued work. */
int satin_pool_is_hungry(satin_pool *self);

#endif
