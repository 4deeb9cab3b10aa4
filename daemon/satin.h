/*
 * satin.h - the job API for writers of job kinds.
 *
 * A kind is a pure function of its argument bytes, written with spawn and
 * sync as in Satin/Cilk.  satin_spawn() records an invocation at the head of
 * the calling worker's deque; load balancing takes records from the tail;
 * satin_sync() runs this frame's own children (LIFO) and waits for those that
 * were stolen.  A child's result is written into the slot its parent named
 * and is only defined after satin_sync().
 *
 * Kinds know nothing of threads, sockets or the wire: the same kind runs
 * inside satind, in the unit tests and in the benchmarks.
 */
#ifndef SATIN_H_INCLUDED
#define SATIN_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SATIN_API_VERSION 1

typedef struct satin_ctx satin_ctx;       /* the running frame */
typedef struct satin_out satin_out;       /* where this invocation's result goes */
typedef struct satin_kind satin_kind;
typedef struct satin_params satin_params; /* key=value parameters of a job record */
typedef struct satin_bytes satin_bytes;   /* a growable byte buffer (argument bytes) */
typedef struct satin_result satin_result; /* typed key/value output of a kind */

/* An error message a kind hands back to the user verbatim. */
typedef struct satin_err {
    char msg[256];
} satin_err;

/* Sets err->msg and returns -1, so that parsers can `return satin_err_set(...)`. */
int satin_err_set(satin_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- spawn / sync ------------------------------------------------------ */

/* Records an invocation of `kind` with a copy of `len` argument bytes.  The
 * child's result (at most `result_cap` bytes) lands in `result` by the next
 * satin_sync() of this frame.  The argument is copied now: the caller's
 * buffer may be reused at once. */
void satin_spawn(satin_ctx *ctx, const satin_kind *kind, const void *arg,
                 size_t len, void *result, size_t result_cap);

/* Runs or waits for every child spawned by this frame since its last sync. */
void satin_sync(satin_ctx *ctx);

/* Sets this invocation's result.  More than the slot's capacity fails the job. */
void satin_return(satin_out *out, const void *data, size_t len);

/* Fails the whole job with a message for the user; the first failure wins. */
void satin_fail(satin_out *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* True once the job was cancelled or failed: long loops may stop early.
 * (Spawns of a cancelled job are dropped and its children are not run.) */
int satin_cancelled(const satin_ctx *ctx);

/* ---- parameters --------------------------------------------------------- */

typedef struct satin_param_def {
    const char *name;
    const char *def;   /* default value as text; NULL: no default */
    int required;      /* 1: the user must give it */
    const char *help;
} satin_param_def;

/* Getters: the value of `name` converted and range-checked.  They return 0,
 * 1 when the parameter is absent (and has no default), -1 with err set when
 * it is malformed or out of range.  Integers are decimal digits with an
 * optional '-' and no leading zero (no octal, hex or blanks); numbers are
 * decimal notation (digits, '.', an exponent; no hex, inf or nan). */
int satin_param_i64(const satin_params *p, const char *name, int64_t min,
                    int64_t max, int64_t *out, satin_err *err);
int satin_param_f64(const satin_params *p, const char *name, double min,
                    double max, double *out, satin_err *err);
int satin_param_str(const satin_params *p, const char *name, const char **out,
                    satin_err *err);
/* 1 when the user (not a default) gave `name`. */
int satin_param_given(const satin_params *p, const char *name);

/* Appends bytes to an argument buffer; -1 (err set) beyond the record limit. */
int satin_bytes_put(satin_bytes *b, const void *data, size_t len, satin_err *err);

/* ---- results ------------------------------------------------------------ */

void satin_result_i64(satin_result *r, const char *name, int64_t v);
void satin_result_f64(satin_result *r, const char *name, double v);
void satin_result_str(satin_result *r, const char *name, const char *v);

/* ---- kinds -------------------------------------------------------------- */

typedef void satin_run_fn(satin_ctx *ctx, const void *arg, size_t len,
                          satin_out *out);

struct satin_kind {
    const char *name;        /* what a job record names, e.g. "uts" */
    const char *summary;     /* one line for --list-kinds */
    const satin_param_def *params; /* terminated by {NULL} */
    /* Job record parameters -> argument bytes of the root invocation.
     * Unknown keys and missing required ones were rejected before. */
    int (*parse)(const satin_params *p, satin_bytes *arg, satin_err *err);
    satin_run_fn *run;
    size_t result_size;      /* capacity of the root invocation's result slot */
    /* Root result bytes -> user-visible result (pure) and extra statistics
     * that may depend on the wall time (e.g. nodes/s). */
    void (*format)(const void *res, size_t len, double wall_s,
                   satin_result *result, satin_result *stats);
    /* Optional, read only when a job is traced (bench/trace): the bytes an
     * invocation's argument and result would have if its data travelled
     * with it instead of being regenerated where it runs (matmul's blocks,
     * the raytracer's pixels), from its argument and its result's length.
     * NULL: the bytes passed are the data. */
    void (*data_size)(const void *arg, size_t len, size_t result_len, uint64_t *arg_bytes,
                      uint64_t *result_bytes);
};

#ifdef __cplusplus
}
#endif
#endif
