/*
 * satin_trace.c - satin-trace: records a kind's job tree for the `replay`
 * kind and for satin-sim (man/satin-trace.1).
 *
 *   satin-trace [--kinds-dir DIR] [--min-leaf-us US] [--leaves N] [--max-nodes N]
 *               [--as-passed] -o FILE KIND [key=value...]
 *   satin-trace --check FILE [--scale X]
 *   satin-trace [--kinds-dir DIR] --list-kinds
 *
 * The kinds are those of the modules of DIR, loaded under satind's rules
 * (daemon/runtime/modules.h), so that what is traced is the build the grid
 * runs.  Every form ends with one line of key=value figures for scripts
 * (bench/wan).  Exit status: 0 done, 1 the job, a module or the file failed
 * (stderr says why), 2 bad usage.
 */
#include "modules.h"
#include "replay_tree.h"
#include "trace_capture.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: satin-trace [--kinds-dir DIR] [--min-leaf-us US] [--leaves N] [--max-nodes N]\n"
            "                   [--as-passed] -o FILE KIND [key=value...]\n"
            "       satin-trace --check FILE [--scale X]\n"
            "       satin-trace [--kinds-dir DIR] --list-kinds\n"
            "Runs one job of KIND on one worker, every spawn in place and timed, and writes\n"
            "its tree of invocations (coarsened) to FILE for the replay kind and satin-sim.\n"
            "  --kinds-dir DIR   the kind modules to load (default " SATIN_KINDS_DIR ")\n"
            "  --min-leaf-us US  subtrees under US microseconds in all become leaves (default %d)\n"
            "  --leaves N        coarsen further, to the coarsest tree with at least N leaves\n"
            "  --max-nodes N     fail rather than hold more than N nodes while recording\n"
            "  --as-passed       data sizes as the bytes passed, not what the data would carry\n"
            "  --check FILE      read FILE as the replay kind does and print its figures, with\n"
            "                    the waits of a replay at --scale X (default 1)\n"
            "  --list-kinds      the kinds the modules bring, with their module\n"
            "  -h, --help        this text;  -V, --version  the version\n",
            TRACE_DEFAULT_MIN_LEAF_US);
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "satin-trace: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (satin-trace --help)\n");
    return 2;
}

static int number(const char *opt, const char *s, int64_t min, int64_t max, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) {
        fprintf(stderr, "satin-trace: %s needs an integer in [%" PRId64 ", %" PRId64 "], not '%s'\n",
                opt, min, max, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int check(const char *path, double scale)
{
    satin_err err = {""};
    replay_tree *t;
    int64_t waits, span;
    if (replay_tree_load(path, &t, &err) < 0 ||
        replay_tree_scaled(t, scale, &waits, &span, &err) < 0) {
        fprintf(stderr, "satin-trace: %s\n", err.msg);
        replay_tree_free(&t);
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

static void list_kinds(const satin_registry *reg)
{
    for (size_t i = 0; i < satin_registry_nkinds(reg); i++) {
        const satin_kind *k = satin_registry_kind_at(reg, i);
        const satin_module_info *m = satin_registry_kind_module(reg, k);
        printf("%-14s %s %s  %s\n", k->name, m ? m->name : "?", m ? m->version : "?",
               k->summary ? k->summary : "");
    }
    printf("kinds=%zu modules=%zu\n", satin_registry_nkinds(reg), satin_registry_nmodules(reg));
}

static int trace(const satin_registry *reg, const trace_capture_opts *opts, const char *outfile,
                 const char *kind, const char *const *params)
{
    trace_capture c;
    satin_err err = {""};
    int failed = trace_capture_run(&c, reg, kind, params, opts, &err) < 0;
    printf("satin-trace: %s, on one worker, every spawn run in place\n", c.what);
    if (failed) {
        fprintf(stderr, "satin-trace: %s\n", err.msg);
        trace_capture_free(&c);
        return 1;
    }
    printf("  result: %s\n", c.result);
    printf("  run: %.3f s wall, %" PRIu64 " invocations, nesting depth %zu; "
           "at most %zu nodes held while coarsening at %" PRId64 " us\n",
           c.outcome.wall_s, c.tree.jobs, c.tree.max_open ? c.tree.max_open - 1 : 0, c.tree.peak,
           opts->min_leaf_us);
    if (opts->leaves && c.coarse.min_leaf_ns > c.tree.min_leaf_ns)
        printf("  coarsened for at least %" PRId64 " leaves: cut-off %.1f us\n", opts->leaves,
               (double)c.coarse.min_leaf_ns / 1000);
    else if (opts->leaves)
        printf("  fewer than %" PRId64 " leaves at the recording cut-off already: kept as "
               "recorded\n", opts->leaves);
    satin_trace_stats s;
    satin_trace_tree_stats(&c.coarse, &s);
    printf("  tree: %zu nodes, %zu leaves, depth %zu, total (sum of self times) %.6f s, "
           "longest leaf %.6f s\n",
           s.nodes, s.leaves, s.depth, (double)s.total_ns / 1e9, (double)s.max_leaf_ns / 1e9);

    int rc = 0;
    FILE *f = fopen(outfile, "w");
    if (!f) {
        fprintf(stderr, "satin-trace: cannot write %s: %s\n", outfile, strerror(errno));
        rc = 1;
    } else {
        rc = trace_capture_write(&c, f, &err);
        if (fclose(f) != 0 && rc == 0)
            rc = satin_err_set(&err, "closing the file failed: %s", strerror(errno));
        if (rc < 0) {
            fprintf(stderr, "satin-trace: %s: %s\n", outfile, err.msg);
            rc = 1;
        }
    }
    replay_tree *back = NULL;
    if (rc == 0 && replay_tree_load(outfile, &back, &err) < 0) {
        fprintf(stderr, "satin-trace: the file written does not read back: %s\n", err.msg);
        rc = 1;
    }
    if (rc == 0) {
        printf("  written to %s\n", outfile);
        printf("nodes=%" PRId64 " leaves=%" PRId64 " depth=%" PRId64 " total_us=%" PRId64
               " max_leaf_us=%" PRId64 " jobs=%" PRIu64 " wall_s=%.6f cutoff_us=%" PRId64 "\n",
               back->nnodes, back->leaves, back->depth, back->total_us, back->max_leaf_us,
               c.tree.jobs, c.outcome.wall_s, c.coarse.min_leaf_ns / 1000);
    }
    replay_tree_free(&back);
    trace_capture_free(&c);
    return rc;
}

int main(int argc, char **argv)
{
    trace_capture_opts opts = {.min_leaf_us = TRACE_DEFAULT_MIN_LEAF_US};
    const char *outfile = NULL, *checkfile = NULL, *kinds_dir = SATIN_KINDS_DIR;
    double scale = 1;
    int list = 0, scale_given = 0;
    static const struct option longopts[] = {
        {"kinds-dir", required_argument, NULL, 'k'},
        {"min-leaf-us", required_argument, NULL, 'm'},
        {"leaves", required_argument, NULL, 'l'},
        {"max-nodes", required_argument, NULL, 'n'},
        {"as-passed", no_argument, NULL, 'a'},
        {"check", required_argument, NULL, 'c'},
        {"scale", required_argument, NULL, 's'},
        {"list-kinds", no_argument, NULL, 'L'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {0, 0, 0, 0},
    };
    int ch;
    /* "+": options end at KIND, so that its key=value pairs are its own. */
    while ((ch = getopt_long(argc, argv, "+o:hV", longopts, NULL)) != -1) {
        char *end;
        switch (ch) {
        case 'k': kinds_dir = optarg; break;
        case 'm':
            if (number("--min-leaf-us", optarg, 0, INT64_MAX / 1000, &opts.min_leaf_us) < 0)
                return 2;
            break;
        case 'l':
            if (number("--leaves", optarg, 1, REPLAY_MAX_NODES, &opts.leaves) < 0)
                return 2;
            break;
        case 'n':
            if (number("--max-nodes", optarg, 1, INT32_MAX, &opts.max_nodes) < 0)
                return 2;
            break;
        case 'a': opts.as_passed = 1; break;
        case 'o': outfile = optarg; break;
        case 'c': checkfile = optarg; break;
        case 's':
            scale = strtod(optarg, &end);
            if (*end || !(scale > 0))
                return bad_usage("--scale needs a number above 0, not '%s'", optarg);
            scale_given = 1;
            break;
        case 'L': list = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("satin-trace %s (kind API %d)\n", SATIN_VERSION, SATIN_API_VERSION); return 0;
        default: return bad_usage("%s", "bad option");
        }
    }
    if (checkfile) {
        if (optind != argc || outfile || list)
            return bad_usage("%s", "--check FILE takes no kind, -o or --list-kinds");
        return check(checkfile, scale);
    }
    if (scale_given)
        return bad_usage("%s", "--scale goes with --check");
    if (!list && (!outfile || optind >= argc))
        return bad_usage("%s", "give -o FILE and a KIND");
    if (list && (outfile || optind != argc))
        return bad_usage("%s", "--list-kinds takes no kind or -o");

    satin_registry *reg = satin_registry_new();
    satin_err err = {""};
    if (satin_modules_load_dir(reg, kinds_dir, &err) < 0) {
        fprintf(stderr, "satin-trace: %s\n", err.msg);
        satin_registry_destroy(&reg);
        return 1;
    }
    int rc;
    if (list) {
        list_kinds(reg);
        rc = 0;
    } else
        rc = trace(reg, &opts, outfile, argv[optind], (const char *const *)argv + optind + 1);
    satin_registry_destroy(&reg);
    return rc;
}
