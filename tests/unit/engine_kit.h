/*
 * engine_kit.h - what the node engine's tests share: the grid they run (two
 * clusters {a0,a1} {b0,b1}) and reading one of an engine's counters.
 */
#ifndef ENGINE_KIT_H
#define ENGINE_KIT_H

#include "engine/engine.h"

static const int kit_cluster_of[4] = {0, 0, 1, 1};
static const int kit_cluster_size[2] = {2, 2};
static const int kit_members0[2] = {0, 1}, kit_members1[2] = {2, 3};
static const int *const kit_members[2] = {kit_members0, kit_members1};
static const char *const kit_names[4] = {"a0", "a1", "b0", "b1"};

/* The 2x2 grid as node `self` sees it. */
static inline satin_policy_topology kit_topology(int self)
{
    return (satin_policy_topology){.nnodes = 4, .self = self, .nclusters = 2,
                                   .cluster_of = kit_cluster_of,
                                   .cluster_size = kit_cluster_size, .members = kit_members};
}

/* The same grid without b1 (number 3 names no member: it left, or has not
 * joined yet). */
static const int kit_cluster_of_3[4] = {0, 0, 1, SATIN_POLICY_NOT_MEMBER};
static const int kit_cluster_size_3[2] = {2, 1};
static inline satin_policy_topology kit_topology_without_b1(int self)
{
    return (satin_policy_topology){.nnodes = 4, .self = self, .nclusters = 2,
                                   .cluster_of = kit_cluster_of_3,
                                   .cluster_size = kit_cluster_size_3, .members = kit_members};
}

/* One of the engine's counters; -1 when it reports none of that name. */
static inline int64_t kit_counter(satin_engine *e, const char *name)
{
    satin_kvlist l;
    satin_kvlist_init(&l);
    satin_engine_counters(e, &l);
    int64_t v = -1;
    satin_kvlist_i64(&l, name, &v);
    satin_kvlist_free(&l);
    return v;
}

#endif
