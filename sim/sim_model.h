/*
 * sim_model.h - the workloads satin-sim runs: a job's tree of invocations
 * as a model, without the kinds' code or the runtime.
 *
 * A job is given as satind takes it (KIND key=value ...) and checked by the
 * kind's own parser, so that the same record is accepted or refused with
 * the same message.  Its tree is then unfolded by the model: each
 * invocation (a task) has a small state, a number of children, a value of
 * its own and a cost in virtual time, spent in two parts: before its
 * children spawn, and after their results are in (a continuation, as the
 * kind's code after its satin_sync); its result is its own value plus its
 * children's.  On the wire a task travels in the real kind's argument
 * format, so that messages have their real sizes.
 *
 *   fib   fib(n) spawns fib(n-1) and fib(n-2) down to the threshold, below
 *         which one task computes fib sequentially (its cost counts the
 *         calls); the result is fib(n).
 *   uts   one task per tree node, children from the real generators
 *         (daemon/apps/uts_tree.h), costing task_ns per child it hashes
 *         (a parameter, or measured: sim_measure.h); the result is the
 *         node count.  (The uts kind hands nodes out in chunks; here every
 *         node is a task: sim/README.md says what that changes.)
 *   replay  a real kind's job tree traced by satin-trace (replay_tree.h):
 *         one task per traced node, costing its self time times `scale`
 *         after its children, as the replay kind waits it; the result is
 *         the node count.  A record sent to another node carries its
 *         node's argument data from the trace, and its result that node's
 *         result data, as extra bytes on the wire (sim_model_data): matmul's
 *         blocks and the raytracer's pixels cost bandwidth as if they
 *         travelled.
 *   any other kind  traced here from the module that brings it, then
 *         replayed (sim_model_trace).
 *   synthetic  the synthetic kind's complete tree (synthetic.c): fanout^depth
 *         leaves numbered as the kind numbers them, each costing its draw
 *         (synthetic_draw.h) in microseconds, inner nodes costing nothing;
 *         the result is total_us, the sum of the draws, as the kind's.
 */
#ifndef SATIN_SIM_MODEL_H
#define SATIN_SIM_MODEL_H

#include "apps.h"
#include "kinds.h"
#include "replay_tree.h"
#include "uts_tree.h"

#include <stddef.h>
#include <stdint.h>

#define SIM_STATE_BYTES 24     /* a task's state: fib's n, a uts node, a synthetic subtree */
#define SIM_ARG_MAX 1280       /* a task's argument bytes on the wire (replay's path) */

typedef struct sim_state {
    unsigned char b[SIM_STATE_BYTES];
} sim_state;

typedef enum { SIM_FIB, SIM_UTS, SIM_REPLAY, SIM_SYNTHETIC } sim_kind;

typedef struct sim_model {
    sim_kind kind;
    const char *name;          /* the kind's name */
    /* virtual time of one call (fib), one hashed child (uts), one traced or
     * drawn microsecond (replay, synthetic) */
    int64_t task_ns;
    int64_t fib_threshold;
    uts_tree tree;
    uts_params uts;
    replay_tree *trace;        /* replay: the tree, loaded once */
    char trace_path[1032];
    uint64_t trace_checksum;
    double trace_scale;
    satin_syn_tree syn;        /* synthetic: the tree's parameters */
    /* Any other kind (sim_traced.c): traced here, then replayed.  name is
     * the kind's; traced_result is what the kind itself computed. */
    char traced_name[64];
    char traced_result[256];
    uint64_t traced_invocations;
    double traced_wall_s;
} sim_model;

/* The job from "KIND key=value ..." (params: NULL-terminated): the model
 * and the root's state.  `task_ns` <= 0: the model's default.  0, or -1
 * with the kind's own message in err. */
int sim_model_parse(sim_model *m, const char *kind, const char *const *params, int64_t task_ns,
                    sim_state *root, char *err, size_t errlen);
/* 1 for the kinds sim_model_parse models (fib, uts, replay, synthetic). */
int sim_model_knows(const char *kind);
/* Any kind of `reg` (a module's): its job is run here once, every spawn in
 * place and timed (trace/trace_capture.h, subtrees under min_leaf_us
 * microseconds in all become leaves), and the tree replayed as the replay
 * kind's is, `task_ns` (<= 0: 1000) of virtual time per traced
 * microsecond.  The result is then the tree's node count; the kind's own is
 * m->traced_result.  0, or -1 with the kind's or the tracer's message. */
int sim_model_trace(sim_model *m, const satin_registry *reg, const char *kind,
                    const char *const *params, int64_t task_ns, int64_t min_leaf_us,
                    sim_state *root, char *err, size_t errlen);
void sim_model_free(sim_model *m);
/* A task's children, its own value, its cost before its children spawn
 * and its cost after their results are in.  `child` is called for each
 * child i in order. */
uint32_t sim_model_children(const sim_model *m, const sim_state *s);
void sim_model_child(const sim_model *m, const sim_state *s, uint32_t i, sim_state *child);
int64_t sim_model_value(const sim_model *m, const sim_state *s, uint32_t nchildren);
int64_t sim_model_cost(const sim_model *m, const sim_state *s, uint32_t nchildren);
int64_t sim_model_cost_after(const sim_model *m, const sim_state *s, uint32_t nchildren);
/* A task as the real kind's argument bytes, and back: the length, or 0;
 * 0 or -1. */
size_t sim_model_write(const sim_model *m, const sim_state *s, void *out, size_t cap);
int sim_model_read(const sim_model *m, const void *arg, size_t len, sim_state *s);
/* The data a task's argument and result carry on top of their bytes
 * (replay: the trace's data sizes, version 2; 0 for the other kinds, whose
 * bytes are their data). */
void sim_model_data(const sim_model *m, const sim_state *s, int64_t *arg_bytes,
                    int64_t *result_bytes);
/* 0 when no task of this model carries data beyond its bytes (every kind
 * but replay): the sender need not look at its records. */
int sim_model_has_data(const sim_model *m);
/* The result's name in the output: "value" (fib), "nodes" (uts, replay) or
 * "total_us" (synthetic). */
const char *sim_model_result_name(const sim_model *m);

#endif
