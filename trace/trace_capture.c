/* trace_capture.c - a kind's job traced and coarsened (trace_capture.h). */
#include "trace_capture.h"
#include "trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void describe(trace_capture *c, const char *kind, const char *const *params)
{
    size_t w = (size_t)snprintf(c->what, sizeof c->what, "%s", kind);
    for (size_t k = 0; params && params[k] && w < sizeof c->what; k++)
        w += (size_t)snprintf(c->what + w, sizeof c->what - w, " %s", params[k]);
}

static void result_text(trace_capture *c)
{
    size_t rl = 0;
    for (size_t k = 0; k < c->outcome.result.n && rl < sizeof c->result; k++) {
        const satin_kv *kv = &c->outcome.result.items[k];
        char v[64];
        if (kv->type == SATIN_KV_I64)
            snprintf(v, sizeof v, "%" PRId64, kv->i64);
        else if (kv->type == SATIN_KV_F64)
            snprintf(v, sizeof v, "%.17g", kv->f64);
        else
            snprintf(v, sizeof v, "%s", kv->str ? kv->str : "");
        rl += (size_t)snprintf(c->result + rl, sizeof c->result - rl, "%s%s=%s", k ? " " : "",
                               kv->name, v);
    }
}

int trace_capture_run(trace_capture *c, const satin_registry *reg, const char *kind,
                      const char *const *params, const trace_capture_opts *opts, satin_err *err)
{
    memset(c, 0, sizeof *c);
    c->leaves_asked = opts->leaves;
    c->as_passed = opts->as_passed;
    describe(c, kind, params);
    satin_trace_record(reg, kind, params, opts->min_leaf_us * 1000, (size_t)opts->max_nodes,
                       opts->as_passed, &c->tree, &c->outcome);
    if (c->outcome.failed)
        return satin_err_set(err, "%s: %s", c->what, c->outcome.error);
    result_text(c);
    int64_t cut = opts->leaves > 0 ? satin_trace_tree_cutoff_for(&c->tree, (size_t)opts->leaves)
                                   : 0;
    if (satin_trace_tree_coarsen(&c->tree, cut, &c->coarse) < 0)
        return satin_err_set(err, "%s: out of memory coarsening the tree", c->what);
    c->coarsened = 1;
    return 0;
}

/* A size beyond the format's limit is given as the limit: the file says "at
 * least this much", which is all a replay can send anyway. */
static int64_t capped(uint64_t bytes)
{
    return bytes > (uint64_t)REPLAY_MAX_DATA_BYTES ? REPLAY_MAX_DATA_BYTES : (int64_t)bytes;
}

int trace_capture_write(const trace_capture *c, FILE *f, satin_err *err)
{
    const satin_trace_tree *t = &c->coarse;
    if (!c->coarsened)
        return satin_err_set(err, "%s: nothing was traced", c->what);
    size_t n = t->n ? t->n : 1;
    int64_t *us = malloc(sizeof *us * n), *argb = malloc(sizeof *argb * n),
            *resb = malloc(sizeof *resb * n);
    uint32_t *kids = malloc(sizeof *kids * n);
    int rc = -1;
    if (!us || !argb || !resb || !kids) {
        satin_err_set(err, "out of memory for %zu nodes", n);
        goto out;
    }
    satin_trace_tree_self_us(t, us);
    for (size_t i = 0; i < t->n; i++) {
        kids[i] = t->node[i].nchildren;
        argb[i] = capped(t->node[i].arg_bytes);
        resb[i] = capped(t->node[i].result_bytes);
    }
    char c1[640], c2[400], c3[200];
    snprintf(c1, sizeof c1, "traced by satin-trace %s: %s%s", SATIN_VERSION, c->what,
             c->as_passed ? "; data sizes as passed" : "");
    snprintf(c2, sizeof c2, "result %s; wall %.6f s on one worker; %" PRIu64 " invocations",
             c->result, c->outcome.wall_s, c->tree.jobs);
    snprintf(c3, sizeof c3, "subtrees under %" PRId64 " us in all are leaves",
             t->min_leaf_ns / 1000);
    const char *comments[] = {c1, c2, c3,
                              "format: id parent self_us nchildren arg_bytes result_bytes, "
                              "pre-order (satin-trace(1))",
                              NULL};
    rc = replay_tree_write(f, us, kids, argb, resb, (int64_t)t->n, comments, err);
out:
    free(us);
    free(kids);
    free(argb);
    free(resb);
    return rc;
}

int trace_capture_tree(const trace_capture *c, replay_tree **out, satin_err *err)
{
    /* Through the file's format, so that what a replay of this capture runs
     * is exactly what satin-trace would have written and the kind read. */
    *out = NULL;
    FILE *f = tmpfile();
    if (!f)
        return satin_err_set(err, "cannot make a temporary file: %s", strerror(errno));
    int rc = trace_capture_write(c, f, err);
    if (rc == 0 && (fflush(f) != 0 || fseek(f, 0, SEEK_SET) != 0))
        rc = satin_err_set(err, "the temporary trace file failed: %s", strerror(errno));
    if (rc == 0)
        rc = replay_tree_read(f, c->what, out, err);
    fclose(f);
    return rc;
}

void trace_capture_free(trace_capture *c)
{
    satin_outcome_free(&c->outcome);
    satin_trace_tree_free(&c->tree);
    if (c->coarsened)
        satin_trace_tree_free(&c->coarse);
    c->coarsened = 0;
}
