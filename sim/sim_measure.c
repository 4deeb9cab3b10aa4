/* sim_measure.c - a uts node's cost timed on this machine (sim_measure.h). */
#include "sim_measure.h"

#include <string.h>
#include <time.h>

#define STACK_CAP 256          /* as the uts kind's walk */
#define BUDGET 4096            /* nodes between two looks at the clock */
/* The fastest of a few rounds: other processes on this machine only ever
 * make a round slower. */
#define ROUNDS 5

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Nodes generated from the root in about `seconds`, and how long that took. */
static uint64_t walk_for(const uts_tree *t, const uts_node *root, double seconds, double *took)
{
    uts_slot stack[STACK_CAP];
    uts_walk w;
    uint64_t nodes = 0;
    double t0 = now_s(), dt = 0;
    do {
        uts_walk_init(&w, t, stack, STACK_CAP);
        uts_walk_add(&w, root, 1);
        uts_walk_status st;
        do {
            st = uts_walk_run(&w, BUDGET);
            if (st == UTS_WALK_FULL) {
                memmove(w.stack, w.stack + STACK_CAP / 2,
                        (w.sp - STACK_CAP / 2) * sizeof *w.stack);
                w.sp -= STACK_CAP / 2;
            }
            dt = now_s() - t0;
        } while ((st == UTS_WALK_BUDGET || st == UTS_WALK_FULL) && dt < seconds);
        nodes += w.counts.nodes - 1;   /* the root was added, not generated */
    } while (dt < seconds);
    *took = dt;
    return nodes;
}

int sim_measure_uts(const uts_tree *t, double seconds, sim_measured *out)
{
    memset(out, 0, sizeof *out);
    uts_node root;
    uts_root(t, &root);
    if (uts_num_children(t, &root) == 0)
        return -1;
    for (int i = 0; i < ROUNDS; i++) {
        double took;
        uint64_t n = walk_for(t, &root, seconds / ROUNDS, &took);
        double ns = took * 1e9 / (double)n;
        if (i == 0 || ns < out->ns_per_node)
            out->ns_per_node = ns;
        out->nodes += n;
        out->seconds += took;
    }
    return 0;
}
