/*
 * sim_csv.h - satin-sim's --csv: one run as one row, appended to a file
 * whose first line names the columns.
 *
 * The row is built column by column (a name, a value); appending writes the
 * header first when the file is new or empty, and refuses a file whose
 * header names other columns, so that rows of different layouts never
 * share a file.  Values are quoted as RFC 4180 says when they hold a
 * comma, a quote or a line break.
 */
#ifndef SATIN_SIM_CSV_H
#define SATIN_SIM_CSV_H

#include <stddef.h>
#include <stdint.h>

typedef struct sim_csv {
    char *names, *values;
    size_t nlen, vlen, ncap, vcap;
} sim_csv;

void sim_csv_init(sim_csv *c);
void sim_csv_free(sim_csv *c);
void sim_csv_str(sim_csv *c, const char *name, const char *value);
void sim_csv_i64(sim_csv *c, const char *name, int64_t value);
void sim_csv_u64(sim_csv *c, const char *name, uint64_t value);
/* With `decimals` digits after the point (a fixed layout: the same run
 * gives the same row). */
void sim_csv_f64(sim_csv *c, const char *name, double value, int decimals);
/* The header line, as it is written ("a,b,c"). */
const char *sim_csv_header(const sim_csv *c);
/* Appends the row to `path`.  0, or -1 with the reason in `err`. */
int sim_csv_append(const sim_csv *c, const char *path, char *err, size_t errlen);

#endif
