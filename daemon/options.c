/* options.c - parsing satind's command line, with the defaults. */
#include "options.h"
#include "log.h"
#include "metrics.h"
#include "policy.h"
#include "pool.h"
#include "satin_endpoint.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *out)
{
    char def[512];
    satin_endpoint_default(def, sizeof def);
    fprintf(out,
            "Usage: satind [OPTION]...\n"
            "Run divide-and-conquer jobs on this node's worker threads.\n"
            "\n"
            "  -w, --workers N        worker threads (default: online CPUs)\n"
            "  -s, --socket ENDPOINT  client endpoint: ipc:///path, a bare path, or\n"
            "                         tcp://host:port.  Default: $SATIN_SOCKET, else\n"
            "                         $XDG_RUNTIME_DIR/satin/satind.sock, else\n"
            "                         /run/satin/satind.sock (root) or\n"
            "                         /tmp/satin-UID/satind.sock (here and now:\n"
            "                         %s);\n"
            "                         with --node ID: satind-ID.sock in that directory, unless\n"
            "                         the topology gives the node a client: endpoint; a missing\n"
            "                         directory is made only for the default\n"
            "      --log-level LEVEL  error, warn, info (default) or debug\n"
            "      --log-file FILE    append the log to FILE (SIGHUP reopens it); default stderr,\n"
            "                         or syslog (the journal) once detached\n"
            "      --accounting FILE  append one JSON line per finished job to FILE (each is\n"
            "                         also sent to the journal with SATIN_* fields)\n"
            "      --metrics ADDR     serve Prometheus metrics over HTTP at ADDR/metrics:\n"
            "                         tcp://127.0.0.1:PORT, tcp://[::1]:PORT, tcp://*:PORT\n"
            "                         (every interface), or PORT (on 127.0.0.1); default off;\n"
            "                         the dashboard at ADDR/, its data under ADDR/api/\n"
            "      --dashboard-token FILE  the token (FILE's first line, 16 bytes or more, mode\n"
            "                         0600) every request to --metrics must carry (Bearer, or\n"
            "                         ?token=); without it, off loopback only /metrics is served\n"
            "  -f, --foreground       stay in the foreground (for systemd and tests)\n"
            "      --pidfile FILE     write the daemon's pid to FILE (after detaching), remove\n"
            "                         it at exit; refuse to start if FILE names a running satind\n"
            "      --max-record BYTES largest job record or spawned argument (default %zu)\n"
            "      --max-jobs N       jobs running at once (default 256)\n"
            "      --max-pending N    jobs accepted beyond --max-jobs, waiting in order for\n"
            "                         a slot (default 1024; 0: refuse them)\n"
            "      --retain N         finished results kept for later waits (default 1000)\n"
            "  -c, --config FILE      the grid's topology file (YAML; see etc/README.md)\n"
            "  -n, --node ID          which node of the topology this daemon is\n"
            "  -p, --policy NAME      rs, rp, chs, cls, crs, lifeline or cluster-lifeline\n"
            "                         (default: the file's)\n"
            "      --check-config FILE  validate a topology file and exit (0 valid, 1 not)\n"
            "      --list-nodes       with --config: print each node's id and client endpoint\n"
            "  -k, --key FILE         this node's CURVE secret key (default:\n"
            "                         $CREDENTIALS_DIRECTORY/satind.key, else the topology's\n"
            "                         keys directory/NODE.key, else /etc/satin/keys/NODE.key)\n"
            "      --socket-group NAME  group that may use the IPC socket (mode 0660)\n"
            "      --max-client-jobs N  unfinished jobs per client connection (default 64)\n"
            "      --max-clients N    client connections with unfinished jobs (default 256)\n"
            "      --peer-rate N      messages per second a peer may send (default 50000)\n"
            "      --kinds-dir DIR    the kind modules to load (every *.so of DIR; owned by root\n"
            "                         or this user, writable by nobody else); default the\n"
            "                         node's kinds_dir in the topology, else the grid's, else\n"
            "                         " SATIN_KINDS_DIR "\n"
            "      --stop-timeout S   on SIGTERM, seconds running jobs may take to finish\n"
            "                         before they are cancelled and other nodes' records\n"
            "                         go back to them (default 60)\n"
            "  -h, --help             this help\n"
            "  -V, --version          the version\n"
            "\n"
            "Logs go to stderr, one line per event; without --foreground, once the daemon\n"
            "runs in the background they go to --log-file or else to syslog.  SIGTERM or SIGINT stops the daemon\n"
            "gracefully: it takes no new jobs or steals, lets running jobs finish (up to\n"
            "--stop-timeout; then its own end with an error result, and other nodes'\n"
            "records go back to them to run again), and exits 0.  SIGHUP\n"
            "reopens the --log-file, logs a status line, and reads the --config file\n"
            "again: it logs and refuses errors, and takes a changed membership and a new\n"
            "failure_timeout.  A refusal to start is said on stderr (with --log-file, in the\n"
            "log and on the terminal too); exit status 0 stopped, 1 could not start, 2 usage.\n",
            def, SATIN_MAX_RECORD_DEFAULT);
}

/* --dashboard-token FILE: its first line, which must be 16..255 bytes, in a
 * file others may not read (as a key file). */
static int read_token(const char *path, char *out, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "satind: --dashboard-token %s: %s\n", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && (st.st_mode & 0077)) {
        fprintf(stderr, "satind: --dashboard-token %s: mode %03o lets others read it (chmod 600)\n",
                path, (unsigned)(st.st_mode & 0777));
        fclose(f);
        return -1;
    }
    char line[512] = "";
    if (!fgets(line, sizeof line, f))
        line[0] = '\0';
    fclose(f);
    size_t n = strcspn(line, "\r\n");
    while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'))
        n--;
    line[n] = '\0';
    if (n < 16 || n >= cap) {
        fprintf(stderr, "satind: --dashboard-token %s: the token (its first line) must be 16 to "
                        "%zu bytes, not %zu\n", path, cap - 1, n);
        return -1;
    }
    memcpy(out, line, n + 1);
    return 0;
}

static int parse_count(const char *opt, const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < min || v > max) {
        fprintf(stderr, "satind: %s needs a whole number from %ld to %ld, not '%s'\n", opt,
                min, max, s);
        return -1;
    }
    *out = v;
    return 0;
}

int satind_options_parse(satind_options *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"workers", required_argument, NULL, 'w'},
        {"socket", required_argument, NULL, 's'},
        {"log-level", required_argument, NULL, 'L'},
        {"foreground", no_argument, NULL, 'f'},
        {"max-record", required_argument, NULL, 'R'},
        {"max-jobs", required_argument, NULL, 'J'},
        {"max-pending", required_argument, NULL, 'Q'},
        {"retain", required_argument, NULL, 'T'},
        {"config", required_argument, NULL, 'c'},
        {"node", required_argument, NULL, 'n'},
        {"policy", required_argument, NULL, 'p'},
        {"check-config", required_argument, NULL, 'C'},
        {"list-nodes", no_argument, NULL, 'N'},
        {"key", required_argument, NULL, 'k'},
        {"socket-group", required_argument, NULL, 'G'},
        {"max-client-jobs", required_argument, NULL, 'M'},
        {"max-clients", required_argument, NULL, 'K'},
        {"peer-rate", required_argument, NULL, 'P'},
        {"stop-timeout", required_argument, NULL, 'S'},
        {"log-file", required_argument, NULL, 'l'},
        {"metrics", required_argument, NULL, 'm'},
        {"dashboard-token", required_argument, NULL, 'D'},
        {"pidfile", required_argument, NULL, 'F'},
        {"accounting", required_argument, NULL, 'A'},
        {"kinds-dir", required_argument, NULL, 'E'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->log_level = SATIN_LOG_INFO;
    o->max_record = SATIN_MAX_RECORD_DEFAULT;
    o->max_jobs = 256;
    o->max_pending = 1024;
    o->retain_results = 1000;
    o->max_client_jobs = 64;
    o->max_clients = 256;
    o->peer_rate = 50000;
    o->stop_timeout_s = 60;
    satin_endpoint_default(o->endpoint, sizeof o->endpoint);
    int c;
    long v;
    char err[320];
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":w:s:fhVc:n:p:k:", longopts, NULL)) != -1) {
        switch (c) {
        case 'w':
            if (parse_count("--workers", optarg, 1, 1024, &v) < 0)
                return 2;
            o->workers = (int)v;
            o->workers_given = 1;
            break;
        case 's':
            if (satin_endpoint_normalise(optarg, o->endpoint, sizeof o->endpoint, err,
                                         sizeof err) < 0) {
                fprintf(stderr, "satind: --socket: %s\n", err);
                return 2;
            }
            o->socket_given = 1;
            break;
        case 'C':
            o->check_config = 1;
            /* fall through */
        case 'c':
            snprintf(o->config, sizeof o->config, "%s", optarg);
            break;
        case 'n':
            snprintf(o->node, sizeof o->node, "%s", optarg);
            break;
        case 'p':
            if (!satin_policy_find(optarg)) {
                char names[128];
                satin_policy_list_names(names, sizeof names);
                fprintf(stderr, "satind: unknown policy '%s' (%s)\n", optarg, names);
                return 2;
            }
            snprintf(o->policy, sizeof o->policy, "%s", satin_policy_find(optarg)->name);
            break;
        case 'N':
            o->list_nodes = 1;
            break;
        case 'k':
            if (snprintf(o->key, sizeof o->key, "%s", optarg) >= (int)sizeof o->key) {
                fprintf(stderr, "satind: --key: path too long\n");
                return 2;
            }
            break;
        case 'l':
            if (!*optarg ||
                snprintf(o->log_file, sizeof o->log_file, "%s", optarg) >= (int)sizeof o->log_file) {
                fprintf(stderr, "satind: --log-file needs a path (shorter than %zu bytes)\n",
                        sizeof o->log_file);
                return 2;
            }
            break;
        case 'm':
            if (strlen(optarg) >= sizeof o->metrics) {
                fprintf(stderr, "satind: --metrics: too long\n");
                return 2;
            }
            if (satin_metrics_check_spec(optarg, err, sizeof err) < 0) {
                fprintf(stderr, "satind: %s\n", err);
                return 2;
            }
            snprintf(o->metrics, sizeof o->metrics, "%s", optarg);
            break;
        case 'D':
            if (read_token(optarg, o->dashboard_token, sizeof o->dashboard_token) < 0)
                return 2;
            break;
        case 'A':
            if (!*optarg || snprintf(o->accounting, sizeof o->accounting, "%s", optarg) >=
                                (int)sizeof o->accounting) {
                fprintf(stderr, "satind: --accounting needs a path (shorter than %zu bytes)\n",
                        sizeof o->accounting);
                return 2;
            }
            break;
        case 'F':
            if (!*optarg ||
                snprintf(o->pidfile, sizeof o->pidfile, "%s", optarg) >= (int)sizeof o->pidfile) {
                fprintf(stderr, "satind: --pidfile needs a path (shorter than %zu bytes)\n",
                        sizeof o->pidfile);
                return 2;
            }
            break;
        case 'G':
            if (!*optarg || snprintf(o->socket_group, sizeof o->socket_group, "%s", optarg) >=
                                (int)sizeof o->socket_group) {
                fprintf(stderr, "satind: --socket-group needs a group name\n");
                return 2;
            }
            break;
        case 'M':
            if (parse_count("--max-client-jobs", optarg, 1, 1000000, &v) < 0)
                return 2;
            o->max_client_jobs = (int)v;
            break;
        case 'K':
            if (parse_count("--max-clients", optarg, 1, 1000000, &v) < 0)
                return 2;
            o->max_clients = (int)v;
            break;
        case 'P':
            if (parse_count("--peer-rate", optarg, 10, 100000000, &v) < 0)
                return 2;
            o->peer_rate = (double)v;
            break;
        case 'E':
            if (!*optarg || snprintf(o->kinds_dir, sizeof o->kinds_dir, "%s", optarg) >=
                                (int)sizeof o->kinds_dir) {
                fprintf(stderr, "satind: --kinds-dir needs a directory (shorter than %zu bytes)\n",
                        sizeof o->kinds_dir);
                return 2;
            }
            break;
        case 'S':
            if (parse_count("--stop-timeout", optarg, 0, 86400, &v) < 0)
                return 2;
            o->stop_timeout_s = (double)v;
            break;
        case 'L':
            if ((o->log_level = satin_log_parse_level(optarg)) < 0) {
                fprintf(stderr, "satind: unknown log level '%s' (error, warn, info, debug)\n",
                        optarg);
                return 2;
            }
            break;
        case 'f':
            o->foreground = 1;
            break;
        case 'R':
            if (parse_count("--max-record", optarg, 1024, 1L << 30, &v) < 0)
                return 2;
            o->max_record = (size_t)v;
            break;
        case 'Q':
            if (parse_count("--max-pending", optarg, 0, 1000000, &v) < 0)
                return 2;
            o->max_pending = (int)v;
            break;
        case 'J':
            if (parse_count("--max-jobs", optarg, 1, 1000000, &v) < 0)
                return 2;
            o->max_jobs = (int)v;
            break;
        case 'T':
            if (parse_count("--retain", optarg, 0, 1000000, &v) < 0)
                return 2;
            o->retain_results = (int)v;
            break;
        case 'h':
            usage(stdout);
            return 1;
        case 'V':
            printf("satind %s\n", SATIN_VERSION);
            return 1;
        case ':':
            fprintf(stderr, "satind: option %s needs a value\n", argv[optind - 1]);
            return 2;
        default:
            fprintf(stderr, "satind: unknown option '%s' (see satind --help)\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if ((o->node[0] || o->list_nodes) && !o->config[0]) {
        fprintf(stderr, "satind: --node and --list-nodes need --config FILE\n");
        return 2;
    }
    if (o->config[0] && !o->node[0] && !o->check_config && !o->list_nodes) {
        fprintf(stderr, "satind: --config needs --node ID (which node of the grid this is)\n");
        return 2;
    }
    if (o->dashboard_token[0] && !o->metrics[0]) {
        fprintf(stderr, "satind: --dashboard-token goes with --metrics ADDR\n");
        return 2;
    }
    if (optind < argc) {
        fprintf(stderr, "satind: unexpected argument '%s' (see satind --help)\n", argv[optind]);
        return 2;
    }
    return 0;
}
