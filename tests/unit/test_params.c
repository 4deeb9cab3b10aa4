/*
 * test_params.c - how a job record's parameter values are read: integers in
 * decimal digits only (no octal, hex, blanks or leading zeros), numbers in
 * decimal notation, each error naming the parameter; and the same rules
 * through a kind (fib), the way satind meets them.
 */
#include "kinds.h"
#include "params.h"
#include "pool.h"
#include "../tap.h"

#define KIND_UNDER_TEST "fib"
#include "kind_kit.h"

static void good_i64(const char *s, int64_t min, int64_t max, int64_t want)
{
    satin_err err = {{0}};
    int64_t v = -12345;
    int rc = satin_param_parse_i64("n", s, min, max, &v, &err);
    ok(rc == 0 && v == want, "n=%s reads as %" PRId64 " (got rc %d, %" PRId64 " %s)", s, want, rc,
       v, err.msg);
}

static void bad_i64(const char *s, int64_t min, int64_t max, const char *want)
{
    satin_err err = {{0}};
    int64_t v = -12345;
    int rc = satin_param_parse_i64("n", s, min, max, &v, &err);
    ok(rc == -1 && v == -12345, "n='%s' is refused", s);
    is_str(err.msg, want, "n='%s': the message", s);
}

static void good_f64(const char *s, double want)
{
    satin_err err = {{0}};
    double v = -1;
    int rc = satin_param_parse_f64("x", s, -1e9, 1e9, &v, &err);
    ok(rc == 0 && v == want, "x=%s reads as %g (got rc %d, %g %s)", s, want, rc, v, err.msg);
}

static void bad_f64(const char *s)
{
    satin_err err = {{0}};
    double v = -1;
    char want[200];
    snprintf(want, sizeof want,
             "parameter x=%s is not a finite number (decimal notation, e.g. 2.5 or 1e-6)", s);
    int rc = satin_param_parse_f64("x", s, -1e9, 1e9, &v, &err);
    ok(rc == -1 && v == -1, "x='%s' is refused", s);
    is_str(err.msg, want, "x='%s': the message", s);
}

/* A fib job record through the kind's own parser, as satind prepares it. */
static void fib_record(satin_pool *pool, const char *param, int64_t want_value)
{
    satin_outcome o;
    int64_t v = -1;
    satin_run_record(pool, kit_kinds(), "fib", (const char *[]){param, NULL}, &o);
    if (!o.failed)
        satin_kvlist_i64(&o.result, "value", &v);
    ok(!o.failed && v == want_value, "fib %s gives %" PRId64 " (got %" PRId64 "%s%s)", param,
       want_value, v, o.failed ? ", failed: " : "", o.failed ? o.error : "");
    satin_outcome_free(&o);
}

int main(void)
{
    const char *range = "a whole number from 0 to 92, in decimal digits";
    char want[200];

    good_i64("0", 0, 92, 0);
    good_i64("10", 0, 92, 10);
    good_i64("92", 0, 92, 92);
    good_i64("-7", -10, 10, -7);
    good_i64("-0", -10, 10, 0);
    good_i64("9223372036854775807", 0, INT64_MAX, INT64_MAX);
    good_i64("-9223372036854775808", INT64_MIN, 0, INT64_MIN);

    snprintf(want, sizeof want, "parameter n=010 has a leading zero (%s)", range);
    bad_i64("010", 0, 92, want);
    snprintf(want, sizeof want, "parameter n=00 has a leading zero (%s)", range);
    bad_i64("00", 0, 92, want);
    static const char *not_integers[] = {"0x10", "0X1f", " 10", "10 ", "\t10", "+10", "1e3",
                                         "10.0", "", "-", "abc", "1_000", "--1", NULL};
    for (const char **s = not_integers; *s; s++) {
        snprintf(want, sizeof want, "parameter n=%s is not an integer (%s)", *s, range);
        bad_i64(*s, 0, 92, want);
    }
    bad_i64("-1", 0, 92, "parameter n=-1 is out of range [0, 92]");
    bad_i64("93", 0, 92, "parameter n=93 is out of range [0, 92]");
    bad_i64("9223372036854775808", 0, INT64_MAX,
            "parameter n=9223372036854775808 is out of range [0, 9223372036854775807]");
    bad_i64("-9223372036854775809", INT64_MIN, 0,
            "parameter n=-9223372036854775809 is out of range [-9223372036854775808, 0]");

    good_f64("2.5", 2.5);
    good_f64("-3", -3);
    good_f64("+1e3", 1000);
    good_f64(".5", 0.5);
    good_f64("5.", 5);
    good_f64("1E-2", 0.01);
    good_f64("010", 10);      /* no octal in strtod: a number's leading zero is harmless */
    static const char *not_numbers[] = {"0x10", "0x1p3", " 1", "1 ", "inf", "-infinity", "nan",
                                        "1e", "e5", ".", "", "1.2.3", "1e999", NULL};
    for (const char **s = not_numbers; *s; s++)
        bad_f64(*s);
    {
        satin_err err = {{0}};
        double v;
        ok(satin_param_parse_f64("x", "-2e9", -1e9, 1e9, &v, &err) == -1, "x=-2e9 is refused");
        is_str(err.msg, "parameter x=-2e9 is out of range [-1e+09, 1e+09]", "x=-2e9: the message");
    }

    /* Through a kind: the numbers a user typed are the ones that run. */
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = 1});
    fib_record(pool, "n=10", 55);
    fib_record(pool, "n=16", 987);
    check_bad(pool, (const char *[]){"n=010", NULL}, "parameter n=010 has a leading zero",
              "fib n=010");
    check_bad(pool, (const char *[]){"n=0x10", NULL}, "parameter n=0x10 is not an integer",
              "fib n=0x10");
    check_bad(pool, (const char *[]){"n= 10", NULL}, "parameter n= 10 is not an integer",
              "fib 'n= 10'");
    check_bad(pool, (const char *[]){"n=-1", NULL}, "parameter n=-1 is out of range [0, 92]",
              "fib n=-1");
    satin_pool_destroy(&pool);
    return done_testing();
}
