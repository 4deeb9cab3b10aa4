/*
 * sim.h - one simulated grid running one job: the node engines and
 * policies of satind, unchanged, driven in virtual time by the event queue,
 * with simulated workers (sim_model's tasks) and links (sim_net).
 *
 * Each node has `workers` workers, one deque of the tasks spawned there and
 * an inbox of records received from other nodes, taken, stolen and pushed
 * in satind's pool's order (sim.c says which).  Messages between
 * engines go through the real codec (their sizes are the wire's) and
 * arrive when sim_net says.  Nothing here reads a clock: the same
 * configuration and seed give the same run, bit for bit.
 */
#ifndef SATIN_SIM_H
#define SATIN_SIM_H

#include "policy.h"
#include "satin_kv.h"
#include "sim_model.h"
#include "sim_net.h"

#include <stdint.h>

/* A node that stops for good `at_ns` of virtual time after submission: its
 * workers' tasks vanish, it sends nothing more, and what reaches it is
 * dropped (sim/README.md, "Crashes"). */
typedef struct sim_crash {
    int node;
    int64_t at_ns;
} sim_crash;

typedef struct sim_config {
    const satin_policy_topology *topo;   /* the grid; topo->self is ignored */
    const char *const *names;            /* [nnodes] node ids, for the engines' log lines */
    const satin_policy_ops *policy;
    satin_policy_params params;
    uint64_t seed;
    int workers;                         /* per node, >= 1 */
    int submit_node;                     /* where the job starts */
    sim_link lan, wan;                   /* every wide-area link starts as `wan` */
    int64_t lan_jitter_ns, wan_jitter_ns; /* sim_net.h; wide-area: each link's start */
    /* A node's control thread's CPU time per message sent and received
     * (sim_ctl.h); 0: none. */
    int64_t msg_send_ns, msg_recv_ns;
    int64_t steal_timeout_ns;            /* 0: the engine's default */
    int64_t time_limit_ns;               /* the run stops there (0: no limit) */
    const sim_crash *crashes;            /* [ncrashes]; never submit_node, each node once */
    int ncrashes;
    /* Failure detection in every engine, on with a crash or `watch`
     * (heartbeats, peers found dead, records redone, orphan saving); off
     * otherwise, since every node would greet every other.  A time-out of
     * 0 is the engine's default. */
    int watch;
    int64_t failure_timeout_lan_ns, failure_timeout_wan_ns;
    /* Progress on stderr every this many events (0: none). */
    uint64_t progress_every;
} sim_config;

typedef struct sim sim;
typedef struct satin_life satin_life;

typedef struct sim_outcome {
    int done;                            /* the job ended (else the time limit came) */
    int failed;                          /* it ended with an error */
    int64_t result;                      /* the root's value */
    int64_t makespan_ns;                 /* virtual time from submission to result */
    int64_t work_ns;                     /* every task's cost: the sequential time */
    uint64_t tasks;                      /* invocations run */
    /* On nodes when they crashed: tasks running or queued, and the records
     * of other nodes run there (each with whatever of it is still to come). */
    uint64_t tasks_lost, records_lost;
    uint64_t msgs_dropped;               /* that reached a crashed node */
    /* Messages the codec refused, or that an engine called bad: none in a
     * valid run (each would be a bug of the simulator or the engine). */
    uint64_t msgs_bad;
    uint64_t events;
    size_t peak_events;                  /* most events waiting at once */
    int64_t idle_ns;                     /* worker time without a task, over all workers */
    sim_net_counters net;
    satin_kvlist counters;               /* the engines' counters, summed over nodes */
} sim_outcome;

/* NULL on a bad configuration (no policy, a topology the engine refuses, a
 * crash of the submit node, of no node, or of a node twice). */
sim *sim_new(const sim_config *cfg, const sim_model *model);
/* Changes one wide-area link before the run. */
void sim_set_wan(sim *s, int from_cluster, int to_cluster, sim_link link);
/* Tells `life` (lifestory.h) what the workers and the steal requests
 * do during the run; the caller finishes it at the makespan.  NULL: none. */
void sim_record_life(sim *s, satin_life *life);

/* Changes one wide-area link's jitter before the run. */
void sim_set_jitter(sim *s, int from_cluster, int to_cluster, int64_t jitter_ns);
void sim_destroy(sim **self);
/* Runs the job from `root` to its end (or the time limit). */
void sim_run(sim *s, const sim_state *root, sim_outcome *out);
void sim_outcome_free(sim_outcome *out);

#endif
