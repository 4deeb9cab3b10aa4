/*
 * policy_params.h - the policies' tunables as a topology file sets them
 * (its policy and policy_params keys).  Plain data in the common layer, so
 * that every program that reads a topology (satind, satin-wanem, the tools)
 * shares the file's vocabulary without linking any policy code; the
 * policies (daemon/policy/) read these values, and their registry
 * (satin_policy_find) must know every name listed here.
 */
#ifndef SATIN_POLICY_PARAMS_H
#define SATIN_POLICY_PARAMS_H

#include <stdint.h>

/* Tunables; every policy reads the ones it needs.  Defaults in
 * satin_policy_params_default(), documented in etc/README.md. */
typedef struct satin_policy_params {
    int64_t backoff_min_ns;      /* first delay after a round of failed steals (1 ms) */
    int64_t backoff_max_ns;      /* cap of the doubling delay (100 ms) */
    int steal_max_jobs;          /* jobs a victim hands over per request (1, as in the paper) */
    int rp_threshold;            /* RP: push when the queue is longer than this (4) */
    int rp_max_in_transit;       /* RP: pushes not yet acknowledged (8) */
    int64_t cls_load_interval_ns;/* CLS: load report interval (10 ms, the paper's) */
    int64_t cls_threshold;       /* CLS: prefetch while cluster load is below this (1) */
} satin_policy_params;

void satin_policy_params_default(satin_policy_params *p);

/* The policy names a topology may give, NULL-terminated: "rs", "rp", "chs",
 * "cls", "crs". */
extern const char *const satin_policy_names[];

#endif
