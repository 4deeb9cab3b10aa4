/* lifestory_plot.c - the lifestory's PNG, by gnuplot (see lifestory_plot.h). */
#include "lifestory_plot.h"
#include "lifestory.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

/* A file name as a gnuplot string: in single quotes, a quote doubled. */
static void quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++)
        fputs(*s == '\'' ? "''" : (char[2]){*s, 0}, f);
    fputc('\'', f);
}

static const char *const colours[SATIN_LIFE_STATES] = {"#2ca02c", "#ff7f0e", "#d62728", "#d9d9d9"};

static void script(FILE *g, const satin_plot_lifestory *p)
{
    /* Rows of 12 pixels or more, 2 of them white between rows: thinner,
     * the white would come and go with the pixel grid. */
    int height = 150 + p->nrec * (p->workers > 1 ? 18 : 12);
    if (height < 360)
        height = 360;
    fprintf(g, "set terminal pngcairo size 1300,%d font 'sans,10'\nset output ", height);
    quoted(g, p->png);
    fprintf(g, "\nset datafile separator ','\nset title ");
    quoted(g, p->title);
    fprintf(g, " noenhanced\nset xlabel ");
    quoted(g, p->xlabel ? p->xlabel : "virtual time (s)");
    fprintf(g, "\n");
    fprintf(g, "set ylabel '%s'\n", p->nrec < p->nnodes ? "node (a sample spread over the grid)"
                                                        : "node");
    fprintf(g, "set xrange [0:%.9f]\nset yrange [%d.5:-0.5]\n", (double)p->makespan_ns / 1e9,
            p->nrec - 1);
    fprintf(g, "set key outside right top vertical noenhanced\nset grid xtics\n");
    /* Rows are recorded nodes; the tics name the nodes. */
    int step = p->nrec <= 32 ? 1 : p->nrec / 16;
    fprintf(g, "set ytics (");
    for (int k = 0; k < p->nrec; k += step) {
        int64_t node = (int64_t)k * p->nnodes / p->nrec;
        fprintf(g, "%s", k ? ", " : "");
        if (p->names)
            quoted(g, p->names[node]);
        else
            fprintf(g, "'%" PRId64 "'", node);
        fprintf(g, " %d", k);
    }
    fprintf(g, ")\nset ytics noenhanced\n");
    /* A line where a cluster ends. */
    for (int k = 1; p->cluster_of && k < p->nrec; k++) {
        int a = (int)((int64_t)(k - 1) * p->nnodes / p->nrec);
        int b = (int)((int64_t)k * p->nnodes / p->nrec);
        if (p->cluster_of[a] != p->cluster_of[b])
            fprintf(g, "set arrow from graph 0, first %d.5 to graph 1, first %d.5 nohead "
                       "lc rgb '#404040' lw 1 front\n", k - 1, k - 1);
    }
    /* Node n's row: the smallest k with floor(k * N / K) >= n. */
    fprintf(g, "N = %d; K = %d; W = %d\n", p->nnodes, p->nrec, p->workers);
    fprintf(g, "row(n) = (int(n) * K + N - 1) / N\n"
               "lo(n, w) = row(n) - 0.4 + 0.8 * int(w) / W\n"
               "hi(n, w) = row(n) - 0.4 + 0.8 * (int(w) + 1) / W\n");
    fprintf(g, "plot ");
    for (int s = 0; s < SATIN_LIFE_STATES; s++) {
        if (s)
            fprintf(g, ", \\\n     ");
        quoted(g, p->csv);
        fprintf(g, " skip 1 using (($4 + $5) / 2e9):(strcol(3) eq '%s' ? row($1) : NaN):"
                   "($4 / 1e9):($5 / 1e9):(lo($1, $2)):(hi($1, $2)) with boxxyerror "
                   "fs solid 1.0 border lc rgb '%s' lc rgb '%s' title '%s'",
                satin_life_state_name(s), colours[s], colours[s], satin_life_state_name(s));
    }
    fprintf(g, "\n");
}

int satin_plot_lifestory_png(const satin_plot_lifestory *p, char *err, size_t errlen)
{
    /* gnuplot's own messages go to our stderr; a missing gnuplot is the
     * shell's 127. */
    FILE *g = popen("gnuplot", "w");
    if (!g) {
        snprintf(err, errlen, "cannot run gnuplot: %s", strerror(errno));
        return -1;
    }
    /* A gnuplot that dies early must not kill us with SIGPIPE. */
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    script(g, p);
    int st = pclose(g);
    signal(SIGPIPE, old);
    if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 127) {
        snprintf(err, errlen, "gnuplot is not installed (Debian: apt-get install gnuplot-nox)");
        return -1;
    }
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        snprintf(err, errlen, "gnuplot failed drawing %s", p->png);
        return -1;
    }
    return 0;
}
