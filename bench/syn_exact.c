/*
 * syn_exact.c - not a benchmark: the exact result of a `synthetic` job, for
 * the scripts that check one (bench/wan, bench/grid-cpu).
 *
 *   syn_exact DIST MEAN_US SHAPE SEED LEAVES
 *
 * prints "total_us max_us" of leaves 0..LEAVES-1, drawn with the kind's own
 * draw function (daemon/apps/synthetic_draw.h).
 */
#include "synthetic_draw.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: syn_exact DIST MEAN_US SHAPE SEED LEAVES\n");
        return 2;
    }
    int32_t dist = strcmp(argv[1], "uniform") == 0 ? SYN_DIST_UNIFORM
                   : strcmp(argv[1], "gamma") == 0 ? SYN_DIST_GAMMA
                                                   : SYN_DIST_CONST;
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
