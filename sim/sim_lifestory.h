/*
 * sim_lifestory.h - a run's lifestory: for each worker of some nodes, when
 * it computed, waited for a steal request of its node (to a node of its own
 * cluster, or of another) or was idle, as intervals that tile the run.
 *
 * sim.c tells it what its workers and its nodes' engines do (four hooks);
 * it writes each interval as a CSV row when the next one begins, so that
 * memory stays the recorded workers' whatever the run's length.  Without a
 * lifestory sim.c pays one test of a NULL pointer per hook.
 */
#ifndef SATIN_SIM_LIFESTORY_H
#define SATIN_SIM_LIFESTORY_H

#include "policy.h"

#include <stdint.h>
#include <stdio.h>

enum { SIM_LIFE_COMPUTING, SIM_LIFE_STEAL_LAN, SIM_LIFE_STEAL_WAN, SIM_LIFE_IDLE,
       SIM_LIFE_STATES };

/* "computing", "steal-lan", "steal-wan", "idle". */
const char *sim_life_state_name(int state);

typedef struct sim_life sim_life;

/* Records the `workers` workers of at most `max_nodes` nodes of `topo`
 * (all of them when there are no more; else nodes spread evenly over the
 * grid's numbering, node 0 first), every worker idle at time 0.  Writes
 * the header "node,worker,state,start_ns,end_ns" to `out`, then one row
 * per interval, in the order the intervals end.  NULL: out of memory. */
sim_life *sim_life_new(const satin_policy_topology *topo, int workers, int max_nodes, FILE *out);
void sim_life_destroy(sim_life **self);
/* 1 when `node` is one of the recorded nodes. */
int sim_life_recorded(const sim_life *l, int node);

/* A worker of `node` starts a task: which one (the lowest idle; 0 on a
 * node not recorded), to be given back to sim_life_task_end. */
int sim_life_task_start(sim_life *l, int node, int64_t now);
void sim_life_task_end(sim_life *l, int node, int worker, int64_t now);
/* `node`'s engine asked `victim` for work with request id `request`; the
 * request is out until its reply comes to `node`, from whichever node. */
void sim_life_steal_sent(sim_life *l, int node, int victim, uint64_t request, int64_t now);
void sim_life_steal_answered(sim_life *l, int node, uint64_t request, int64_t now);

/* The run ended at `end`: every worker's last interval is written.
 * 0, or -1 when writing failed. */
int sim_life_finish(sim_life *l, int64_t end);

#endif
