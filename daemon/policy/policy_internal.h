/*
 * policy_internal.h - what the policy files share (policy.c defines it).
 * Not part of the interface: nothing outside daemon/policy/ includes this.
 *
 * Every policy object is this one struct (so that the opaque satin_policy
 * has a single definition in the program) plus a private block `priv` with
 * the policy's own state.
 */
#ifndef SATIN_POLICY_INTERNAL_H
#define SATIN_POLICY_INTERNAL_H

#include "grid_shape.h"
#include "policy.h"

#include <stddef.h>
#include <stdint.h>

/* Timer ids (one timer per id, per node). */
enum {
    SATIN_TIMER_BACKOFF = 1,   /* retry an idle steal after a back-off */
    SATIN_TIMER_LOAD = 2,      /* CLS: end of the load-report quiet period */
    SATIN_TIMER_PREFETCH = 3,  /* CLS coordinator: retry a prefetch after a back-off */
    SATIN_TIMER_WAN = 4,       /* CRS: the next wide-area steal after its own back-off */
};

/* Counters; names in policy.c.  Only what the node cannot see: every
 * action (a steal, reply, forward, cancel, push, load report) and every
 * event it feeds a policy (a reply, cancel, push, ack) the node counts
 * itself.  A set_timer it sees too, but not what the timer means. */
enum {
    SATIN_PC_BACKOFFS,         /* idle back-off timers set (CLS: prefetch back-offs too) */
    SATIN_PC_WAN_BACKOFFS,     /* wide-area back-off timers set (CRS) */
    SATIN_PC_LOADS_RECEIVED,   /* load reports a coordinator took in: its own cluster's (CLS) */
    SATIN_PC_WALKS_STOPPED,    /* requests that came after their cancel, ended here (CHS) */
    SATIN_PC_QUIESCES,         /* idle periods that ended quiesced (lifeline policies) */
    SATIN_PC_LIFELINES_NOTED,  /* incoming lifeline requests remembered (lifeline policies) */
    SATIN_PC_WOKEN,            /* back-offs cut short by a job's start (satin_policy_work_started) */
    SATIN_PC_COUNT
};

/* Exponential back-off of an idle node (SimMatrix's poll interval). */
typedef struct satin_backoff {
    int64_t failures;          /* failed attempts since the last success */
    int64_t busy_polls;        /* empty replies from busy victims since then */
} satin_backoff;

/* Empty replies from busy victims polled again at backoff_min before the
 * normal back-off takes over: work exists, but a job that only waits (for a
 * node that died holding its records, say) must not keep its thieves
 * polling at full speed for ever. */
#define SATIN_BUSY_POLLS_MAX 100

struct satin_policy {
    const satin_policy_ops *ops;
    satin_policy_params params;
    satin_policy_env env;

    /* The grid, shared (grid_shape.h): the fields below point into it. */
    satin_grid_shape *shape;
    int nnodes, self, nclusters;
    int cluster;               /* cluster_of[self] */
    int position;              /* self's index in members[cluster] */
    const int *cluster_of;     /* [nnodes] */
    const int *index_of;       /* [nnodes] each node's index in its cluster's member list */
    const int *cluster_size;   /* [nclusters] */
    int *const *members;       /* [nclusters][cluster_size[c]] */

    /* Candidates, self left out, in topology order (victim = entry r % count). */
    satin_candidates others;   /* every other node */
    satin_candidates locals;   /* the other members of our cluster */
    satin_candidates remotes;  /* the other clusters that have members */
    int nremote_nodes;         /* nodes outside our cluster */

    /* The one synchronous steal of RS, CLS and CRS (CHS uses it too). */
    int sync_busy;
    uint64_t sync_id;
    int sync_victim;

    satin_backoff backoff;     /* idle stealing */
    unsigned reply_flags;      /* of the steal reply being handled */
    int backoff_armed;         /* SATIN_TIMER_BACKOFF is set */

    int64_t count[SATIN_PC_COUNT];
    void *priv;                /* the policy's own state, priv_size bytes, zeroed */
};

/* Builds the shared part and a zeroed private block; NULL on bad input or no memory. */
satin_policy *satin_policy_base_create(const satin_policy_ops *ops,
                                       const satin_policy_topology *topo,
                                       const satin_policy_params *params,
                                       const satin_policy_env *env, size_t priv_size);
void satin_policy_base_destroy(satin_policy *p);

/* Entry random() % count of `c`; -1 when it is empty. */
int satin_policy_pick(satin_policy *p, const satin_candidates *c);
/* A random node of a random other cluster (two draws: cluster, then node); -1 if none. */
int satin_policy_pick_remote(satin_policy *p);

/* Sends a steal request (WAN is added when victim is remote). */
uint64_t satin_policy_send_steal(satin_policy *p, int victim, unsigned flags);

/* Random stealing shared by RS, CLS and CRS: one synchronous request to a
 * random node of `c`; nothing when one is already in flight or `c` is empty.
 * Returns 1 if a request was sent. */
int satin_policy_sync_steal(satin_policy *p, const satin_candidates *c);
/* The one synchronous steal, to `victim`, with `flags` besides SYNC (a
 * policy whose victim is not a random draw: CHS's walk, a lifeline). */
void satin_policy_sync_steal_from(satin_policy *p, int victim, unsigned flags);
/* If `id` is our synchronous request: clears it, resets the back-off
 * on success and returns 1; else 0. */
int satin_policy_sync_reply(satin_policy *p, uint64_t id, int njobs);

/* Back-off arithmetic: the delay before the next attempt after one more
 * failure, 0 meaning "at once".  `round` = number of candidate victims. */
int64_t satin_backoff_fail(satin_backoff *b, const satin_policy_params *pp, int round);
void satin_backoff_reset(satin_backoff *b);

/* After a failed idle attempt: if still idle, calls retry(p) at once or sets
 * the back-off timer (whose handler calls retry again). */
void satin_policy_idle_failed(satin_policy *p, int round, void (*retry)(satin_policy *));
/* A new idle period: drops a pending back-off timer (the attempt is made now). */
void satin_policy_backoff_disarm(satin_policy *p);
/* The back-off timer fired: 1 if the caller should retry (node still idle). */
int satin_policy_backoff_fired(satin_policy *p);

/* stats() for a policy that reports the counters listed in `which`. */
int satin_policy_report(const satin_policy *p, const int *which, int nwhich,
                        const char **names, int64_t *values, int max);

/* Handlers several policies share. */
/* Answers with up to steal_max_jobs jobs (the stealing policies' victim side). */
void satin_policy_give(satin_policy *p, int from, int thief, uint64_t id, unsigned flags);
void satin_policy_ignore_cancel(satin_policy *p, int from, uint64_t id);
void satin_policy_ignore_push(satin_policy *p, int from);
void satin_policy_ignore_push_ack(satin_policy *p, int target);
void satin_policy_ignore_load(satin_policy *p, int from, int64_t load);
void satin_policy_ignore_result(satin_policy *p);

/* 1 if `node` is in another cluster than ours. */
static inline int satin_policy_is_remote(const satin_policy *p, int node)
{
    return p->cluster_of[node] != p->cluster;
}

#endif
