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

/* One tunable from a command line, "NAME=VALUE" (satin-sim's --param): the
 * same names, units and ranges as a file's policy_params; a count in
 * decimal digits only.  0, or -1 with the reason in err.  A tunable that
 * `ops` does not read is refused: a command line names one policy. */
int satin_policy_set_param(const satin_policy_ops *ops, satin_policy_params *params,
                           const char *assignment, char *err, size_t errlen);

/* Tunable `t`'s value in `p`, in the unit a file gives it (milliseconds for
 * a time): what a run reports it ran with. */
double satin_policy_param_shown(const satin_policy_params *p, const satin_policy_tunable *t);

#endif
