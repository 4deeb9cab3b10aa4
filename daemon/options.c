/* options.c - parsing satind's command line, with the defaults. */
#include "options.h"
#include "log.h"
#include "pool.h"
#include "satin_endpoint.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
            "                         tcp://host:port (default: %s)\n"
            "      --log-level LEVEL  error, warn, info (default) or debug\n"
            "  -f, --foreground       stay in the foreground (for systemd and tests)\n"
            "      --max-record BYTES largest job record or spawned argument (default %zu)\n"
            "      --max-jobs N       jobs running at once (default 256)\n"
            "      --retain N         finished results kept for later waits (default 1000)\n"
            "  -h, --help             this help\n"
            "  -V, --version          the version\n"
            "\n"
            "Logs go to stderr, one line per event.  SIGTERM or SIGINT stops the daemon:\n"
            "running jobs end with an error result to their clients.\n",
            def, SATIN_MAX_RECORD_DEFAULT);
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
        {"retain", required_argument, NULL, 'T'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->log_level = SATIN_LOG_INFO;
    o->max_record = SATIN_MAX_RECORD_DEFAULT;
    o->max_jobs = 256;
    o->retain_results = 1000;
    satin_endpoint_default(o->endpoint, sizeof o->endpoint);
    int c;
    long v;
    char err[256];
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":w:s:fhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'w':
            if (parse_count("--workers", optarg, 1, 1024, &v) < 0)
                return 2;
            o->workers = (int)v;
            break;
        case 's':
            if (satin_endpoint_normalise(optarg, o->endpoint, sizeof o->endpoint, err,
                                         sizeof err) < 0) {
                fprintf(stderr, "satind: --socket: %s\n", err);
                return 2;
            }
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
    if (optind < argc) {
        fprintf(stderr, "satind: unexpected argument '%s' (see satind --help)\n", argv[optind]);
        return 2;
    }
    return 0;
}
