/*
 * lifestory.h - a run's lifestory: for each worker of some nodes, when
 * it computed, waited for a steal request of its node (to a node of its own
 * cluster, or of another) or was idle, as intervals that tile the run.
 *
 * sim.c tells it what its workers and its nodes' engines do (four hooks);
 * it writes each interval as a CSV row when the next one begins, so that
 * memory stays the recorded workers' whatever the run's length.  Without a
 * lifestory sim.c pays one test of a NULL pointer per hook.
 */
#ifndef SATIN_LIFESTORY_H
#define SATIN_LIFESTORY_H

#include <stdint.h>
#include <stdio.h>

enum { SATIN_LIFE_COMPUTING, SATIN_LIFE_STEAL_LAN, SATIN_LIFE_STEAL_WAN, SATIN_LIFE_IDLE,
       SATIN_LIFE_STATES };

/* "computing", "steal-lan", "steal-wan", "idle". */
const char *satin_life_state_name(int state);

typedef struct satin_life satin_life;

/* Records the `workers` workers of at most `max_nodes` of the `nnodes`
 * nodes (all of them when there are no more; else nodes spread evenly over
 * the grid's numbering, node 0 first), every worker idle at time 0.
 * `cluster_of[nnodes]` tells satin_life_steal_sent whether a request
 * crosses clusters (NULL: only satin_life_steal_out is used).  Writes the
 * header "node,worker,state,start_ns,end_ns" to `out`, then one row per
 * interval, in the order the intervals end.  NULL: out of memory. */
satin_life *satin_life_new(int nnodes, const int *cluster_of, int workers, int max_nodes,
                           FILE *out);
/* The same with each node's name (`names[nnodes]`, outliving the recorder)
 * in a sixth column, "node_id". */
satin_life *satin_life_new_named(int nnodes, const int *cluster_of, const char *const *names,
                                 int workers, int max_nodes, FILE *out);
void satin_life_destroy(satin_life **self);
/* 1 when `node` is one of the recorded nodes. */
int satin_life_recorded(const satin_life *l, int node);

/* A worker of `node` starts a task: which one (the lowest idle; 0 on a
 * node not recorded), to be given back to satin_life_task_end. */
int satin_life_task_start(satin_life *l, int node, int64_t now);
void satin_life_task_end(satin_life *l, int node, int worker, int64_t now);
/* Worker `worker` (0..workers-1) of `node` starts computing: for callers
 * that know which worker it is.  A worker already computing stays so. */
void satin_life_worker_start(satin_life *l, int node, int worker, int64_t now);
/* `node`'s engine asked `victim` for work with request id `request`; the
 * request is out until its reply comes to `node`, from whichever node. */
void satin_life_steal_sent(satin_life *l, int node, int victim, uint64_t request, int64_t now);
void satin_life_steal_answered(satin_life *l, int node, uint64_t request, int64_t now);
/* The same as satin_life_steal_sent, for a caller that knows whether the
 * request went to another cluster (`wan`) rather than to which node. */
void satin_life_steal_out(satin_life *l, int node, uint64_t request, int wan, int64_t now);

/* What a node's recording covers, for callers whose nodes were not all
 * watched over the whole run: begin (before any other event of the node)
 * moves the start of its workers' first intervals from 0 to `start`; end
 * writes its workers' last intervals as ending at `end`, and the node
 * takes no further event (satin_life_finish leaves it alone). */
void satin_life_begin_node(satin_life *l, int node, int64_t start);
/* `node` has only `workers` (1..the recorder's) workers: rows for them
 * alone (before any event of the node). */
void satin_life_node_workers(satin_life *l, int node, int workers);
void satin_life_end_node(satin_life *l, int node, int64_t end);

/* The run ended at `end`: every worker's last interval is written.
 * 0, or -1 when writing failed. */
int satin_life_finish(satin_life *l, int64_t end);

#endif
