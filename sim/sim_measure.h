/*
 * sim_measure.h - a uts node's cost measured on this machine, for
 * `--task-ns measure`.  The only part of satin-sim that reads a clock: it
 * runs once, before the simulation, and the run is then as deterministic
 * as with that number given (satin-sim prints it).
 */
#ifndef SATIN_SIM_MEASURE_H
#define SATIN_SIM_MEASURE_H

#include "uts_tree.h"

#include <stdint.h>

typedef struct sim_measured {
    double ns_per_node;        /* wall time per generated node, the fastest round's */
    uint64_t nodes;            /* nodes generated in all rounds */
    double seconds;            /* how long all rounds took */
} sim_measured;

/* Times the uts kind's own walk (uts_walk_run: each child's SHA-1, its
 * child count, the push) over tree `t` from its root for about `seconds`
 * in a few rounds, and keeps the fastest: the machine's other load only
 * slows a round down.  A round starts over when the tree ends and drops
 * the oldest half of the stack when it fills (where the kind would spawn
 * a chunk).  0, or -1 when the tree's root has no children to generate. */
int sim_measure_uts(const uts_tree *t, double seconds, sim_measured *out);

#endif
