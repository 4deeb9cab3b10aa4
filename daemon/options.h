/* options.h - satind's command line. */
#ifndef SATIN_OPTIONS_H
#define SATIN_OPTIONS_H

#include <stddef.h>

typedef struct satind_options {
    int workers;              /* 0: online CPUs */
    char endpoint[512];       /* normalised client endpoint */
    int log_level;
    int foreground;
    size_t max_record;        /* bytes */
    int max_jobs;             /* running at once */
    int max_pending;          /* accepted beyond max_jobs, waiting in order */
    int retain_results;       /* finished results kept for WAIT */
    int workers_given, socket_given;
    char config[512];         /* --config / --check-config: the topology file */
    char node[64];            /* --node ID */
    char policy[32];          /* --policy: overrides the file's (a registry name) */
    int check_config;         /* --check-config FILE: validate and exit */
    int list_nodes;           /* --list-nodes: print "ID CLIENT-ENDPOINT" per node */
    char key[512];            /* --key: this node's CURVE secret key file ("" = default) */
    char socket_group[64];    /* --socket-group: group of the IPC socket ("" = ours) */
    int max_client_jobs;      /* unfinished jobs one client connection may have */
    int max_clients;          /* client connections with unfinished jobs at once */
    double peer_rate;         /* messages per second a peer may send (burst: 1 s) */
    double stop_timeout_s;    /* SIGTERM: how long running jobs may take to finish */
    char log_file[512];       /* --log-file ("" = stderr, or syslog once detached) */
    char pidfile[512];        /* --pidfile ("" = none); made absolute before detaching */
    char metrics[128];        /* --metrics: the Prometheus endpoint ("" = off) */
    char dashboard_token[256]; /* --dashboard-token FILE's token ("" = none) */
    char accounting[512];     /* --accounting: JSON lines of finished jobs ("" = journal only) */
    char kinds_dir[512];      /* --kinds-dir: the kind modules ("" = the topology's, else
                                 SATIN_KINDS_DIR) */
} satind_options;

/* 0: run; 1: exit 0 now (--help, --version printed); 2: usage error printed. */
int satind_options_parse(satind_options *o, int argc, char **argv);

#endif
