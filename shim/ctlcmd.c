/* ctlcmd.c - the control commands (ctlcmd.h). */
#include "ctlcmd.h"
#include "log.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 8

static const char usage_set[] = "set A B [latency=MS] [jitter=MS] [bandwidth=KBPS]";

/* Splits `line` (copied into buf) at blanks; the count, or MAX_ARGS + 1 if
 * there are more. */
static int split(const char *line, char *buf, size_t len, char **argv)
{
    int argc = 0;
    snprintf(buf, len, "%s", line);
    for (char *save = NULL, *tok = strtok_r(buf, " \t\r", &save); tok;
         tok = strtok_r(NULL, " \t\r", &save)) {
        if (argc == MAX_ARGS)
            return MAX_ARGS + 1;
        argv[argc++] = tok;
    }
    return argc;
}

static int find_cluster(const satin_topology *t, const char *name, strbuf *out)
{
    for (int i = 0; i < t->nclusters; i++)
        if (strcmp(t->clusters[i].name, name) == 0)
            return i;
    sb_printf(out, "error: unknown cluster '%s' (expected one of", name);
    for (int i = 0; i < t->nclusters; i++)
        sb_printf(out, "%s %s", i ? "," : "", t->clusters[i].name);
    sb_printf(out, ")\n");
    return -1;
}

/* Two cluster names that make a link; 0, or -1 with the error written. */
static int link_args(const satin_topology *t, const char *a, const char *b, int *from, int *to,
                     strbuf *out)
{
    if ((*from = find_cluster(t, a, out)) < 0 || (*to = find_cluster(t, b, out)) < 0)
        return -1;
    if (*from == *to) {
        sb_printf(out, "error: no link from %s to itself (traffic inside a cluster is not "
                       "emulated)\n",
                  a);
        return -1;
    }
    return 0;
}

/* Strictly a decimal number (as in the topology file: no units, no hex,
 * no inf or nan) in [min, max], or in (min, max] when above_min. */
static int parse_number(const char *s, double min, double max, int above_min, double *out)
{
    const char *p = s;
    int digits = 0;
    char *end;
    if (*p == '+')
        p++;
    while (*p >= '0' && *p <= '9')
        p++, digits++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            digits++;
    if (!digits || *p)
        return -1;
    errno = 0;
    double x = strtod(s, &end);
    if (errno || *end || !isfinite(x) || x < min || x > max || (above_min && x <= min))
        return -1;
    *out = x;
    return 0;
}

static void print_link(const wan_link *l, const satin_topology *t, int64_t now, strbuf *out)
{
    sb_printf(out,
              "%s->%s latency_ms=%g jitter_ms=%g bandwidth_kBps=%g burst_bytes=%.0f "
              "partitioned=%s bytes=%llu connections=%llu open=%d queued=%llu "
              "stalled_ms=%.3f\n",
              t->clusters[l->from].name, t->clusters[l->to].name, l->latency_ms, l->jitter_ms,
              l->bandwidth_kBps, l->burst, l->partitioned ? "yes" : "no",
              (unsigned long long)l->bytes, (unsigned long long)l->connections, l->open,
              (unsigned long long)l->queued, (double)wan_link_stalled_ns(l, now) / 1e6);
}

static void cmd_stats(relay *r, const satin_topology *t, int argc, char **argv, strbuf *out)
{
    int64_t now = satin_now_ns();
    int from, to, n = 0;
    if (argc == 3) {
        if (link_args(t, argv[1], argv[2], &from, &to, out) < 0)
            return;
        print_link(relay_link(r, from, to), t, now, out);
        sb_printf(out, "ok 1 link\n");
        return;
    }
    if (argc != 1) {
        sb_printf(out, "error: usage: stats [A B]\n");
        return;
    }
    for (int a = 0; a < t->nclusters; a++)
        for (int b = 0; b < t->nclusters; b++)
            if (a != b) {
                print_link(relay_link(r, a, b), t, now, out);
                n++;
            }
    sb_printf(out, "ok %d link%s\n", n, n == 1 ? "" : "s");
}

static void cmd_partition(relay *r, const satin_topology *t, int argc, char **argv, int cut,
                          strbuf *out)
{
    int from, to;
    if (!cut && argc == 1) {
        for (int a = 0; a < t->nclusters; a++)
            for (int b = 0; b < t->nclusters; b++)
                if (a != b)
                    relay_link(r, a, b)->partitioned = 0;
        log_info("restore: every link");
        sb_printf(out, "ok restored every link\n");
        return;
    }
    if (argc != 3) {
        sb_printf(out, "error: usage: %s\n", cut ? "partition A B" : "restore [A B]");
        return;
    }
    if (link_args(t, argv[1], argv[2], &from, &to, out) < 0)
        return;
    /* Both directions: a cut cable cuts both ways.  Held bytes stay held
     * (not dropped), so a restore loses and reorders nothing. */
    relay_link(r, from, to)->partitioned = cut;
    relay_link(r, to, from)->partitioned = cut;
    log_info("%s %s <-> %s", cut ? "partition" : "restore", argv[1], argv[2]);
    sb_printf(out, "ok %s %s <-> %s\n", cut ? "partitioned" : "restored", argv[1], argv[2]);
}

static void cmd_reset(relay *r, const satin_topology *t, int argc, char **argv, strbuf *out)
{
    int from, to;
    if (argc != 3) {
        sb_printf(out, "error: usage: reset A B\n");
        return;
    }
    if (link_args(t, argv[1], argv[2], &from, &to, out) < 0)
        return;
    uint64_t dropped = 0;
    int n = relay_reset(r, from, to, &dropped);
    log_info("reset %s <-> %s: %d connection(s) broken, %llu held byte(s) dropped", argv[1],
             argv[2], n, (unsigned long long)dropped);
    sb_printf(out, "ok reset %d connection%s between %s and %s, %llu held byte%s dropped\n", n,
              n == 1 ? "" : "s", argv[1], argv[2], (unsigned long long)dropped,
              dropped == 1 ? "" : "s");
}

static void cmd_set(relay *r, const satin_topology *t, int argc, char **argv, strbuf *out)
{
    double v[3] = {-1, -1, -1};   /* latency, jitter, bandwidth; -1: unchanged */
    int from, to;
    if (argc < 4) {
        sb_printf(out, "error: usage: %s\n", usage_set);
        return;
    }
    if (link_args(t, argv[1], argv[2], &from, &to, out) < 0)
        return;
    for (int i = 3; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        size_t klen = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
        int k = -1;
        static const char *const keys[3][2] = {{"latency", "latency_ms"},
                                               {"jitter", "jitter_ms"},
                                               {"bandwidth", "bandwidth_kBps"}};
        for (int j = 0; j < 3 && k < 0; j++)
            for (int a = 0; a < 2; a++)
                if (strlen(keys[j][a]) == klen && strncmp(argv[i], keys[j][a], klen) == 0)
                    k = j;
        if (k < 0 || !eq) {
            sb_printf(out, "error: unknown setting '%s' (expected latency=MS, jitter=MS, "
                           "bandwidth=KBPS)\n",
                      argv[i]);
            return;
        }
        int bad = k == 2 ? parse_number(eq + 1, 0, WANEM_MAX_KBPS, 1, &v[k])
                         : parse_number(eq + 1, 0, WANEM_MAX_MS, 0, &v[k]);
        if (bad) {
            if (k == 2)
                sb_printf(out, "error: 'bandwidth' must be a number of KByte/s greater than 0 "
                               "and at most %.0f, not '%s'\n",
                          WANEM_MAX_KBPS, eq + 1);
            else
                sb_printf(out, "error: '%s' must be a number of milliseconds from 0 to %.0f, "
                               "not '%s'\n",
                          keys[k][0], WANEM_MAX_MS, eq + 1);
            return;
        }
    }
    wan_link *l = relay_link(r, from, to);
    wan_link_set(l, v[0], v[1], v[2], satin_now_ns());
    log_info("set %s -> %s: latency %g ms, jitter %g ms, bandwidth %g KByte/s", argv[1],
              argv[2], l->latency_ms, l->jitter_ms, l->bandwidth_kBps);
    sb_printf(out, "ok %s->%s latency_ms=%g jitter_ms=%g bandwidth_kBps=%g\n", argv[1], argv[2],
              l->latency_ms, l->jitter_ms, l->bandwidth_kBps);
}

void ctlcmd_run(relay *r, const satin_topology *t, const char *line, strbuf *out)
{
    char buf[1024], *argv[MAX_ARGS];
    int argc = split(line, buf, sizeof buf, argv);
    if (argc == 0) {
        sb_printf(out, "error: empty command (try help)\n");
    } else if (argc > MAX_ARGS) {
        sb_printf(out, "error: too many words (try help)\n");
    } else if (strcmp(argv[0], "stats") == 0) {
        cmd_stats(r, t, argc, argv, out);
    } else if (strcmp(argv[0], "partition") == 0) {
        cmd_partition(r, t, argc, argv, 1, out);
    } else if (strcmp(argv[0], "restore") == 0) {
        cmd_partition(r, t, argc, argv, 0, out);
    } else if (strcmp(argv[0], "set") == 0) {
        cmd_set(r, t, argc, argv, out);
    } else if (strcmp(argv[0], "reset") == 0) {
        cmd_reset(r, t, argc, argv, out);
    } else if (strcmp(argv[0], "help") == 0) {
        sb_printf(out,
                  "stats [A B]\npartition A B\nrestore [A B]\nreset A B\n%s\nhelp\nok\n", usage_set);
    } else {
        sb_printf(out, "error: unknown command '%s' (expected stats, partition, restore, reset, "
                       "set, help)\n",
                  argv[0]);
    }
}
