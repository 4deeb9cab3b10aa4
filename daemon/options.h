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
    int retain_results;       /* finished results kept for WAIT */
    int workers_given, socket_given;
    char config[512];         /* --config / --check-config: the topology file */
    char node[64];            /* --node ID */
    char policy[16];          /* --policy: overrides the file's */
    int check_config;         /* --check-config FILE: validate and exit */
    int list_nodes;           /* --list-nodes: print "ID CLIENT-ENDPOINT" per node */
} satind_options;

/* 0: run; 1: exit 0 now (--help, --version printed); 2: usage error printed. */
int satind_options_parse(satind_options *o, int argc, char **argv);

#endif
