/* apps.h - the built-in kinds: the module satin-kinds (module.c), one
 * file a kind, and what of their arguments other parts read. */
#ifndef SATIN_APPS_H
#define SATIN_APPS_H

#include "satin/satin.h"

/* The module's entry point (SATIN_MODULE in module.c): a program that links
 * the kinds in (libsatinkinds.a, whole: the tests) registers them with
 * satin_registry_linked(satin_module_entry()); satind, satin-sim,
 * satin-trace and the benchmarks load build/kinds/satin-kinds.so instead. */
const satin_module *satin_module_entry(void);

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
