/*
 * satin-wanem.c - the wide-area emulator's main: options, the topology,
 * then the relays and the control socket in one event loop until SIGTERM.
 *
 *   satin-wanem --config FILE [--control PATH] [--seed N] [--log-level L] [--foreground]
 *   satin-wanem --config FILE --check-emulate     exit 0 if emulate: true, 3 if false
 *   satin-wanem ctl [--control PATH] COMMAND ARGS...
 */
#include "control.h"
#include "ctlclient.h"
#include "loop.h"
#include "relay.h"
#include "topology.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#ifndef SATIN_VERSION
#define SATIN_VERSION "dev"
#endif

typedef struct options {
    const char *config;
    char control[256];
    uint64_t seed;
    int log_level;
    int foreground;
    int check_emulate;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: satin-wanem --config FILE [options]\n"
            "       satin-wanem --config FILE --check-emulate\n"
            "       satin-wanem ctl [--control PATH] COMMAND [ARGS...]   (ctl --help)\n"
            "Relays the traffic between the clusters of a grid, with the latency, jitter and\n"
            "bandwidth of each link of the topology's `wan`, when it says `emulate: true`.\n"
            "  -c, --config FILE      the topology file (required)\n"
            "  -C, --control PATH     the control socket (default\n"
            "                         $XDG_RUNTIME_DIR/satin-wanem.ctl, else\n"
            "                         /tmp/satin-wanem-UID.ctl)\n"
            "  -s, --seed N           the jitter's seed (default 1: runs repeat)\n"
            "  -l, --log-level L      error, warn, info (default) or debug\n"
            "  -f, --foreground       stay in the foreground (for satin-grid and tests)\n"
            "      --check-emulate    exit 0 if the topology says emulate: true, 3 if not\n"
            "  -h, --help             this text\n"
            "  -V, --version          the version\n");
}

/* 0 to go on, 1 to exit 0 (help, version), 2 for a usage error. */
static int parse_options(options *o, int argc, char **argv)
{
    static const struct option longs[] = {
        {"config", required_argument, NULL, 'c'}, {"control", required_argument, NULL, 'C'},
        {"seed", required_argument, NULL, 's'},   {"log-level", required_argument, NULL, 'l'},
        {"foreground", no_argument, NULL, 'f'},   {"check-emulate", no_argument, NULL, 'E'},
        {"help", no_argument, NULL, 'h'},         {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    int ch;
    char *end;
    *o = (options){.seed = 1, .log_level = SATIN_LOG_INFO};
    control_default_path(o->control, sizeof o->control);
    while ((ch = getopt_long(argc, argv, "c:C:s:l:fhV", longs, NULL)) != -1) {
        switch (ch) {
        case 'c':
            o->config = optarg;
            break;
        case 'C':
            if (strlen(optarg) >= sizeof o->control) {
                fprintf(stderr, "satin-wanem: --control: the path is too long\n");
                return 2;
            }
            snprintf(o->control, sizeof o->control, "%s", optarg);
            break;
        case 's':
            errno = 0;
            o->seed = strtoull(optarg, &end, 10);
            if (errno || *end || !*optarg || optarg[0] == '-') {
                fprintf(stderr, "satin-wanem: --seed must be a whole number, not '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 'l':
            if ((o->log_level = satin_log_parse_level(optarg)) < 0) {
                fprintf(stderr, "satin-wanem: unknown log level '%s' (expected error, warn, "
                                "info, debug)\n",
                        optarg);
                return 2;
            }
            break;
        case 'f':
            o->foreground = 1;
            break;
        case 'E':
            o->check_emulate = 1;
            break;
        case 'h':
            usage(stdout);
            return 1;
        case 'V':
            printf("satin-wanem %s\n", SATIN_VERSION);
            return 1;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "satin-wanem: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (!o->config) {
        fprintf(stderr, "satin-wanem: --config FILE is required\n");
        usage(stderr);
        return 2;
    }
    return 0;
}

/* Two sockets per relayed connection: a 64-node grid needs thousands of
 * descriptors, more than the usual soft limit of 1024. */
static void raise_fd_limit(const satin_topology *t)
{
    struct rlimit rl;
    long long conns = 0, listeners = (long long)t->nnodes * (t->nclusters - 1);
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    /* Every node may connect to every node of the other clusters. */
    for (int n = 0; n < t->nnodes; n++)
        conns += t->nnodes - t->clusters[t->nodes[n].cluster].nnodes;
    long long need = listeners + 2 * conns + 64;
    if (rl.rlim_cur != RLIM_INFINITY && (long long)rl.rlim_cur < need)
        log_warn("the limit on open files is %llu but the grid may need %lld (raise ulimit -n)",
                  (unsigned long long)rl.rlim_cur, need);
}

/* Without --foreground: the parent returns once the child is ready (exit 0)
 * or has failed (exit 1), like satind. */
static int detach(int *ready_fd)
{
    int p[2];
    if (pipe(p) < 0) {
        perror("satin-wanem: pipe");
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("satin-wanem: fork");
        return -1;
    }
    if (pid > 0) {
        char c;
        close(p[1]);
        _exit(read(p[0], &c, 1) == 1 ? 0 : 1);
    }
    close(p[0]);
    setsid();
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        close(null);
    }
    *ready_fd = p[1];
    return 0;
}

static int serve(const options *o, const satin_topology *t)
{
    char err[512];
    satin_loop loop;
    relay *r = NULL;
    control *ctl = NULL;
    int ready_fd = -1;
    if (!o->foreground && detach(&ready_fd) < 0)
        return 1;
    static const int stop_signals[] = {SIGTERM, SIGINT, 0};
    if (satin_loop_init(&loop, stop_signals, err, sizeof err) < 0) {
        log_error("%s", err);
        return 1;
    }
    raise_fd_limit(t);
    /* The relays first: the control socket's appearing says "ready". */
    if (!(r = relay_new(&loop, t, o->seed, err, sizeof err)) ||
        !(ctl = control_new(&loop, r, t, o->control, err, sizeof err))) {
        log_error("%s", err);
        relay_free(&r);
        satin_loop_close(&loop);
        return 1;
    }
    log_info("grid %s: %d relay sockets on %s from port %d, %d directed links, control "
              "socket %s, seed %" PRIu64,
              t->name, relay_listeners(r), t->shim_host, t->shim_base_port,
              t->nclusters * (t->nclusters - 1), o->control, o->seed);
    if (ready_fd >= 0) {
        if (write(ready_fd, "", 1) < 0) {
            /* The parent is gone; nobody to tell. */
        }
        close(ready_fd);
    }
    satin_loop_run(&loop, relay_pump, r);
    log_info("stopping (%s): %d connections open", loop.signal ? strsignal(loop.signal) : "error",
              relay_open_connections(r));
    control_free(&ctl);
    relay_free(&r);
    satin_loop_close(&loop);
    return loop.signal ? 0 : 1;
}

int main(int argc, char **argv)
{
    options o;
    char err[512];
    if (argc > 1 && strcmp(argv[1], "ctl") == 0)
        return wanem_ctl_main(argc - 1, argv + 1);
    int rc = parse_options(&o, argc, argv);
    if (rc)
        return rc == 1 ? 0 : 2;
    satin_log_set_program("satin-wanem");
    satin_log_set_level((satin_log_level)o.log_level);
    satin_topology *t = satin_topology_load(o.config, err, sizeof err);
    if (!t) {
        fprintf(stderr, "satin-wanem: %s\n", err);
        return 1;
    }
    if (o.check_emulate) {
        rc = t->emulate ? 0 : 3;
    } else if (!t->emulate) {
        log_info("nothing to emulate: %s says emulate: false", o.config);
        rc = 0;
    } else {
        rc = serve(&o, t);
    }
    satin_topology_destroy(&t);
    return rc;
}
