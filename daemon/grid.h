/*
 * grid.h - this node's part in the grid: satind's adapter between the node
 * engine (daemon/engine/: the policy, remote work, timers, counters) and
 * the peer transport and worker pool.  Driven by the control thread; never
 * blocks.
 */
#ifndef SATIN_GRID_H
#define SATIN_GRID_H

#include "kinds.h"
#include "mailbox.h"
#include "peer.h"
#include "policy_config.h"
#include "pool.h"
#include "satin_kv.h"
#include "topology.h"

typedef struct satin_grid satin_grid;

satin_grid *satin_grid_new(void *zmq_ctx, const satin_topology *topo, int self,
                           const satin_policy_config *policy, satin_pool *pool,
                           const satin_registry *reg, satin_mailbox *mailbox,
                           size_t max_record, satin_security *security, double peer_rate);
void satin_grid_destroy(satin_grid **self);

/* For zmq_poll: the peer ROUTER socket and the "node ran dry" eventfd. */
void *satin_grid_socket(satin_grid *self);
int satin_grid_hungry_fd(satin_grid *self);

/* Event handlers for the control loop. */
/* Peer messages waiting: reads a batch.  0 when it read until ZeroMQ had
 * nothing more (new input rings the socket's descriptor again), 1 when it
 * stopped with messages perhaps left. */
int satin_grid_on_readable(satin_grid *self);
void satin_grid_on_hungry(satin_grid *self);     /* the eventfd rang */
/* Does what is due at `now` (satin_now_ns); returns when the next thing
 * falls due (INT64_MAX: nothing until an event).  `late_ns`: how late the
 * loop came to it (its own stall, satin_engine_on_late). */
int64_t satin_grid_tick(satin_grid *self, int64_t now, int64_t late_ns);

/* The node's cumulative counters, as name/value pairs.  Among them, the
 * buckets of the synchronous steals' round trips (latency_hist.h): a job's
 * statistics and the node's status give their percentiles instead
 * (satin_grid_summarize_waits). */
void satin_grid_counters(satin_grid *self, satin_kvlist *out);
/* Copies `counters` into `out` (each name after `prefix`), but the round
 * trips' buckets, whose percentiles it adds instead: "lan_wait_p50_ms" and
 * the like (after `prefix` too). */
void satin_grid_summarize_waits(const satin_kvlist *counters, const char *prefix,
                                satin_kvlist *out);
/* Asks every peer for its counters (phase 0 at a job's start, 1 at its end);
 * the replies arrive through `satin_grid_collected`. */
void satin_grid_request_stats(satin_grid *self, uint64_t job_id, int phase);
/* Copies what peers answered for (job_id, phase) into `out[node]`; returns
 * how many answered.  `out` has one list per node. */
int satin_grid_collected(satin_grid *self, uint64_t job_id, int phase, satin_kvlist *out);
void satin_grid_forget(satin_grid *self, uint64_t job_id);
/* Gives a job submitted here its root place in the grid's spawn trees
 * (unique: this node, its run, the job), before it starts. */
void satin_grid_place_job(satin_grid *self, satin_job *job, uint64_t job_id);
/* Asks the nodes running stolen parts of `job` to stop them. */
void satin_grid_cancel_job(satin_grid *self, satin_job *job);
/* Graceful stop: no more steal requests (nor the policy's timers); steal
 * requests from others are still served, pushed and stolen records that
 * arrive still run, so nothing given to or by this node is lost. */
void satin_grid_drain(satin_grid *self);
/* Records of other nodes running here, our steal requests still out (their
 * replies may bring records we must run) and numbered messages (results,
 * records) not yet acknowledged: 0 when it is safe to go. */
int satin_grid_busy(const satin_grid *self);
/* The stop time-out passed: the records other nodes gave us go back to
 * them to run again (their stand-ins here are cancelled without a result),
 * so that the leave fails no job; satin_grid_running counts those still
 * ending. */
int satin_grid_stop(satin_grid *self);
/* The daemon exits now: every peer hears it (satin_engine_say_left). */
void satin_grid_say_left(satin_grid *self);
int satin_grid_running(const satin_grid *self);
/* Nodes by the engine's numbering: every node known since start (roster.h),
 * members or not. */
int satin_grid_nnodes(const satin_grid *self);
int satin_grid_is_member(const satin_grid *self, int node);
/* A new membership (SIGHUP; takes `next`, already checked: valid, lists
 * this node with its key, keeps this node's key): zauth's keys, the
 * transport and the engine take it.  Returns how many nodes joined, or -1
 * with the reason in err (nothing changed). */
int satin_grid_set_membership(satin_grid *self, satin_topology *next, char *err, size_t errlen);
/* The file in use: the one read at start, or the last membership taken. */
const satin_topology *satin_grid_topology(const satin_grid *self);
/* The failure time-outs in use, in ms; and new ones (SIGHUP). */
void satin_grid_failure_timeouts(const satin_grid *self, double *lan_ms, double *wan_ms);
void satin_grid_set_failure_timeouts(satin_grid *self, double lan_ms, double wan_ms);
/* Peers heard from since start (see satin_peers_alive). */
int satin_grid_peers_heard(const satin_grid *self);
/* 1 when `node` has not answered a request (a steal, a statistics request)
 * sent more than `within_ns` ago, nor said anything since: it is down or
 * cut off, as far as this node can tell. */
int satin_grid_unresponsive(const satin_grid *self, int node, int64_t now, int64_t within_ns);
const char *satin_grid_node_name(const satin_grid *self, int node);
/* Its cluster's index in the topology file (0 for a node not in it). */
int satin_grid_node_cluster(const satin_grid *self, int node);
int satin_grid_self(const satin_grid *self);
const char *satin_grid_policy_name(const satin_grid *self);
/* "peer.ID" = "alive (heard 0.2 s ago)", "suspected (...)", "dead (never
 * heard)" for every other node, into out. */
void satin_grid_peers_status(const satin_grid *self, satin_kvlist *out);
/* The kind modules this node loaded, and the peers whose kinds differ
 * (peer_kinds.h; "" when none). */
void satin_grid_kinds_status(const satin_grid *self, char *modules, size_t mlen, char *differ,
                             size_t dlen);

/* The grid at a glance (GRID_STATUS).  A peer that asks for this node's
 * status gets what `fn(arg, out)` appends (without it, the counters). */
typedef void satin_grid_status_fn(void *arg, satin_kvlist *out);
void satin_grid_set_status_source(satin_grid *self, satin_grid_status_fn *fn, void *arg);
/* Asks every other member for its status, as query number `query`; until a
 * peer says anything, its silence is watched as if work tied us to it. */
void satin_grid_request_status(satin_grid *self, uint64_t query);
/* The status `node` answered to `query`, appended to out (NULL: only
 * whether it did): 1, else 0. */
int satin_grid_peer_status(const satin_grid *self, int node, uint64_t query, satin_kvlist *out);
/* The grid's jobs at once (LIST's GRID flag): JOBS_REQUEST and JOBS_REPLY
 * bypass the engine, which has no part in them; fn(arg, node, m) gets each
 * (node: the sender's number, as above).  satin_grid_send_jobs sends one to
 * `node` (a JOBS_REQUEST is watched for its answer as a steal is). */
typedef void satin_grid_jobs_fn(void *arg, int node, const satin_msg *m);
void satin_grid_set_jobs_handler(satin_grid *self, satin_grid_jobs_fn *fn, void *arg);
void satin_grid_send_jobs(satin_grid *self, int node, satin_msg *m);
/* The node number (as above) of the topology's node `index`; -1 if none. */
int satin_grid_slot(const satin_grid *self, int index);
/* What this node thinks of peer `node`. */
typedef struct satin_grid_view {
    const char *state;     /* "alive", "suspected", "dead" */
    double silent_s;       /* since it was last heard; -1: never */
    double dead_s;         /* since this node took it for dead; -1: not dead */
    int leaving;           /* it said it is stopping (SIGTERM) */
} satin_grid_view;
void satin_grid_peer_view(const satin_grid *self, int node, satin_grid_view *out);

#endif
