/* apps.h - the job kinds compiled into satind, one file each. */
#ifndef SATIN_APPS_H
#define SATIN_APPS_H

#include "satin.h"

extern const satin_kind satin_kind_fib;
extern const satin_kind satin_kind_uts;
extern const satin_kind satin_kind_nqueens;
extern const satin_kind satin_kind_integrate;
extern const satin_kind satin_kind_ida;
extern const satin_kind satin_kind_matmul;
extern const satin_kind satin_kind_raytracer;
extern const satin_kind satin_kind_synthetic;
extern const satin_kind satin_kind_replay;
extern const satin_kind satin_kind_setcover;
extern const satin_kind satin_kind_knapsack;
extern const satin_kind satin_kind_nchoosek;
extern const satin_kind satin_kind_primefactors;
extern const satin_kind satin_kind_tsp;
extern const satin_kind satin_kind_array;

/* All of the above, NULL-terminated, in --list-kinds order: the table satind
 * hands the runtime (runtime/kinds.h). */
extern const satin_kind *const satin_builtin_kinds[];

/* The argument bytes of fib, uts, replay and synthetic, read and written
 * as the kinds do: what satin-sim needs to run their trees in a model of
 * its own and to send records of the real size.  A read returns 0, or -1 for bytes that are not
 * such an argument; a write returns the length (0 when cap is too small).
 * uts: the argument of one node (the tree's parameters travel with it). */
int satin_fib_arg_read(const void *arg, size_t len, int64_t *n, int64_t *threshold);
size_t satin_fib_arg_write(int64_t n, int64_t threshold, void *out, size_t cap);
struct uts_params;
struct uts_node;
int satin_uts_arg_read(const void *arg, size_t len, struct uts_params *p, struct uts_node *node);
size_t satin_uts_arg_write(const struct uts_params *p, const struct uts_node *node, int root,
                           void *out, size_t cap);
/* replay: the trace's path (into path, NUL-terminated), its checksum, the
 * scale and the node this invocation replays. */
int satin_replay_arg_read(const void *arg, size_t len, char *path, size_t pathcap,
                          uint64_t *checksum, double *scale, uint32_t *node);
size_t satin_replay_arg_write(const char *path, uint64_t checksum, double scale, uint32_t node,
                              void *out, size_t cap);
/* synthetic: the tree's parameters, and the subtree this invocation unfolds
 * (`depth` levels below it, leaves numbered from `first_leaf`). */
typedef struct satin_syn_tree {
    uint64_t seed;
    int64_t mean_us;
    double shape;
    int32_t fanout, dist;      /* dist: SYN_DIST_* of synthetic_draw.h */
} satin_syn_tree;
int satin_synthetic_arg_read(const void *arg, size_t len, satin_syn_tree *t, int32_t *depth,
                             uint64_t *first_leaf);
size_t satin_synthetic_arg_write(const satin_syn_tree *t, int32_t depth, uint64_t first_leaf,
                                 void *out, size_t cap);

#endif
