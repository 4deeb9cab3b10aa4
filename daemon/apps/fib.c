/*
 * fib.c - Fibonacci, the paper's worst case for spawn overhead (Figure 1).
 * Below `threshold` the recursion is plain sequential C, as in the paper's
 * "fib with spawn threshold".
 */
#include "apps.h"

#include <stdint.h>
#include <string.h>

typedef struct fib_arg {
    int64_t n;
    int64_t threshold;
} fib_arg;

static int64_t fib_seq(int64_t n)
{
    return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2);
}

/* An inner node: its own function, so that the leaves, half of all calls,
 * return from fib_run without the stack frame this one needs.  Its out is
 * the frame's (satin_out_of): one saved register less than passing it. */
__attribute__((noinline)) static void fib_inner(satin_ctx *c, fib_arg a)
{
    int64_t r;
    if (a.n < a.threshold) {
        r = fib_seq(a.n);
    } else {
        /* One argument buffer for both children: a spawn is done with its
         * argument when it returns. */
        fib_arg x = {a.n - 1, a.threshold};
        int64_t rx = 0, ry = 0;
        satin_spawn(c, &satin_kind_fib, &x, sizeof x, &rx, sizeof rx);
        x.n = a.n - 2;
        satin_spawn(c, &satin_kind_fib, &x, sizeof x, &ry, sizeof ry);
        satin_sync(c);
        r = rx + ry;
    }
    satin_return(satin_out_of(c), &r, sizeof r);
}

/* Not inlined into the spawns of fib_inner (which GCC would do, the kind
 * being known there): fib is the benchmark of spawn's cost, so each of its
 * spawns calls the child as the baseline, plain C with a call per node,
 * does (bench/overhead.c). */
__attribute__((noinline)) static void fib_run(satin_ctx *c, const void *arg, size_t len,
                                              satin_out *out)
{
    fib_arg a;
    if (len != sizeof a) {
        satin_fail(out, "fib: argument of %zu bytes, expected %zu", len, sizeof a);
        return;
    }
    memcpy(&a, arg, sizeof a);
    if (a.n < 2)
        satin_return(out, &a.n, sizeof a.n);
    else
        fib_inner(c, a);
}

int satin_fib_arg_read(const void *arg, size_t len, int64_t *n, int64_t *threshold)
{
    fib_arg a;
    if (len != sizeof a)
        return -1;
    memcpy(&a, arg, sizeof a);
    *n = a.n;
    *threshold = a.threshold;
    return 0;
}

size_t satin_fib_arg_write(int64_t n, int64_t threshold, void *out, size_t cap)
{
    fib_arg a = {n, threshold};
    if (cap < sizeof a)
        return 0;
    memcpy(out, &a, sizeof a);
    return sizeof a;
}

static int fib_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    fib_arg a;
    /* fib(92) is the largest that fits in 64 bits. */
    if (satin_param_i64(p, "n", 0, 92, &a.n, err) < 0 ||
        satin_param_i64(p, "threshold", 0, 92, &a.threshold, err) < 0)
        return -1;
    return satin_bytes_put(arg, &a, sizeof a, err);
}

static void fib_format(const void *res, size_t len, double wall_s,
                       satin_result *result, satin_result *stats)
{
    (void)wall_s;
    (void)stats;
    int64_t v = 0;
    if (len == sizeof v)
        memcpy(&v, res, sizeof v);
    satin_result_i64(result, "value", v);
}

static const satin_param_def fib_params[] = {
    {"n", NULL, 1, "which Fibonacci number, 0..92"},
    {"threshold", "0", 0, "below this n, plain sequential recursion (no spawns)"},
    {NULL, NULL, 0, NULL},
};

const satin_kind satin_kind_fib = {
    .name = "fib",
    .summary = "Fibonacci by doubly recursive spawns (the spawn-overhead worst case)",
    .params = fib_params,
    .parse = fib_parse,
    .run = fib_run,
    .result_size = sizeof(int64_t),
    .format = fib_format,
};
