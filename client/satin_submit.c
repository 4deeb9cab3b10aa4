/*
 * satin-submit - the user's command line to a satind: submit a job record
 * and print its result, or wait for, cancel or list jobs and kinds.
 *
 * Exit codes (documented in --help and satin-submit(1); scripts rely on
 * them): 0 ok, 1 the job ran and failed (or was cancelled), 2 usage or bad
 * parameters (ours or the daemon's verdict on them), 3 --cancel of a job
 * that had already finished, 4 unknown job, 69 daemon unreachable, lost or
 * shutting down (EX_UNAVAILABLE), 74 output not written (EX_IOERR), 75 the
 * daemon's job limits reached (EX_TEMPFAIL: try again later), 76 a reply
 * SGP/3 does not allow (EX_PROTOCOL), 77 our key may not submit
 * (EX_NOPERM), 124 --timeout expired (as timeout(1)).  Killed by SIGINT or
 * SIGTERM it dies of that signal, after naming the job that keeps running.
 */
#include "json.h"
#include "satin_client.h"
#include "submit_endpoints.h"
#include "submit_grid.h"
#include "submit_interrupt.h"
#include "submit_output.h"
#include "submit_profile.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef SATIN_VERSION
#define SATIN_VERSION "unknown"
#endif

enum {
    EXIT_JOB_FAILED  = 1,
    EXIT_USAGE       = 2,
    EXIT_FINISHED    = 3,     /* --cancel: the job had already finished */
    EXIT_UNKNOWN_JOB = 4,
    EXIT_UNREACHABLE = 69,    /* sysexits.h EX_UNAVAILABLE */
    EXIT_IOERR       = 74,    /* EX_IOERR */
    EXIT_LIMIT       = 75,    /* EX_TEMPFAIL: the daemon's limits; later may work */
    EXIT_PROTOCOL    = 76,    /* EX_PROTOCOL */
    EXIT_FORBIDDEN   = 77,    /* EX_NOPERM */
    EXIT_TIMEOUT     = 124,
};

typedef enum { MODE_SUBMIT, MODE_WAIT, MODE_CANCEL, MODE_STATUS, MODE_LIST_KINDS, MODE_LIST } mode;

/* One --socket, --node or --topology, in command-line order. */
typedef enum { SOURCE_SOCKET, SOURCE_NODE, SOURCE_TOPOLOGY } source_type;
typedef struct endpoint_source {
    source_type type;
    const char *value;
} endpoint_source;

typedef struct options {
    endpoint_source *sources;  /* --socket and --topology as given (parse_args) */
    submit_endpoints eps;      /* --socket and --topology in order; none: the default */
    int failover;              /* several endpoints, or --topology: a failover client */
    const char *key;           /* --key: our CURVE key pair (tcp:// endpoints) */
    const char *server_key;    /* --server-key: the daemon node's public key */
    mode mode;
    int nmodes;                /* how many of --wait/--cancel/--status/--list/--list-kinds */
    int all;                   /* --list --all */
    int grid;                  /* --status --grid */
    uint64_t job_id;           /* --wait, --cancel */
    int no_wait, parsable, json, stats;
    const char *profile;       /* --profile FILE (.csv or .png) */
    const char *output;        /* --output FILE: the job's data bytes */
    const char *name;          /* --name NAME: the job's name */
    int timeout_ms;            /* -1: none given */
    double timeout_s;
    int64_t deadline_ms;       /* run(): when --timeout runs out (monotonic clock) */
    const char *kind;
    const char *const *params; /* NULL-terminated (the tail of argv) */
} options;

static const char *prog = "satin-submit";
/* --json was given: failures are also a JSON object on stdout. */
static int json_errors;

static void usage(FILE *f)
{
    fprintf(f,
        "Usage: %s [OPTIONS] KIND [key=value...]   submit a job and print its result\n"
        "       %s [OPTIONS] --wait JOBID          wait for a job submitted earlier\n"
        "       %s [OPTIONS] --cancel JOBID        cancel a job\n"
        "       %s [OPTIONS] --status              print the daemon's state\n"
        "       %s [OPTIONS] --status --grid       every node of the daemon's grid, as the\n"
        "                                          daemon sees it: one row a node\n"
        "       %s [OPTIONS] --list-kinds          list job kinds and their parameters\n"
        "       %s [OPTIONS] --list [--all] [--grid]  list the daemon's jobs (--all: with the\n"
        "                                          finished ones it still keeps; --grid: the\n"
        "                                          jobs of every live node of its grid)\n"
        "\n"
        "Modes (one at most; none: submit KIND):\n"
        "  --wait JOBID       wait for a job submitted earlier and print its result\n"
        "  --cancel JOBID     cancel a job\n"
        "  --status           the daemon's state and counters\n"
        "  --list             the daemon's jobs; --all: with the finished ones kept;\n"
        "                     --grid: every live node's, each with its node\n"
        "  --all              with --list\n"
        "  --list-kinds       the job kinds and their parameters\n"
        "\n"
        "Options:\n"
        "  --socket ENDPOINT  satind's endpoint: ipc:///path, a path, or tcp://host:port\n"
        "                     (default: $SATIN_SOCKET, else $XDG_RUNTIME_DIR/satin/satind.sock,\n"
        "                     else /run/satin/satind.sock for root, /tmp/satin-UID/satind.sock);\n"
        "                     give it several times for failover (below)\n"
        "  --server ENDPOINT  the same as --socket (for tcp://host:port)\n"
        "  --node ID          the default socket of node ID of a topology on this machine\n"
        "                     (satind --config FILE --node ID without --socket or client:):\n"
        "                     $SATIN_SOCKET, else satind-ID.sock in the directory above\n"
        "  --topology FILE    the client endpoints ('client:') of FILE's nodes, in file order,\n"
        "                     as if each were given with --socket\n"
        "  --key FILE         this client's CURVE key pair (satin-keygen NAME writes\n"
        "                     NAME.key), for a tcp:// endpoint of a grid under CURVE\n"
        "  --server-key KEY   the daemon node's public key: 40 Z85 characters or its\n"
        "                     NAME.pub file (needed with --key)\n"
        "  --no-wait          print the job id and return at once\n"
        "  --parsable         with --no-wait: print only the job id\n"
        "  --json             print one JSON object instead of text\n"
        "  --stats            also print the job's statistics as a table\n"
        "  --grid             with --list: every live node's jobs; with --status: the\n"
        "                     whole grid as the daemon sees it (state\n"
        "                     of each node: alive, suspected, dead, leaving or left;\n"
        "                     workers, jobs, queues, steals, wide-area traffic); a node\n"
        "                     that does not answer within about 1 s is listed with what\n"
        "                     the daemon knows of it\n"
        "  --name NAME        name the job (up to 63 bytes; shown by --list, in its result\n"
        "                     and accounting record)\n"
        "  --output FILE      write the data the job returns beside its result (e.g.\n"
        "                     raytracer image=1's PPM image) to FILE; exit 74 when it\n"
        "                     returns none or FILE cannot be written\n"
        "  --profile FILE     record what every node's workers did while the job ran\n"
        "                     (computing, waiting for a steal in the cluster or across,\n"
        "                     idle): FILE.csv, or FILE.png drawn by gnuplot\n"
        "  --timeout S        give up after S seconds, connecting included (exit 124 once the\n"
        "                     job was submitted: it keeps running); for --cancel/--status/\n"
        "                     --list-kinds: the reply timeout (default 5)\n"
        "  -h, --help         this text\n"
        "  -V, --version      the version\n"
        "\n"
        "Failover (several --socket, or --topology): the job goes to the first endpoint\n"
        "that answers.  If that node dies before the result comes (its connection closes,\n"
        "it misses heartbeats for ~4 s, sends nothing for 10 s, or is shutting down), the\n"
        "same job is submitted again, from scratch, to the next endpoint, and so on; a line\n"
        "on stderr says so.  Exactly one result is printed: the run that finished (--stats\n"
        "shows its statistics alone).  A node that was slow, not dead, may run the job a\n"
        "second time unseen.  Exit 69 once every endpoint has failed.  --status asks every\n"
        "endpoint; --status --grid and --list-kinds the first that answers; --wait,\n"
        "--cancel and --no-wait take a single endpoint.  Under CURVE: --key ME.key\n"
        "--topology FILE (each node's public_key from FILE).\n"
        "\n"
        "Parameters are checked by the kind in satind: integers are decimal digits, with\n"
        "a '-' only where the kind takes negative numbers (n=010, n=0x10, 'n= 10' are\n"
        "refused); the result repeats the parameters as submitted.\n"
        "\n"
        "With --json, a failure is also one object on stdout:\n"
        "  {\"error\": {\"code\": \"unknown_kind\", \"message\": \"...\"}}\n"
        "Interrupted (Ctrl-C) while a job runs, satin-submit names it on stderr (the job\n"
        "keeps running: collect it with --wait).\n"
        "\n"
        "Exit status: 0 ok, 1 job failed or cancelled, 2 usage or bad parameters,\n"
        "             3 --cancel: the job had already finished, 4 unknown job,\n"
        "             69 daemon unreachable or shutting down, 74 output not written,\n"
        "             75 the daemon's job limits reached (try later), 76 protocol error,\n"
        "             77 not allowed to submit, 124 timeout.\n",
        prog, prog, prog, prog, prog, prog, prog);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void print_json_error(const char *code, const char *message, uint64_t job,
                             const char *endpoint);

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    char text[1024];
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: %s\nTry '%s --help'.\n", prog, text, prog);
    if (json_errors)
        print_json_error("usage", text, 0, NULL);
    return EXIT_USAGE;
}

/* ---- argument parsing ------------------------------------------------------- */

static int parse_job_id(const char *s, uint64_t *out)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v == 0)
        return -1;
    *out = v;
    return 0;
}

static int parse_timeout(const char *s, options *o)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > INT_MAX / 1000.0)
        return -1;
    o->timeout_s = v;
    o->timeout_ms = (int)ceil(v * 1000.0);
    return 0;
}

static void set_mode(options *o, mode m)
{
    o->mode = m;
    o->nmodes++;
}

enum { OPT_SOCKET = 256, OPT_NODE, OPT_TOPOLOGY, OPT_KEY, OPT_SERVER_KEY, OPT_NO_WAIT, OPT_PARSABLE,
       OPT_JSON, OPT_STATS, OPT_TIMEOUT, OPT_LIST_KINDS, OPT_WAIT, OPT_CANCEL, OPT_STATUS,
       OPT_LIST, OPT_ALL, OPT_GRID, OPT_PROFILE, OPT_NAME,
       OPT_OUTPUT };

/* --topology FILE: its nodes' client endpoints join the list (with their
 * public keys when this client has a key: --key). */
static int add_topology(options *o, const char *file)
{
    char note[600], err[1024];
    if (submit_endpoints_from_topology(&o->eps, file, o->key != NULL, note, sizeof note, err,
                                       sizeof err) < 0) {
        fprintf(stderr, "%s: %s\n", prog, err);
        if (json_errors)
            print_json_error("usage", err, 0, NULL);
        return -1;
    }
    if (note[0])
        fprintf(stderr, "%s: %s: %s\n", prog, file, note);
    o->failover = 1;
    return 0;
}

/* Fills *o from argv.  0 to go on, or an exit status (-1: exit 0 after
 * --help or --version). */
static int parse_args(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"socket", required_argument, NULL, OPT_SOCKET},
        {"server", required_argument, NULL, OPT_SOCKET},
        {"topology", required_argument, NULL, OPT_TOPOLOGY},
        {"node", required_argument, NULL, OPT_NODE},
        {"key", required_argument, NULL, OPT_KEY},
        {"server-key", required_argument, NULL, OPT_SERVER_KEY},
        {"no-wait", no_argument, NULL, OPT_NO_WAIT},
        {"parsable", no_argument, NULL, OPT_PARSABLE},
        {"json", no_argument, NULL, OPT_JSON},
        {"stats", no_argument, NULL, OPT_STATS},
        {"profile", required_argument, NULL, OPT_PROFILE},
        {"output", required_argument, NULL, OPT_OUTPUT},
        {"name", required_argument, NULL, OPT_NAME},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"list-kinds", no_argument, NULL, OPT_LIST_KINDS},
        {"wait", required_argument, NULL, OPT_WAIT},
        {"cancel", required_argument, NULL, OPT_CANCEL},
        {"status", no_argument, NULL, OPT_STATUS},
        {"list", no_argument, NULL, OPT_LIST},
        {"all", no_argument, NULL, OPT_ALL},
        {"grid", no_argument, NULL, OPT_GRID},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c;
    memset(o, 0, sizeof *o);
    o->timeout_ms = -1;
    opterr = 0;   /* our own messages, with the --help hint */
    /* --socket and --topology in command-line order, read once --key is
     * known (a topology's CURVE endpoints need it). */
    int nsources = 0;
    o->sources = calloc((size_t)argc + 1, sizeof *o->sources);
    if (!o->sources)
        abort();
    endpoint_source *sources = o->sources;
    while ((c = getopt_long(argc, argv, ":hV", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_SOCKET:
        case OPT_NODE:
        case OPT_TOPOLOGY:
            sources[nsources].type = c == OPT_TOPOLOGY ? SOURCE_TOPOLOGY
                                     : c == OPT_NODE   ? SOURCE_NODE
                                                       : SOURCE_SOCKET;
            sources[nsources++].value = optarg;
            break;
        case OPT_KEY: o->key = optarg; break;
        case OPT_SERVER_KEY: o->server_key = optarg; break;
        case OPT_NO_WAIT: o->no_wait = 1; break;
        case OPT_PARSABLE: o->parsable = 1; break;
        case OPT_JSON: o->json = json_errors = 1; break;
        case OPT_STATS: o->stats = 1; break;
        case OPT_NAME: o->name = optarg; break;
        case OPT_OUTPUT: o->output = optarg; break;
        case OPT_PROFILE:
            if (!submit_profile_path_ok(optarg))
                return usage_error("--profile writes a .csv or a .png file, not '%s'", optarg);
            o->profile = optarg;
            break;
        case OPT_TIMEOUT:
            if (parse_timeout(optarg, o) < 0)
                return usage_error("--timeout wants a positive number of seconds, not '%s'",
                                   optarg);
            break;
        case OPT_LIST_KINDS: set_mode(o, MODE_LIST_KINDS); break;
        case OPT_STATUS: set_mode(o, MODE_STATUS); break;
        case OPT_LIST: set_mode(o, MODE_LIST); break;
        case OPT_ALL: o->all = 1; break;
        case OPT_GRID: o->grid = 1; break;
        case OPT_WAIT:
        case OPT_CANCEL:
            if (parse_job_id(optarg, &o->job_id) < 0)
                return usage_error("'%s' is not a job id (a positive integer)", optarg);
            set_mode(o, c == OPT_WAIT ? MODE_WAIT : MODE_CANCEL);
            break;
        case 'h': usage(stdout); return -1;
        case 'V':
            printf("%s %s (protocol SGP/%d)\n", prog, SATIN_VERSION, SATIN_CLIENT_PROTOCOL_VERSION);
            return -1;
        case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
        default: return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    for (int i = 0; i < nsources; i++) {
        if (sources[i].type == SOURCE_SOCKET)
            submit_endpoints_add(&o->eps, sources[i].value);
        else if (sources[i].type == SOURCE_NODE)
            submit_endpoints_add_node(&o->eps, sources[i].value);
        else if (add_topology(o, sources[i].value) < 0)
            return EXIT_USAGE;
    }
    o->failover = o->failover || o->eps.n > 1;
    if (optind < argc) {
        o->kind = argv[optind];
        o->params = (const char *const *)&argv[optind + 1];  /* argv[argc] is NULL */
    }
    return 0;
}

/* Rejects combinations that make no sense, so nothing is silently ignored. */
static int check_args(const options *o)
{
    if (o->failover && o->key) {
        /* Several endpoints under CURVE: each one's key comes with it. */
        int keyed = 0;
        for (size_t i = 0; i < o->eps.n; i++)
            keyed += o->eps.keys[i][0] != 0;
        if (o->server_key)
            return usage_error("--server-key takes a single endpoint: with several, the nodes' "
                               "public keys come from --topology");
        if (!keyed)
            return usage_error("with several endpoints, --key takes the nodes' public keys from "
                               "--topology (none of its tcp:// client endpoints has one)");
    } else if (!o->key != !o->server_key) {
        return usage_error("--key and --server-key go together");
    }
    if (o->failover && (o->mode == MODE_WAIT || o->mode == MODE_CANCEL))
        return usage_error("--wait and --cancel take a single endpoint: a job id names a "
                           "job on one node");
    if (o->failover && o->no_wait)
        return usage_error("--no-wait takes a single endpoint: with several, nothing would "
                           "stay to submit the job again if its node died");
    if (o->nmodes > 1)
        return usage_error("--wait, --cancel, --status, --list and --list-kinds exclude each other");
    if (o->all && o->mode != MODE_LIST)
        return usage_error("--all only goes with --list");
    if (o->grid && o->mode != MODE_STATUS && o->mode != MODE_LIST)
        return usage_error("--grid only goes with --status or --list");
    if (o->failover && o->mode == MODE_LIST)
        return usage_error("--list takes a single endpoint: it lists one daemon's jobs");
    if (o->mode == MODE_SUBMIT && !o->kind)
        return usage_error("no job kind given (see --list-kinds)");
    if (o->mode != MODE_SUBMIT && o->kind)
        return usage_error("unexpected argument '%s'", o->kind);
    if (o->no_wait && o->mode != MODE_SUBMIT)
        return usage_error("--no-wait only goes with submitting a job");
    if (o->parsable && !o->no_wait)
        return usage_error("--parsable only goes with --no-wait");
    if (o->stats && (o->no_wait || (o->mode != MODE_SUBMIT && o->mode != MODE_WAIT)))
        return usage_error("--stats only goes with waiting for a job");
    if (o->name && o->mode != MODE_SUBMIT)
        return usage_error("--name only goes with submitting a job");
    if (o->profile && (o->no_wait || o->mode != MODE_SUBMIT))
        return usage_error("--profile only goes with submitting a job and waiting for it");
    if (o->output && (o->no_wait || (o->mode != MODE_SUBMIT && o->mode != MODE_WAIT)))
        return usage_error("--output only goes with waiting for a job (submitting it, or --wait)");
    return 0;
}

/* ---- output --------------------------------------------------------------------- */

/* The exit status and the JSON error code of a call's failure. */
static int exit_code(int rc, const satin_client_error *err)
{
    switch (rc) {
    case SATIN_CLIENT_OK: return 0;
    case SATIN_CLIENT_REJECTED:
        switch (err->proto_code) {
        /* The daemon's verdict on what the user typed counts as a usage error. */
        case SATIN_CLIENT_E_UNKNOWN_KIND:
        case SATIN_CLIENT_E_BAD_PARAMS:
        case SATIN_CLIENT_E_TOO_LARGE: return EXIT_USAGE;
        case SATIN_CLIENT_E_UNKNOWN_JOB: return EXIT_UNKNOWN_JOB;
        case SATIN_CLIENT_E_LIMIT_REACHED: return EXIT_LIMIT;
        case SATIN_CLIENT_E_SHUTTING_DOWN: return EXIT_UNREACHABLE;
        case SATIN_CLIENT_E_FORBIDDEN: return EXIT_FORBIDDEN;
        default: return EXIT_PROTOCOL;   /* bad message, unsupported version, unknown codes */
        }
    case SATIN_CLIENT_INVALID: return EXIT_USAGE;
    case SATIN_CLIENT_UNREACHABLE: return EXIT_UNREACHABLE;
    case SATIN_CLIENT_TIMEOUT: return EXIT_TIMEOUT;
    case SATIN_CLIENT_PROTOCOL: return EXIT_PROTOCOL;
    default: return EXIT_JOB_FAILED;
    }
}

static const char *error_code_name(int rc, const satin_client_error *err)
{
    switch (rc) {
    case SATIN_CLIENT_REJECTED:
        switch (err->proto_code) {
        case SATIN_CLIENT_E_UNKNOWN_KIND: return "unknown_kind";
        case SATIN_CLIENT_E_BAD_PARAMS: return "bad_params";
        case SATIN_CLIENT_E_TOO_LARGE: return "too_large";
        case SATIN_CLIENT_E_UNKNOWN_JOB: return "unknown_job";
        case SATIN_CLIENT_E_LIMIT_REACHED: return "limit_reached";
        case SATIN_CLIENT_E_SHUTTING_DOWN: return "shutting_down";
        case SATIN_CLIENT_E_FORBIDDEN: return "forbidden";
        case SATIN_CLIENT_E_UNSUPPORTED_VERSION: return "unsupported_version";
        default: return "bad_message";
        }
    case SATIN_CLIENT_INVALID: return "usage";
    case SATIN_CLIENT_UNREACHABLE: return "unreachable";
    case SATIN_CLIENT_TIMEOUT: return "timeout";
    case SATIN_CLIENT_PROTOCOL: return "protocol";
    default: return "failed";
    }
}

/* {"error": {"code": ..., "message": ..., "job": N, "endpoint": ...}}, the
 * last two only when known, on stdout. */
static void json_error_object(satin_json *j, const char *code, const char *message,
                              uint64_t job, const char *endpoint)
{
    satin_json_init(j);
    satin_json_object_begin(j);
    satin_json_key(j, "error");
    satin_json_object_begin(j);
    satin_json_key(j, "code");
    satin_json_str(j, code);
    satin_json_key(j, "message");
    satin_json_str(j, message);
    if (job) {
        satin_json_key(j, "job");
        satin_json_u64(j, job);
    }
    if (endpoint) {
        satin_json_key(j, "endpoint");
        satin_json_str(j, endpoint);
    }
    satin_json_object_end(j);
    satin_json_object_end(j);
}

static void print_json_error(const char *code, const char *message, uint64_t job,
                             const char *endpoint)
{
    satin_json j;
    json_error_object(&j, code, message, job, endpoint);
    puts(satin_json_text(&j));
    satin_json_free(&j);
}

static int report_error(int rc, const satin_client_error *err)
{
    fprintf(stderr, "%s: %s\n", prog, err->text);
    if (json_errors)
        print_json_error(error_code_name(rc, err), err->text, 0, NULL);
    return exit_code(rc, err);
}

/* A double for people: fixed notation for big numbers, 6 significant digits. */
static void human_f64(char *buf, size_t len, double v)
{
    if (isfinite(v) && fabs(v) >= 1e6 && fabs(v) < 1e15)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.6g", v);
}

/* A value exactly as received (results must not lose digits). */
static void exact_value(char *buf, size_t len, const satin_client_value *kv)
{
    switch (kv->type) {
    case SATIN_CLIENT_I64: snprintf(buf, len, "%" PRId64, kv->i64); break;
    case SATIN_CLIENT_F64: satin_json_fmt_f64(buf, len, kv->f64); break;
    default: snprintf(buf, len, "%s", kv->str); break;
    }
}

static void print_table(const satin_client_values *l, const char *indent)
{
    int kw = 0, vw = 0;
    char v[128];
    for (size_t i = 0; i < l->n; i++) {
        const satin_client_value *kv = &l->items[i];
        if (kv->type == SATIN_CLIENT_F64)
            human_f64(v, sizeof v, kv->f64);
        else
            exact_value(v, sizeof v, kv);
        kw = (int)strlen(kv->name) > kw ? (int)strlen(kv->name) : kw;
        vw = kv->type != SATIN_CLIENT_STR && (int)strlen(v) > vw ? (int)strlen(v) : vw;
    }
    for (size_t i = 0; i < l->n; i++) {
        const satin_client_value *kv = &l->items[i];
        if (kv->type == SATIN_CLIENT_STR) {     /* text is left-aligned, and may be long */
            printf("%s%-*s  %s\n", indent, kw, kv->name, kv->str);
            continue;
        }
        if (kv->type == SATIN_CLIENT_F64)
            human_f64(v, sizeof v, kv->f64);
        else
            exact_value(v, sizeof v, kv);
        printf("%s%-*s  %*s\n", indent, kw, kv->name, vw, v);
    }
}

static void json_values(satin_json *j, const satin_client_values *l)
{
    satin_json_object_begin(j);
    for (size_t i = 0; i < l->n; i++) {
        const satin_client_value *kv = &l->items[i];
        satin_json_key(j, kv->name);
        switch (kv->type) {
        case SATIN_CLIENT_I64: satin_json_i64(j, kv->i64); break;
        case SATIN_CLIENT_F64: satin_json_f64(j, kv->f64); break;
        default: satin_json_str(j, kv->str); break;
        }
    }
    satin_json_object_end(j);
}

/* A job of --list as JSON: its values, with params as an object (as a
 * submission's report has them; null when they are another's). */
static void json_job(satin_json *j, const satin_client_values *l)
{
    satin_json_object_begin(j);
    int params = 0;
    for (size_t i = 0; i < l->n; i++) {
        const satin_client_value *kv = &l->items[i];
        satin_json_key(j, kv->name);
        if (strcmp(kv->name, "params") == 0 && kv->type == SATIN_CLIENT_STR) {
            satin_json_params_text(j, kv->str);
            params = 1;
            continue;
        }
        switch (kv->type) {
        case SATIN_CLIENT_I64: satin_json_i64(j, kv->i64); break;
        case SATIN_CLIENT_F64: satin_json_f64(j, kv->f64); break;
        default: satin_json_str(j, kv->str); break;
        }
    }
    if (!params) {
        satin_json_key(j, "params");
        satin_json_null(j);
    }
    satin_json_object_end(j);
}

static void print_json(satin_json *j)
{
    puts(satin_json_text(j));
    satin_json_free(j);
}

/* The job's parameters as submitted ("key=value" each; NULL: not known
 * here, as for --wait) into a JSON object of strings, or null. */
static void json_params(satin_json *j, const char *const *params)
{
    if (!params) {
        satin_json_null(j);
        return;
    }
    satin_json_object_begin(j);
    for (; *params; params++) {
        const char *eq = strchr(*params, '=');
        char key[128];
        snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - *params) : 0, *params);
        satin_json_key(j, key);
        satin_json_str(j, eq ? eq + 1 : "");
    }
    satin_json_object_end(j);
}

/* written: the file the data went to (--output), NULL when none. */
static void print_report_json(const satin_job_report *r, const char *const *params,
                              const char *written)
{
    satin_json j;
    const char *name = satin_client_values_str(&r->stats, "job_name");
    satin_json_init(&j);
    satin_json_object_begin(&j);
    satin_json_key(&j, "job");
    satin_json_u64(&j, r->job_id);
    satin_json_key(&j, "name");
    satin_json_str(&j, name ? name : "");
    satin_json_key(&j, "kind");
    satin_json_str(&j, r->kind);
    satin_json_key(&j, "params");
    json_params(&j, params);
    satin_json_key(&j, "status");
    satin_json_str(&j, r->ok ? "ok" : "error");
    /* The state --list gives a finished job, so that one schema reads both. */
    satin_json_key(&j, "state");
    satin_json_str(&j, r->ok ? "ok" : strncmp(r->error, "cancelled", 9) == 0 ? "cancelled" : "error");
    satin_json_key(&j, "result");
    json_values(&j, &r->result);
    satin_json_key(&j, "stats");
    json_values(&j, &r->stats);
    /* The data themselves go to --output, not into the JSON. */
    satin_json_key(&j, "data");
    if (r->data_type && r->data_type[0]) {
        satin_json_object_begin(&j);
        satin_json_key(&j, "type");
        satin_json_str(&j, r->data_type);
        satin_json_key(&j, "length");
        satin_json_u64(&j, r->data_len);
        satin_json_key(&j, "file");
        satin_json_str(&j, written);
        satin_json_object_end(&j);
    } else {
        satin_json_null(&j);
    }
    satin_json_key(&j, "error");
    satin_json_str(&j, r->ok ? NULL : r->error);
    satin_json_object_end(&j);
    print_json(&j);
}

/* "uts job 3 (tree=T3) done in 1.234 s: 5529089 nodes, 2764544 leaves, depth 16,
 * 4481234 nodes/s": the parameters as submitted (when known here: not for
 * --wait), and the tree figures for any kind whose result has them. */
static void print_summary(const satin_job_report *r, const char *const *params)
{
    double wall, rate;
    int64_t nodes, leaves, depth;
    const char *name = satin_client_values_str(&r->stats, "job_name");
    printf("%s job %" PRIu64, r->kind, r->job_id);
    if (name)
        printf(" '%s'", name);
    if (params && *params) {
        for (const char *const *p = params; *p; p++)
            printf("%s%s", p == params ? " (" : " ", *p);
        printf(")");
    }
    printf(" done");
    if (satin_client_values_f64(&r->stats, "wall_s", &wall) == 0)
        printf(" in %.3f s", wall);
    const char *sep = ": ";
    if (satin_client_values_i64(&r->result, "nodes", &nodes) == 0) {
        printf("%s%" PRId64 " nodes", sep, nodes);
        sep = ", ";
    }
    if (satin_client_values_i64(&r->result, "leaves", &leaves) == 0) {
        printf("%s%" PRId64 " leaves", sep, leaves);
        sep = ", ";
    }
    if (satin_client_values_i64(&r->result, "depth", &depth) == 0) {
        printf("%sdepth %" PRId64, sep, depth);
        sep = ", ";
    }
    if (satin_client_values_f64(&r->stats, "nodes_per_s", &rate) == 0)
        printf("%s%.0f nodes/s", sep, rate);
    printf("\n");
}

static void print_report_text(const satin_job_report *r, const char *const *params, int stats,
                              const char *written)
{
    char v[128];
    if (r->ok) {
        for (size_t i = 0; i < r->result.n; i++) {
            const satin_client_value *kv = &r->result.items[i];
            if (kv->type == SATIN_CLIENT_STR)
                printf("%s: %s\n", kv->name, kv->str);
            else {
                exact_value(v, sizeof v, kv);
                printf("%s: %s\n", kv->name, v);
            }
        }
        if (r->data_type && r->data_type[0])
            printf("data: %zu bytes of %s%s%s\n", r->data_len, r->data_type,
                   written ? " written to " : " (--output FILE writes them)",
                   written ? written : "");
        print_summary(r, params);
    }
    if (stats && r->stats.n) {
        printf("statistics:\n");
        print_table(&r->stats, "  ");
    }
}

/* ---- progress ---------------------------------------------------------------- */

typedef struct progress_line {
    const char *kind;
    int shown;       /* something is on the line and must be erased */
    int show;        /* stderr is a terminal: draw the line */
    satin_client *c; /* while a job is waited for: the notice for an interrupt */
    uint64_t job_id;
    int json;
} progress_line;

/* What an interrupt leaves behind while job p->job_id runs: its id on the
 * node in use and the command that collects it (on stderr, and as a JSON
 * error with --json).  Kept current: a failover client's job changes node. */
static void update_interrupt_notice(const progress_line *p)
{
    char text[900], line[1000];
    const char *ep = satin_client_endpoint(p->c);
    uint64_t id = satin_client_node_job_id(p->c, p->job_id);
    if (id)
        snprintf(text, sizeof text,
                 "interrupted; job %" PRIu64 " still running on satind at %s (%s --socket %s "
                 "--wait %" PRIu64 " to collect it, --cancel %" PRIu64 " to stop it)",
                 id, ep, prog, ep, id, id);
    else
        snprintf(text, sizeof text,
                 "interrupted while job %" PRIu64 " was being submitted again to %s; it may "
                 "run there (see %s --socket %s --status)", p->job_id, ep, prog, ep);
    snprintf(line, sizeof line, "%s%s: %s\n", p->shown ? "\r\033[K" : "", prog, text);
    if (!p->json) {
        submit_interrupt_set(line, NULL);
        return;
    }
    satin_json j;
    json_error_object(&j, "interrupted", text, id, ep);
    char out[1100];
    snprintf(out, sizeof out, "%s\n", satin_json_text(&j));
    satin_json_free(&j);
    submit_interrupt_set(line, out);
}

static void on_progress(uint64_t job_id, uint64_t elapsed_ms, uint64_t jobs_run, void *arg)
{
    progress_line *p = arg;
    if (p->c)
        update_interrupt_notice(p);
    if (!p->show)
        return;
    /* \r and "erase to end of line" keep it one line that updates in place. */
    fprintf(stderr, "\r%s%sjob %" PRIu64 ": %.1f s, %" PRIu64 " jobs run\033[K",
            p->kind ? p->kind : "", p->kind ? " " : "", job_id, elapsed_ms / 1000.0, jobs_run);
    fflush(stderr);
    if (!p->shown && p->c) {
        p->shown = 1;
        update_interrupt_notice(p);   /* now it must erase the line first */
    }
    p->shown = 1;
}

static void progress_clear(progress_line *p)
{
    if (p->shown)
        fprintf(stderr, "\r\033[K");
    p->shown = 0;
}

/* ---- the modes -------------------------------------------------------------------- */

/* A failover client re-submits the job: one line that says so (the
 * wording is documented and tested). */
static void on_failover(const satin_client_failover *ev, void *arg)
{
    progress_line *p = arg;
    progress_clear(p);
    if (p->c)
        update_interrupt_notice(p);
    fprintf(stderr, "%s: node at %s stopped answering (%s); re-submitting job %" PRIu64
                    " to %s\n",
            prog, ev->from, ev->cause, ev->job_id, ev->to);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* What is left of --timeout (at least 1 ms), or -1 without one. */
static int remaining_ms(const options *o)
{
    if (o->timeout_ms <= 0)
        return -1;
    int64_t left = o->deadline_ms - now_ms();
    return left < 1 ? 1 : (int)left;
}

/* Waits for job_id and prints what came of it.  An interrupt meanwhile
 * names the job (it keeps running); `params`: as submitted, NULL if not
 * known here. */
static int wait_and_print(satin_client *c, const options *o, uint64_t job_id,
                          const char *const *params, progress_line *pl)
{
    satin_job_report r;
    satin_client_error err;
    pl->show = isatty(STDERR_FILENO);
    pl->c = c;
    pl->job_id = job_id;
    pl->json = o->json;
    update_interrupt_notice(pl);
    submit_interrupt_arm();
    int rc = satin_client_wait(c, job_id, remaining_ms(o), &r, on_progress, pl, &err);
    submit_interrupt_disarm();
    pl->c = NULL;
    progress_clear(pl);
    if (rc == SATIN_CLIENT_OK || rc == SATIN_CLIENT_JOB_FAILED) {
        int profile_rc = o->profile ? submit_profile_write(&r, o->profile, o->kind) : 0;
        /* A failed job has no data: its failure is the news, not the file. */
        char why[600] = "";
        int output_rc = o->output && rc == SATIN_CLIENT_OK &&
                                submit_output_write(&r, o->output, why, sizeof why) < 0
                            ? SUBMIT_OUTPUT_IOERR
                            : 0;
        const char *written = o->output && rc == SATIN_CLIENT_OK && !output_rc ? o->output : NULL;
        if (o->json)
            print_report_json(&r, params, written);
        else
            print_report_text(&r, params, o->stats, written);
        if (rc == SATIN_CLIENT_JOB_FAILED)
            fprintf(stderr, "%s: job %" PRIu64 " (%s) failed: %s\n", prog, job_id, r.kind,
                    r.error);
        if (output_rc)
            fprintf(stderr, "%s: %s\n", prog, why);
        satin_job_report_free(&r);
        return rc != SATIN_CLIENT_OK ? EXIT_JOB_FAILED : profile_rc ? profile_rc : output_rc;
    }
    if (rc == SATIN_CLIENT_TIMEOUT) {
        char text[600];
        snprintf(text, sizeof text,
                 "job %" PRIu64 " not finished after %g s; it keeps running on satind "
                 "(%s --wait %" PRIu64 " to collect it, --cancel %" PRIu64 " to stop it)",
                 job_id, o->timeout_s, prog, job_id, job_id);
        fprintf(stderr, "%s: %s\n", prog, text);
        if (o->json)
            print_json_error("timeout", text, job_id, satin_client_endpoint(c));
        return EXIT_TIMEOUT;
    }
    if (rc == SATIN_CLIENT_UNREACHABLE)
        fprintf(stderr, "%s: %s (waiting for job %" PRIu64 ")\n", prog, err.text, job_id);
    else
        fprintf(stderr, "%s: %s\n", prog, err.text);
    if (o->json)
        print_json_error(error_code_name(rc, &err), err.text, 0, NULL);
    return exit_code(rc, &err);
}

static int do_submit(satin_client *c, const options *o, progress_line *pl)
{
    satin_client_error err;
    uint64_t job_id;
    unsigned flags = !o->no_wait && isatty(STDERR_FILENO) ? SATIN_CLIENT_PROGRESS : 0;
    if (o->profile)
        flags |= SATIN_CLIENT_PROFILE;
    if (o->timeout_ms > 0 && remaining_ms(o) < SATIN_CLIENT_DEFAULT_TIMEOUT_MS)
        satin_client_set_request_timeout(c, remaining_ms(o));
    int rc = satin_client_submit_named(c, o->kind, o->params, flags, o->name, &job_id, &err);
    if (rc != SATIN_CLIENT_OK)
        return report_error(rc, &err);
    if (!o->no_wait)
        return wait_and_print(c, o, job_id, o->params, pl);
    if (o->parsable)
        printf("%" PRIu64 "\n", job_id);
    else if (o->json) {
        satin_json j;
        satin_json_init(&j);
        satin_json_object_begin(&j);
        satin_json_key(&j, "job");
        satin_json_u64(&j, job_id);
        satin_json_key(&j, "name");
        satin_json_str(&j, o->name ? o->name : "");
        satin_json_key(&j, "kind");
        satin_json_str(&j, o->kind);
        satin_json_key(&j, "params");
        json_params(&j, o->params);
        satin_json_key(&j, "status");
        satin_json_str(&j, "submitted");
        satin_json_object_end(&j);
        print_json(&j);
    } else if (o->name)
        printf("%s job %" PRIu64 " '%s' submitted\n", o->kind, job_id, o->name);
    else
        printf("%s job %" PRIu64 " submitted\n", o->kind, job_id);
    return 0;
}

/* The daemon says what the CANCEL found (PROTOCOL.md 6.8): a running job
 * is being stopped, a waiting one ended without running, a finished one
 * keeps its result, which is fetched to say how it ended. */
static int do_cancel(satin_client *c, const options *o)
{
    satin_client_error err;
    satin_job_report r = {0};
    int state = SATIN_CLIENT_CANCEL_STOPPING;
    int rc = satin_client_cancel_job(c, o->job_id, &state, &err);
    if (rc != SATIN_CLIENT_OK)
        return report_error(rc, &err);
    int finished = state == SATIN_CLIENT_CANCEL_FINISHED;
    if (finished) {
        rc = satin_client_wait(c, o->job_id,
                               o->timeout_ms > 0 ? remaining_ms(o)
                                                 : SATIN_CLIENT_DEFAULT_TIMEOUT_MS,
                               &r, NULL, NULL, &err);
        if (rc != SATIN_CLIENT_OK && rc != SATIN_CLIENT_JOB_FAILED) {
            satin_job_report_free(&r);
            return report_error(rc, &err);
        }
    }
    if (o->json) {
        satin_json j;
        satin_json_init(&j);
        satin_json_object_begin(&j);
        satin_json_key(&j, "job");
        satin_json_u64(&j, o->job_id);
        satin_json_key(&j, "status");
        satin_json_str(&j, finished ? "already_finished" : "cancelled");
        if (finished) {
            satin_json_key(&j, "state");
            satin_json_str(&j, rc == SATIN_CLIENT_OK ? "ok" : "error");
            satin_json_key(&j, "error");
            satin_json_str(&j, rc == SATIN_CLIENT_OK ? NULL : r.error);
        } else {
            satin_json_key(&j, "started");
            satin_json_bool(&j, state == SATIN_CLIENT_CANCEL_STOPPING);
        }
        satin_json_object_end(&j);
        print_json(&j);
    } else if (state == SATIN_CLIENT_CANCEL_STOPPING)
        printf("job %" PRIu64 " cancelled\n", o->job_id);
    else if (state == SATIN_CLIENT_CANCEL_NOT_STARTED)
        printf("job %" PRIu64 " cancelled before it started\n", o->job_id);
    else if (rc == SATIN_CLIENT_OK)
        printf("job %" PRIu64 " had already finished (ok); nothing to cancel\n", o->job_id);
    else
        printf("job %" PRIu64 " had already finished (error: %s); nothing to cancel\n",
               o->job_id, r.error);
    satin_job_report_free(&r);
    return finished ? EXIT_FINISHED : 0;
}

static int do_status(satin_client *c, const options *o)
{
    satin_client_error err;
    satin_client_values info;
    int rc = satin_client_status(c, &info, &err);
    if (rc != SATIN_CLIENT_OK)
        return report_error(rc, &err);
    if (o->json) {
        satin_json j;
        satin_json_init(&j);
        json_values(&j, &info);
        print_json(&j);
    } else
        print_table(&info, "");
    satin_client_values_free(&info);
    return 0;
}

/* --status --grid: one row per node, or {"NODE": {...}, ...} with --json. */
static int do_grid_status(satin_client *c, const options *o)
{
    satin_client_error err;
    satin_client_values *nodes;
    size_t n;
    int rc = satin_client_grid_status(c, &nodes, &n, &err);
    if (rc != SATIN_CLIENT_OK)
        return report_error(rc, &err);
    if (o->json)
        submit_grid_json(stdout, nodes, n);
    else
        submit_grid_table(stdout, nodes, n);
    satin_client_jobs_free(nodes, n);
    return 0;
}

/* --list: like squeue, one line a job, or {"jobs":[...]} with --json. */
static int do_list(satin_client *c, const options *o)
{
    satin_client_error err;
    satin_client_values *jobs;
    size_t n;
    int rc = o->grid ? satin_client_list_grid(c, o->all, &jobs, &n, &err)
                     : satin_client_list(c, o->all, &jobs, &n, &err);
    if (rc != SATIN_CLIENT_OK)
        return report_error(rc, &err);
    /* Nodes that did not answer: said on stderr, and as "unanswered" in JSON. */
    size_t kept = 0;
    char unanswered[1024] = "";
    for (size_t i = 0; i < n; i++) {
        int64_t un = 0;
        if (satin_client_values_i64(&jobs[i], "unanswered", &un) == 0 && un) {
            const char *node = satin_client_values_str(&jobs[i], "node");
            size_t len = strlen(unanswered);
            snprintf(unanswered + len, sizeof unanswered - len, "%s%s", len ? ", " : "",
                     node ? node : "?");
            satin_client_values_free(&jobs[i]);
            continue;
        }
        jobs[kept++] = jobs[i];
    }
    if (unanswered[0])
        fprintf(stderr, "%s: no list from %s (dead, or no answer within a second)\n", prog,
                unanswered);
    if (o->json) {
        satin_json j;
        satin_json_init(&j);
        satin_json_object_begin(&j);
        satin_json_key(&j, "jobs");
        satin_json_array_begin(&j);
        for (size_t i = 0; i < kept; i++)
            json_job(&j, &jobs[i]);
        satin_json_array_end(&j);
        if (o->grid) {
            satin_json_key(&j, "unanswered");
            satin_json_array_begin(&j);
            for (const char *p = unanswered; *p;) {
                size_t len = strcspn(p, ",");
                satin_json_strn(&j, p, len);
                p += len;
                while (*p == ',' || *p == ' ')
                    p++;
            }
            satin_json_array_end(&j);
        }
        satin_json_object_end(&j);
        print_json(&j);
    } else {
        printf("%6s  %-16s %-12s %-9s %-14s %-8s %9s %9s %12s  %s\n", "JOB", "NAME", "KIND",
               "STATE", "OWNER", "NODE", "AGE_S", "RUN_S", "INVOCATIONS", "PARAMS");
        for (size_t i = 0; i < kept; i++) {
            const satin_client_values *v = &jobs[i];
            int64_t id = 0, inv = 0;
            double age = 0, run = 0;
            satin_client_values_i64(v, "job", &id);
            satin_client_values_i64(v, "invocations", &inv);
            satin_client_values_f64(v, "age_s", &age);
            satin_client_values_f64(v, "run_s", &run);
            const char *kind = satin_client_values_str(v, "kind"),
                       *state = satin_client_values_str(v, "state"),
                       *owner = satin_client_values_str(v, "owner"),
                       *node = satin_client_values_str(v, "node"),
                       *params = satin_client_values_str(v, "params"),
                       *name = satin_client_values_str(v, "name");
            /* Another's parameters are not shown to us: "-". */
            printf("%6" PRId64 "  %-16s %-12s %-9s %-14s %-8s %9.1f %9.1f %12" PRId64 "  %s\n", id,
                   name && *name ? name : "-", kind ? kind : "?", state ? state : "?",
                   owner ? owner : "?", node && *node ? node : "-", age, run, inv,
                   params ? params : "-");
        }
    }
    satin_client_jobs_free(jobs, kept);
    return 0;
}

static void kinds_json(const satin_client_kinds *k)
{
    satin_json j;
    satin_json_init(&j);
    satin_json_object_begin(&j);
    satin_json_key(&j, "kinds");
    satin_json_array_begin(&j);
    for (size_t i = 0; i < k->n; i++) {
        const satin_client_kind *kd = &k->items[i];
        satin_json_object_begin(&j);
        satin_json_key(&j, "name");
        satin_json_str(&j, kd->name);
        satin_json_key(&j, "summary");
        satin_json_str(&j, kd->summary);
        satin_json_key(&j, "module");
        satin_json_str(&j, kd->module);
        satin_json_key(&j, "module_version");
        satin_json_str(&j, kd->module_version);
        satin_json_key(&j, "params");
        satin_json_array_begin(&j);
        for (size_t p = 0; p < kd->nparams; p++) {
            const satin_client_kind_param *pa = &kd->params[p];
            satin_json_object_begin(&j);
            satin_json_key(&j, "name");
            satin_json_str(&j, pa->name);
            satin_json_key(&j, "required");
            satin_json_bool(&j, pa->required);
            satin_json_key(&j, "default");
            satin_json_str(&j, pa->has_default ? pa->def : NULL);
            satin_json_key(&j, "help");
            satin_json_str(&j, pa->help);
            satin_json_object_end(&j);
        }
        satin_json_array_end(&j);
        satin_json_object_end(&j);
    }
    satin_json_array_end(&j);
    satin_json_object_end(&j);
    print_json(&j);
}

/* fib        satin-kinds 0.1.0  naive Fibonacci
 *     n=30          (required)  which number
 * (the kinds' names, modules and summaries in aligned columns) */
static void kinds_text(const satin_client_kinds *k)
{
    int wname = 0, wmod = 0;
    for (size_t i = 0; i < k->n; i++) {
        const satin_client_kind *kd = &k->items[i];
        int n = (int)strlen(kd->name), m = (int)(strlen(kd->module) + 1 + strlen(kd->module_version));
        wname = n > wname ? n : wname;
        wmod = m > wmod ? m : wmod;
    }
    for (size_t i = 0; i < k->n; i++) {
        const satin_client_kind *kd = &k->items[i];
        int w = 0;
        char spec[256], mod[160];
        if (i)
            printf("\n");
        snprintf(mod, sizeof mod, "%s %s", kd->module, kd->module_version);
        printf("%-*s  %-*s  %s\n", wname, kd->name, wmod, mod, kd->summary);
        for (size_t p = 0; p < kd->nparams; p++) {
            const satin_client_kind_param *pa = &kd->params[p];
            int n = (int)strlen(pa->name) + 1 + (int)strlen(pa->def);
            w = n > w ? n : w;
        }
        for (size_t p = 0; p < kd->nparams; p++) {
            const satin_client_kind_param *pa = &kd->params[p];
            if (pa->has_default)
                snprintf(spec, sizeof spec, "%s=%s", pa->name, pa->def);
            else
                snprintf(spec, sizeof spec, "%s", pa->name);
            printf("    %-*s  %-10s  %s\n", w, spec, pa->required ? "(required)" : "", pa->help);
        }
    }
}

static int do_list_kinds(satin_client *c, const options *o)
{
    satin_client_error err;
    satin_client_kinds k;
    int rc = satin_client_list_kinds(c, &k, &err);
    if (rc != SATIN_CLIENT_OK)
        return report_error(rc, &err);
    if (o->json)
        kinds_json(&k);
    else
        kinds_text(&k);
    satin_client_kinds_free(&k);
    return 0;
}

/* One endpoint's status for --status with several: as a table under the
 * endpoint, or as {endpoint, status} / {endpoint, error} into j.  Returns
 * satin-submit's exit status for it. */
static int status_of(const options *o, const char *endpoint, const char *server_key,
                     satin_json *j)
{
    satin_client_error err;
    satin_client_values info = {0, NULL};
    satin_client *c = o->key && server_key[0]
                          ? satin_client_new_curve(endpoint, o->key, server_key, &err)
                          : satin_client_new(endpoint, &err);
    if (c && o->timeout_ms > 0)
        satin_client_set_request_timeout(c, o->timeout_ms);
    int rc = c ? satin_client_status(c, &info, &err) : err.code;
    const char *ep = c ? satin_client_endpoint(c) : endpoint;
    if (o->json) {
        satin_json_object_begin(j);
        satin_json_key(j, "endpoint");
        satin_json_str(j, ep);
        satin_json_key(j, rc == SATIN_CLIENT_OK ? "status" : "error");
        if (rc == SATIN_CLIENT_OK)
            json_values(j, &info);
        else
            satin_json_str(j, err.text);
        satin_json_object_end(j);
    } else {
        printf("%s:\n", ep);
        print_table(&info, "  ");
    }
    if (rc != SATIN_CLIENT_OK)
        fprintf(stderr, "%s: %s\n", prog, err.text);
    satin_client_values_free(&info);
    satin_client_destroy(&c);
    return exit_code(rc, &err);
}

/* --status with several endpoints: every node's in turn, each under its
 * endpoint (as JSON, one array).  Exit 0 when all answered, else the first
 * failure's status. */
static int status_all(const options *o)
{
    int status = 0;
    satin_json j;
    satin_json_init(&j);
    satin_json_array_begin(&j);
    for (size_t i = 0; i < o->eps.n; i++) {
        if (i && !o->json)
            printf("\n");
        int s = status_of(o, o->eps.items[i], o->eps.keys[i], &j);
        status = status ? status : s;
    }
    satin_json_array_end(&j);
    if (o->json)
        print_json(&j);
    else
        satin_json_free(&j);
    return status;
}

static satin_client *connect_client(const options *o, satin_client_error *err)
{
    if (o->failover && o->key)
        return satin_client_new_multi_curve((const char *const *)o->eps.items,
                                            (const char *const *)o->eps.keys, o->key, err);
    if (o->failover)
        return satin_client_new_multi((const char *const *)o->eps.items, err);
    const char *ep = o->eps.n ? o->eps.items[0] : NULL;   /* NULL: the default */
    return o->key ? satin_client_new_curve(ep, o->key, o->server_key, err)
                  : satin_client_new(ep, err);
}

static int run(options *o)
{
    satin_client_error err;
    /* --timeout bounds the whole run: the connect wait included. */
    if (o->timeout_ms > 0) {
        o->deadline_ms = now_ms() + o->timeout_ms;
        satin_client_set_connect_timeout(o->timeout_ms < SATIN_CLIENT_DEFAULT_TIMEOUT_MS
                                             ? o->timeout_ms
                                             : SATIN_CLIENT_DEFAULT_TIMEOUT_MS);
    }
    if (o->failover && o->mode == MODE_STATUS && !o->grid)
        return status_all(o);
    satin_client *c = connect_client(o, &err);
    if (!c)
        return report_error(err.code, &err);
    progress_line pl = {.kind = o->kind};
    satin_client_set_failover_fn(c, on_failover, &pl);
    /* A given --timeout also bounds the replies of the short requests. */
    if (o->timeout_ms > 0 && o->mode != MODE_SUBMIT && o->mode != MODE_WAIT)
        satin_client_set_request_timeout(c, o->timeout_ms);
    int status;
    switch (o->mode) {
    case MODE_WAIT: status = wait_and_print(c, o, o->job_id, NULL, &pl); break;
    case MODE_CANCEL: status = do_cancel(c, o); break;
    case MODE_STATUS: status = o->grid ? do_grid_status(c, o) : do_status(c, o); break;
    case MODE_LIST_KINDS: status = do_list_kinds(c, o); break;
    case MODE_LIST: status = do_list(c, o); break;
    default: status = do_submit(c, o, &pl); break;
    }
    satin_client_destroy(&c);
    return status;
}

int main(int argc, char **argv)
{
    options o;
    /* --json anywhere (getopt takes options after the kind too) makes even
     * an error about an earlier option a JSON object. */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        json_errors = json_errors || strcmp(argv[i], "--json") == 0;
    int status = parse_args(argc, argv, &o);
    if (status == 0)
        status = check_args(&o);
    /* Before anything is submitted: a long job's profile must not be lost
     * for an unwritable directory or a missing gnuplot. */
    if (status == 0 && o.profile && (status = submit_profile_precheck(o.profile)) && o.json)
        print_json_error("io_error", "the --profile file cannot be written", 0, NULL);
    char why[600];
    if (status == 0 && o.output && submit_output_precheck(o.output, why, sizeof why) < 0) {
        fprintf(stderr, "%s: %s; job not %s\n", prog, why,
                o.mode == MODE_WAIT ? "waited for" : "submitted");
        if (o.json)
            print_json_error("io_error", why, 0, NULL);
        status = SUBMIT_OUTPUT_IOERR;
    }
    if (status == 0)
        status = run(&o);
    else if (status < 0)
        status = 0;
    submit_endpoints_free(&o.eps);
    free(o.sources);
    /* Output that did not reach its destination is a failure, not a success. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (status == 0) {
            fprintf(stderr, "%s: cannot write output: %s\n", prog, strerror(errno));
            status = EXIT_IOERR;
        }
    }
    return status;
}
