/*
 * trace.c - records a real kind's job tree for the `replay` kind.
 *
 *   trace [--min-leaf-us US] [--leaves N] [--max-nodes N] [--as-passed] -o FILE KIND
 *         [key=value...]
 *   trace --check FILE [--scale X]
 *
 * The first form runs the job record once on one worker, every spawn in
 * place and timed (daemon/runtime/trace.h), coarsens the tree (subtrees of
 * less than US microseconds in all become leaves; with --leaves, further, to
 * the coarsest tree that still has N leaves) and writes it to FILE in the
 * format of daemon/apps/replay_tree.h.  Its data sizes are what a job's data
 * would carry (satin_kind.data_size: matmul's blocks even when they are made
 * where the job runs); --as-passed records the bytes passed instead, the
 * records a grid sends for that job as given (matmul carry=0: 40 bytes), so
 * that satin-sim can be set beside such a run.  Run it on a quiet machine:
 * the self times are wall times.  The second form checks a trace file as the kind
 * reads it and prints its figures, with the waits of a replay at scale X.
 *
 * Both end with one line of key=value figures for scripts (bench/wan).
 * Exit status: 0 done, 1 the job or the file failed (stderr says why), 2 bad
 * usage.
 */
#include "apps.h"
#include "kinds.h"
#include "replay_tree.h"
#include "trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MIN_LEAF_US 10
#define MAX_PARAMS 64

static void usage(void)
{
    fprintf(stderr,
            "usage: trace [--min-leaf-us US] [--leaves N] [--max-nodes N] [--as-passed] -o FILE "
            "KIND [key=value...]\n"
            "       trace --check FILE [--scale X]\n");
    exit(2);
}

static int64_t number(const char *s, int64_t min, int64_t max)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        usage();
    return v;
}

static int check(const char *path, double scale)
{
    satin_err err = {""};
    replay_tree *t;
    int64_t waits, span;
    if (replay_tree_load(path, &t, &err) < 0 || replay_tree_scaled(t, scale, &waits, &span, &err) < 0) {
        fprintf(stderr, "trace: %s\n", err.msg);
        return 1;
    }
    printf("nodes=%" PRId64 " leaves=%" PRId64 " depth=%" PRId64 " total_us=%" PRId64
           " max_leaf_us=%" PRId64 " checksum=%016" PRIx64 " scale=%.17g waits_us=%" PRId64
           " span_us=%" PRId64 " version=%d root_arg_bytes=%" PRId64 " root_result_bytes=%" PRId64
           "\n",
           t->nnodes, t->leaves, t->depth, t->total_us, t->max_leaf_us, t->checksum, scale, waits,
           span, t->version, t->arg_bytes[0], t->result_bytes[0]);
    replay_tree_free(&t);
    return 0;
}

static int write_tree(const char *path, const satin_trace_tree *tree, const char *const *comments)
{
    size_t n = tree->n ? tree->n : 1;
    int64_t *us = malloc(sizeof *us * n), *argb = malloc(sizeof *argb * n),
            *resb = malloc(sizeof *resb * n);
    uint32_t *kids = malloc(sizeof *kids * n);
    FILE *f = us && kids && argb && resb ? fopen(path, "w") : NULL;
    if (!f) {
        fprintf(stderr, "trace: cannot write %s: %s\n", path, strerror(errno));
        free(us);
        free(kids);
        free(argb);
        free(resb);
        return 1;
    }
    satin_trace_tree_self_us(tree, us);
    /* A size beyond the format's limit is written as the limit: the file
     * says "at least this much", which is all a replay can send anyway. */
    for (size_t i = 0; i < tree->n; i++) {
        const satin_trace_node *nd = &tree->node[i];
        kids[i] = nd->nchildren;
        argb[i] = nd->arg_bytes > (uint64_t)REPLAY_MAX_DATA_BYTES ? REPLAY_MAX_DATA_BYTES
                                                                  : (int64_t)nd->arg_bytes;
        resb[i] = nd->result_bytes > (uint64_t)REPLAY_MAX_DATA_BYTES ? REPLAY_MAX_DATA_BYTES
                                                                     : (int64_t)nd->result_bytes;
    }
    satin_err err = {""};
    int rc = replay_tree_write(f, us, kids, argb, resb, (int64_t)tree->n, comments, &err);
    if (fclose(f) != 0 && rc == 0)
        rc = satin_err_set(&err, "closing the file failed: %s", strerror(errno));
    free(us);
    free(kids);
    free(argb);
    free(resb);
    if (rc < 0) {
        fprintf(stderr, "trace: %s: %s\n", path, err.msg);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int64_t min_leaf_us = DEFAULT_MIN_LEAF_US, leaves = 0, max_nodes = 0;
    int as_passed = 0;
    const char *outfile = NULL, *checkfile = NULL;
    double scale = 1;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *o = argv[i];
        if (strcmp(o, "--as-passed") == 0) {
            as_passed = 1;
            continue;
        }
        if (i + 1 >= argc)
            usage();
        if (strcmp(o, "--min-leaf-us") == 0)
            min_leaf_us = number(argv[++i], 0, INT64_MAX / 1000);
        else if (strcmp(o, "--leaves") == 0)
            leaves = number(argv[++i], 1, REPLAY_MAX_NODES);
        else if (strcmp(o, "--max-nodes") == 0)
            max_nodes = number(argv[++i], 1, INT32_MAX);
        else if (strcmp(o, "-o") == 0)
            outfile = argv[++i];
        else if (strcmp(o, "--check") == 0)
            checkfile = argv[++i];
        else if (strcmp(o, "--scale") == 0) {
            char *end;
            scale = strtod(argv[++i], &end);
            if (*end || !(scale > 0))
                usage();
        } else
            usage();
    }
    if (checkfile)
        return i == argc && !outfile ? check(checkfile, scale) : (usage(), 2);
    if (!outfile || i >= argc || argc - i - 1 > MAX_PARAMS)
        usage();
    const char *kind = argv[i];
    const char *params[MAX_PARAMS + 1];
    int np = 0;
    for (int k = i + 1; k < argc; k++)
        params[np++] = argv[k];
    params[np] = NULL;

    satin_trace_tree tree, coarse;
    satin_outcome o;
    satin_trace_record(satin_builtin_kinds, kind, params, min_leaf_us * 1000, (size_t)max_nodes,
                       as_passed, &tree, &o);
    char what[512];
    int w = snprintf(what, sizeof what, "%s", kind);
    for (int k = 0; k < np && w >= 0 && (size_t)w < sizeof what; k++)
        w += snprintf(what + w, sizeof what - (size_t)w, " %s", params[k]);
    printf("trace: %s, on one worker, every spawn run in place\n", what);
    if (o.failed) {
        fprintf(stderr, "trace: %s: %s\n", what, o.error);
        satin_outcome_free(&o);
        satin_trace_tree_free(&tree);
        return 1;
    }
    char result[256] = "";
    size_t rl = 0;
    for (size_t k = 0; k < o.result.n && rl < sizeof result; k++) {
        const satin_kv *kv = &o.result.items[k];
        char v[64];
        if (kv->type == SATIN_KV_I64)
            snprintf(v, sizeof v, "%" PRId64, kv->i64);
        else if (kv->type == SATIN_KV_F64)
            snprintf(v, sizeof v, "%.17g", kv->f64);
        else
            snprintf(v, sizeof v, "%s", kv->str ? kv->str : "");
        rl += (size_t)snprintf(result + rl, sizeof result - rl, "%s%s=%s", k ? " " : "", kv->name,
                               v);
    }
    printf("  result: %s\n", result);
    printf("  run: %.3f s wall, %" PRIu64 " jobs (invocations), nesting depth %zu; "
           "at most %zu nodes held while coarsening at %" PRId64 " us\n",
           o.wall_s, tree.jobs, tree.max_open ? tree.max_open - 1 : 0, tree.peak, min_leaf_us);

    int64_t cut = leaves ? satin_trace_tree_cutoff_for(&tree, (size_t)leaves) : 0;
    if (satin_trace_tree_coarsen(&tree, cut, &coarse) < 0) {
        fprintf(stderr, "trace: out of memory\n");
        return 1;
    }
    satin_trace_stats s;
    satin_trace_tree_stats(&coarse, &s);
    int64_t eff_us = coarse.min_leaf_ns / 1000;
    if (leaves && cut > tree.min_leaf_ns)
        printf("  coarsened for at least %" PRId64 " leaves: cut-off %.1f us\n", leaves,
               (double)coarse.min_leaf_ns / 1000);
    else if (leaves)
        printf("  fewer than %" PRId64 " leaves at the recording cut-off already: kept as "
               "recorded\n", leaves);
    printf("  tree: %zu nodes, %zu leaves, depth %zu, total (sum of self times) %.6f s, "
           "longest leaf %.6f s\n",
           s.nodes, s.leaves, s.depth, (double)s.total_ns / 1e9, (double)s.max_leaf_ns / 1e9);

    char c1[640], c2[400], c3[200];
    snprintf(c1, sizeof c1, "traced by bench/trace: %s%s", what,
             as_passed ? "; data sizes as passed" : "");
    snprintf(c2, sizeof c2, "result %s; wall %.6f s on one worker; %" PRIu64 " jobs", result,
             o.wall_s, tree.jobs);
    snprintf(c3, sizeof c3, "subtrees under %" PRId64 " us in all are leaves", eff_us);
    const char *comments[] = {c1, c2, c3,
                              "format: id parent self_us nchildren arg_bytes result_bytes, "
                              "pre-order (daemon/apps/replay_tree.h)",
                              NULL};
    int rc = write_tree(outfile, &coarse, comments);
    satin_err err = {""};
    replay_tree *back = NULL;
    if (rc == 0 && replay_tree_load(outfile, &back, &err) < 0) {
        fprintf(stderr, "trace: the file written does not read back: %s\n", err.msg);
        rc = 1;
    }
    if (rc == 0) {
        printf("  written to %s\n", outfile);
        printf("nodes=%" PRId64 " leaves=%" PRId64 " depth=%" PRId64 " total_us=%" PRId64
               " max_leaf_us=%" PRId64 " jobs=%" PRIu64 " wall_s=%.6f cutoff_us=%" PRId64 "\n",
               back->nnodes, back->leaves, back->depth, back->total_us, back->max_leaf_us,
               tree.jobs, o.wall_s, eff_us);
    }
    replay_tree_free(&back);
    satin_outcome_free(&o);
    satin_trace_tree_free(&tree);
    satin_trace_tree_free(&coarse);
    return rc;
}
