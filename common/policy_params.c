/* policy_params.c - the tunables' defaults and the policy names (see policy_params.h). */
#include "policy_params.h"

#include <stddef.h>

const char *const satin_policy_names[] = {"rs", "rp", "chs", "cls", "crs", NULL};

void satin_policy_params_default(satin_policy_params *p)
{
    p->backoff_min_ns = 1000000;        /* 1 ms */
    p->backoff_max_ns = 100000000;      /* 100 ms */
    p->steal_max_jobs = 1;              /* the paper steals one job at a time */
    p->rp_threshold = 4;
    p->rp_max_in_transit = 8;
    p->cls_load_interval_ns = 10000000; /* 10 ms, "empirically found" (3.4) */
    p->cls_threshold = 1;
}
