/*
 * trace_capture.h - a kind's job traced into a replayable tree: what
 * satin-trace writes to a file and satin-sim replays in memory.
 *
 * The record runs once on one worker with every spawn in place and timed
 * (daemon/runtime/trace.h); the tree is then coarsened (subtrees under
 * min_leaf_us in all become leaves; with `leaves`, further, to the coarsest
 * tree that still has that many leaves) and given in the trace file's format
 * (kinds/replay_tree.h), which the replay kind and satin-sim read.
 */
#ifndef SATIN_TRACE_CAPTURE_H
#define SATIN_TRACE_CAPTURE_H

#include "kinds.h"
#include "replay_tree.h"
#include "trace_tree.h"

#include <stdint.h>
#include <stdio.h>

#define TRACE_DEFAULT_MIN_LEAF_US 10

typedef struct trace_capture_opts {
    int64_t min_leaf_us;   /* the recording's cut-off */
    int64_t leaves;        /* > 0: coarsen further, keeping at least this many leaves */
    int64_t max_nodes;     /* most nodes held while recording; 0: the recorder's limit */
    int as_passed;         /* data sizes as the bytes passed, not satin_task.data_size */
} trace_capture_opts;

typedef struct trace_capture {
    satin_outcome outcome;     /* the kind's own result and statistics */
    satin_trace_tree tree;     /* as recorded */
    satin_trace_tree coarse;   /* as given out */
    int coarsened;             /* `coarse` is set */
    int64_t leaves_asked;      /* opts.leaves */
    int as_passed;
    char what[512];            /* "KIND key=value ...", for messages and comments */
    char result[256];          /* the kind's result as "key=value ..." */
} trace_capture;

/* Runs and coarsens.  -1 with err when the record is refused, the job fails
 * or the recording does (too many nodes, memory); `c` is to be freed either
 * way. */
int trace_capture_run(trace_capture *c, const satin_registry *reg, const char *kind,
                      const char *const *params, const trace_capture_opts *opts, satin_err *err);
/* The coarse tree as a trace file, its comment lines saying what was traced
 * and what it gave. */
int trace_capture_write(const trace_capture *c, FILE *f, satin_err *err);
/* The coarse tree as the replay kind would read it back from that file. */
int trace_capture_tree(const trace_capture *c, replay_tree **out, satin_err *err);
void trace_capture_free(trace_capture *c);

#endif
