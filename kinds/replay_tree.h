/*
 * replay_tree.h - the trace file: a job tree with the self time of every
 * node, written by satin-trace and replayed by the `replay` kind.
 *
 * Text, one line per node in pre-order (a node, then its children's
 * subtrees in spawn order), after a header:
 *
 *     # any number of comment lines, starting with '#', anywhere
 *     satin-trace 2 nodes=N total_us=T
 *     ID PARENT SELF_US NCHILDREN ARG_BYTES RESULT_BYTES
 *     ...
 *
 * ID counts 0, 1, ..., N-1 in line order; PARENT is -1 for node 0 (the
 * root) and otherwise the node whose child this is, which pre-order fixes
 * (the reader checks it); SELF_US is the node's own time in microseconds
 * (its wall time minus its children's), 0..2^36; NCHILDREN 0..65536; T is
 * the sum of the SELF_US; ARG_BYTES and RESULT_BYTES (0..2^40) are the data
 * the node's argument and result would carry if its data travelled with it
 * (satin_task.data_size: matmul's blocks, the raytracer's pixels; for other
 * kinds the bytes passed).  Version 1, which satin-trace wrote before, has
 * the first four fields only and is still read (its data sizes are 0:
 * unknown).  Fields are separated by single spaces or tabs;
 * blank lines are ignored.  At most 2^22 nodes; lines other than comments
 * at most 255 characters.  A file that breaks any rule is rejected with its
 * line number.
 */
#ifndef SATIN_REPLAY_TREE_H
#define SATIN_REPLAY_TREE_H

#include "satin/satin.h"

#include <stdint.h>
#include <stdio.h>

#define REPLAY_FORMAT_VERSION 2     /* written; 1 and 2 are read */
#define REPLAY_MAX_DATA_BYTES ((int64_t)1 << 40)
#define REPLAY_MAX_NODES ((int64_t)1 << 22)
#define REPLAY_MAX_CHILDREN 65536
#define REPLAY_MAX_SELF_US ((int64_t)1 << 36) /* about 19 hours */
#define REPLAY_MAX_LINE 255

typedef struct replay_tree {
    int64_t nnodes;
    int64_t *self_us;     /* [nnodes] */
    uint32_t *nkids;      /* [nnodes] */
    uint32_t *first_kid;  /* [nnodes] index into kids */
    uint32_t *kids;       /* [nnodes - 1] the children of each node, in order */
    int64_t *arg_bytes;   /* [nnodes] its argument's data (version 1: all 0) */
    int64_t *result_bytes; /* [nnodes] its result's data (version 1: all 0) */
    int version;          /* of the file read */
    int64_t leaves, depth, total_us, max_leaf_us;
    uint64_t checksum;    /* of the node data (not of comments or spacing; a
                             version 1 file's is what version 1 gave) */
} replay_tree;

/* Reads and checks a trace file.  -1 with err = "NAME:LINE: what" when it is
 * malformed (NAME is how the file is named in messages). */
int replay_tree_read(FILE *f, const char *name, replay_tree **out, satin_err *err);
/* The same from a path; an unreadable file is an error too. */
int replay_tree_load(const char *path, replay_tree **out, satin_err *err);
void replay_tree_free(replay_tree **t);

/* Writes a tree given in pre-order (self times, child counts and data
 * sizes; NULL data sizes: all 0) in the current version, with the comment lines `comments` (NULL-terminated, may be NULL;
 * each written after "# ").  -1 with err when the arrays are not a tree
 * within the limits. */
int replay_tree_write(FILE *f, const int64_t *self_us, const uint32_t *nchildren,
                      const int64_t *arg_bytes, const int64_t *result_bytes, int64_t n,
                      const char *const *comments, satin_err *err);

/* A self time scaled: round(self_us * scale), half away from zero. */
int64_t replay_scaled_us(int64_t self_us, double scale);
/* The sum of the scaled self times of the whole tree, and the longest path
 * from the root to a leaf in scaled time (the critical path: no schedule
 * finishes sooner).  -1 with err when the sum would not fit the limit. */
#define REPLAY_MAX_TOTAL_US ((int64_t)1 << 50) /* about 35 years */
int replay_tree_scaled(const replay_tree *t, double scale, int64_t *total_us, int64_t *span_us,
                       satin_err *err);

#endif
