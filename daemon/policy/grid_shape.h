/*
 * grid_shape.h - which node is in which cluster, built once and shared.
 *
 * Every node's engine and policy look at the same grid.  Copying it into
 * each of them is harmless for one satind, but a simulator of a million
 * nodes in one process would hold a million copies of a million-entry
 * table.  So the shape is built (and checked) once, read-only from then
 * on, and each engine or policy keeps a reference to it.  The lists a
 * policy draws victims from are here too, with self left out by position
 * (satin_candidates), not by a per-node copy.
 *
 * References are counted without atomics: a shape is used by one thread
 * (satind's control thread, or the simulator).
 */
#ifndef SATIN_GRID_SHAPE_H
#define SATIN_GRID_SHAPE_H

#include "policy.h"

typedef struct satin_grid_shape {
    int refs;
    int nnodes, nclusters;
    int *cluster_of;           /* [nnodes] a cluster, or SATIN_POLICY_NOT_MEMBER */
    int *cluster_size;         /* [nclusters] */
    int **members;             /* [nclusters][cluster_size[c]] node numbers, topology order */
    int *index_of;             /* [nnodes] a node's index in its cluster's list (-1: none) */
    int *order;                /* every member, in node order */
    int norder;
    int *rank_of;              /* [nnodes] a node's index in order (-1: not a member) */
    int *used;                 /* the clusters that have members, in order */
    int nused;
    int *used_rank;            /* [nclusters] a cluster's index in used (-1: empty) */
    const char **names;        /* [nnodes] node ids for log lines, or NULL; the strings are
                                * the creator's and must outlive every reference */
} satin_grid_shape;

/* Checks `t` (its self and shape fields are not read) and builds the
 * shape with one reference; NULL for a topology no engine may run on. */
satin_grid_shape *satin_grid_shape_new(const satin_policy_topology *t, const char *const *names);
satin_grid_shape *satin_grid_shape_ref(satin_grid_shape *s);
/* Drops one reference (and the shape with the last); sets *s to NULL. */
void satin_grid_shape_unref(satin_grid_shape **s);
/* The topology as policies and engines are given it, seen from `self`. */
satin_policy_topology satin_grid_shape_topology(satin_grid_shape *s, int self);

/* A list without one of its entries (self's): list[0..n) less list[skip]
 * (skip -1: none).  Drawn from as if the entry were not there. */
typedef struct satin_candidates {
    const int *list;
    int n;
    int skip;
} satin_candidates;

static inline int satin_candidates_count(const satin_candidates *c)
{
    return c->n - (c->skip >= 0);
}

/* Entry i of the list as if self were not in it (0 <= i < count). */
static inline int satin_candidates_at(const satin_candidates *c, int i)
{
    return c->list[c->skip >= 0 && i >= c->skip ? i + 1 : i];
}

#endif
