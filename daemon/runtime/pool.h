/*
 * pool.h - the worker pool of one node: W worker threads, one work-stealing
 * deque each, running jobs written with satin_spawn/satin_sync (the kind
 * API, <satin/satin.h>).
 *
 * A job is started by handing its root invocation to the pool (any thread);
 * the pool calls the job's done callback from the worker that finished it.
 * Nothing here knows about sockets: the daemon's control thread, the tests
 * and the benchmarks all drive the pool through this interface.
 */
#ifndef SATIN_POOL_H
#define SATIN_POOL_H

#include "clock.h"
#include "satin/satin.h"
#include "satin_kv.h"
#include "satin_profile.h"

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
/* Records run on this node so far (all jobs; for progress lines). */
uint64_t satin_pool_records_run(satin_pool *self);
/* Records of other nodes taken by a worker so far, and the time they
 * waited, summed, from satin_pool_start to a worker taking them. */
void satin_pool_remote_start_waits(satin_pool *self, uint64_t *count, double *seconds);

typedef void satin_job_done_fn(satin_job *job, void *arg);

/* A job of `kind` whose root invocation gets a copy of `arg`. */
satin_job *satin_job_new(const satin_kind *kind, const void *arg, size_t len);
/* The same for a record the kind parsed: its argument bytes, and the room
 * for the root's result it asked for (satin_bytes_result_size). */
satin_job *satin_job_new_parsed(const satin_kind *kind, const satin_bytes *arg);
/* The room for the root's result of a job of `kind` parsed into `arg`. */
size_t satin_job_root_result_size(const satin_kind *kind, const satin_bytes *arg);
/* A job that runs one invocation of `task` (a record of another node, or a
 * re-run of ours) with a result slot of `result_cap` bytes (its JOBREC's:
 * its parent's slot size); it has no kind. */
satin_job *satin_job_new_task(const satin_task *task, const void *arg, size_t len,
                              size_t result_cap);
void satin_job_destroy(satin_job **self);
/* The root invocation's argument: the job's own copy, the same bytes at the
 * same place until the job is destroyed (its kind reads them as const). */
const void *satin_job_arg(const satin_job *job, size_t *len);
/* The place of the job's root in the grid's spawn trees (before it starts;
 * default 0): a fresh one per submitted job, the JOBREC's for a record
 * from another node, so that its children get the places they had there. */
void satin_job_set_place(satin_job *job, uint64_t place);
/* The job runs a record of another node (a stand-in, or a record run again
 * for a dead holder): its work may be part of a record another node has
 * promised as an orphan, which decides who may wait for such promises. */
void satin_job_set_remote(satin_job *job);
/* The records that crossed nodes which the job's root descends from, as
 * its JOBREC says (proto/satin_digest.h). */
void satin_job_set_ancestry(satin_job *job, const uint64_t ancestry[2]);
/* The submitted job this one belongs to, as its JOBREC says (its own root's
 * place for a job submitted here; default 0): only invocations of jobs
 * whose origin has orphans waiting look for them (satin_pool_add_orphan). */
void satin_job_set_origin(satin_job *job, uint64_t origin);
uint64_t satin_job_origin(const satin_job *job);
/* Other nodes may wait for the job's result (an orphan promised to them):
 * no worker of this node waits for a promise above it (any thread). */
void satin_job_set_promised(satin_job *job);
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
const satin_kind *satin_job_kind(const satin_job *job);   /* NULL: another node's record */
const satin_task *satin_job_task(const satin_job *job);   /* its root's */
int satin_job_failed(const satin_job *job);
const char *satin_job_error(const satin_job *job);       /* "" when ok */
const void *satin_job_result(const satin_job *job, size_t *len);
double satin_job_wall_seconds(const satin_job *job);
/* Appends the job's statistics (records queued and run, steals, per-worker
 * busy/idle, wall time) to `stats`. */
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
/* The same for a push (unasked): this node's own deque tails only; a job
 * that came from elsewhere (or a client) runs here. */
int satin_pool_take_for_push(satin_pool *self, satin_record **out, int max);
/* The same for one peer: records whose task `accept` refuses (NULL: all
 * accepted) are not given.  A started job's root stays where it is; a
 * deque tail, taken before its task is seen, is run here by the next free
 * worker instead, as a sibling's steal would. */
typedef int satin_record_filter(void *arg, const satin_task *task);
int satin_pool_take_for_peer(satin_pool *self, satin_record **out, int max, int push,
                             satin_record_filter *accept, void *arg);
const satin_task *satin_record_task(const satin_record *r);
const void *satin_record_arg(const satin_record *r, size_t *len);
size_t satin_record_result_cap(const satin_record *r);
/* Its place in its job's spawn tree (proto/satin_digest.h). */
uint64_t satin_record_place(const satin_record *r);
/* The records it descends from that crossed nodes, for its JOBREC: its
 * job's, and the job's root if that came from another node. */
void satin_record_ancestry(const satin_record *r, uint64_t out[2]);
/* The origin of the record's job (satin_job_set_origin). */
uint64_t satin_record_origin(const satin_record *r);
satin_job *satin_record_job(const satin_record *r);
/* The result of a record run elsewhere came back: copies it into the slot
 * its parent named (or fails the job with `error`) and releases the parent;
 * for a job's root, finishes the job instead. */
void satin_record_complete(satin_record *r, int ok, const void *result, size_t len,
                           const char *error);
/* Adds counts of work done elsewhere for this job to its statistics. */
void satin_job_add_counts(satin_job *job, uint64_t queued, uint64_t run, uint64_t steals);
/* Records queued and run so far (flushed counts; for stolen-job results). */
void satin_job_counts(const satin_job *job, uint64_t *queued, uint64_t *run, uint64_t *steals);

/* Seconds the workers of this node have spent idle, summed over workers. */
double satin_pool_idle_seconds(satin_pool *self);
/* Workers running a record now (the others are in their idle loop). */
int satin_pool_workers_busy(satin_pool *self);
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
/* Another node asked this one for work and got none (1), or got some (0).
 * While it is 1 the workers queue every spawn instead of running children
 * in place, so that the next request finds records: the lazy-spawn rule
 * keeps only a few queued, and on a narrow tree those few are the newest,
 * which their own frames take back within microseconds. */
void satin_pool_set_wanted(satin_pool *self, int wanted);
/* 1 while some worker is dry and the node has no queued work. */
int satin_pool_is_hungry(satin_pool *self);

/* ---- profiles: what the workers and the node's steal requests did while a
 * job that asked for a profile ran (PROTOCOL.md 14.12; runtime/profile.c) ----
 * A session is one job's recording here, known by the job's owner node and
 * id.  Events are kept while any session is open, up to
 * SATIN_PROFILE_LOG_MAX (then every open session is truncated there); at
 * most 16 sessions are open, the oldest dropped for a 17th, or for a new
 * one that finds the log full. */
#define SATIN_PROFILE_LOG_MAX 16384
void satin_pool_profile_begin(satin_pool *self, int owner, uint64_t job_id);
/* Ends the session: its events up to `end` (CLOCK_MONOTONIC ns; 0: now),
 * every time plus `offset` (satin_realtime_offset_ns(): CLOCK_REALTIME),
 * into `out` (initialised).  0, or -1 when no such session is open. */
int satin_pool_profile_end(satin_pool *self, int owner, uint64_t job_id, int64_t end,
                           int64_t offset, satin_profile *out);
/* A steal request of this node's own went out (`wan`: to another cluster),
 * or its answer came (or it was withdrawn).  Control thread. */
void satin_pool_profile_steal(satin_pool *self, uint64_t request_id, int wan);
void satin_pool_profile_answered(satin_pool *self, uint64_t request_id);
/* Events recorded here so far, over every session (a counter: a job
 * without a profile adds none). */
uint64_t satin_pool_profile_events(satin_pool *self);
/* 1 while a session is open (a relaxed load: for skipping the calls above). */
int satin_pool_profiling(satin_pool *self);
/* The job's start and end, CLOCK_MONOTONIC ns (after it finished). */
void satin_job_times(const satin_job *job, int64_t *start, int64_t *end);

/* ---- orphans: results computed on this node or elsewhere for a record
 * whose owner died (PROTOCOL.md 14.12b) ----
 * An invocation about to run at the same place with the same kind and
 * argument bytes takes the result instead (once), so that the re-run of
 * the dead owner's record does not compute it again.  Entries expire
 * after SATIN_ORPHAN_TTL_NS; the table holds at most SATIN_ORPHAN_MAX
 * entries and SATIN_ORPHAN_MAX_BYTES of results (the oldest go first).
 * Each entry belongs to the submitted job its record belonged to
 * (`origin`, satin_job_set_origin): invocations of other jobs never look,
 * and keep running their children in place; while the table is empty,
 * every invocation pays one relaxed load for it. */
#define SATIN_ORPHAN_TTL_NS (600LL * 1000000000LL)
#define SATIN_ORPHAN_MAX 65536
#define SATIN_ORPHAN_MAX_BYTES ((size_t)64 << 20)
void satin_pool_add_orphan(satin_pool *self, uint64_t origin, uint64_t place, uint64_t digest,
                           const void *result, size_t len, uint64_t runs);
/* A promise: node `holder` still runs the record at `place` for its dead
 * owner and will tell its result.  An invocation here that meets it waits
 * for that result (running other work meanwhile) instead of running. */
void satin_pool_expect_orphan(satin_pool *self, uint64_t origin, uint64_t place, uint64_t digest,
                              int holder);
/* `holder` will not tell the promised result (it died, or stopped that
 * record): its promise for (place, digest), or all of them, are dropped
 * and whoever waits for one runs the record itself. */
void satin_pool_abandon_orphans(satin_pool *self, int holder, uint64_t place, uint64_t digest,
                                int all);
/* The longest an invocation waits for a promised orphan before it runs the
 * record itself (default SATIN_ORPHAN_WAIT_NS).  Waits are bounded because
 * a wait can close a cycle the rules in spawn.c do not see: a node waiting
 * above a record another node waits for, at a sync of its own, above the
 * promised record. */
#define SATIN_ORPHAN_WAIT_NS (2LL * 1000000000LL)
void satin_pool_set_orphan_wait(satin_pool *self, int64_t ns);

/* ---- grid-wide values (values.c) -------------------------------------------------
 * A job's values (its kind's .values; a stand-in's from
 * satin_job_set_values) live here once per origin, from the start of its
 * first record here to the end of its last.  fn (may be NULL) is called on
 * a worker thread when a join of this node's made a value of `origin` grow
 * and the driver has taken what grew before: it must only hand the news
 * on (satind posts it to the engine's thread). */
void satin_pool_on_values(satin_pool *self, void (*fn)(void *arg, uint64_t origin), void *arg);
/* The values of `origin` here: how many (0: none here), their
 * declarations, their states now, and (grown, may be NULL) which grew by
 * this node's joins since the last call that asked, cleared. */
size_t satin_pool_values(satin_pool *self, uint64_t origin, const satin_value_def **defs,
                         int64_t out[SATIN_VALUES_MAX], uint32_t *grown);
/* Joins the values of `mask` from `vals` (another node's) into origin's
 * copy here; returns which grew (not counted as this node's growth). */
uint32_t satin_pool_values_join(satin_pool *self, uint64_t origin, const int64_t *vals,
                                uint32_t mask);
/* Before satin_pool_start: the values a record of another node shares
 * (satin_registry_task_values of its task). */
void satin_job_set_values(satin_job *job, const satin_value_def *defs);
/* The values the job shares (its kind's, or those set), or NULL. */
const satin_value_def *satin_job_value_defs(const satin_job *job);
/* What a value of `join` holds before anything was joined (satin_value's). */
int64_t satin_value_bottom(int join);
/* Drops expired orphans (adding and taking one do it too). */
void satin_pool_expire_orphans(satin_pool *self);
typedef struct satin_orphan_stats {
    uint64_t held;        /* results and promises kept now */
    uint64_t promises;    /* of them, promises */
    uint64_t added, used, expired, evicted;
    uint64_t promised;    /* promises received */
    uint64_t waited;      /* invocations that waited for a promise */
    uint64_t gave_up;     /* of them, those that ran the record after the longest wait */
    uint64_t abandoned;   /* promises dropped: their holder died or gave up */
    uint64_t runs_saved;  /* invocations the used ones stood for */
    uint64_t lookups;     /* invocations that looked (only those of jobs whose origin has some) */
} satin_orphan_stats;
void satin_pool_orphan_stats(satin_pool *self, satin_orphan_stats *out);

#endif
