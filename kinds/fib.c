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

SATIN_TASK(int64_t, fib, fib_arg, fib_valid);

static int64_t fib_seq(int64_t n)
{
    return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2);
}

/* Above this n, the sequential recursion looks at satin_cancelled() once a
 * call (fib_seq(FIB_CANCEL_N) takes a few milliseconds); below it, it is
 * plain C.  threshold=92 makes fib_seq(91), which would hold its worker for
 * centuries after a cancel. */
#define FIB_CANCEL_N 30

static int64_t fib_seq_stoppable(int64_t n)
{
    if (n < FIB_CANCEL_N)
        return fib_seq(n);
    /* A stopped job's result is dropped. */
    if (satin_cancelled())
        return 0;
    return fib_seq_stoppable(n - 1) + fib_seq_stoppable(n - 2);
}

/* Every call a spawn, as the paper's worst case has it: each runs in place
 * as a plain call unless thieves need work (bench/overhead measures it
 * against plain C with one call per node). */
static int64_t fib(SATIN_FRAME, fib_arg a)
{
    if (a.n < 2)
        return a.n;
    if (a.n < a.threshold)
        return fib_seq_stoppable(a.n);
    /* A stopped job drops its spawns, whose slots are then not written:
     * unset, their sum was an overflow of two stack words. */
    int64_t x = 0, y = 0;
    satin_spawn(fib, &x, (fib_arg){a.n - 1, a.threshold});
    satin_spawn(fib, &y, (fib_arg){a.n - 2, a.threshold});
    satin_sync();
    return x + y;
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

static const satin_param_def fib_params[] = {
    {"n", NULL, 1, "which Fibonacci number, 0..92"},
    {"threshold", "0", 0, "below this n, plain sequential recursion (no spawns)"},
    {NULL, NULL, 0, NULL},
};

SATIN_KIND(fib, .summary = "Fibonacci by doubly recursive spawns (the spawn-overhead worst case)",
           .params = fib_params, .parse = fib_parse, .root = SATIN_TASK_OF(fib),
           .format = satin_format_value);
