/*
 * submit_profile.h - satin-submit --profile FILE: the job's profile, which
 * the daemon returns in the result's statistics (profile.* items,
 * PROTOCOL.md 14.12), as a CSV of intervals or a PNG drawn by gnuplot
 * (common/lifestory.h, common/lifestory_plot.h).
 */
#ifndef SATIN_SUBMIT_PROFILE_H
#define SATIN_SUBMIT_PROFILE_H

#include "satin_client.h"

/* Exit statuses of a profile that could not be had. */
#define SUBMIT_PROFILE_NONE 76     /* the result carries none (EX_PROTOCOL) */
#define SUBMIT_PROFILE_IOERR 74    /* the file could not be written (EX_IOERR) */

/* 1 when `path` names a file --profile writes (.csv or .png). */
int submit_profile_path_ok(const char *path);
/* Before the job is submitted: `path`'s directory is writable and, for a
 * PNG, gnuplot is there.  0, or SUBMIT_PROFILE_IOERR with the reason on
 * stderr. */
int submit_profile_precheck(const char *path);
/* Writes the profile in `r`'s statistics to `path` and takes the per-node
 * items (long texts) out of them, so that --stats and --json show only the
 * profile.* figures.  `what` names the job in the PNG's title.  Says on
 * stderr which nodes' profiles are missing or were truncated.  0, or one of
 * the exit statuses above with the reason on stderr. */
int submit_profile_write(satin_job_report *r, const char *path, const char *what);

#endif
