/*
 * policy.h - the interface every load-balancing policy implements.
 *
 * A policy is a small state machine with no I/O, no thread and no clock of
 * its own (shared DESIGN, "Policies: events in, actions out").  The node
 * tells it what happened (events) and it asks the node to act through the
 * environment (actions).  The same object files run in satind (environment
 * = ZeroMQ + the real deques + the real clock) and in the unit tests
 * (environment = a scripted fake with a fake clock).
 *
 * Vocabulary: nodes are numbered 0..nnodes-1 in topology order; clusters
 * 0..nclusters-1.  "Jobs" are invocation records at the tail of the node's
 * work queue.  A steal request is identified by (thief, request id); the
 * thief picks the id.
 */
#ifndef SATIN_POLICY_H
#define SATIN_POLICY_H

#include "policy_params.h"

#include <stddef.h>
#include <stdint.h>

/* The flags of a steal request (SATIN_STEAL_*) are the wire's: defined once
 * in proto/, with the codec that carries them. */
#include "satin_steal_flags.h"


/* What a policy may know of the grid (a copy it must not outlive).  A node
 * number whose cluster_of is SATIN_POLICY_NOT_MEMBER names no member: a
 * node that left the grid while this one ran (its number is not reused),
 * in no cluster's list; no event comes from it and no action may name it. */
#define SATIN_POLICY_NOT_MEMBER (-1)
struct satin_grid_shape;
typedef struct satin_policy_topology {
    int nnodes;
    int self;
    int nclusters;
    const int *cluster_of;       /* [nnodes], a cluster or SATIN_POLICY_NOT_MEMBER */
    const int *cluster_size;     /* [nclusters] */
    const int *const *members;   /* [nclusters][cluster_size[c]] node numbers, topology order */
    /* Optional: the same grid, already checked and shared (grid_shape.h).
     * With it a policy keeps a reference instead of its own copy, and the
     * arrays above are not read. */
    struct satin_grid_shape *shape;
} satin_policy_topology;

/* Actions: the node does them when asked.  `ctx` is the environment's own. */
typedef struct satin_policy_env {
    void *ctx;
    /* Sends a steal request for up to params.steal_max_jobs jobs; returns its id. */
    uint64_t (*steal)(void *ctx, int victim, unsigned flags);
    /* Answers a steal request with up to `max_jobs` jobs from the local tail
     * (0: an empty reply); returns how many jobs were sent. */
    int (*reply)(void *ctx, int thief, uint64_t request_id, unsigned flags, int max_jobs);
    /* CHS: passes a request on to `to`, which will answer `thief` directly. */
    void (*forward)(void *ctx, int to, int thief, uint64_t request_id, unsigned flags);
    /* CHS: withdraws `thief`'s request `request_id` sent (or forwarded) to
     * `victim`; `thief` is self for a request of our own, so the node can
     * tell its own withdrawn steals (whose replies are no steal) from the
     * cancels it passes on. */
    void (*cancel)(void *ctx, int victim, int thief, uint64_t request_id);
    /* RP: pushes the tail job to `target`; returns 0 when the queue was empty. */
    int (*push)(void *ctx, int target);
    /* CLS: reports this node's load to `coordinator`. */
    void (*send_load)(void *ctx, int coordinator, int64_t load);
    /* One timer per id: setting it again replaces it.  `delay_ns` from now. */
    void (*set_timer)(void *ctx, int timer_id, int64_t delay_ns);
    void (*clear_timer)(void *ctx, int timer_id);
    /* Seeded per node: the same seed gives the same draws. */
    uint64_t (*random)(void *ctx);
    int64_t (*now)(void *ctx);
    /* Jobs waiting in this node's queues (tails that can be given away). */
    int64_t (*queue_length)(void *ctx);
    /* 1 while this node has an idle worker and no local work. */
    int (*is_idle)(void *ctx);
} satin_policy_env;

typedef struct satin_policy satin_policy;

/* What a policy needs of its node beyond the events every policy gets.
 * The node reads these flags; it never compares handlers to find out. */
enum {
    SATIN_POLICY_SAMPLES_QUEUE = 0x1,   /* wants on_queue_length while jobs run */
    SATIN_POLICY_WAITS_FOR_WORK = 0x2,  /* an idle node waits for work to come:
                                         * no idle re-check wakes it */
    SATIN_POLICY_PUSHES = 0x4,          /* pushes from queues longer than rp_threshold:
                                         * workers keep that many records queued */
};

/* Events.  Every handler may call actions; none may block. */
typedef struct satin_policy_ops {
    const char *name;            /* "rs", "rp", "chs", "cls", "crs", "lifeline", ... */
    unsigned caps;               /* SATIN_POLICY_* above */
    const satin_policy_tunable *const *tunables; /* the ones it reads, NULL-terminated */
    satin_policy *(*create)(const satin_policy_topology *topo,
                            const satin_policy_params *params, const satin_policy_env *env);
    void (*destroy)(satin_policy *self);
    /* The node has run dry (sent once per idle period, again after work came
     * and went). */
    void (*on_idle)(satin_policy *self);
    /* `from` sent us a request on behalf of `thief` (from == thief unless
     * forwarded).  The policy must answer it (reply or forward), exactly once. */
    void (*on_steal_request)(satin_policy *self, int from, int thief, uint64_t request_id,
                             unsigned flags);
    /* The reply to our request `request_id`: `njobs` jobs were already queued
     * locally by the node. */
    void (*on_steal_reply)(satin_policy *self, int victim, uint64_t request_id, int njobs,
                           unsigned flags);
    /* A request we were sent was withdrawn (CHS): `from` is the node that
     * sent us the request, i.e. its thief, or the node that forwarded it
     * here and now passes the cancel on. */
    void (*on_cancel)(satin_policy *self, int from, uint64_t request_id);
    /* The local queue length changed (sampled by the node, at most every
     * millisecond or so; also right after spawns when the node can tell). */
    void (*on_queue_length)(satin_policy *self, int64_t length);
    /* RP: a job pushed to us arrived (already queued); its sender is `from`. */
    void (*on_push)(satin_policy *self, int from);
    /* RP: `target` acknowledged a job we pushed. */
    void (*on_push_ack)(satin_policy *self, int target);
    /* CLS coordinator: node `from` reports `load`. */
    void (*on_load)(satin_policy *self, int from, int64_t load);
    /* A result of a job stolen from us came back: this node may have work
     * again (CHS cancels its outstanding request then). */
    void (*on_result)(satin_policy *self);
    void (*on_timer)(satin_policy *self, int timer_id);
    /* The node took `peer` for dead (alive 0: silent past its failure
     * time-out, restarted) or heard it again (alive 1).  Steal requests to a
     * dead node already end at once, empty; a policy whose structure names
     * nodes (CLS's coordinator) picks another. */
    void (*on_peer)(satin_policy *self, int peer, int alive);
    /* Counters the node adds to its statistics (name, value); returns count.
     * Only facts the node cannot see: every action above and every event
     * the node feeds in, the node counts itself (daemon/engine/README.md,
     * "Counters"). */
    int (*stats)(const satin_policy *self, const char **names, int64_t *values, int max);
} satin_policy_ops;

extern const satin_policy_ops satin_policy_rs, satin_policy_rp, satin_policy_chs,
    satin_policy_cls, satin_policy_crs, satin_policy_lifeline, satin_policy_cluster_lifeline;

/* The on_queue_length of policies that do not look at queue lengths (they
 * leave out SATIN_POLICY_SAMPLES_QUEUE, so the node does not sample). */
void satin_policy_ignore_queue_length(satin_policy *p, int64_t length);

/* The on_idle of policies that wait for work to come (RP, with
 * SATIN_POLICY_WAITS_FOR_WORK). */
void satin_policy_ignore_idle(satin_policy *p);

/* The on_peer of policies to which every node is alike. */
void satin_policy_ignore_peer(satin_policy *p, int peer, int alive);

/* A job has started somewhere in the grid (its owner's statistics round
 * told this node): an idle node backing off between steal attempts tries
 * at once, from the first interval again, rather than sleep out an interval
 * of up to backoff_max while there is new work to find.  Policies that
 * back off through SATIN_TIMER_BACKOFF get this for nothing; for the
 * others it does nothing. */
void satin_policy_work_started(satin_policy *p);

/* The registry: every policy, NULL-terminated, in the order their names
 * are listed to users (rs, rp, chs, cls, crs, lifeline, cluster-lifeline). */
extern const satin_policy_ops *const satin_policy_registry[];

/* NULL for an unknown name (case-insensitive). */
const satin_policy_ops *satin_policy_find(const char *name);

/* "rs, rp, chs, cls, crs, lifeline, cluster-lifeline" into buf. */
void satin_policy_list_names(char *buf, size_t len);

/* Every tunable of every policy, each once, in registry order; NULL after
 * the last.  `i` counts from 0. */
const satin_policy_tunable *satin_policy_tunable_at(int i);

/* Whether `ops` reads tunable `t`. */
int satin_policy_reads(const satin_policy_ops *ops, const satin_policy_tunable *t);

#endif
