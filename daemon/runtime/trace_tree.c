/* trace_tree.c - recording a job tree with coarsening (trace_tree.h). */
#include "trace_tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void satin_trace_tree_init(satin_trace_tree *t, int64_t min_leaf_ns, size_t max_nodes)
{
    memset(t, 0, sizeof *t);
    t->min_leaf_ns = min_leaf_ns > 0 ? min_leaf_ns : 0;
    t->max_nodes = max_nodes ? max_nodes : SATIN_TRACE_MAX_NODES;
    /* Node indices are int32 parents in the file and in memory. */
    if (t->max_nodes > (size_t)INT32_MAX)
        t->max_nodes = (size_t)INT32_MAX;
}

void satin_trace_tree_free(satin_trace_tree *t)
{
    free(t->node);
    free(t->open);
    t->node = NULL;
    t->open = NULL;
    t->n = t->cap = t->depth = t->open_cap = 0;
}

static int trace_fail(satin_trace_tree *t, const char *msg)
{
    if (!t->error[0])
        snprintf(t->error, sizeof t->error, "%s", msg);
    return -1;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

int satin_trace_tree_begin(satin_trace_tree *t, int64_t now_ns)
{
    if (t->error[0])
        return -1;
    if (t->depth == 0 && t->n > 0)
        return trace_fail(t, "a second root began after the tree was complete");
    if (t->n >= t->max_nodes) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "more than %zu nodes held at once: raise the cut-off (--min-leaf-us)",
                 t->max_nodes);
        return trace_fail(t, msg);
    }
    if (grow((void **)&t->node, &t->cap, t->n + 1, sizeof *t->node) < 0 ||
        grow((void **)&t->open, &t->open_cap, t->depth + 1, sizeof *t->open) < 0)
        return trace_fail(t, "out of memory");
    int32_t parent = -1;
    if (t->depth > 0) {
        size_t p = t->open[t->depth - 1].idx;
        parent = (int32_t)p;
        t->node[p].nchildren++;
    }
    t->node[t->n] = (satin_trace_node){.parent = parent};
    t->open[t->depth++] = (satin_trace_open){.idx = t->n, .begin_ns = now_ns, .children_ns = 0};
    t->n++;
    t->jobs++;
    if (t->n > t->peak)
        t->peak = t->n;
    if (t->depth > t->max_open)
        t->max_open = t->depth;
    return 0;
}

void satin_trace_tree_data(satin_trace_tree *t, uint64_t arg_bytes, uint64_t result_bytes)
{
    if (t->error[0] || t->depth == 0)
        return;
    satin_trace_node *nd = &t->node[t->open[t->depth - 1].idx];
    nd->arg_bytes = arg_bytes;
    nd->result_bytes = result_bytes;
}

void satin_trace_tree_end(satin_trace_tree *t, int64_t now_ns)
{
    if (t->error[0] || t->depth == 0)
        return;
    satin_trace_open o = t->open[--t->depth];
    int64_t total = now_ns - o.begin_ns;
    /* The children ran inside this interval; a clock that says otherwise
     * must not make a self time negative or lose time from the total. */
    if (total < o.children_ns)
        total = o.children_ns;
    satin_trace_node *nd = &t->node[o.idx];
    if (total < t->min_leaf_ns) {
        t->n = o.idx + 1;   /* its descendants are the nodes after it */
        nd->nchildren = 0;
        nd->self_ns = total;
    } else {
        nd->self_ns = total - o.children_ns;
    }
    if (t->depth > 0)
        t->open[t->depth - 1].children_ns += total;
}

void satin_trace_tree_stats(const satin_trace_tree *t, satin_trace_stats *s)
{
    memset(s, 0, sizeof *s);
    s->nodes = t->n;
    /* Depth per node from its parent's, which comes earlier in pre-order. */
    size_t *depth = t->n ? calloc(t->n, sizeof *depth) : NULL;
    for (size_t i = 0; i < t->n; i++) {
        const satin_trace_node *nd = &t->node[i];
        s->total_ns += nd->self_ns;
        if (nd->nchildren == 0) {
            s->leaves++;
            if (nd->self_ns > s->max_leaf_ns)
                s->max_leaf_ns = nd->self_ns;
        }
        if (depth && nd->parent >= 0) {
            depth[i] = depth[nd->parent] + 1;
            if (depth[i] > s->depth)
                s->depth = depth[i];
        }
    }
    free(depth);
}

/* Subtree totals and sizes, children before parents (reverse pre-order). */
static int subtree_sums(const satin_trace_tree *in, int64_t **total, size_t **size)
{
    *total = calloc(in->n ? in->n : 1, sizeof **total);
    *size = calloc(in->n ? in->n : 1, sizeof **size);
    if (!*total || !*size) {
        free(*total);
        free(*size);
        return -1;
    }
    for (size_t i = in->n; i-- > 0;) {
        (*total)[i] += in->node[i].self_ns;
        (*size)[i] += 1;
        int32_t p = in->node[i].parent;
        if (p >= 0) {
            (*total)[p] += (*total)[i];
            (*size)[p] += (*size)[i];
        }
    }
    return 0;
}

/* Builds (out != NULL) or only counts the leaves of `in` coarsened at `cut`. */
static size_t coarsen_with(const satin_trace_tree *in, const int64_t *total, const size_t *size,
                           int64_t cut, satin_trace_tree *out, int32_t *new_idx)
{
    size_t leaves = 0;
    for (size_t i = 0; i < in->n;) {
        const satin_trace_node *nd = &in->node[i];
        int leaf = nd->nchildren == 0 || total[i] < cut;
        if (out) {
            satin_trace_node *o = &out->node[out->n];
            o->parent = nd->parent >= 0 ? new_idx[nd->parent] : -1;
            o->nchildren = leaf ? 0 : nd->nchildren;
            o->self_ns = leaf ? total[i] : nd->self_ns;
            o->arg_bytes = nd->arg_bytes;
            o->result_bytes = nd->result_bytes;
            new_idx[i] = (int32_t)out->n++;
        }
        leaves += leaf;
        i += leaf ? size[i] : 1;
    }
    return leaves;
}

int satin_trace_tree_coarsen(const satin_trace_tree *in, int64_t min_leaf_ns,
                             satin_trace_tree *out)
{
    satin_trace_tree_init(out, min_leaf_ns > in->min_leaf_ns ? min_leaf_ns : in->min_leaf_ns,
                          in->max_nodes);
    out->jobs = in->jobs;
    out->peak = in->peak;
    out->max_open = in->max_open;
    int64_t *total;
    size_t *size;
    if (subtree_sums(in, &total, &size) < 0)
        return -1;
    int32_t *new_idx = malloc(sizeof *new_idx * (in->n ? in->n : 1));
    out->node = malloc(sizeof *out->node * (in->n ? in->n : 1));
    int rc = -1;
    if (new_idx && out->node) {
        out->cap = in->n ? in->n : 1;
        coarsen_with(in, total, size, min_leaf_ns, out, new_idx);
        rc = 0;
    }
    free(new_idx);
    free(total);
    free(size);
    return rc;
}

int64_t satin_trace_tree_cutoff_for(const satin_trace_tree *in, size_t leaves)
{
    int64_t *total;
    size_t *size;
    if (in->n == 0 || subtree_sums(in, &total, &size) < 0)
        return 0;
    int64_t cut = 0;
    if (coarsen_with(in, total, size, 0, NULL, NULL) > leaves) {
        /* Leaves only decrease as the cut-off grows.  Invariant: lo keeps at
         * least `leaves` leaves, hi (the whole tree as one leaf) does not,
         * unless a single leaf is all that was asked for. */
        int64_t lo = 0, hi = total[0] + 1;
        if (leaves <= 1)
            lo = hi;
        while (hi - lo > 1) {
            int64_t mid = lo + (hi - lo) / 2;
            if (coarsen_with(in, total, size, mid, NULL, NULL) >= leaves)
                lo = mid;
            else
                hi = mid;
        }
        cut = lo;
    }
    free(total);
    free(size);
    return cut;
}

void satin_trace_tree_self_us(const satin_trace_tree *t, int64_t *us)
{
    int64_t sum = 0, prev = 0;
    for (size_t i = 0; i < t->n; i++) {
        sum += t->node[i].self_ns;
        int64_t r = (sum + 500) / 1000;
        us[i] = r - prev;
        prev = r;
    }
}
