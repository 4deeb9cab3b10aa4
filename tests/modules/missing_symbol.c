/* missing_symbol.c - a module that calls a function no program defines, as
 * one built against a newer runtime would: dlopen(RTLD_NOW) fails at load,
 * not when a job first reaches the call. */
#include <satin/satin.h>

int satin__from_a_newer_runtime(int x);

typedef struct {
    int32_t x;
} plain_args;

static int plain_check(const plain_args *a, satin_err *err)
{
    (void)a;
    (void)err;
    return 0;
}

SATIN_TASK(int64_t, newer_task, plain_args, plain_check);

static int64_t newer_task(SATIN_FRAME, plain_args a)
{
    return satin__from_a_newer_runtime(a.x);
}

static int newer_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    (void)p;
    plain_args a = {1};
    return satin_bytes_put(arg, &a, sizeof a, err);
}

SATIN_KIND(newer, .summary = "needs a runtime function this one lacks", .parse = newer_parse,
           .root = SATIN_TASK_OF(newer_task));
SATIN_MODULE("newer-kinds", "9.0");
