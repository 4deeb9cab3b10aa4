/*
 * policy_config.h - a topology file's `policy` and `policy_params` keys
 * checked against the registry: the policy to run and its tunables.
 */
#ifndef SATIN_POLICY_CONFIG_H
#define SATIN_POLICY_CONFIG_H

#include "policy.h"
#include "topology.h"

#include <stddef.h>

#define SATIN_POLICY_DEFAULT "crs"   /* the paper's best on a wide-area grid */

typedef struct satin_policy_config {
    const satin_policy_ops *ops;
    satin_policy_params params;
} satin_policy_config;

/* The policy `t` names (or `override`, when not NULL: a command line's
 * choice) with its tunables, defaults for what the file leaves out; `t` may
 * be NULL (a node without a grid).  0, or -1 with "FILE:LINE:COLUMN: ..."
 * in err.  A tunable the chosen policy does not read is no error (one file
 * serves runs of every policy): `note` names them ("" when none). */
int satin_policy_configure(const satin_topology *t, const char *override,
                           satin_policy_config *out, char *note, size_t notelen, char *err,
                           size_t errlen);

#endif
