/* sim_csv.c - one run as one CSV row (see sim_csv.h). */
#include "sim_csv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

void sim_csv_init(sim_csv *c)
{
    memset(c, 0, sizeof *c);
}

void sim_csv_free(sim_csv *c)
{
    free(c->names);
    free(c->values);
    memset(c, 0, sizeof *c);
}

static void put(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t want = *cap ? *cap : 256;
        while (want < *len + n + 1)
            want *= 2;
        if (!(*buf = realloc(*buf, want)))
            abort();
        *cap = want;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
}

static void field(char **buf, size_t *len, size_t *cap, const char *s)
{
    if (*len)
        put(buf, len, cap, ",", 1);
    if (!strpbrk(s, ",\"\r\n")) {
        put(buf, len, cap, s, strlen(s));
        return;
    }
    put(buf, len, cap, "\"", 1);
    for (const char *p = s; *p; p++)
        put(buf, len, cap, *p == '"' ? "\"\"" : p, *p == '"' ? 2 : 1);
    put(buf, len, cap, "\"", 1);
}

void sim_csv_str(sim_csv *c, const char *name, const char *value)
{
    field(&c->names, &c->nlen, &c->ncap, name);
    field(&c->values, &c->vlen, &c->vcap, value);
}

void sim_csv_i64(sim_csv *c, const char *name, int64_t value)
{
    char v[32];
    snprintf(v, sizeof v, "%" PRId64, value);
    sim_csv_str(c, name, v);
}

void sim_csv_u64(sim_csv *c, const char *name, uint64_t value)
{
    char v[32];
    snprintf(v, sizeof v, "%" PRIu64, value);
    sim_csv_str(c, name, v);
}

void sim_csv_f64(sim_csv *c, const char *name, double value, int decimals)
{
    char v[64];
    snprintf(v, sizeof v, "%.*f", decimals, value);
    sim_csv_str(c, name, v);
}

const char *sim_csv_header(const sim_csv *c)
{
    return c->names ? c->names : "";
}

int sim_csv_append(const sim_csv *c, const char *path, char *err, size_t errlen)
{
    *err = '\0';
    FILE *f = fopen(path, "a+");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    /* "a+" reads from the start and writes at the end. */
    char *line = NULL;
    size_t cap = 0;
    ssize_t got = getline(&line, &cap, f);
    int rc = 0;
    if (got > 0) {
        if (line[got - 1] == '\n')
            line[--got] = '\0';
        if (strcmp(line, sim_csv_header(c)) != 0) {
            snprintf(err, errlen, "%s holds rows of other columns (its first line is not "
                                  "satin-sim's header)", path);
            rc = -1;
        }
    } else if (fprintf(f, "%s\n", sim_csv_header(c)) < 0) {
        rc = -1;
    }
    if (rc == 0 && fprintf(f, "%s\n", c->values ? c->values : "") < 0)
        rc = -1;
    free(line);
    if (fclose(f) == EOF && rc == 0)
        rc = -1;
    if (rc < 0 && !*err)
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return rc;
}
