/*
 * params.h - job record parameters (key=value) and argument byte buffers.
 * The definitions behind the opaque satin_params and satin_bytes of <satin/satin.h>.
 */
#ifndef SATIN_PARAMS_H
#define SATIN_PARAMS_H

#include "satin/satin.h"

#define SATIN_MAX_PARAMS 64

struct satin_params {
    size_t n;
    char *key[SATIN_MAX_PARAMS];
    char *val[SATIN_MAX_PARAMS];
    unsigned char given[SATIN_MAX_PARAMS]; /* 0: filled in from a default */
};

struct satin_bytes {
    unsigned char *data;
    size_t len, cap;
    size_t limit;      /* the maximum record size */
    size_t result_size; /* satin_bytes_result_size: the root's result room; 0: the kind's */
};

satin_params *satin_params_new(void);
void satin_params_destroy(satin_params **self);
/* Adds key=value (copies); -1 with err on a duplicate key or too many. */
int satin_params_add(satin_params *self, const char *key, const char *val,
                     satin_err *err);
/* Parses "key=value"; -1 with err when there is no '=' or the key is empty. */
int satin_params_add_text(satin_params *self, const char *kv, satin_err *err);
/* Rejects keys the kind does not list and missing required ones, and fills
 * in the defaults of the others. */
int satin_params_check(satin_params *self, const satin_kind *kind, satin_err *err);

/* One value as the getters of satin.h read it (params.c says how): 0 with
 * *out, or -1 with err naming the parameter. */
int satin_param_parse_i64(const char *name, const char *s, int64_t min, int64_t max,
                          int64_t *out, satin_err *err);
int satin_param_parse_f64(const char *name, const char *s, double min, double max,
                          double *out, satin_err *err);

void satin_bytes_init(satin_bytes *b, size_t limit);
void satin_bytes_free(satin_bytes *b);

#endif
