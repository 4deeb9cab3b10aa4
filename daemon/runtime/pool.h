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
/* CLOCK_MONOTONIC in nanoseconds. */
int64_t satin_now_ns(void);
/* Invocations run on this node so far (all jobs; for progress lines). */
uint64_t satin_pool_jobs_run(const satin_pool *self);

typedef void satin_job_done_fn(satin_job *job, void *arg);

/* A job for `kind` whose root invocation gets a copy of `arg`. */
satin_job *satin_job_new(const satin_kind *kind, const void *arg, size_t len);
void satin_job_destroy(satin_job **self);
/* Starts the job; `done` is called once, from a worker thread, when the root
 * invocation has finished (successfully, failed or cancelled). */
void satin_pool_start(satin_pool *self, satin_job *job, satin_job_done_fn *done,
                      void *done_arg);
/* Asks a running job to stop; it finishes soon with `why` as its error. */
void satin_job_cancel(satin_job *job, const char *why);

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

#endif
