/* sim_model.c - fib, uts, replay and synthetic as trees of tasks (see
 * sim_model.h). */
#include "sim_model.h"
#include "apps.h"
#include "fib.h"
#include "kinds.h"
#include "synthetic_draw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Defaults, in ns of virtual time: a fib call, and a uts node (one SHA-1
 * of a 24-byte message, about what this machine's hash rate gives). */
#define FIB_CALL_NS 10
#define UTS_NODE_NS 300


static int64_t fib_n(const sim_state *s)
{
    int64_t n;
    memcpy(&n, s->b, sizeof n);
    return n;
}

/* A synthetic invocation: the levels below it and its leftmost leaf; a
 * leaf keeps its draw, made once when the leaf is made. */
typedef struct syn_state {
    int32_t depth;
    int32_t pad;
    uint64_t first_leaf;
    int64_t draw_us;
} syn_state;

_Static_assert(sizeof(syn_state) <= SIM_STATE_BYTES, "a synthetic state fits a sim_state");

static syn_state syn_of(const sim_state *s)
{
    syn_state y;
    memcpy(&y, s->b, sizeof y);
    return y;
}

static void syn_set(const sim_model *m, sim_state *s, int32_t depth, uint64_t first_leaf)
{
    syn_state y = {.depth = depth, .first_leaf = first_leaf};
    if (depth == 0)
        y.draw_us = syn_draw_us(m->syn.dist, m->syn.mean_us, m->syn.shape, m->syn.seed,
                                first_leaf);
    memset(s, 0, sizeof *s);
    memcpy(s->b, &y, sizeof y);
}

int sim_model_knows(const char *kind)
{
    return strcmp(kind, "fib") == 0 || strcmp(kind, "uts") == 0 || strcmp(kind, "replay") == 0 ||
           strcmp(kind, "synthetic") == 0;
}

int sim_model_parse(sim_model *m, const char *kind, const char *const *params, int64_t task_ns,
                    sim_state *root, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    memset(root, 0, sizeof *root);
    if (!sim_model_knows(kind)) {
        snprintf(err, errlen,
                 "satin-sim models the kinds fib, uts, replay and synthetic, not '%s' "
                 "(a module's kind is traced: sim_model_trace)",
                 kind);
        return -1;
    }
    /* The replay kind opens only files under SATIN_REPLAY_DIR, so that a
     * daemon cannot be made to read its own files from the network.  Here
     * the user names a file for this process of their own to read. */
    if (strcmp(kind, "replay") == 0)
        setenv("SATIN_REPLAY_DIR", "/", 0);
    const satin_kind *k;
    satin_bytes arg;
    satin_outcome out;
    /* The argument bytes as the kind itself makes them (linked in whole:
     * the Makefile's LINK_KINDS). */
    static satin_registry *kinds;
    if (!kinds)
        kinds = satin_registry_linked(satin_module_entry());
    if (satin_record_prepare(kinds, kind, params, (size_t)1 << 20, &k, &arg, &out) < 0) {
        snprintf(err, errlen, "%s", out.error);
        satin_outcome_free(&out);
        return -1;
    }
    int rc = 0;
    if (strcmp(kind, "fib") == 0) {
        int64_t n;
        m->kind = SIM_FIB;
        m->name = "fib";
        m->task_ns = task_ns > 0 ? task_ns : FIB_CALL_NS;
        rc = satin_fib_arg_read(arg.data, arg.len, &n, &m->fib_threshold);
        memcpy(root->b, &n, sizeof n);
    } else if (strcmp(kind, "replay") == 0) {
        uint32_t node;
        satin_err e;
        m->kind = SIM_REPLAY;
        m->name = "replay";
        m->task_ns = 1000;   /* a traced microsecond */
        rc = satin_replay_arg_read(arg.data, arg.len, m->trace_path, sizeof m->trace_path,
                                   &m->trace_checksum, &m->trace_scale, &node);
        if (rc == 0 && replay_tree_load(m->trace_path, &m->trace, &e) < 0) {
            snprintf(err, errlen, "%s", e.msg);
            satin_bytes_free(&arg);
            satin_outcome_free(&out);
            return -1;
        }
        memcpy(root->b, &node, sizeof node);
    } else if (strcmp(kind, "synthetic") == 0) {
        int32_t depth;
        uint64_t first_leaf;
        m->kind = SIM_SYNTHETIC;
        m->name = "synthetic";
        m->task_ns = 1000;   /* a drawn microsecond */
        rc = satin_synthetic_arg_read(arg.data, arg.len, &m->syn, &depth, &first_leaf);
        if (rc == 0)
            syn_set(m, root, depth, first_leaf);
    } else {
        uts_node node;
        m->kind = SIM_UTS;
        m->name = "uts";
        m->task_ns = task_ns > 0 ? task_ns : UTS_NODE_NS;
        rc = satin_uts_arg_read(arg.data, arg.len, &m->uts, &node);
        if (rc == 0)
            uts_tree_init(&m->tree, &m->uts);
        memcpy(root->b, &node, sizeof node);
    }
    if (rc < 0)
        snprintf(err, errlen, "%s: its argument is not what satin-sim reads", kind);
    satin_bytes_free(&arg);
    satin_outcome_free(&out);
    return rc;
}

void sim_model_free(sim_model *m)
{
    replay_tree_free(&m->trace);
}

static uint32_t trace_node(const sim_state *s)
{
    uint32_t i;
    memcpy(&i, s->b, sizeof i);
    return i;
}

uint32_t sim_model_children(const sim_model *m, const sim_state *s)
{
    if (m->kind == SIM_SYNTHETIC)
        return syn_of(s).depth > 0 ? (uint32_t)m->syn.fanout : 0;
    if (m->kind == SIM_REPLAY)
        return m->trace->nkids[trace_node(s)];
    if (m->kind == SIM_FIB) {
        int64_t n = fib_n(s);
        return n < 2 || n < m->fib_threshold ? 0 : 2;
    }
    uts_node node;
    memcpy(&node, s->b, sizeof node);
    return uts_num_children(&m->tree, &node);
}

void sim_model_child(const sim_model *m, const sim_state *s, uint32_t i, sim_state *child)
{
    memset(child, 0, sizeof *child);
    if (m->kind == SIM_SYNTHETIC) {
        /* Numbered as the kind numbers them: fanout^(depth-1) leaves under
         * each child, left to right. */
        syn_state y = syn_of(s);
        uint64_t per_child = 1;
        for (int32_t d = 1; d < y.depth; d++)
            per_child *= (uint64_t)m->syn.fanout;
        syn_set(m, child, y.depth - 1, y.first_leaf + i * per_child);
        return;
    }
    if (m->kind == SIM_REPLAY) {
        uint32_t c = m->trace->kids[m->trace->first_kid[trace_node(s)] + i];
        memcpy(child->b, &c, sizeof c);
        return;
    }
    if (m->kind == SIM_FIB) {
        int64_t n = fib_n(s) - 1 - (int64_t)i;
        memcpy(child->b, &n, sizeof n);
        return;
    }
    uts_node parent, c;
    memcpy(&parent, s->b, sizeof parent);
    uts_child(&m->tree, &parent, i, &c);
    memcpy(child->b, &c, sizeof c);
}

int64_t sim_model_value(const sim_model *m, const sim_state *s, uint32_t nchildren)
{
    if (m->kind == SIM_FIB)
        return nchildren ? 0 : satin_fib_value(fib_n(s));
    if (m->kind == SIM_SYNTHETIC)
        return syn_of(s).draw_us;   /* total_us: a leaf's wait, 0 for an inner node */
    return 1;   /* uts, replay: the node itself */
}

/* Replay's self time: a leaf's before (there is nothing to wait for), an
 * inner node's after its children. */
static int64_t replay_cost(const sim_model *m, const sim_state *s)
{
    return m->task_ns * replay_scaled_us(m->trace->self_us[trace_node(s)], m->trace_scale);
}

int64_t sim_model_cost(const sim_model *m, const sim_state *s, uint32_t nchildren)
{
    if (m->kind == SIM_REPLAY)
        return nchildren ? 0 : replay_cost(m, s);
    if (m->kind == SIM_SYNTHETIC)
        return m->task_ns * syn_of(s).draw_us;   /* inner nodes only spawn */
    if (m->kind == SIM_FIB)
        return m->task_ns * (nchildren ? 1 : satin_fib_calls(fib_n(s)));
    /* uts: hashing the children is the work */
    return m->task_ns * (int64_t)(nchildren ? nchildren : 1);
}

int64_t sim_model_cost_after(const sim_model *m, const sim_state *s, uint32_t nchildren)
{
    return m->kind == SIM_REPLAY && nchildren ? replay_cost(m, s) : 0;
}

size_t sim_model_write(const sim_model *m, const sim_state *s, void *out, size_t cap)
{
    if (m->kind == SIM_SYNTHETIC) {
        syn_state y = syn_of(s);
        return satin_synthetic_arg_write(&m->syn, y.depth, y.first_leaf, out, cap);
    }
    if (m->kind == SIM_REPLAY)
        return satin_replay_arg_write(m->trace_path, m->trace_checksum, m->trace_scale,
                                      trace_node(s), out, cap);
    if (m->kind == SIM_FIB)
        return satin_fib_arg_write(fib_n(s), m->fib_threshold, out, cap);
    uts_node node;
    memcpy(&node, s->b, sizeof node);
    return satin_uts_arg_write(&m->uts, &node, 0, out, cap);
}

int sim_model_read(const sim_model *m, const void *arg, size_t len, sim_state *s)
{
    memset(s, 0, sizeof *s);
    if (m->kind == SIM_SYNTHETIC) {
        satin_syn_tree t;
        int32_t depth;
        uint64_t first_leaf;
        if (satin_synthetic_arg_read(arg, len, &t, &depth, &first_leaf) < 0 ||
            t.seed != m->syn.seed || t.mean_us != m->syn.mean_us || t.shape != m->syn.shape ||
            t.fanout != m->syn.fanout || t.dist != m->syn.dist)
            return -1;
        syn_set(m, s, depth, first_leaf);
        return 0;
    }
    if (m->kind == SIM_REPLAY) {
        char path[sizeof m->trace_path];
        uint64_t checksum;
        double scale;
        uint32_t node;
        if (satin_replay_arg_read(arg, len, path, sizeof path, &checksum, &scale, &node) < 0 ||
            checksum != m->trace_checksum || node >= (uint64_t)m->trace->nnodes)
            return -1;
        memcpy(s->b, &node, sizeof node);
        return 0;
    }
    if (m->kind == SIM_FIB) {
        int64_t n, threshold;
        if (satin_fib_arg_read(arg, len, &n, &threshold) < 0 || n < 0 || n > 92)
            return -1;
        memcpy(s->b, &n, sizeof n);
        return 0;
    }
    uts_params p;
    uts_node node;
    if (satin_uts_arg_read(arg, len, &p, &node) < 0)
        return -1;
    memcpy(s->b, &node, sizeof node);
    return 0;
}

void sim_model_data(const sim_model *m, const sim_state *s, int64_t *arg_bytes,
                    int64_t *result_bytes)
{
    *arg_bytes = *result_bytes = 0;
    if (m->kind == SIM_REPLAY) {
        *arg_bytes = m->trace->arg_bytes[trace_node(s)];
        *result_bytes = m->trace->result_bytes[trace_node(s)];
    }
}

int sim_model_has_data(const sim_model *m)
{
    return m->kind == SIM_REPLAY;
}

const char *sim_model_result_name(const sim_model *m)
{
    return m->kind == SIM_FIB ? "value" : m->kind == SIM_SYNTHETIC ? "total_us" : "nodes";
}
