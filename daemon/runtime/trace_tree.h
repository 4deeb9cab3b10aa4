/*
 * trace_tree.h - a job tree recorded while it runs: for each invocation, its
 * children in spawn order and its self time (its own wall time minus its
 * children's), coarsened as it goes.
 *
 * The recorder has no clock: it is told when an invocation begins and ends
 * (satin_trace_tree_begin/end with a time in ns), so tests can build a tree
 * with exact, scripted times.  trace.c drives it from the runtime's spawn
 * hook with the monotonic clock.
 *
 * Coarsening: when an invocation ends and its total time (self plus all its
 * descendants) is below min_leaf_ns, its descendants are dropped and it
 * becomes a leaf whose self time is that total.  Nodes are kept in pre-order,
 * so a finished subtree is the contiguous run of nodes after its root and
 * dropping it is a truncation: the tree held at any moment is the coarsened
 * tree so far plus the subtrees still open.  The total time is kept exactly.
 */
#ifndef SATIN_TRACE_TREE_H
#define SATIN_TRACE_TREE_H

#include <stddef.h>
#include <stdint.h>

typedef struct satin_trace_node {
    int64_t self_ns;      /* set when the node ends */
    int32_t parent;       /* index of the parent; -1 for the root */
    uint32_t nchildren;
    uint64_t arg_bytes;   /* its data in and out (satin_task.data_size); */
    uint64_t result_bytes; /*   0 until told */
} satin_trace_node;

typedef struct satin_trace_open {
    size_t idx;           /* the node */
    int64_t begin_ns;
    int64_t children_ns;  /* total time of its finished children */
} satin_trace_open;

typedef struct satin_trace_tree {
    satin_trace_node *node; /* pre-order */
    size_t n, cap;
    size_t max_nodes;     /* more nodes held at once fails the recording */
    int64_t min_leaf_ns;  /* the coarsening cut-off; 0: keep every node */
    satin_trace_open *open; /* the invocations running, outermost first */
    size_t depth, open_cap;
    uint64_t jobs;        /* invocations seen, before coarsening */
    size_t peak;          /* most nodes held at once */
    size_t max_open;      /* deepest nesting seen, before coarsening */
    char error[160];      /* why the recording failed; "" while it has not */
} satin_trace_tree;

/* An empty recorder (max_nodes 0: SATIN_TRACE_MAX_NODES). */
#define SATIN_TRACE_MAX_NODES ((size_t)1 << 22)
void satin_trace_tree_init(satin_trace_tree *t, int64_t min_leaf_ns, size_t max_nodes);
void satin_trace_tree_free(satin_trace_tree *t);

/* An invocation begins (a child of the innermost open one, or the root);
 * -1 with t->error set when the tree would exceed max_nodes, a second root
 * begins, or memory runs out.  Once failed, every later call fails. */
int satin_trace_tree_begin(satin_trace_tree *t, int64_t now_ns);
/* The innermost open invocation's argument and result data, in bytes (kept
 * when coarsening makes it a leaf: a subtree's data in and out is its
 * root's).  No-op without an open invocation. */
void satin_trace_tree_data(satin_trace_tree *t, uint64_t arg_bytes, uint64_t result_bytes);
/* The innermost open invocation ends (no-op without one, or after a failure). */
void satin_trace_tree_end(satin_trace_tree *t, int64_t now_ns);

/* Figures of a finished tree. */
typedef struct satin_trace_stats {
    size_t nodes, leaves;
    size_t depth;         /* edges from the root to the deepest node */
    int64_t total_ns;     /* sum of the self times */
    int64_t max_leaf_ns;  /* the largest self time of a leaf */
} satin_trace_stats;
void satin_trace_tree_stats(const satin_trace_tree *t, satin_trace_stats *s);

/* `out` (initialised here) = `in` coarsened at min_leaf_ns, as if recorded
 * with that cut-off (for a cut-off at least the one `in` was recorded with,
 * the result is the same).  -1 when memory runs out. */
int satin_trace_tree_coarsen(const satin_trace_tree *in, int64_t min_leaf_ns,
                             satin_trace_tree *out);
/* The largest cut-off that leaves `in` at least `leaves` leaves (0 when `in`
 * has no more than that already): coarsening more keeps the tree's shape at
 * the top and makes its leaves as coarse as that target allows. */
int64_t satin_trace_tree_cutoff_for(const satin_trace_tree *in, size_t leaves);

/* The self times in whole microseconds, rounded so that every pre-order
 * prefix sums to its exact total rounded: us[i] = round(S_i) - round(S_(i-1))
 * with S_i the sum of self_ns of nodes 0..i.  So the file's times sum to the
 * total rounded once, and a coarsened leaf carries exactly the sum of the
 * microseconds its subtree had. */
void satin_trace_tree_self_us(const satin_trace_tree *t, int64_t *us);

#endif
