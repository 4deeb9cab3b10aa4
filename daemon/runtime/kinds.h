/*
 * kinds.h - the registry of job kinds known to this daemon, and the path
 * from a job record (kind name + key=value parameters) to a running job and
 * a formatted result.
 */
#ifndef SATIN_KINDS_H
#define SATIN_KINDS_H

#include "params.h"
#include "pool.h"
#include "satin.h"
#include "satin_kv.h"

/* `kinds` below is a NULL-terminated table of kinds.  The runtime has none
 * of its own: whoever builds the program passes its table (satind and most
 * tests the built-in one of apps/apps.h), so the runtime links without the
 * kinds and a test may run kinds of its own. */
const satin_kind *satin_kinds_find(const satin_kind *const *kinds, const char *name);

/* Checks the parameters (unknown keys, required ones, defaults) and lets the
 * kind turn them into the root's argument bytes. */
int satin_kind_prepare(const satin_kind *kind, satin_params *params,
                       size_t max_record, satin_bytes *arg, satin_err *err);

/* The user-visible result and statistics of a finished job. */
void satin_kind_format(const satin_job *job, satin_kvlist *result, satin_kvlist *stats);

/* A whole job record run to completion on `pool`: what the tests, the
 * benchmarks and the kinds' self-checks use.  `params` is a NULL-terminated
 * list of "key=value" strings. */
typedef struct satin_outcome {
    int failed;            /* 1: the record was rejected or the job failed */
    char error[256];
    satin_kvlist result;
    satin_kvlist stats;
    double wall_s;
} satin_outcome;

void satin_run_record(satin_pool *pool, const satin_kind *const *kinds, const char *kind,
                      const char *const *params, satin_outcome *out);
/* The first half of satin_run_record: finds the kind and turns the parameters
 * into the root's argument bytes (`arg`, to be freed).  -1 with out->failed
 * and out->error set when the record is rejected; `out` is initialised
 * either way. */
int satin_record_prepare(const satin_kind *const *kinds, const char *kind,
                         const char *const *params, size_t max_record,
                         const satin_kind **kind_out, satin_bytes *arg, satin_outcome *out);
void satin_outcome_free(satin_outcome *out);

#endif
