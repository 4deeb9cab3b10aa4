/*
 * accounting.h - one record per finished job, as sacct keeps them: to the
 * journal with structured fields (SATIN_JOB_ID=, SATIN_KIND=, ...), and to
 * --accounting FILE as one JSON object per line, appended.  satind(8),
 * ACCOUNTING, lists the fields.
 */
#ifndef SATIN_ACCOUNTING_H
#define SATIN_ACCOUNTING_H

#include "satin_kv.h"

#include <stdint.h>

typedef struct satin_job_account {
    uint64_t job_id;
    const char *node;          /* this node's id, or "" */
    const char *owner;         /* who submitted it (principal.h's name) */
    long long owner_uid;       /* an ipc:// client's uid, -1 otherwise */
    const char *kind;
    const char *name;          /* the job's name, "" (or NULL) for none */
    const satin_kvlist *params; /* the SUBMIT's key=value pairs, as strings */
    const char *status;        /* "ok", "error", "cancelled", "not_started" */
    const char *error;         /* "" when ok */
    int64_t submitted_ns, started_ns, finished_ns; /* CLOCK_REALTIME; started 0: never */
    const satin_kvlist *result; /* the RESULT's values (empty when it failed) */
    const satin_kvlist *stats; /* the RESULT's statistics (grid.* sums included) */
} satin_job_account;

/* The record as one JSON line with its newline; the caller frees it. */
char *satin_account_json(const satin_job_account *a);

/* Writes the record: to the journal always (a no-op without one), and
 * appended to `file` when not NULL or "".  -1 with errno when the file
 * could not be written (the caller logs it; the job is not affected). */
int satin_account_write(const satin_job_account *a, const char *file);

#endif
