/*
 * engine_internal.h - what the engine's files share.  Nothing outside
 * daemon/engine/ includes it.
 */
#ifndef SATIN_ENGINE_INTERNAL_H
#define SATIN_ENGINE_INTERNAL_H

#include "engine.h"
#include "grid_shape.h"
#include "ledger.h"
#include "peer_book.h"
#include "value_spread.h"

#include <stdarg.h>

#define SATIN_ENGINE_MAX_TIMERS 16
/* How often the queue length is sampled while jobs run. */
#define SATIN_ENGINE_QUEUE_SAMPLE_NS 1000000LL
/* A dry node with nothing in flight re-tells its policy this often (the
 * dry signal is an edge and may have met a moment the node had work). */
#define SATIN_ENGINE_IDLE_RECHECK_NS 2000000LL
/* How often records given away are checked for jobs that stopped. */
#define SATIN_ENGINE_CANCEL_SCAN_NS 100000000LL
/* How often peers' silence is looked at (and heartbeats go out), at most. */
#define SATIN_ENGINE_WATCH_NS 100000000LL

/* A record another node gave us, stopped when that node died. */
typedef struct satin_parked {
    int owner;
    satin_msg_jobrec *rec;
} satin_parked;

/* A result for a node that was dead when it was ready: sent if the node
 * comes back in the same run, dropped if it restarted. */
typedef struct satin_held_result {
    int owner;
    satin_msg *m;                 /* the JOB_RESULT */
} satin_held_result;

/* A result sent to its owner, kept a while: should the owner die, it is
 * told as an orphan (engine_orphans.c).  kind NULL: already told. */
typedef struct satin_sent_result {
    int to;
    int64_t at;
    uint64_t origin, place, digest, runs;
    char *kind;
    unsigned char *data;
    size_t len;
} satin_sent_result;
#define SATIN_ENGINE_SENT_LOG 1024

/* A promise a peer told us (ORPHAN RUNNING): until its result or its
 * withdrawal comes, we may wait for it, so its holder's silence matters. */
typedef struct satin_promise {
    int holder;
    uint64_t place, digest;
    int64_t since;
} satin_promise;

/* A job's grid-wide values while the ledger ties it to some peer
 * (engine_values.c). */
typedef struct satin_values_entry {
    uint64_t origin;
    satin_job_values *vals;
    satin_value_spread *spread;
    int refused_logged;           /* a refused update of it was logged (once per job) */
} satin_values_entry;

typedef struct satin_collected {
    uint64_t job_id;
    int phase;
    int node;
    satin_kvlist counters;
    int64_t at;                   /* when it came (kept for node status only) */
} satin_collected;

/* The node counters: everything the policy does through its env and every
 * event it is fed, counted here once (names and meanings in engine_stats.c
 * and README.md, "Counters"); the policy counts only what it alone knows. */
typedef struct satin_engine_tally {
    uint64_t steal_lan, steal_wan, steal_sync, steal_async;
    uint64_t steal_ok_lan, steal_ok_wan, steal_failures, late_replies;
    uint64_t requests_served, requests_forwarded;
    uint64_t cancels_sent, cancels_forwarded, cancels_received;
    uint64_t jobs_given, jobs_received, bytes_jobs_out, bytes_jobs_in;
    uint64_t results_sent, results_received, pushes_sent, pushes_received, push_acks;
    uint64_t load_reports, prefetches, prefetch_successes, steal_timeouts, idle_events;
    uint64_t wan_in_flight_max;   /* most wide-area steals out at once (a high-water mark) */
    uint64_t peers_dead, peers_back, heartbeats_sent, steals_to_dead;
    uint64_t stalls;
    uint64_t records_redone, redo_results, late_results_used, late_results_dropped;
    uint64_t records_returned, records_taken_back;
    uint64_t records_given_back;    /* records of kinds this node must not run, sent home */
    uint64_t results_held, held_results_sent, held_results_dropped;
    uint64_t standins_parked, parked_resumed, parked_dropped;
    uint64_t standins_orphaned, orphans_told, orphans_promised, orphan_messages, orphans_received;
    uint64_t membership_changes;
    int64_t wan_wait_ns;          /* synchronous wide-area steals: time waited */
    int64_t lan_wait_ns;          /* synchronous steals inside the cluster: time waited */
    uint64_t lan_sync_answered;   /* and how many of those were answered */
    uint64_t values_sent, values_sent_wan, values_received, values_grown, values_refused,
        values_late;
} satin_engine_tally;

struct satin_engine {
    satin_engine_env env;
    satin_engine_config cfg;
    const satin_policy_ops *ops;
    satin_policy *policy;
    satin_policy_env penv;        /* the policy's actions, engine_policy.c */

    /* The grid, shared with the policy (and, in a simulator, with every
     * other node): topo's arrays and the names are the shape's. */
    satin_grid_shape *shape;
    satin_policy_topology topo;

    int64_t now;                  /* of the event being handled */
    uint64_t rng;
    uint64_t next_request;
    int64_t timer[SATIN_ENGINE_MAX_TIMERS];   /* deadlines, 0 = off */
    int64_t next_sample;
    int64_t next_cancel_scan;
    int64_t last_idle_call;       /* when the policy last heard on_idle or a timer */
    int64_t last_queue_length;
    int draining;

    satin_peer_book peers;        /* only peers with something to know (peer_book.h) */
    int64_t started;
    int64_t next_watch;
    int64_t last_watch;
    /* When this node last came back from a stall of its own (satin_engine_
     * on_late; 0: never): the silence of a peer counts only from a greeting
     * round before it, so that our own absence is not taken for theirs. */
    int64_t resumed;
    int unsettled;                /* peers not yet greeted, heard, or alive: keep watching */
    int64_t watch_every;          /* an eighth of the shortest time-out, at most WATCH_NS */
    int dead_victims;             /* steal requests to dead nodes wait to be settled */
    unsigned char *related;       /* [nrelated] scratch of the watch: work ties us to it */
    int nrelated;
    satin_held_result *held;
    size_t nheld, capheld;
    satin_parked *parked;         /* records of dead owners, to start again if they come back */
    size_t nparked, capparked;

    satin_sent_result *sentlog;   /* a ring of SATIN_ENGINE_SENT_LOG, allocated on first use */
    size_t sentlog_head, nsentlog, sentlog_bytes;
    satin_promise *promises;
    size_t npromises, cappromises;

    satin_ledger ledger;
    satin_values_entry *values;   /* jobs whose grid-wide values this node passes on */
    size_t nvalues, capvalues;
    int64_t next_values_sweep;
    satin_collected *coll;
    size_t ncoll, capcoll;
    satin_collected *node_status; /* [nnode_status] each peer's last status (phase 2), by node */
    int nnode_status;
    int64_t status_watch_until;   /* status requests out: peers are watched until then */
    satin_engine_tally c;
};

/* engine_policy.c: fills e->penv. */
void satin_engine_policy_env(satin_engine *e);
/* Appends records for `thief` to `m` as JOBRECs and records them as given. */
int satin_engine_attach_jobs(satin_engine *e, satin_msg *m, int thief, int max, int push);

/* engine_faults.c */
void satin_engine_faults_init(satin_engine *e);
/* 1 when some class of peer has a failure time-out: silences are watched. */
int satin_engine_watching(const satin_engine *e);
/* The peer's record, made (as every peer is at start) if it had none. */
satin_peer_watch *satin_engine_peer(satin_engine *e, int peer);
/* The peer's record to read: its own, or a fresh one made in *scratch. */
const satin_peer_watch *satin_engine_peer_peek(const satin_engine *e, int peer,
                                               satin_peer_watch *scratch);
/* Each peer's failure time-out and the watch period, from cfg. */
void satin_engine_apply_timeouts(satin_engine *e);
/* `peer` left the grid's membership: a death it does not come back from
 * until it is a member again. */
void satin_engine_peer_left(satin_engine *e, int peer);
void satin_engine_faults_free(satin_engine *e);
/* Every message handed to the engine: it was heard, in its run. */
void satin_engine_heard(satin_engine *e, int peer);
int satin_engine_peer_dead(const satin_engine *e, int peer);
/* Dead, left or no member: nothing is sent to it but results (held while it
 * is dead); a steal request to it ends at once. */
int satin_engine_peer_unreachable(const satin_engine *e, int peer);
/* Unreachable or leaving: it is given no work (no push, no load report),
 * though a leaving node is still asked for its own (PROTOCOL.md 14.19). */
int satin_engine_peer_gone(const satin_engine *e, int peer);
/* A HEARTBEAT came with LEAVING. */
void satin_engine_peer_leaving(satin_engine *e, int peer);
/* A HEARTBEAT came with LEFT: the peer stopped. */
void satin_engine_peer_stopped(satin_engine *e, int peer);
/* A holder that is leaving gave one of our records back (JOB_RESULT
 * RETURNED): it runs again here. */
void satin_engine_record_returned(satin_engine *e, int holder, uint64_t record_id);
/* A HEARTBEAT with GREETING came: the sender has not heard us yet. */
void satin_engine_answer_greeting(satin_engine *e, int peer);
/* This node stops: every peer is told. */
void satin_engine_say_leaving(satin_engine *e);
/* Watches silence, sends heartbeats, settles steals to the dead. */
void satin_engine_watch(satin_engine *e);
int64_t satin_engine_watch_deadline(const satin_engine *e);
/* A stand-in cancelled because its owner died ended: its record waits for
 * the owner to come back (takes s->rec). */
void satin_engine_park(satin_engine *e, satin_standin *s);
/* A stand-in of ours (a record run again) ended. */
void satin_engine_redo_done(satin_engine *e, const satin_standin *s,
                            const satin_engine_outcome *o);
/* A result for a record given away came: the first of two runs wins. */
void satin_engine_result_came(satin_engine *e, int from, const satin_given *g);
void satin_engine_fault_counters(const satin_engine *e, satin_kvlist *out);
/* A result to send to `owner`, or to hold while it is dead (takes `m`). */
void satin_engine_send_result(satin_engine *e, int owner, satin_msg *m);
/* The redo stand-in of given record `id`, cancelled (its job stopped). */
void satin_engine_cancel_redo(satin_engine *e, uint64_t record_id, const char *why);

/* engine_orphans.c */
void satin_engine_orphans_free(satin_engine *e);
/* A stand-in's result is ready while its owner is dead: every live node
 * (and this one) is told; a failed one withdraws its promise.  `rec` NULL:
 * nothing (our own re-run). */
void satin_engine_orphan_result(satin_engine *e, const satin_msg_jobrec *rec,
                                const satin_engine_outcome *o);
/* A stand-in's result went to its live owner: kept a while in case the
 * owner dies before it uses it. */
void satin_engine_remember_sent(satin_engine *e, int owner, const satin_msg_jobrec *rec,
                                const satin_engine_outcome *o);
/* `peer` died: the results sent to it lately are told as orphans, and
 * its stand-ins here run on, to be told when they are ready. */
void satin_engine_orphans_of(satin_engine *e, int peer);
/* `peer` died: its promises to this node are void. */
void satin_engine_orphans_void(satin_engine *e, int peer);
/* `peer` restarted: results of its orphans here go to nobody but the table. */
void satin_engine_orphans_disowned(satin_engine *e, int peer);
/* A stand-in for another node ended with outcome `o`, before its result
 * goes home: told as an orphan if its owner died, else remembered. */
void satin_engine_orphan_done(satin_engine *e, const satin_standin *s,
                              const satin_engine_outcome *o);
void satin_engine_on_orphan(satin_engine *e, const satin_msg *m);
/* Marks in rel[] the peers orphans tie us to: holders of promises we may
 * wait for, and, while a record of a dead owner still runs here (promised
 * to every live peer), every live peer. */
void satin_engine_orphan_ties(satin_engine *e, unsigned char *rel);
void satin_engine_orphan_counters(const satin_engine *e, satin_kvlist *out);

/* engine_values.c */
/* `peer` got a record of the submitted job `origin` (the local job `job`)
 * from us, or gave us one: a neighbour of the job, sent every value that
 * holds something (when the job declared values). */
void satin_engine_values_link(satin_engine *e, uint64_t origin, const void *job, int peer);
void satin_engine_on_values(satin_engine *e, const satin_msg *m);
/* Sends the VALUES messages due now (after every engine call). */
void satin_engine_values_flush(satin_engine *e);
/* The sweep against the ledger when due, then the flush (on_tick). */
void satin_engine_values_tick(satin_engine *e);
int64_t satin_engine_values_deadline(const satin_engine *e);
void satin_engine_values_free(satin_engine *e);
void satin_engine_values_counters(const satin_engine *e, satin_kvlist *out);

/* engine_stats.c */
void satin_engine_on_stats_request(satin_engine *e, const satin_msg *m);
void satin_engine_on_stats_reply(satin_engine *e, const satin_msg *m);
void satin_engine_free_collected(satin_engine *e);
/* 1 while a status request to `peer` is out and it has said nothing since. */
int satin_engine_status_tie(const satin_engine *e, int peer);

/* engine.c */
/* e->shape and e->topo from t: t's shape shared, or one built from t's
 * arrays (and cfg.node_names); and dropped.  0, or -1 for a bad t. */
int satin_engine_take_topology(satin_engine *e, const satin_policy_topology *t);
void satin_engine_drop_topology(satin_engine *e);
/* The policy's on_idle, counted. */
void satin_engine_tell_idle(satin_engine *e);
/* Every message to a peer goes through here (its link is not quiet). */
void satin_engine_send(satin_engine *e, int to, const satin_msg *m);
/* Runs another node's record here as a stand-in: 0, or -1 after sending
 * the owner an error result. */
int satin_engine_run_record(satin_engine *e, const satin_msg_jobrec *jr);
void satin_engine_settle(satin_engine *e, const satin_pending *p, int victim, int njobs,
                         unsigned reply_flags);
int satin_engine_is_remote(const satin_engine *e, int node);
void satin_engine_logf(const satin_engine *e, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *satin_engine_node_name(const satin_engine *e, int node);

#endif
