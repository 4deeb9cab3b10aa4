/*
 * engine_internal.h - what the engine's files share.  Nothing outside
 * daemon/engine/ includes it.
 */
#ifndef SATIN_ENGINE_INTERNAL_H
#define SATIN_ENGINE_INTERNAL_H

#include "engine.h"
#include "ledger.h"

#include <stdarg.h>

#define SATIN_ENGINE_MAX_TIMERS 16
/* How often the queue length is sampled while jobs run. */
#define SATIN_ENGINE_QUEUE_SAMPLE_NS 1000000LL
/* A dry node with nothing in flight re-tells its policy this often (the
 * dry signal is an edge and may have met a moment the node had work). */
#define SATIN_ENGINE_IDLE_RECHECK_NS 2000000LL
/* How often records given away are checked for jobs that stopped. */
#define SATIN_ENGINE_CANCEL_SCAN_NS 100000000LL

typedef struct satin_collected {
    uint64_t job_id;
    int phase;
    int node;
    satin_kvlist counters;
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
    int64_t wan_wait_ns;          /* synchronous wide-area steals: time waited */
} satin_engine_tally;

struct satin_engine {
    satin_engine_env env;
    satin_engine_config cfg;
    const satin_policy_ops *ops;
    satin_policy *policy;
    satin_policy_env penv;        /* the policy's actions, engine_policy.c */

    /* Our copy of the topology. */
    satin_policy_topology topo;
    int *cluster_of, *cluster_size;
    int **members;
    const char **names;           /* [nnodes] or NULL */

    int64_t now;                  /* of the event being handled */
    uint64_t rng;
    uint64_t next_request;
    int64_t timer[SATIN_ENGINE_MAX_TIMERS];   /* deadlines, 0 = off */
    int64_t next_sample;
    int64_t next_cancel_scan;
    int64_t last_idle_call;       /* when the policy last heard on_idle or a timer */
    int64_t last_queue_length;
    int draining;

    satin_ledger ledger;
    satin_collected *coll;
    size_t ncoll, capcoll;
    satin_engine_tally c;
};

/* engine_policy.c: fills e->penv. */
void satin_engine_policy_env(satin_engine *e);
/* Appends records for `thief` to `m` as JOBRECs and records them as given. */
int satin_engine_attach_jobs(satin_engine *e, satin_msg *m, int thief, int max, int push);

/* engine_stats.c */
void satin_engine_on_stats_request(satin_engine *e, const satin_msg *m);
void satin_engine_on_stats_reply(satin_engine *e, const satin_msg *m);
void satin_engine_free_collected(satin_engine *e);

/* engine.c */
int satin_engine_is_remote(const satin_engine *e, int node);
void satin_engine_logf(const satin_engine *e, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *satin_engine_node_name(const satin_engine *e, int node);

#endif
