/* dup_fib.c - a module with a kind named fib, as the built-in kinds' module
 * has: loaded beside it, the node must refuse to start, naming both. */
#include <satin/satin.h>

typedef struct {
    int32_t n;
} other_args;

static int other_check(const other_args *a, satin_err *err)
{
    if (a->n < 0 || a->n > 40)
        return satin_err_set(err, "other_fib: n %d is not in [0, 40]", (int)a->n);
    return 0;
}

SATIN_TASK(int64_t, other_fib, other_args, other_check);

static int64_t other_fib(SATIN_FRAME, other_args a)
{
    if (a.n < 2)
        return a.n;
    int64_t x, y;
    satin_spawn(other_fib, &x, (other_args){a.n - 1});
    satin_spawn(other_fib, &y, (other_args){a.n - 2});
    satin_sync();
    return x + y;
}

static const satin_param_def other_params[] = {{"n", NULL, 1, "which Fibonacci number"},
                                                {NULL, NULL, 0, NULL}};

static int other_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    int64_t n;
    if (satin_param_i64(p, "n", 0, 40, &n, err) < 0)
        return -1;
    other_args a = {(int32_t)n};
    return satin_bytes_put(arg, &a, sizeof a, err);
}

SATIN_KIND(fib, .summary = "another module's fib", .params = other_params, .parse = other_parse,
           .root = SATIN_TASK_OF(other_fib));
SATIN_MODULE("dup-kinds", "1.0");
