/* dup_value.c - a kind that declares its grid-wide value "best" twice: a
 * node must refuse the module, naming the kind and the value. */
#include <satin/satin.h>

static int any(const int64_t *a, satin_err *err)
{
    (void)a, (void)err;
    return 0;
}

SATIN_TASK(int64_t, twice, int64_t, any);

static int64_t twice(SATIN_FRAME, int64_t v)
{
    return v;
}

static int twice_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    (void)p;
    int64_t v = 1;
    return satin_bytes_put(arg, &v, sizeof v, err);
}

static const satin_value_def twice_values[] = {
    {"best", SATIN_LEAST},
    {"best", SATIN_GREATEST},
    {NULL, 0},
};

SATIN_KIND(twice, .summary = "a value declared twice", .parse = twice_parse,
           .root = SATIN_TASK_OF(twice), .values = twice_values);
SATIN_MODULE("dup-value-kinds", "1.0");
