/*
 * fib.c - Fibonacci, the paper's worst case for spawn overhead (Figure 1).
 * Below `threshold` the recursion is plain sequential C, as in the paper's
 * "fib with spawn threshold".
 */
#include "apps.h"
#include "kind_shared.h"

#include <stdint.h>
#include <string.h>

/* fib(92) is the largest that fits in 64 bits. */
#define FIB_MAX_N 92

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
    if (satin_param_i64(p, "n", 0, FIB_MAX_N, &a.n, err) < 0 ||
        satin_param_i64(p, "threshold", 0, FIB_MAX_N, &a.threshold, err) < 0)
        return -1;
    return satin_bytes_put(arg, &a, sizeof a, err);
}

/* What parse allows; a child's n is its parent's less 1 or 2 and >= 0, its
 * threshold its parent's.  Within these the sequential recursion is at
 * most 92 deep and no sum overflows. */
static int fib_valid(const fib_arg *a, satin_err *err)
{
    if (satin_arg_range("fib", "n", a->n, 0, FIB_MAX_N, err) < 0 ||
        satin_arg_range("fib", "threshold", a->threshold, 0, FIB_MAX_N, err) < 0)
        return -1;
    return 0;
}

SATIN_ARG_CHECK(fib_check, "fib", fib_arg, fib_valid)

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
    .format = satin_format_value,
    .check = fib_check,
};
