/*
 * syn_exact.c - not a benchmark: the exact result of a `synthetic` job, for
 * the scripts that check one (bench/wan, bench/grid-cpu), and the same job
 * as a trace file for the `replay` kind and satin-sim (bench/sim-vs-wan).
 *
 *   syn_exact DIST MEAN_US SHAPE SEED LEAVES
 *
 * prints "total_us max_us" of leaves 0..LEAVES-1, drawn with the kind's own
 * draw function (kinds/synthetic_draw.h).
 *
 *   syn_exact --trace DIST MEAN_US SHAPE SEED DEPTH FANOUT FILE
 *
 * writes the job's tree (a complete tree of DEPTH levels below the root,
 * FANOUT children each; inner nodes 0 us, leaf L its draw, leaves numbered
 * left to right as the kind numbers them) to FILE in replay_tree.h's
 * format, and prints "nodes leaves total_us".
 */
#include "replay_tree.h"
#include "synthetic_draw.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int32_t dist_of(const char *s)
{
    return strcmp(s, "uniform") == 0 ? SYN_DIST_UNIFORM
           : strcmp(s, "gamma") == 0 ? SYN_DIST_GAMMA
                                     : SYN_DIST_CONST;
}

typedef struct tree_out {
    int64_t *self_us;
    uint32_t *nkids;
    int64_t n, leaves, total;
} tree_out;

/* Pre-order: a node, then its children's subtrees left to right. */
static void add(tree_out *t, int32_t dist, int64_t mean, double shape, uint64_t seed,
                int depth, uint32_t fanout)
{
    int64_t i = t->n++;
    if (depth == 0) {
        t->self_us[i] = syn_draw_us(dist, mean, shape, seed, (uint64_t)t->leaves++);
        t->total += t->self_us[i];
        t->nkids[i] = 0;
        return;
    }
    t->self_us[i] = 0;
    t->nkids[i] = fanout;
    for (uint32_t k = 0; k < fanout; k++)
        add(t, dist, mean, shape, seed, depth - 1, fanout);
}

static int write_trace(char **argv)
{
    int32_t dist = dist_of(argv[0]);
    int64_t mean = strtoll(argv[1], NULL, 10);
    double shape = strtod(argv[2], NULL);
    uint64_t seed = strtoull(argv[3], NULL, 10);
    int depth = atoi(argv[4]);
    uint32_t fanout = (uint32_t)strtoul(argv[5], NULL, 10);
    int64_t nodes = 0, level = 1;
    for (int d = 0; d <= depth && nodes <= REPLAY_MAX_NODES; d++, level *= fanout)
        nodes += level;
    if (depth < 0 || fanout < 1 || nodes > REPLAY_MAX_NODES) {
        fprintf(stderr, "syn_exact: a tree of depth %d and fanout %u is more than %" PRId64
                " nodes\n", depth, fanout, (int64_t)REPLAY_MAX_NODES);
        return 2;
    }
    tree_out t = {.self_us = calloc((size_t)nodes, sizeof *t.self_us),
                  .nkids = calloc((size_t)nodes, sizeof *t.nkids)};
    if (!t.self_us || !t.nkids)
        abort();
    add(&t, dist, mean, shape, seed, depth, fanout);
    FILE *f = fopen(argv[6], "w");
    char what[200];
    snprintf(what, sizeof what, "synthetic depth=%d fanout=%u dist=%s mean_us=%" PRId64
             " shape=%g seed=%" PRIu64, depth, fanout, argv[0], mean, shape, seed);
    const char *comments[] = {what, NULL};
    satin_err err = {0};
    int rc = f && replay_tree_write(f, t.self_us, t.nkids, NULL, NULL, t.n, comments, &err) == 0 ? 0 : 1;
    if (f && fclose(f) != 0)
        rc = 1;
    if (rc)
        fprintf(stderr, "syn_exact: cannot write %s\n", argv[6]);
    else
        printf("%" PRId64 " %" PRId64 " %" PRId64 "\n", t.n, t.leaves, t.total);
    free(t.self_us);
    free(t.nkids);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 9 && strcmp(argv[1], "--trace") == 0)
        return write_trace(argv + 2);
    if (argc != 6) {
        fprintf(stderr, "usage: syn_exact DIST MEAN_US SHAPE SEED LEAVES\n"
                        "       syn_exact --trace DIST MEAN_US SHAPE SEED DEPTH FANOUT FILE\n");
        return 2;
    }
    int32_t dist = dist_of(argv[1]);
    int64_t mean = strtoll(argv[2], NULL, 10);
    double shape = strtod(argv[3], NULL);
    uint64_t seed = strtoull(argv[4], NULL, 10), n = strtoull(argv[5], NULL, 10);
    int64_t total = 0, max = 0;
    for (uint64_t i = 0; i < n; i++) {
        int64_t us = syn_draw_us(dist, mean, shape, seed, i);
        total += us;
        if (us > max)
            max = us;
    }
    printf("%" PRId64 " %" PRId64 "\n", total, max);
    return 0;
}
