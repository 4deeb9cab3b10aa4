/*
 * trace.h - running a job record once to record its job tree (trace_tree.h):
 * the logical spawn tree with each invocation's self time, for replaying a
 * real application's tree on emulated processors (the `replay` kind).
 *
 * The record runs on a private pool of one worker whose every spawn runs in
 * place at once, between two readings of the monotonic clock (the runtime's
 * trace hook, spawn.c).  So the tree is the logical one, children in spawn
 * order, whatever the lazy-spawn rule would have queued or run in place, and
 * a self time is the invocation's own computing without queueing, stealing
 * or waiting.  A kind may only read a child's result after satin_sync, so
 * running children at once is one of the schedules it must already accept.
 */
#ifndef SATIN_TRACE_H
#define SATIN_TRACE_H

#include "kinds.h"
#include "trace_tree.h"

/* Runs the record (a kind of `reg` + "key=value" parameters, as
 * satin_run_record) with the tree recorded into `tree`, initialised here
 * with the cut-off and the node limit (trace_tree.h; free it with
 * satin_trace_tree_free).  The data sizes recorded are what each
 * invocation's data would carry (satin_task.data_size), or with `as_passed`
 * the bytes it was passed and returned, as a grid sends them when the kind
 * regenerates its data.  `out` gets the kind's own result and statistics;
 * out->failed when the record is rejected, the job fails or the recording
 * fails (then `tree` is partial). */
void satin_trace_record(const satin_registry *reg, const char *kind,
                        const char *const *params, int64_t min_leaf_ns, size_t max_nodes,
                        int as_passed, satin_trace_tree *tree, satin_outcome *out);

#endif
