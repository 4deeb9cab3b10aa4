/*
 * test_integrate.c - the integrate kind: every built-in function against its
 * closed form for several tolerances, bitwise-identical results on one and
 * two workers, the signed integral for a > b, the depth limit, and the error
 * texts of bad parameters.
 */
#include "kinds.h"
#include "../tap.h"

#define KIND_UNDER_TEST "integrate"
#include "kind_kit.h"

typedef struct ig_out {
    double value;
    int64_t intervals, unconverged;
} ig_out;

/* Runs one record; 0 with the result, -1 (diagnosed) when the job failed. */
static int run_ig(satin_pool *pool, const char *const *params, ig_out *r)
{
    satin_outcome o;
    int rc = 0;
    satin_run_record(pool, kit_kinds(), "integrate", params, &o);
    if (o.failed) {
        diag("integrate failed: %s", o.error);
        rc = -1;
    } else if (satin_kvlist_f64(&o.result, "value", &r->value) < 0 ||
               satin_kvlist_i64(&o.result, "intervals", &r->intervals) < 0 ||
               satin_kvlist_i64(&o.result, "unconverged", &r->unconverged) < 0) {
        diag("integrate result lacks value/intervals/unconverged");
        rc = -1;
    }
    satin_outcome_free(&o);
    return rc;
}

static int run_case(satin_pool *pool, const char *f, const char *a, const char *b,
                    const char *eps, ig_out *r)
{
    char pf[64], pa[64], pb[64], pe[64];
    snprintf(pf, sizeof pf, "f=%s", f);
    snprintf(pa, sizeof pa, "a=%s", a);
    snprintf(pb, sizeof pb, "b=%s", b);
    snprintf(pe, sizeof pe, "eps=%s", eps);
    return run_ig(pool, (const char *[]){pf, pa, pb, pe, NULL}, r);
}

/* Antiderivatives of the built-in functions. */
static double F_sin(double x) { return -cos(x); }
static double F_cos(double x) { return sin(x); }
static double F_exp(double x) { return exp(x); }
static double F_poly(double x) { return x * x * x * x / 4 - x * x + x; }
static double F_sqrt(double x) { return 2.0 / 3.0 * x * sqrt(x); }
static double F_gauss(double x) { return sqrt(M_PI) / 2 * erf(x); }
static double F_cauchy(double x) { return atan(x); }

typedef struct ig_case {
    const char *f, *a, *b;
    double (*F)(double);
} ig_case;

static const ig_case cases[] = {
    {"sin", "0", "3.141592653589793", F_sin},
    {"sin", "-1", "4", F_sin},
    {"sin", "0", "50", F_sin},
    {"cos", "0", "2", F_cos},
    {"cos", "-3", "10", F_cos},
    {"exp", "-1", "2", F_exp},
    {"exp", "-20", "0.5", F_exp},
    {"poly", "-2", "3", F_poly},
    {"poly", "0", "1", F_poly},
    {"sqrt", "0", "2", F_sqrt},
    {"sqrt", "1", "9", F_sqrt},
    {"sqrt", "0", "0.3", F_sqrt},
    {"sqrt", "0", "7", F_sqrt},
    {"gauss", "-3", "3", F_gauss},
    {"gauss", "0", "1", F_gauss},
    {"cauchy", "-5", "5", F_cauchy},
    {"cauchy", "0", "100", F_cauchy},
};
#define NCASES (sizeof cases / sizeof cases[0])

static double exact(const ig_case *c)
{
    return c->F(strtod(c->b, NULL)) - c->F(strtod(c->a, NULL));
}

static void check_closed_forms(satin_pool *pool)
{
    static const char *const epss[] = {"1e-1", "1e-2", "1e-3", "1e-5", "1e-6", "1e-9", "1e-12"};
    for (size_t i = 0; i < NCASES; i++) {
        const ig_case *c = &cases[i];
        for (size_t e = 0; e < sizeof epss / sizeof epss[0]; e++) {
            double eps = strtod(epss[e], NULL), want = exact(c);
            ig_out r = {NAN, -1, -1};
            if (run_case(pool, c->f, c->a, c->b, epss[e], &r) < 0) {
                ok(0, "%s on [%s, %s] eps=%s ran", c->f, c->a, c->b, epss[e]);
                continue;
            }
            double err = fabs(r.value - want);
            if (!ok(err <= eps, "%s on [%s, %s] eps=%s: error %.3g", c->f, c->a, c->b,
                    epss[e], err))
                diag("got %.17g, expected %.17g", r.value, want);
            if (r.unconverged)
                diag("  (%" PRId64 " of %" PRId64 " intervals unconverged)", r.unconverged,
                     r.intervals);
        }
    }
}

/* Each case on both pools, and twice on the two-worker pool: the values and
 * the subdivisions must be identical bit for bit. */
static void check_deterministic(satin_pool *one, satin_pool *two)
{
    int all_ok = 1;
    for (size_t i = 0; i < NCASES; i++) {
        const ig_case *c = &cases[i];
        ig_out r1 = {0}, r2 = {0}, r3 = {0};
        if (run_case(one, c->f, c->a, c->b, "1e-10", &r1) < 0 ||
            run_case(two, c->f, c->a, c->b, "1e-10", &r2) < 0 ||
            run_case(two, c->f, c->a, c->b, "1e-10", &r3) < 0 ||
            memcmp(&r1.value, &r2.value, sizeof r1.value) != 0 ||
            memcmp(&r1.value, &r3.value, sizeof r1.value) != 0 ||
            r1.intervals != r2.intervals || r1.intervals != r3.intervals) {
            diag("%s on [%s, %s]: %a (%" PRId64 ") vs %a (%" PRId64 ") vs %a (%" PRId64 ")",
                 c->f, c->a, c->b, r1.value, r1.intervals, r2.value, r2.intervals,
                 r3.value, r3.intervals);
            all_ok = 0;
        }
    }
    ok(all_ok, "every case bitwise identical on 1 and 2 workers");
}

static void check_signed(satin_pool *pool)
{
    ig_out fwd = {0}, rev = {0}, zero = {NAN, 0, 0};
    int rc = run_case(pool, "gauss", "-1", "2.5", "1e-9", &fwd);
    rc |= run_case(pool, "gauss", "2.5", "-1", "1e-9", &rev);
    ok(rc == 0 && rev.value == -fwd.value && fwd.value > 0,
       "b < a gives exactly minus the integral from b to a (%.17g, %.17g)", fwd.value,
       rev.value);
    rc = run_case(pool, "cos", "1.5", "1.5", "1e-9", &zero);
    ok(rc == 0 && zero.value == 0 && zero.unconverged == 0, "a == b gives 0 (%g)", zero.value);
}

static void check_limits(satin_pool *pool)
{
    ig_out r = {0};
    int rc = run_ig(pool, (const char *[]){"f=sin", "a=0", "b=30", "eps=1e-12",
                                           "max_depth=0", NULL}, &r);
    ok(rc == 0 && r.intervals == 1 && r.unconverged == 1,
       "max_depth=0: one interval, unconverged (%" PRId64 ", %" PRId64 ")", r.intervals,
       r.unconverged);
    rc = run_ig(pool, (const char *[]){"f=sin", "a=0", "b=30", "eps=1e-12", "max_depth=3",
                                       NULL}, &r);
    ok(rc == 0 && r.intervals == 8 && r.unconverged > 0,
       "max_depth=3: 8 intervals, some unconverged (%" PRId64 ", %" PRId64 ")",
       r.intervals, r.unconverged);

    /* A tolerance far below what doubles can resolve still terminates: the
     * leaves stop at rounding noise and say so. */
    rc = run_ig(pool, (const char *[]){"f=gauss", "a=0", "b=1", "eps=1e-300", NULL}, &r);
    double err = fabs(r.value - (F_gauss(1) - F_gauss(0)));
    ok(rc == 0 && r.unconverged > 0 && err < 1e-14,
       "eps=1e-300 terminates near the exact value (error %.3g, %" PRId64 " of %" PRId64
       " intervals unconverged)", err, r.unconverged, r.intervals);
    /* sqrt has an unbounded derivative at 0: only the depth limit stops the
     * leftmost interval. */
    rc = run_ig(pool, (const char *[]){"f=sqrt", "a=0", "b=1", "eps=1e-300", NULL}, &r);
    err = fabs(r.value - 2.0 / 3.0);
    ok(rc == 0 && r.unconverged > 0 && err < 1e-14,
       "sqrt with eps=1e-300 terminates (error %.3g, %" PRId64 " of %" PRId64
       " intervals unconverged)", err, r.unconverged, r.intervals);
}

static void check_bad_params(satin_pool *pool)
{
    check_bad(pool, (const char *[]){"f=tan", "a=0", "b=1", NULL}, "unknown function 'tan'",
              "f=tan");
    check_bad(pool, (const char *[]){"f=tan", "a=0", "b=1", NULL},
              "sin, cos, exp, poly, sqrt, gauss", "f=tan lists the valid names");
    check_bad(pool, (const char *[]){"a=0", "b=1", NULL}, "needs parameter 'f'", "missing f");
    check_bad(pool, (const char *[]){"f=sin", "b=1", NULL}, "needs parameter 'a'",
              "missing a");
    check_bad(pool, (const char *[]){"f=sin", "a=0", NULL}, "needs parameter 'b'",
              "missing b");
    check_bad(pool, (const char *[]){"f=sin", "a=zero", "b=1", NULL}, "not a finite number",
              "a=zero");
    check_bad(pool, (const char *[]){"f=sin", "a=0", "b=inf", NULL}, "not a finite number",
              "b=inf");
    check_bad(pool, (const char *[]){"f=sin", "a=0", "b=nan", NULL}, "not a finite number",
              "b=nan");
    check_bad(pool, (const char *[]){"f=sin", "a=-2e6", "b=1", NULL}, "out of range",
              "a=-2e6");
    check_bad(pool, (const char *[]){"f=sin", "a=0", "b=1", "eps=0", NULL},
              "eps must be > 0", "eps=0");
    check_bad(pool, (const char *[]){"f=sin", "a=0", "b=1", "eps=-1e-6", NULL},
              "eps must be > 0", "eps=-1e-6");
    check_bad(pool, (const char *[]){"f=sin", "a=0", "b=1", "eps=1e-305", NULL},
              "eps must be >= 1e-300", "eps=1e-305");
    check_bad(pool, (const char *[]){"f=sin", "a=0", "b=1", "eps=small", NULL},
              "not a finite number", "eps=small");
    check_bad(pool, (const char *[]){"f=sqrt", "a=-1", "b=1", NULL}, "sqrt needs a >= 0",
              "sqrt from -1");
    check_bad(pool, (const char *[]){"f=sqrt", "a=1", "b=-0.5", NULL}, "sqrt needs a >= 0",
              "sqrt to -0.5");
    check_bad(pool, (const char *[]){"f=exp", "a=0", "b=1000", NULL}, "exp needs", "exp to 1000");
    check_bad(pool, (const char *[]){"f=sin", "a=0", "b=1", "max_depth=61", NULL},
              "out of range", "max_depth=61");
    check_bad(pool, (const char *[]){"f=sin", "a=0", "b=1", "tol=1", NULL},
              "unknown parameter 'tol'", "unknown key");
}

int main(void)
{
    satin_pool *one = satin_pool_new(&(satin_pool_config){.workers = 1});
    satin_pool *two = satin_pool_new(&(satin_pool_config){.workers = 2});
    check_closed_forms(two);
    check_deterministic(one, two);
    check_signed(two);
    check_limits(two);
    check_bad_params(two);
    satin_pool_destroy(&one);
    satin_pool_destroy(&two);
    return done_testing();
}
