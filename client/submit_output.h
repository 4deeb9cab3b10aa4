/*
 * submit_output.h - satin-submit --output FILE: the bytes a job returned
 * beside its result (satin_job_report's data), written to a file.
 */
#ifndef SATIN_SUBMIT_OUTPUT_H
#define SATIN_SUBMIT_OUTPUT_H

#include "satin_client.h"

#include <stddef.h>

/* Exit status of data that were not written (EX_IOERR). */
#define SUBMIT_OUTPUT_IOERR 74

/* Before the job is submitted: `path` is not a directory and its directory
 * is writable, so that a long job does not end with nowhere to put its
 * data.  0, or -1 with the reason in why. */
int submit_output_precheck(const char *path, char *why, size_t len);
/* Writes r's data to `path` (created or truncated, mode 0666 less the
 * umask).  0; or -1 with the reason in why: the job has no data, or the
 * file could not be written (a regular file cut short is removed). */
int submit_output_write(const satin_job_report *r, const char *path, char *why, size_t len);

#endif
