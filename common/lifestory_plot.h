/*
 * lifestory_plot.h - satin-sim's lifestory as a PNG, drawn by gnuplot from the
 * lifestory's CSV (lifestory.h): one row per recorded node (split in
 * one band per worker), virtual time across, a colour per state.
 */
#ifndef SATIN_LIFESTORY_PLOT_H
#define SATIN_LIFESTORY_PLOT_H

#include <stddef.h>
#include <stdint.h>

typedef struct satin_plot_lifestory {
    const char *csv, *png;     /* from, to */
    const char *title;
    const char *xlabel;        /* NULL: "virtual time (s)" */
    const char *const *names;  /* [nnodes] for the rows' tics; NULL: node numbers */
    int nnodes;                /* in the grid */
    int nrec;                  /* recorded: node floor(k * nnodes / nrec) is row k */
    int workers;               /* per node */
    const int *cluster_of;     /* [nnodes]: a line between clusters (NULL: none) */
    int64_t makespan_ns;
} satin_plot_lifestory;

/* Runs gnuplot.  0, or -1 with the reason in `err` (gnuplot missing or
 * failing). */
int satin_plot_lifestory_png(const satin_plot_lifestory *p, char *err, size_t errlen);

#endif
