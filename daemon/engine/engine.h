/*
 * engine.h - one node's decisions, with no I/O (DESIGN, "The node engine").
 *
 * The engine owns the load-balancing policy and everything a node decides
 * around it: steal requests in flight and their time-out, records given to
 * other nodes and records run here for them (the ledger), idle detection
 * and the idle re-check, queue sampling, the policy's timers, the node
 * counters and the statistics round.
 *
 * Events come in as calls that carry the time (`now`, in ns on whatever
 * clock the driver keeps: CLOCK_MONOTONIC in satind, virtual time in the
 * tests and the simulator).  Actions go out through satin_engine_env.  The
 * engine includes no ZeroMQ, thread, clock or socket header and never
 * blocks; it speaks to peers in decoded messages (satin_msg, proto/), so a
 * driver needs only the codec to put them on a wire, or none to pass them
 * by hand.
 *
 * After every call the driver asks satin_engine_next_deadline() when to
 * call satin_engine_on_tick() next.
 *
 * Failures (engine_faults.c): a peer silent for its failure time-out, or
 * seen to restart, is dead.  Records it held for us run again here (exactly
 * one result counts: the first, whether the re-run's or a late one); steal
 * requests to it end at once; results of records it gave us wait for it to
 * come back.  Only peers that work ties to this node are watched, and
 * their quiet links carry HEARTBEATs, so silence there means death, not
 * idleness; an untied peer's silence means nothing.
 */
#ifndef SATIN_ENGINE_H
#define SATIN_ENGINE_H

#include "job_values.h"
#include "policy.h"
#include "satin_kv.h"
#include "satin_proto.h"

#include <stddef.h>
#include <stdint.h>

typedef struct satin_engine satin_engine;

/* Records in one STEAL_REPLY or PUSH at most (a transport sizes its
 * largest message from it). */
#define SATIN_ENGINE_MAX_JOBS_PER_MESSAGE 64

/* A record of this node's pool that the engine hands to another node.  The
 * driver's `record` stays with the engine until it is completed. */
typedef struct satin_engine_record {
    void *record;           /* the driver's handle: completed with env.complete */
    const void *job;        /* the local job it belongs to (for cancel) */
    const char *kind;       /* kind name, as on the wire */
    const void *arg;
    size_t arg_len;
    size_t result_cap;      /* bytes its parent's result slot holds */
    uint64_t place;         /* in its job's spawn tree (proto/satin_digest.h) */
    uint64_t ancestry[2];   /* the records it descends from that crossed nodes */
    uint64_t origin;        /* the submitted job it belongs to (JOBREC's origin) */
} satin_engine_record;

/* How a record run on another node, or a stand-in run here, ended. */
typedef struct satin_engine_outcome {
    int ok;
    const char *error;      /* "" when ok */
    const void *data;       /* the result bytes when ok */
    size_t len;
    uint64_t spawned, run, steals;   /* work done for it, for the job's statistics */
} satin_engine_outcome;

enum { SATIN_ENGINE_LOG_ERROR, SATIN_ENGINE_LOG_WARN, SATIN_ENGINE_LOG_INFO,
       SATIN_ENGINE_LOG_DEBUG };
/* Or'ed into a level: a line the engine itself bounds (one per change of a
 * peer's state, at most one per failure time-out), which a driver's rate
 * limit for what peers trigger must not swallow. */
#define SATIN_ENGINE_LOG_EVENT 0x100
#define SATIN_ENGINE_LOG_LEVEL(l) ((l) & 0xff)

/* The driver's side.  Every function is called on the caller's thread,
 * from inside an engine call; none may call back into the engine. */
typedef struct satin_engine_env {
    void *ctx;
    /* The transport: `m` stays the engine's (the driver copies or encodes). */
    void (*send)(void *ctx, int to, const satin_msg *m);
    /* The pool: up to `max` records for node `peer`; `push` says they go
     * unasked (RP) rather than to a thief that asked.  Records of kinds the
     * peer cannot run (it lacks them, or has another build) are not taken
     * for it (PROTOCOL.md 14.2). */
    int (*take)(void *ctx, int peer, satin_engine_record *out, int max, int push);
    /* A record given away came back: release its parent frame. */
    void (*complete)(void *ctx, void *record, const satin_engine_outcome *outcome);
    /* Runs another node's record here; returns the driver's stand-in handle
     * and sets *job to the job it runs as (what env.take reports for records
     * taken from it), or NULL with a reason in `err` (unknown kind, ...).
     * When it ends, the driver calls satin_engine_on_standin_done(handle). */
    void *(*start)(void *ctx, const satin_msg_jobrec *jr, const void **job, char *err,
                   size_t errlen);
    /* Optional: the argument bytes the stand-in `standin` runs from, which
     * the driver keeps, unchanged, until it reports the stand-in done.  The
     * ledger then refers to them instead of keeping a copy of its own, and
     * copies them only if it must outlive the stand-in (its owner died: the
     * record waits, parked, to start again).  NULL or no hook: it copies. */
    const void *(*standin_arg)(void *ctx, void *standin);
    void (*cancel)(void *ctx, void *standin, const char *why);
    /* Optional: 1 when a record of task `kind` from node `from` must not
     * run here (this node lacks the task, or `from` has another build of
     * it), with the reason in `why`: it goes back to its owner, who runs it
     * (JOB_RESULT given back), instead of failing its job. */
    int (*gives_back)(void *ctx, int from, const char *kind, char *why, size_t whylen);
    /* 1 once `job` (a local job or a stand-in's) was cancelled or failed:
     * the records it gave away are told to stop too. */
    int (*job_stopping)(void *ctx, const void *job);
    /* satin_engine_destroy hands back stand-ins that never ended (optional). */
    void (*release)(void *ctx, void *standin);
    int64_t (*queue_length)(void *ctx);   /* records that can be given away */
    int (*is_idle)(void *ctx);            /* a worker is dry and nothing is queued */
    int (*active_jobs)(void *ctx);        /* jobs running here, local or stand-ins */
    /* Counters of the node that are not the engine's (transport, pool). */
    void (*counters)(void *ctx, satin_kvlist *out);
    /* Optional: the node's status, for a peer that asks for it
     * (satin_engine_request_status); without it, the counters. */
    void (*node_status)(void *ctx, satin_kvlist *out);
    /* A well-formed message that makes no sense (counted by the driver). */
    void (*note_bad)(void *ctx, int node, const char *what);
    void (*log)(void *ctx, int level, const char *text);
    /* A record given away, described again as env.take did (for running it
     * here when its holder died).  Required once failures are detected. */
    void (*describe)(void *ctx, void *record, satin_engine_record *out);
    /* Optional: when the transport last heard anything from `peer` (its
     * acknowledgements too; 0: never), and the peer's run as the transport
     * knows it (changes when it restarts; 0: unknown).  Without them the
     * engine counts only the messages it is given, and sees no restart. */
    int64_t (*last_heard)(void *ctx, int peer);
    uint64_t (*peer_epoch)(void *ctx, int peer);
    /* Optional: news of an orphan, the run of a record at `place` whose
     * kind and argument bytes digest to `digest`, of the submitted job
     * `origin` (only that job's invocations look for it), for an owner that died,
     * on node `holder`: its result (SATIN_ORPHAN_RESULT), which an
     * invocation of this node may take instead of running
     * (satin_pool_add_orphan; `runs`: the invocations it stands for); a
     * promise of it (RUNNING: satin_pool_expect_orphan); or the promise
     * withdrawn (GONE).  orphans_void: every promise of `holder` is void
     * (it died). */
    void (*orphan)(void *ctx, int status, int holder, uint64_t origin, uint64_t place,
                   uint64_t digest, const void *data, size_t len, uint64_t runs);
    void (*orphans_void)(void *ctx, int holder);
    /* Optional: the stand-in's result is now promised to other nodes
     * (satin_job_set_promised). */
    void (*promised)(void *ctx, void *standin);
    /* Optional: a STATS_REQUEST with the profile bit (PROTOCOL.md 14.12)
     * from `owner` for its job `job_id`: phase 0 opens this node's
     * recording of it, phase 1 ends it and adds the node's profile to
     * `out`, the STATS_REPLY's counters (a str item "profile"). */
    void (*profile)(void *ctx, int owner, uint64_t job_id, int phase, satin_kvlist *out);
    /* Optional: a synchronous steal request of ours ended after `ns`
     * (answered, or timed out), to a node of another cluster (`wan`) or of
     * ours: each of the waits that wan_wait_s and lan_wait_s add up. */
    void (*steal_waited)(void *ctx, int wan, int64_t ns);
    /* Optional (speculative search, engine_values.c): the grid-wide values
     * the job `job` (a local job or a stand-in's) declared, as *decls, and
     * how many (0: none; the engine then passes on nothing for it). */
    size_t (*value_decls)(void *ctx, const void *job, const satin_value_decl **decls);
    /* Joins the driver's own states of the values of the submitted job
     * `origin` into `into`, when the engine begins to pass them on. */
    void (*value_states)(void *ctx, uint64_t origin, satin_job_values *into);
    /* An update from a peer grew the values of `origin` marked in `grew`
     * (a bit per value): the driver joins them from `vals` into its own. */
    void (*values_grew)(void *ctx, uint64_t origin, const satin_job_values *vals, uint32_t grew);
} satin_engine_env;

typedef struct satin_engine_config {
    const satin_policy_topology *topo;   /* copied */
    const char *const *node_names;       /* [nnodes], for log lines; the array is copied, the
                                          * names must outlive the engine */
    const satin_policy_ops *policy;
    satin_policy_params params;
    uint64_t seed;                       /* the policy's random draws (0 is made 1) */
    size_t max_record;                   /* a JOBREC above it is refused */
    int64_t steal_timeout_ns;            /* a request unanswered this long counts as empty (5 s) */
    int log_level;                       /* SATIN_ENGINE_LOG_*: lines above it are not even formatted */
    /* A peer of this cluster, or of another, silent this long is dead (3 s
     * and 10 s; 0: never).  Heartbeats go on links quiet for a quarter of it. */
    int64_t failure_timeout_lan_ns, failure_timeout_wan_ns;
    /* Orphan saving (1, the default): records of a dead owner run on and
     * their results, and those sent to it shortly before, are told to
     * every live node for the re-run to use.  0: they are stopped and
     * parked until the owner comes back. */
    int orphan_saving;
    /* Grid-wide values: the least time between two VALUES messages on one
     * link to another cluster (100 ms); inside a cluster they go at once. */
    int64_t values_wan_interval_ns;
} satin_engine_config;

/* Defaults for everything but topo, names and policy. */
void satin_engine_config_default(satin_engine_config *c);

/* NULL on bad input (no policy, bad topology). */
satin_engine *satin_engine_new(const satin_engine_config *config, const satin_engine_env *env,
                               int64_t now);
void satin_engine_destroy(satin_engine **self);

/* ---- events ---- */
/* A decoded message from peer `m->sender`, whose identity the transport has
 * already checked. */
void satin_engine_on_message(satin_engine *e, int64_t now, const satin_msg *m);
/* The pool ran dry (an edge: sent once per idle period). */
void satin_engine_on_dry(satin_engine *e, int64_t now);
/* A stand-in started by env.start finished; the driver frees it after. */
void satin_engine_on_standin_done(satin_engine *e, int64_t now, void *standin,
                                  const satin_engine_outcome *outcome);
/* Time passed: fires due timers, times out steals, samples the queue. */
void satin_engine_on_tick(satin_engine *e, int64_t now);
/* The driver ran `late_ns` after the time it last asked for (its process was
 * stopped or starved).  Past a quarter of the shorter failure time-out the
 * node takes it for a stall of its own: it greets every peer at once and
 * takes none for dead before a greeting round (a quarter of that peer's
 * time-out) has passed without a word from it.  Call before on_tick. */
void satin_engine_on_late(satin_engine *e, int64_t now, int64_t late_ns);
/* When on_tick has something to do next (INT64_MAX: nothing). */
int64_t satin_engine_next_deadline(const satin_engine *e);
/* For a driver that keeps one pending tick per engine, due at *tick_at (a
 * tick due at another time is stale): when to schedule the next one, after
 * `now`, or -1 when none is needed (nothing due, or that one is pending);
 * *tick_at is updated. */
int64_t satin_engine_next_tick(const satin_engine *e, int64_t now, int64_t *tick_at);

/* ---- requests of the node's own ---- */
/* Grid-wide values of the submitted job `origin` grew here, by the
 * driver's own joins: `vals` holds their states now, `grew` which (a bit
 * per value).  They go to the job's neighbours: inside the cluster at
 * once, across the wide area at most once per link per interval. */
void satin_engine_values_grew(satin_engine *e, int64_t now, uint64_t origin,
                              const satin_job_values *vals, uint32_t grew);
/* Jobs whose values this node passes on now (the ledger ties them to a peer). */
size_t satin_engine_values_jobs(const satin_engine *e);
/* Tells the nodes running records of `job` (a local job or a stand-in's)
 * to stop them; each passes it on to whoever it gave records of it, so a
 * cancel follows the job's records wherever they went.  The engine also
 * does this by itself, within SATIN_ENGINE_CANCEL_SCAN_NS, for every job
 * env.job_stopping reports (a failure, a stand-in cancelled, a stop). */
void satin_engine_cancel_job(satin_engine *e, int64_t now, const void *job);
/* Asks every peer for its counters for (job_id, phase); `phase` may carry
 * SATIN_STATS_PROFILE (their profiles too).  What they answer is kept under
 * the phase without that bit. */
void satin_engine_request_stats(satin_engine *e, int64_t now, uint64_t job_id, int phase);
/* Copies what peers answered for (job_id, phase) into out[node]; returns how many. */
int satin_engine_collected(const satin_engine *e, uint64_t job_id, int phase, satin_kvlist *out);
void satin_engine_forget(satin_engine *e, uint64_t job_id);
/* Asks every other member for its status (STATS_REQUEST phase 2, for query
 * number `query`).  Until a peer says anything, the request ties this node
 * to it as work does: its silence for its failure time-out is its death. */
void satin_engine_request_status(satin_engine *e, int64_t now, uint64_t query);
/* The status `peer` answered to `query` into out (appended; NULL: only
 * whether it did): 1, or 0 when it has not answered that query.  *at (may
 * be NULL): when it came. */
int satin_engine_peer_status(const satin_engine *e, int peer, uint64_t query, satin_kvlist *out,
                             int64_t *at);
/* The node's cumulative counters (engine, env.counters, policy.*). */
void satin_engine_counters(const satin_engine *e, satin_kvlist *out);

/* ---- peers ---- */
typedef enum {
    SATIN_PEER_ALIVE,          /* heard within half its failure time-out */
    SATIN_PEER_SUSPECTED,      /* silent longer than that */
    SATIN_PEER_DEAD,           /* silent longer than the time-out, or restarted */
} satin_peer_state;

/* What this node thinks of `peer`, and when it last heard it (0: never). */
satin_peer_state satin_engine_peer_state(const satin_engine *e, int peer, int64_t *heard);
/* All of it, for a view of the grid. */
typedef struct satin_peer_info {
    satin_peer_state state;
    int64_t heard;             /* when it was last heard (0: never) */
    int64_t died;              /* dead: when this node took it for dead */
    int leaving;               /* it said it is stopping (HEARTBEAT LEAVING), in this run */
} satin_peer_info;
void satin_engine_peer_info(const satin_engine *e, int peer, satin_peer_info *out);
const char *satin_peer_state_name(satin_peer_state s);   /* "alive", ... */
/* What ties this node to `peer` now, for satind's status and the log of a
 * death: "; 2 record(s) of ours there, 1 of its here, 0 steal request(s)
 * out", or "" without a tie.  Only a tied peer's silence means death. */
void satin_engine_describe_ties(const satin_engine *e, int peer, char *out, size_t len);
/* The failure time-outs in use (0: that class of peer is not watched), and
 * new ones taking effect at once for every peer (satind's SIGHUP). */
void satin_engine_failure_timeouts(const satin_engine *e, int64_t *lan_ns, int64_t *wan_ns);
void satin_engine_set_failure_timeouts(satin_engine *e, int64_t now, int64_t lan_ns,
                                       int64_t wan_ns);

/* ---- membership ---- */
/* The grid's membership changed (satind's SIGHUP): `topo` numbers the
 * nodes as before (self keeps its number, nnodes never shrinks, a new
 * node gets a new number after the others) and marks a node that is no
 * longer a member with cluster_of SATIN_POLICY_NOT_MEMBER.  A node that
 * left is handled as dead (engine_members.c) and nothing from it is heard
 * again unless it is a member again; a new one is watched like a node
 * listed at start.  The policy is made again over the new membership.
 * `names` as in the config.  0, or -1 (nothing changed) for a topo that
 * breaks those rules. */
int satin_engine_set_members(satin_engine *e, int64_t now, const satin_policy_topology *topo,
                             const char *const *names);
/* 1 when `node` is a member of the grid as this node knows it. */
int satin_engine_is_member(const satin_engine *e, int node);

/* ---- stopping ---- */
/* No more steal requests nor policy timers; what others give us still runs,
 * and other nodes may still steal what waits here.  Every peer is told
 * (HEARTBEAT with LEAVING): none gives us more work; heartbeats go on. */
void satin_engine_drain(satin_engine *e);
/* Stand-ins running here plus our steal requests still out. */
int satin_engine_busy(const satin_engine *e);
int satin_engine_running(const satin_engine *e);
/* The stop time-out passed: every record of a live owner still running here
 * goes back to it (JOB_RESULT RETURNED: it runs it again at once, as after
 * a death, so that a leave fails no job) and its stand-in is cancelled
 * without a result; stand-ins of dead owners and our own re-runs are
 * cancelled.  Returns how many stand-ins it stopped. */
int satin_engine_stop(satin_engine *e);
/* The node exits now: every peer is told (HEARTBEAT with LEFT), so that
 * none waits for a reply from it or takes its silence for a death. */
void satin_engine_say_left(satin_engine *e);

/* ---- what it is ---- */
const satin_policy_ops *satin_engine_policy(const satin_engine *e);
int64_t satin_engine_steal_timeout(const satin_engine *e);
/* Records a worker should keep queued before spawns run in place, when the
 * policy needs more than the pool's default (RP pushes only from a queue
 * longer than its threshold); 0: the pool's default. */
int satin_engine_spawn_reserve(const satin_engine *e);

#endif
