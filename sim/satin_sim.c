/*
 * satin_sim.c - satin-sim: one job on a simulated grid, in virtual time,
 * with satind's node engine and policies (sim.h).
 *
 *   satin-sim [--topology FILE | --clusters C --nodes N] [--workers W]
 *             [--policy P] [--seed S] [--json] [--csv FILE] [--lifestory FILE]
 *             [link and cost options] [--crash NODE@SECONDS]...
 *             [--failure-timeout-ms LAN[,WAN]] KIND key=value...
 */
#include "engine.h"
#include "json.h"
#include "policy.h"
#include "policy_config.h"
#include "sim.h"
#include "sim_measure.h"
#include "sim_csv.h"
#include "lifestory.h"
#include "lifestory_plot.h"
#include "modules.h"
#include "trace_capture.h"
#include "topology.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* The paper's LAN (Myrinet): a spawned invocation's round trip 37 us; and
 * its mildest wide-area setting. */
#define LAN_LATENCY_US 18.5
#define LAN_MBPS 100.0
#define WAN_LATENCY_MS 10.0
#define WAN_KBPS 1000.0
/* --task-ns measure: how long uts's child generation is timed. */
#define MEASURE_S 0.25
/* Progress on a terminal, unless told otherwise: a line every few seconds
 * at this machine's few million events a second. */
#define PROGRESS_TTY_EVENTS 10000000
#define LIFESTORY_NODES 64

typedef struct options {
    const char *topology;
    int clusters, nodes, workers;
    const char *policy;
    uint64_t seed;
    int json;
    double lan_latency_us, lan_mbps, wan_latency_ms, wan_kbps, lan_jitter_us, wan_jitter_ms;
    double msg_send_us, msg_recv_us;
    int wan_given;             /* a --wan-* option overrides the file's links */
    int64_t task_ns;
    int measure;               /* --task-ns measure */
    sim_measured measured;
    double time_limit_s;
    uint64_t progress;
    int quiet;
    const char *csv;
    const char *lifestory;     /* .csv or .png */
    int lifestory_nodes;
    const char **crash_args;   /* [ncrashes] NODE@SECONDS, resolved against the grid */
    int ncrashes;
    const char **param_args;   /* [nparams] NAME=VALUE, the policy's tunables */
    int nparams;
    int watch;                 /* --failure-timeout-ms given */
    double fail_lan_ms, fail_wan_ms;   /* 0: the engine's default */
    const char *kinds_dir;     /* the modules of a kind satin-sim does not model */
    int64_t trace_min_leaf_us;
    const char *kind;
    const char *const *params;
} options;

static void usage(FILE *f)
{
    fprintf(f,
        "usage: satin-sim [options] KIND key=value...\n"
        "Runs one job of KIND (fib, uts, replay, synthetic) on a simulated grid with\n"
        "satind's node engine and policies, in virtual time; the same options and seed\n"
        "give the same run.  Any other kind of the modules of --kinds-dir is run here\n"
        "once, every spawn in place and timed, and its tree replayed (satin-trace(1)).\n"
        "  --kinds-dir DIR        the modules of such a kind (default " SATIN_KINDS_DIR ")\n"
        "  --trace-min-leaf-us US such a kind's subtrees under US microseconds in all are\n"
        "                         one task (default %d)\n"
        "  --topology FILE        the grid of a topology file (its policy, links)\n"
        "  --clusters C --nodes N C clusters of N nodes each (default 1 x 1)\n"
        "  --workers W            workers per node (default 1)\n"
        "  --policy P             rs, rp, chs, cls, crs, lifeline, cluster-lifeline\n"
        "                         (default: the file's, else crs)\n"
        "  --seed S               the policies' random draws (default 1)\n"
        "  --param NAME=VALUE     a tunable of the policy, as in a file's policy_params\n"
        "                         (repeatable; over the file's)\n"
        "  --lan-latency-us US    one-way, inside a cluster (default %.1f)\n"
        "  --lan-bandwidth-MBps B each node's interface (default %.0f)\n"
        "  --wan-latency-ms MS    one-way, between clusters (default %.0f, or the file's)\n"
        "  --wan-bandwidth-kBps B each wide-area link, per direction (default %.0f)\n"
        "  --lan-jitter-us US     most extra delay per message inside a cluster (default 0)\n"
        "  --wan-jitter-ms MS     the same between clusters (default 0, or the file's)\n"
        "  --msg-cpu-us S[,R]     a node's control thread's time per message sent (S)\n"
        "                         and received (R; default S) (default 0)\n"
        "  --task-ns NS           virtual time of one task (fib: a call; uts: a hashed child;\n"
        "                         a traced kind: one traced microsecond)\n"
        "  --task-ns measure      uts: time the real child generation here once, and use that\n"
        "  --time-limit-s S       stop there if the job has not ended\n"
        "  --progress N           a line on stderr every N events (default on a terminal:\n"
        "                         every %d)\n"
        "  --quiet                no progress lines\n"
        "  --crash NODE@SECONDS   NODE (its id, or its index) stops for good SECONDS of\n"
        "                         virtual time after submission (repeatable; not the\n"
        "                         job's node); failure detection is then on\n"
        "  --failure-timeout-ms LAN[,WAN]  failure detection on, a LAN and a WAN peer\n"
        "                         silent this long is dead (default: the engine's)\n"
        "  --json                 one JSON object (satin-submit's shape, plus \"sim\")\n"
        "  --csv FILE             append the run's figures to FILE as one CSV row\n"
        "  --lifestory FILE       each worker's states over time: FILE.csv, or FILE.png (gnuplot)\n"
        "  --lifestory-nodes K    of at most K nodes spread over the grid (default %d)\n"
        "  -h, --help             this text\n"
        "  -V, --version          the version\n"
        "Exit status: 0 the job ended ok, 1 it failed or hit the time limit, 2 usage.\n"
        "With --json, a failure is also {\"error\": {\"code\": ..., \"message\": ...}} on stdout.\n",
        TRACE_DEFAULT_MIN_LEAF_US, LAN_LATENCY_US, LAN_MBPS, WAN_LATENCY_MS, WAN_KBPS, PROGRESS_TTY_EVENTS,
        LIFESTORY_NODES);
}

/* The last error said, for --json's error object (main). */
static char last_error[1024];

static void sim_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void sim_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    fprintf(stderr, "satin-sim: %s\n", last_error);
}

/* `fmt` is one of this file's literals, with one %s. */
static int bad(const char *fmt, const char *a)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(last_error, sizeof last_error, fmt, a);
#pragma GCC diagnostic pop
    fprintf(stderr, "satin-sim: %s\n", last_error);
    return -1;
}

static int num(const char *opt, const char *s, double min, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= min && v <= max)) {
        sim_error("%s takes a number from %g to %g, not '%s'", opt, min, max,
                s);
        return -1;
    }
    *out = v;
    return 0;
}

/* "A[,B]" for option `opt` (`form` names them in errors), each a number in
 * [lo, 1e9]: *a, and *b when B is given (else *b is left as it is). */
static int number_pair(const char *opt, const char *form, const char *arg, double lo, double *a,
                       double *b)
{
    char first[64];
    const char *comma = strchr(arg, ',');
    size_t len = comma ? (size_t)(comma - arg) : strlen(arg);
    if (len >= sizeof first) {
        sim_error("%s takes %s, not '%s'", opt, form, arg);
        return -1;
    }
    memcpy(first, arg, len);
    first[len] = 0;
    if (num(opt, first, lo, 1e9, a) < 0)
        return -1;
    return comma ? num(opt, comma + 1, lo, 1e9, b) : 0;
}

/* --msg-cpu-us SEND[,RECV]: RECV is SEND when not given. */
static int msg_cpu(const char *arg, options *o)
{
    if (number_pair("--msg-cpu-us", "SEND[,RECV] in microseconds", arg, 0, &o->msg_send_us,
                    &o->msg_recv_us) < 0)
        return -1;
    if (!strchr(arg, ','))
        o->msg_recv_us = o->msg_send_us;
    return 0;
}

enum { O_TOPO = 256, O_CLUSTERS, O_NODES, O_WORKERS, O_POLICY, O_SEED, O_JSON, O_LANLAT,
       O_LANBW, O_WANLAT, O_WANBW, O_TASK, O_LIMIT, O_PROGRESS, O_QUIET, O_CSV, O_LIFE,
       O_LIFENODES, O_LANJIT, O_WANJIT, O_MSGCPU, O_CRASH, O_FAILTO, O_PARAM, O_KINDS, O_TRACELEAF };

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n > t && strcmp(s + n - t, tail) == 0;
}

/* LAN[,WAN] in ms, each > 0. */
static int failure_timeouts(const char *arg, options *o)
{
    if (number_pair("--failure-timeout-ms", "LAN[,WAN] in ms", arg, 1e-6, &o->fail_lan_ms,
                    &o->fail_wan_ms) < 0)
        return -1;
    o->watch = 1;
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){.clusters = 1, .nodes = 1, .workers = 1, .seed = 1,
                   .lan_latency_us = LAN_LATENCY_US, .lan_mbps = LAN_MBPS,
                   .wan_latency_ms = WAN_LATENCY_MS, .wan_kbps = WAN_KBPS,
                   .lifestory_nodes = LIFESTORY_NODES, .kinds_dir = SATIN_KINDS_DIR,
                   .trace_min_leaf_us = TRACE_DEFAULT_MIN_LEAF_US};
    static const struct option longs[] = {
        {"topology", required_argument, NULL, O_TOPO},
        {"clusters", required_argument, NULL, O_CLUSTERS},
        {"nodes", required_argument, NULL, O_NODES},
        {"workers", required_argument, NULL, O_WORKERS},
        {"policy", required_argument, NULL, O_POLICY},
        {"seed", required_argument, NULL, O_SEED},
        {"json", no_argument, NULL, O_JSON},
        {"lan-latency-us", required_argument, NULL, O_LANLAT},
        {"lan-bandwidth-MBps", required_argument, NULL, O_LANBW},
        {"wan-latency-ms", required_argument, NULL, O_WANLAT},
        {"wan-bandwidth-kBps", required_argument, NULL, O_WANBW},
        {"lan-jitter-us", required_argument, NULL, O_LANJIT},
        {"wan-jitter-ms", required_argument, NULL, O_WANJIT},
        {"msg-cpu-us", required_argument, NULL, O_MSGCPU},
        {"task-ns", required_argument, NULL, O_TASK},
        {"time-limit-s", required_argument, NULL, O_LIMIT},
        {"progress", required_argument, NULL, O_PROGRESS},
        {"quiet", no_argument, NULL, O_QUIET},
        {"csv", required_argument, NULL, O_CSV},
        {"lifestory", required_argument, NULL, O_LIFE},
        {"lifestory-nodes", required_argument, NULL, O_LIFENODES},
        {"crash", required_argument, NULL, O_CRASH},
        {"failure-timeout-ms", required_argument, NULL, O_FAILTO},
        {"param", required_argument, NULL, O_PARAM},
        {"kinds-dir", required_argument, NULL, O_KINDS},
        {"trace-min-leaf-us", required_argument, NULL, O_TRACELEAF},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c, given_shape = 0;
    double v;
    o->crash_args = calloc((size_t)argc, sizeof *o->crash_args);
    o->param_args = calloc((size_t)argc, sizeof *o->param_args);
    if (!o->crash_args || !o->param_args)
        abort();
    opterr = 0;
    /* '+': the job's key=value words are not options. */
    while ((c = getopt_long(argc, argv, "+hV", longs, NULL)) != -1) {
        switch (c) {
        case O_TOPO: o->topology = optarg; break;
        case O_CLUSTERS:
            if (num("--clusters", optarg, 1, 1 << 20, &v) < 0) return -1;
            o->clusters = (int)v, given_shape = 1;
            break;
        case O_NODES:
            if (num("--nodes", optarg, 1, 1 << 24, &v) < 0) return -1;
            o->nodes = (int)v, given_shape = 1;
            break;
        case O_WORKERS:
            if (num("--workers", optarg, 1, 1024, &v) < 0) return -1;
            o->workers = (int)v;
            break;
        case O_POLICY: o->policy = optarg; break;
        case O_SEED:
            if (num("--seed", optarg, 0, 9007199254740992.0, &v) < 0) return -1;
            o->seed = (uint64_t)v;
            break;
        case O_JSON: o->json = 1; break;
        case O_LANLAT: if (num("--lan-latency-us", optarg, 0, 1e9, &o->lan_latency_us) < 0) return -1; break;
        case O_LANBW: if (num("--lan-bandwidth-MBps", optarg, 0, 1e9, &o->lan_mbps) < 0) return -1; break;
        case O_WANLAT:
            if (num("--wan-latency-ms", optarg, 0, 1e9, &o->wan_latency_ms) < 0) return -1;
            o->wan_given = 1;
            break;
        case O_WANBW:
            if (num("--wan-bandwidth-kBps", optarg, 0, 1e12, &o->wan_kbps) < 0) return -1;
            o->wan_given = 1;
            break;
        case O_LANJIT: if (num("--lan-jitter-us", optarg, 0, 1e9, &o->lan_jitter_us) < 0) return -1; break;
        case O_WANJIT:
            if (num("--wan-jitter-ms", optarg, 0, 1e9, &o->wan_jitter_ms) < 0) return -1;
            o->wan_given = 1;
            break;
        case O_MSGCPU:
            if (msg_cpu(optarg, o) < 0) return -1;
            break;
        case O_TASK:
            if (strcmp(optarg, "measure") == 0) {
                o->measure = 1;
                break;
            }
            if (num("--task-ns", optarg, 1, 1e12, &v) < 0) return -1;
            o->task_ns = (int64_t)v;
            break;
        case O_LIMIT: if (num("--time-limit-s", optarg, 0, 1e9, &o->time_limit_s) < 0) return -1; break;
        case O_PROGRESS:
            if (num("--progress", optarg, 1, 1e18, &v) < 0) return -1;
            o->progress = (uint64_t)v;
            break;
        case O_QUIET: o->quiet = 1; break;
        case O_CSV: o->csv = optarg; break;
        case O_LIFE:
            if (!ends_with(optarg, ".csv") && !ends_with(optarg, ".png"))
                return bad("--lifestory writes a .csv or a .png file, not '%s'", optarg);
            o->lifestory = optarg;
            break;
        case O_LIFENODES:
            if (num("--lifestory-nodes", optarg, 1, 1 << 24, &v) < 0) return -1;
            o->lifestory_nodes = (int)v;
            break;
        case O_CRASH: o->crash_args[o->ncrashes++] = optarg; break;
        case O_FAILTO: if (failure_timeouts(optarg, o) < 0) return -1; break;
        case O_PARAM: o->param_args[o->nparams++] = optarg; break;
        case O_KINDS: o->kinds_dir = optarg; break;
        case O_TRACELEAF:
            if (num("--trace-min-leaf-us", optarg, 0, 1e9, &v) < 0) return -1;
            o->trace_min_leaf_us = (int64_t)v;
            break;
        case 'h': usage(stdout); exit(0);
        case 'V': printf("satin-sim %s\n", SATIN_VERSION); exit(0);
        default:
            return bad("unknown option '%s' (satin-sim --help lists them)", argv[optind - 1]);
        }
    }
    if (o->topology && given_shape)
        return bad("%s", "give --topology or --clusters/--nodes, not both");
    if (optind >= argc)
        return bad("%s", "no job: give KIND key=value... (satin-sim --help)");
    if ((int64_t)o->clusters * o->nodes > (1 << 24))
        return bad("%s", "at most 16777216 nodes");
    o->kind = argv[optind];
    o->params = (const char *const *)&argv[optind + 1];
    return 0;
}

/* The grid as the engines see it: from a file, or C x N nodes. */
typedef struct grid {
    satin_policy_topology topo;
    int *cluster_of, *cluster_size, **members;
    char **names;
    satin_policy_config policy;
    satin_topology *file;
} grid;

static void grid_alloc(grid *g, int nnodes, int nclusters)
{
    g->cluster_of = calloc((size_t)nnodes, sizeof *g->cluster_of);
    g->cluster_size = calloc((size_t)nclusters, sizeof *g->cluster_size);
    g->members = calloc((size_t)nclusters, sizeof *g->members);
    g->names = calloc((size_t)nnodes, sizeof *g->names);
    if (!g->cluster_of || !g->cluster_size || !g->members || !g->names)
        abort();
    g->topo = (satin_policy_topology){.nnodes = nnodes, .nclusters = nclusters,
                                      .cluster_of = g->cluster_of,
                                      .cluster_size = g->cluster_size,
                                      .members = (const int *const *)g->members};
}

/* Cluster c: the nodes first .. first + size - 1, as both kinds of grid
 * number them. */
static void set_cluster(grid *g, int c, int first, int size)
{
    g->cluster_size[c] = size;
    g->members[c] = calloc((size_t)(size ? size : 1), sizeof **g->members);
    if (!g->members[c])
        abort();
    for (int k = 0; k < size; k++) {
        g->members[c][k] = first + k;
        g->cluster_of[first + k] = c;
    }
}

static int grid_make(grid *g, const options *o)
{
    memset(g, 0, sizeof *g);
    char err[512], note[256];
    if (o->topology) {
        g->file = satin_topology_load(o->topology, err, sizeof err);
        if (!g->file || satin_policy_configure(g->file, o->policy, &g->policy, note, sizeof note,
                                               err, sizeof err) < 0) {
            sim_error("%s", err);
            return -1;
        }
        const satin_topology *t = g->file;
        grid_alloc(g, t->nnodes, t->nclusters);
        for (int c = 0; c < t->nclusters; c++)
            set_cluster(g, c, t->clusters[c].first_node, t->clusters[c].nnodes);
        for (int node = 0; node < t->nnodes; node++)
            g->names[node] = strdup(t->nodes[node].id);
        return 0;
    }
    const char *name = o->policy ? o->policy : "crs";
    g->policy.ops = satin_policy_find(name);
    if (!g->policy.ops) {
        char names[128];
        satin_policy_list_names(names, sizeof names);
        sim_error("unknown policy '%s' (one of %s)", name, names);
        return -1;
    }
    satin_policy_params_default(&g->policy.params);
    grid_alloc(g, o->clusters * o->nodes, o->clusters);
    for (int c = 0; c < o->clusters; c++) {
        set_cluster(g, c, c * o->nodes, o->nodes);
        for (int k = 0; k < o->nodes; k++) {
            char id[32];
            snprintf(id, sizeof id, "c%dn%d", c, k);
            g->names[c * o->nodes + k] = strdup(id);
        }
    }
    return 0;
}

static void grid_free(grid *g)
{
    for (int i = 0; g->names && i < g->topo.nnodes; i++)
        free(g->names[i]);
    for (int c = 0; g->members && c < g->topo.nclusters; c++)
        free(g->members[c]);
    free(g->members);
    free(g->names);
    free(g->cluster_of);
    free(g->cluster_size);
    satin_topology_destroy(&g->file);
}

/* --param NAME=VALUE, in order, over the file's policy_params. */
static int set_params(const options *o, grid *g)
{
    for (int i = 0; i < o->nparams; i++) {
        char err[640];
        if (satin_policy_set_param(g->policy.ops, &g->policy.params, o->param_args[i], err,
                                   sizeof err) < 0) {
            sim_error("--param %s", err);
            return -1;
        }
    }
    return 0;
}

/* --crash NODE@SECONDS against the grid: NODE is a node's id, else its
 * index.  The job's node cannot crash: the job and its result live there. */
static int resolve_crashes(const options *o, const grid *g, int submit, sim_crash *out)
{
    for (int i = 0; i < o->ncrashes; i++) {
        const char *arg = o->crash_args[i];
        const char *at = strrchr(arg, '@');
        if (!at || at == arg)
            return bad("--crash takes NODE@SECONDS, not '%s'", arg);
        size_t n = (size_t)(at - arg);
        int node = -1;
        for (int k = 0; k < g->topo.nnodes && node < 0; k++)
            if (strlen(g->names[k]) == n && strncmp(g->names[k], arg, n) == 0)
                node = k;
        if (node < 0 && n <= 9 && strspn(arg, "0123456789") == n) {
            long long k = strtoll(arg, NULL, 10);
            node = k < g->topo.nnodes ? (int)k : -1;
        }
        if (node < 0) {
            sim_error("--crash %s: no node '%.*s' in this grid (give a node's "
                    "id, or its index from 0 to %d)", arg, (int)n, arg, g->topo.nnodes - 1);
            return -1;
        }
        double secs;
        if (num("--crash's SECONDS", at + 1, 0, 1e9, &secs) < 0)
            return -1;
        if (node == submit) {
            sim_error("--crash %s: %s is the node the job is submitted to; "
                    "the job and its result live there, so it cannot crash", arg,
                    g->names[node]);
            return -1;
        }
        for (int j = 0; j < i; j++)
            if (out[j].node == node) {
                sim_error("--crash %s: node %s crashes once at most", arg,
                        g->names[node]);
                return -1;
            }
        out[i] = (sim_crash){node, llround(secs * 1e9)};
    }
    return 0;
}

static sim_link wan_link(const options *o)
{
    return (sim_link){(int64_t)(o->wan_latency_ms * 1e6), sim_ns_per_byte(o->wan_kbps * 1e3)};
}

static int64_t counter(const sim_outcome *r, const char *name)
{
    int64_t v = 0;
    satin_kvlist_i64(&r->counters, name, &v);
    return v;
}

/* What failure detection ran with: the crashes and the time-outs in use. */
typedef struct failures {
    int watch;
    const sim_crash *crashes;
    int ncrashes;
    int64_t lan_ns, wan_ns;
} failures;

/* The engines' failure and orphan counters, summed, in the text output. */
static const char *const failure_counters[] = {
    "peers_dead", "records_redone", "redo_results", "late_results_used", "late_results_dropped",
    "steals_to_dead", "results_held", "standins_orphaned", "orphans_told", "orphans_promised",
    "orphans_used", "orphans_waited", "orphan_promises_void", "heartbeats_sent",
};

/* Crashes are queued before anything else of the run: one due when the job
 * ended came first. */
static int crashed(const sim_crash *c, const sim_outcome *r)
{
    return c->at_ns <= r->makespan_ns;
}

static void print_failures(const grid *g, const failures *f, const sim_outcome *r)
{
    if (f->ncrashes) {
        printf("crashes:");
        for (int i = 0; i < f->ncrashes; i++)
            printf("%s %s at %.6f s%s", i ? "," : "", g->names[f->crashes[i].node],
                   (double)f->crashes[i].at_ns / 1e9,
                   crashed(&f->crashes[i], r) ? "" : " (not reached)");
        printf("; lost there: %" PRIu64 " record(s) of other nodes, %" PRIu64
               " task(s) running or queued; %" PRIu64 " message(s) dropped on arrival\n",
               r->records_lost, r->tasks_lost, r->msgs_dropped);
    }
    printf("failures (time-outs LAN %.3f ms, WAN %.3f ms):", (double)f->lan_ns / 1e6,
           (double)f->wan_ns / 1e6);
    for (size_t i = 0; i < sizeof failure_counters / sizeof *failure_counters; i++)
        printf("%s %s %" PRId64, i ? "," : "", failure_counters[i],
               counter(r, failure_counters[i]));
    printf("\n");
}

static void print_text(const options *o, const grid *g, const sim_model *m, const sim_outcome *r,
                       const failures *f, double wall_s, long rss_kb)
{
    double makespan = (double)r->makespan_ns / 1e9, work = (double)r->work_ns / 1e9;
    int total_workers = g->topo.nnodes * o->workers;
    printf("%s on %d cluster(s), %d node(s), %d worker(s) each; policy %s, seed %" PRIu64 "\n",
           m->name, g->topo.nclusters, g->topo.nnodes, o->workers, g->policy.ops->name, o->seed);
    if (o->measure)
        printf("task_ns %" PRId64 ": measured here, %" PRIu64 " uts nodes generated in %.3f s "
               "(--task-ns %" PRId64 " runs this again)\n",
               m->task_ns, o->measured.nodes, o->measured.seconds, m->task_ns);
    if (!r->done)
        printf("not done: the time limit came at %.6f s of virtual time\n", makespan);
    else if (r->failed)
        printf("failed\n");
    else
        printf("%s: %" PRId64 "\n", sim_model_result_name(m), r->result);
    if (m->traced_name[0])
        printf("traced here: %s, %" PRIu64 " invocations in %.6f s on one worker, replayed as "
               "%" PRId64 " tasks\n",
               m->traced_result, m->traced_invocations, m->traced_wall_s, m->trace->nnodes);
    printf("makespan %.6f s; sequential %.6f s; speedup %.2f on %d worker(s), efficiency %.3f\n",
           makespan, work, makespan > 0 ? work / makespan : 0, total_workers,
           makespan > 0 ? work / makespan / total_workers : 0);
    printf("steals: LAN %" PRId64 " attempts, %" PRId64 " successful; WAN %" PRId64
           " attempts, %" PRId64 " successful\n",
           counter(r, "steal_attempts_lan"), counter(r, "steal_successes_lan"),
           counter(r, "steal_attempts_wan"), counter(r, "steal_successes_wan"));
    printf("messages: LAN %" PRIu64 " (%" PRIu64 " bytes), WAN %" PRIu64 " (%" PRIu64
           " bytes, %.1f per second)\n",
           r->net.msgs[0], r->net.bytes[0], r->net.msgs[1], r->net.bytes[1],
           makespan > 0 ? (double)r->net.msgs[1] / makespan : 0);
    printf("idle %.6f s over all workers (%.1f %% of their time)\n", (double)r->idle_ns / 1e9,
           makespan > 0 ? 100.0 * (double)r->idle_ns / 1e9 / (makespan * total_workers) : 0);
    if (f->watch)
        print_failures(g, f, r);
    printf("%" PRIu64 " tasks, %" PRIu64 " events in %.3f s (%.0f events/s), peak RSS %ld MB\n",
           r->tasks, r->events, wall_s, wall_s > 0 ? (double)r->events / wall_s : 0,
           rss_kb / 1024);
}

static void print_json(const options *o, const grid *g, const sim_model *m, const sim_outcome *r,
                       const failures *f, double wall_s, long rss_kb)
{
    double makespan = (double)r->makespan_ns / 1e9, work = (double)r->work_ns / 1e9;
    int total_workers = g->topo.nnodes * o->workers;
    satin_json j;
    satin_json_init(&j);
    satin_json_object_begin(&j);
    satin_json_key(&j, "status");
    satin_json_str(&j, !r->done ? "time limit" : r->failed ? "error" : "ok");
    satin_json_key(&j, "kind");
    satin_json_str(&j, m->name);
    satin_json_key(&j, "result");
    satin_json_object_begin(&j);
    if (r->done && !r->failed) {
        satin_json_key(&j, sim_model_result_name(m));
        satin_json_i64(&j, r->result);
    }
    satin_json_object_end(&j);
    if (m->traced_name[0]) {
        satin_json_key(&j, "traced");
        satin_json_object_begin(&j);
        satin_json_key(&j, "result");
        satin_json_str(&j, m->traced_result);
        satin_json_key(&j, "invocations");
        satin_json_i64(&j, (int64_t)m->traced_invocations);
        satin_json_key(&j, "wall_s");
        satin_json_f64(&j, m->traced_wall_s);
        satin_json_key(&j, "tasks");
        satin_json_i64(&j, m->trace->nnodes);
        satin_json_object_end(&j);
    }
    satin_json_key(&j, "stats");
    satin_json_object_begin(&j);
    for (size_t i = 0; i < r->counters.n; i++) {
        const satin_kv *kv = &r->counters.items[i];
        char key[96];
        snprintf(key, sizeof key, "grid.%s", kv->name);
        satin_json_key(&j, key);
        if (kv->type == SATIN_KV_I64)
            satin_json_i64(&j, kv->i64);
        else
            satin_json_f64(&j, kv->f64);
    }
    satin_json_object_end(&j);
    satin_json_key(&j, "sim");
    satin_json_object_begin(&j);
    satin_json_key(&j, "clusters"); satin_json_i64(&j, g->topo.nclusters);
    satin_json_key(&j, "nodes"); satin_json_i64(&j, g->topo.nnodes);
    satin_json_key(&j, "workers_per_node"); satin_json_i64(&j, o->workers);
    satin_json_key(&j, "policy"); satin_json_str(&j, g->policy.ops->name);
    satin_json_key(&j, "policy_params");
    satin_json_object_begin(&j);
    for (int i = 0; g->policy.ops->tunables && g->policy.ops->tunables[i]; i++) {
        const satin_policy_tunable *t = g->policy.ops->tunables[i];
        satin_json_key(&j, t->name);
        satin_json_f64(&j, satin_policy_param_shown(&g->policy.params, t));
    }
    satin_json_object_end(&j);
    satin_json_key(&j, "seed"); satin_json_u64(&j, o->seed);
    satin_json_key(&j, "task_ns"); satin_json_i64(&j, m->task_ns);
    satin_json_key(&j, "task_ns_measured"); satin_json_bool(&j, o->measure);
    satin_json_key(&j, "makespan_s"); satin_json_f64(&j, makespan);
    satin_json_key(&j, "sequential_s"); satin_json_f64(&j, work);
    satin_json_key(&j, "speedup"); satin_json_f64(&j, makespan > 0 ? work / makespan : 0);
    satin_json_key(&j, "efficiency");
    satin_json_f64(&j, makespan > 0 ? work / makespan / total_workers : 0);
    satin_json_key(&j, "idle_s"); satin_json_f64(&j, (double)r->idle_ns / 1e9);
    satin_json_key(&j, "tasks"); satin_json_u64(&j, r->tasks);
    satin_json_key(&j, "msgs_lan"); satin_json_u64(&j, r->net.msgs[0]);
    satin_json_key(&j, "bytes_lan"); satin_json_u64(&j, r->net.bytes[0]);
    satin_json_key(&j, "msgs_wan"); satin_json_u64(&j, r->net.msgs[1]);
    satin_json_key(&j, "bytes_wan"); satin_json_u64(&j, r->net.bytes[1]);
    satin_json_key(&j, "wan_msgs_per_s");
    satin_json_f64(&j, makespan > 0 ? (double)r->net.msgs[1] / makespan : 0);
    satin_json_key(&j, "events"); satin_json_u64(&j, r->events);
    satin_json_key(&j, "msgs_bad"); satin_json_u64(&j, r->msgs_bad);
    satin_json_key(&j, "peak_events_waiting"); satin_json_u64(&j, r->peak_events);
    if (f->watch) {
        satin_json_key(&j, "failure_timeout_lan_ms"); satin_json_f64(&j, (double)f->lan_ns / 1e6);
        satin_json_key(&j, "failure_timeout_wan_ms"); satin_json_f64(&j, (double)f->wan_ns / 1e6);
        satin_json_key(&j, "crashes");
        satin_json_array_begin(&j);
        for (int i = 0; i < f->ncrashes; i++) {
            satin_json_object_begin(&j);
            satin_json_key(&j, "node"); satin_json_str(&j, g->names[f->crashes[i].node]);
            satin_json_key(&j, "at_s"); satin_json_f64(&j, (double)f->crashes[i].at_ns / 1e9);
            satin_json_key(&j, "reached"); satin_json_bool(&j, crashed(&f->crashes[i], r));
            satin_json_object_end(&j);
        }
        satin_json_array_end(&j);
        satin_json_key(&j, "records_lost"); satin_json_u64(&j, r->records_lost);
        satin_json_key(&j, "tasks_lost"); satin_json_u64(&j, r->tasks_lost);
        satin_json_key(&j, "msgs_dropped"); satin_json_u64(&j, r->msgs_dropped);
    }
    /* The two figures of this machine, not of the simulated grid: the
     * rest is the same for the same options and seed. */
    satin_json_key(&j, "wall_s"); satin_json_f64(&j, wall_s);
    satin_json_key(&j, "peak_rss_mb"); satin_json_i64(&j, rss_kb / 1024);
    satin_json_object_end(&j);
    satin_json_object_end(&j);
    puts(satin_json_text(&j));
    satin_json_free(&j);
}

/* One row of --csv: the run's configuration, then its figures, then this
 * machine's (man/satin-sim.1 lists the columns). */
static int write_csv(const options *o, const grid *g, const sim_model *m, const sim_outcome *r,
                     double wall_s, long rss_kb)
{
    double makespan = (double)r->makespan_ns / 1e9, work = (double)r->work_ns / 1e9;
    int total_workers = g->topo.nnodes * o->workers;
    char params[4096] = "";
    size_t len = 0;
    for (const char *const *p = o->params; *p && len < sizeof params; p++)
        len += (size_t)snprintf(params + len, sizeof params - len, "%s%s", len ? " " : "", *p);
    /* The file's links, unless the command line gave them (then empty). */
    int wan_from_file = g->file && !o->wan_given;
    sim_csv c;
    sim_csv_init(&c);
    sim_csv_str(&c, "status", !r->done ? "time limit" : r->failed ? "error" : "ok");
    sim_csv_str(&c, "kind", m->name);
    sim_csv_str(&c, "params", params);
    sim_csv_str(&c, "topology", o->topology ? o->topology : "");
    sim_csv_str(&c, "policy", g->policy.ops->name);
    sim_csv_i64(&c, "clusters", g->topo.nclusters);
    sim_csv_i64(&c, "nodes", g->topo.nnodes);
    sim_csv_i64(&c, "workers", o->workers);
    sim_csv_u64(&c, "seed", o->seed);
    sim_csv_f64(&c, "lan_latency_us", o->lan_latency_us, 3);
    sim_csv_f64(&c, "lan_bandwidth_MBps", o->lan_mbps, 3);
    if (wan_from_file) {
        sim_csv_str(&c, "wan_latency_ms", "");
        sim_csv_str(&c, "wan_bandwidth_kBps", "");
    } else {
        sim_csv_f64(&c, "wan_latency_ms", o->wan_latency_ms, 3);
        sim_csv_f64(&c, "wan_bandwidth_kBps", o->wan_kbps, 3);
    }
    sim_csv_i64(&c, "task_ns", m->task_ns);
    if (r->done && !r->failed)
        sim_csv_i64(&c, "result", r->result);
    else
        sim_csv_str(&c, "result", "");
    sim_csv_f64(&c, "makespan_s", makespan, 9);
    sim_csv_f64(&c, "sequential_s", work, 9);
    sim_csv_f64(&c, "speedup", makespan > 0 ? work / makespan : 0, 6);
    sim_csv_f64(&c, "efficiency", makespan > 0 ? work / makespan / total_workers : 0, 6);
    sim_csv_i64(&c, "steal_attempts_lan", counter(r, "steal_attempts_lan"));
    sim_csv_i64(&c, "steal_successes_lan", counter(r, "steal_successes_lan"));
    sim_csv_i64(&c, "steal_attempts_wan", counter(r, "steal_attempts_wan"));
    sim_csv_i64(&c, "steal_successes_wan", counter(r, "steal_successes_wan"));
    sim_csv_u64(&c, "msgs_lan", r->net.msgs[0]);
    sim_csv_u64(&c, "bytes_lan", r->net.bytes[0]);
    sim_csv_u64(&c, "msgs_wan", r->net.msgs[1]);
    sim_csv_u64(&c, "bytes_wan", r->net.bytes[1]);
    sim_csv_f64(&c, "wan_msgs_per_s", makespan > 0 ? (double)r->net.msgs[1] / makespan : 0, 3);
    sim_csv_f64(&c, "idle_s", (double)r->idle_ns / 1e9, 9);
    sim_csv_u64(&c, "tasks", r->tasks);
    sim_csv_u64(&c, "events", r->events);
    sim_csv_u64(&c, "peak_events_waiting", r->peak_events);
    sim_csv_f64(&c, "wall_s", wall_s, 3);
    sim_csv_f64(&c, "events_per_s", wall_s > 0 ? (double)r->events / wall_s : 0, 0);
    sim_csv_i64(&c, "peak_rss_mb", rss_kb / 1024);
    char err[512];
    int rc = sim_csv_append(&c, o->csv, err, sizeof err);
    if (rc < 0)
        sim_error("%s", err);
    sim_csv_free(&c);
    return rc;
}

/* --lifestory: where the intervals go while the run goes (for a .png, a
 * file of our own that gnuplot reads after). */
typedef struct lifestory {
    FILE *f;
    char tmp[4096];            /* "" for a .csv */
    satin_life *life;
} lifestory;

static int lifestory_open(lifestory *ls, const options *o)
{
    memset(ls, 0, sizeof *ls);
    if (ends_with(o->lifestory, ".csv")) {
        ls->f = fopen(o->lifestory, "w");
    } else {
        const char *dir = getenv("TMPDIR");
        snprintf(ls->tmp, sizeof ls->tmp, "%s/satin-sim-life.XXXXXX", dir && *dir ? dir : "/tmp");
        int fd = mkstemp(ls->tmp);
        ls->f = fd >= 0 ? fdopen(fd, "w+") : NULL;
        if (!ls->f && fd >= 0)
            close(fd);
    }
    if (!ls->f) {
        sim_error("cannot write %s: %s", ls->tmp[0] ? ls->tmp : o->lifestory,
                strerror(errno));
        if (ls->tmp[0])
            unlink(ls->tmp);
        return -1;
    }
    return 0;
}

static int lifestory_close(lifestory *ls, const options *o, const grid *g, const sim_model *m,
                           const sim_outcome *r)
{
    int rc = satin_life_finish(ls->life, r->makespan_ns);
    if (rc < 0)
        sim_error("cannot write the lifestory: %s", strerror(errno));
    if (fclose(ls->f) == EOF)
        rc = -1;
    if (rc == 0 && ls->tmp[0]) {
        char title[512], err[256];
        snprintf(title, sizeof title,
                 "%s on %d cluster(s) of %d node(s), %d worker(s) each; policy %s, seed %" PRIu64,
                 m->name, g->topo.nclusters, g->topo.nnodes / g->topo.nclusters, o->workers,
                 g->policy.ops->name, o->seed);
        satin_plot_lifestory p = {
            .csv = ls->tmp, .png = o->lifestory, .title = title, .nnodes = g->topo.nnodes,
            .nrec = o->lifestory_nodes < g->topo.nnodes ? o->lifestory_nodes : g->topo.nnodes,
            .workers = o->workers, .cluster_of = g->topo.cluster_of,
            .makespan_ns = r->makespan_ns};
        if ((rc = satin_plot_lifestory_png(&p, err, sizeof err)) < 0)
            sim_error("%s", err);
    }
    if (ls->tmp[0])
        unlink(ls->tmp);
    satin_life_destroy(&ls->life);
    return rc;
}

/* What parse_options allocated. */
static void free_options(options *o)
{
    free(o->crash_args);
    free(o->param_args);
}

/* A kind satin-sim models, or any kind of the modules of --kinds-dir,
 * traced here. */
static int load_model(const options *o, sim_model *m, sim_state *root, char *err, size_t errlen)
{
    if (sim_model_knows(o->kind))
        return sim_model_parse(m, o->kind, o->params, o->task_ns, root, err, errlen);
    memset(m, 0, sizeof *m);
    satin_registry *reg = satin_registry_new();
    satin_err e = {""};
    int rc;
    if (satin_modules_load_dir(reg, o->kinds_dir, &e) < 0)
        rc = -1, snprintf(err, errlen, "%s", e.msg);
    else
        rc = sim_model_trace(m, reg, o->kind, o->params, o->task_ns, o->trace_min_leaf_us, root,
                             err, errlen);
    /* The module stays loaded (the registry's rule): nothing of it runs now. */
    satin_registry_destroy(&reg);
    return rc;
}

static int simulate(int argc, char **argv)
{
    options o;
    if (parse_options(argc, argv, &o) < 0) {
        free_options(&o);
        return 2;
    }
    sim_model model;
    sim_state root;
    char err[512];
    if (load_model(&o, &model, &root, err, sizeof err) < 0) {
        sim_error("%s", err);
        sim_model_free(&model);
        free_options(&o);
        return 2;
    }
    if (o.measure) {
        if (model.kind != SIM_UTS || sim_measure_uts(&model.tree, MEASURE_S, &o.measured) < 0) {
            sim_error("--task-ns measure times uts's child generation; %s",
                    model.kind != SIM_UTS ? "give this kind a number"
                                          : "this tree's root has no children to time");
            sim_model_free(&model);
            free_options(&o);
            return 2;
        }
        model.task_ns = (int64_t)(o.measured.ns_per_node + 0.5);
        if (model.task_ns < 1)
            model.task_ns = 1;
    }
    grid g;
    sim_crash *crashes = calloc((size_t)o.ncrashes + 1, sizeof *crashes);
    if (!crashes)
        abort();
    if (grid_make(&g, &o) < 0 || set_params(&o, &g) < 0 ||
        resolve_crashes(&o, &g, 0, crashes) < 0) {
        grid_free(&g);
        sim_model_free(&model);
        free(crashes);
        free_options(&o);
        return 2;
    }
    satin_engine_config ec;
    satin_engine_config_default(&ec);
    failures f = {.watch = o.watch || o.ncrashes > 0, .crashes = crashes, .ncrashes = o.ncrashes,
                  .lan_ns = o.fail_lan_ms > 0 ? llround(o.fail_lan_ms * 1e6)
                                              : ec.failure_timeout_lan_ns,
                  .wan_ns = o.fail_wan_ms > 0 ? llround(o.fail_wan_ms * 1e6)
                                              : ec.failure_timeout_wan_ns};
    sim_config cfg = {
        .topo = &g.topo,
        .names = (const char *const *)g.names,
        .policy = g.policy.ops,
        .params = g.policy.params,
        .seed = o.seed,
        .workers = o.workers,
        .lan = {(int64_t)(o.lan_latency_us * 1e3), sim_ns_per_byte(o.lan_mbps * 1e6)},
        .lan_jitter_ns = (int64_t)(o.lan_jitter_us * 1e3),
        .wan_jitter_ns = (int64_t)(o.wan_jitter_ms * 1e6),
        .msg_send_ns = (int64_t)(o.msg_send_us * 1e3),
        .msg_recv_ns = (int64_t)(o.msg_recv_us * 1e3),
        .wan = wan_link(&o),
        .time_limit_ns = (int64_t)(o.time_limit_s * 1e9),
        .progress_every = o.quiet ? 0 : o.progress ? o.progress
                        : isatty(STDERR_FILENO) ? PROGRESS_TTY_EVENTS : 0,
        .submit_node = 0,
        .crashes = crashes,
        .ncrashes = o.ncrashes,
        .watch = f.watch,
        .failure_timeout_lan_ns = f.lan_ns,
        .failure_timeout_wan_ns = f.wan_ns,
    };
    sim *s = sim_new(&cfg, &model);
    if (!s) {
        sim_error("the node engine refused this grid");
        grid_free(&g);
        sim_model_free(&model);
        free(crashes);
        free_options(&o);
        return 1;
    }
    /* A file's wide-area links, unless the command line gave them all. */
    if (g.file && !o.wan_given)
        for (int a = 0; a < g.topo.nclusters; a++)
            for (int b = 0; b < g.topo.nclusters; b++) {
                satin_link_def l = satin_topology_link(g.file, a, b);
                sim_set_wan(s, a, b, (sim_link){(int64_t)(l.latency_ms * 1e6),
                                                sim_ns_per_byte(l.bandwidth_kBps * 1e3)});
                if (a != b)
                    sim_set_jitter(s, a, b, (int64_t)(l.jitter_ms * 1e6));
            }
    /* A file that cannot take the row is said now, not after a long run
     * (an empty file gets its header with the row). */
    FILE *csv = o.csv ? fopen(o.csv, "a") : NULL;
    if (o.csv && (!csv || fclose(csv) == EOF)) {
        sim_error("cannot write %s: %s", o.csv, strerror(errno));
        sim_destroy(&s);
        grid_free(&g);
        sim_model_free(&model);
        free(crashes);
        free_options(&o);
        return 2;
    }
    lifestory ls = {0};
    if (o.lifestory) {
        if (lifestory_open(&ls, &o) < 0 ||
            !(ls.life = satin_life_new(g.topo.nnodes, g.topo.cluster_of, o.workers, o.lifestory_nodes, ls.f))) {
            if (ls.f)
                fclose(ls.f);
            if (ls.tmp[0])
                unlink(ls.tmp);
            sim_destroy(&s);
            grid_free(&g);
            sim_model_free(&model);
            free(crashes);
            free_options(&o);
            return 2;
        }
        sim_record_life(s, ls.life);
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    sim_outcome r;
    sim_run(s, &root, &r);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (o.json)
        print_json(&o, &g, &model, &r, &f, wall, ru.ru_maxrss);
    else
        print_text(&o, &g, &model, &r, &f, wall, ru.ru_maxrss);
    int rc = r.done && !r.failed ? 0 : 1;
    if (r.msgs_bad) {
        sim_error("%" PRIu64 " message(s) refused as bad by the codec or an "
                        "engine: the run is not valid (a bug: please report it)", r.msgs_bad);
        rc = 1;
    }
    if (o.lifestory && lifestory_close(&ls, &o, &g, &model, &r) < 0)
        rc = 1;
    if (o.csv && write_csv(&o, &g, &model, &r, wall, ru.ru_maxrss) < 0)
        rc = 1;
    sim_outcome_free(&r);
    sim_destroy(&s);
    sim_model_free(&model);
    grid_free(&g);
    free(crashes);
    free_options(&o);
    return rc;
}

/* With --json every failure is also one JSON object on stdout, as
 * satin-submit's: {"error": {"code": "usage" or "failed", "message": ...}}. */
int main(int argc, char **argv)
{
    int json = 0;
    for (int i = 1; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--") != 0; i++)
        json = json || strcmp(argv[i], "--json") == 0;
    int rc = simulate(argc, argv);
    if (rc != 0 && json && last_error[0]) {
        satin_json j;
        satin_json_init(&j);
        satin_json_object_begin(&j);
        satin_json_key(&j, "error");
        satin_json_object_begin(&j);
        satin_json_key(&j, "code");
        satin_json_str(&j, rc == 2 ? "usage" : "failed");
        satin_json_key(&j, "message");
        satin_json_str(&j, last_error);
        satin_json_object_end(&j);
        satin_json_object_end(&j);
        puts(satin_json_text(&j));
        satin_json_free(&j);
    }
    return rc;
}
