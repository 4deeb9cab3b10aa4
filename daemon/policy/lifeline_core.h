/*
 * lifeline_core.h - what `lifeline` and `cluster-lifeline` share: the
 * thief's side (w random steals, then requests on the lifelines that are
 * not yet activated, then quiescence), the victim's side (a lifeline
 * request that finds no work is remembered), and the distribution of work
 * to remembered thieves by pushes.  README.md, "Lifelines", says how this
 * follows the X10 code and where it does not.
 */
#ifndef SATIN_LIFELINE_CORE_H
#define SATIN_LIFELINE_CORE_H

#include "lifeline_graph.h"
#include "policy_internal.h"

/* Incoming lifelines remembered: at most z from the graph (its in-degree),
 * plus wide-area ones (cluster-lifeline); requests past this are answered
 * and not remembered. */
#define SATIN_LL_MAX_THIEVES 48

typedef struct satin_ll {
    const satin_candidates *victims; /* random steals draw from these */
    int edges[SATIN_LIFELINE_MAX_Z];  /* outgoing lifelines, node numbers */
    int nedges;
    uint32_t activated;        /* edge i asked, and no work came from it since */
    int tries;                 /* random steals made in this idle period */
    int next_edge;             /* the next lifeline to consider in it */
    int thieves[SATIN_LL_MAX_THIEVES]; /* incoming lifelines activated: a stack */
    int nthieves;
    /* Records a thief in another cluster gets per delivery, at most (0:
     * steal_max_jobs, as a local one): a wide-area crossing costs a round
     * trip, so it carries more (cluster-lifeline's wan_lifeline_jobs). */
    int64_t wan_jobs;
    /* Records that must be queued before any goes to a thief in another
     * cluster (0: none); below it the thief is remembered instead
     * (cluster-lifeline's wan_lifeline_queue). */
    int64_t wan_min_queue;
    /* Called when the node has done its w steals and every lifeline is
     * activated (cluster-lifeline's wide-area lifeline); may be NULL. */
    void (*quiesced)(satin_policy *p);
} satin_ll;

/* Builds the edges of vertex `v` among `n` (z from params) and maps them to
 * node numbers through `nodes` (the vertex order). */
void satin_ll_init(satin_ll *ll, const satin_candidates *victims, const int *nodes, int n, int v,
                   int z);

/* Handlers: each policy's own calls these with its satin_ll. */
void satin_ll_on_idle(satin_policy *p, satin_ll *ll);
/* 1 if the reply was the synchronous steal's (and handled). */
int satin_ll_on_steal_reply(satin_policy *p, satin_ll *ll, int victim, uint64_t id, int njobs,
                            unsigned flags);
void satin_ll_on_steal_request(satin_policy *p, satin_ll *ll, int thief, uint64_t id,
                               unsigned flags);
void satin_ll_distribute(satin_policy *p, satin_ll *ll);
/* Work came from `from` by a push: the lifeline to it is free again. */
void satin_ll_on_push(satin_policy *p, satin_ll *ll, int from);
void satin_ll_on_peer(satin_policy *p, satin_ll *ll, int peer, int alive);

/* The tunables both read. */
extern const satin_policy_tunable satin_tunable_lifeline_w, satin_tunable_lifeline_z;

#endif
