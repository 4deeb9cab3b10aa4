/*
 * policy_params.h - the policies' tunables, and how a topology file's
 * `policy` and `policy_params` keys become a policy and its values.
 *
 * Each policy registers the tunables it reads in its ops (`tunables`); the
 * ones several policies share are defined once, in policy.c.  The topology
 * loader (common/) keeps the two keys as written and knows none of these
 * names: satin_policy_configure is the one place that checks them, with the
 * loader's file:line:column messages.
 */
#ifndef SATIN_POLICY_PARAMS_H
#define SATIN_POLICY_PARAMS_H

#include <stddef.h>
#include <stdint.h>

/* The values every policy reads from; each field belongs to one tunable
 * below.  Defaults: satin_policy_params_default(). */
typedef struct satin_policy_params {
    int64_t backoff_min_ns;       /* first delay after a round of failed steals */
    int64_t backoff_max_ns;       /* cap of the doubling delay */
    int64_t steal_max_jobs;       /* jobs a victim hands over per request */
    int64_t rp_threshold;         /* RP: push when the queue is longer than this */
    int64_t rp_max_in_transit;    /* RP: pushes not yet acknowledged */
    int64_t cls_load_interval_ns; /* CLS: load report interval */
    int64_t cls_threshold;        /* CLS: prefetch while cluster load is below this */
    int64_t lifeline_w;           /* lifeline policies: random steals before the lifelines */
    int64_t lifeline_z;           /* lifeline policies: hypercube dimensions (0: log2 nodes) */
    int64_t wan_lifelines;        /* cluster-lifeline: wide-area lifelines per cluster */
    int64_t wan_lifeline_jobs;    /* cluster-lifeline: records per wide-area delivery, at most */
    int64_t wan_lifeline_queue;   /* cluster-lifeline: records queued before any crosses */
} satin_policy_params;

typedef enum {
    SATIN_TUNABLE_COUNT,          /* a whole number in [min, max] */
    SATIN_TUNABLE_MS,             /* milliseconds in (min, max], kept in nanoseconds */
} satin_tunable_unit;

/* One tunable as the topology file spells it. */
typedef struct satin_policy_tunable {
    const char *name;             /* the policy_params key */
    satin_tunable_unit unit;
    double min, max;
    int64_t default_value;        /* in the field's unit (ns for SATIN_TUNABLE_MS) */
    size_t offset;                /* of its field in satin_policy_params */
    const char *not_below;        /* another tunable it must not be less than, or NULL */
} satin_policy_tunable;

/* The shared ones (policy.c), listed by the policies that read them. */
extern const satin_policy_tunable satin_tunable_backoff_min, satin_tunable_backoff_max,
    satin_tunable_steal_max_jobs;

void satin_policy_params_default(satin_policy_params *p);

#endif
