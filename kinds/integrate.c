/*
 * integrate.c - adaptive numerical integration (one of the paper's
 * applications) of a built-in function f over [a, b].
 *
 * A job holds an interval, f at its ends and midpoint, the Simpson estimate
 * of the whole interval and the tolerance it must meet.  It computes the
 * Simpson estimates of both halves; their sum differs from the whole-interval
 * estimate by `delta`, and the error of the halves is about delta/15
 * (Richardson) for a smooth f.  When |delta| <= eps the job accepts the
 * halves plus the Richardson correction delta/15; otherwise it spawns the two
 * halves with eps/2 each, so the accepted leaves' tolerances add up to at
 * most eps.  The classic test is |delta| <= 15*eps, but the factor 15 only
 * holds where f is smooth: next to sqrt's vertical tangent at 0 the error of
 * the halves is about delta/1.8, so the classic test can leave an error of
 * several eps.  Asking |delta| <= eps costs about twice the intervals on
 * smooth functions and kept the error below eps in every case the unit test
 * tries.  Like any rule that only samples f, it can still be fooled, e.g. by
 * cos over a whole number of periods of the first sampling grid.
 *
 * Termination and limits:
 *  - The first IG_MIN_DEPTH levels always split, so a function is sampled at
 *    2^(IG_MIN_DEPTH+2)+1 points before any interval may be accepted (a single
 *    coarse Simpson pair is easily fooled) and the job has parallelism.
 *  - At depth max_depth (parameter, default 50, at most 60) an interval is
 *    accepted whatever delta says; likewise when |delta| is already at the
 *    level of rounding noise (eps too small for doubles) or when the interval
 *    cannot be split any further in floating point.  Such leaves are counted
 *    in the result "unconverged": 0 means every leaf met its tolerance.
 *  - Spawn nesting, and so any C recursion in the runtime, is bounded by
 *    max_depth.
 *
 * a > b is allowed and gives the signed integral (-(integral from b to a));
 * a == b gives 0.  The sums are done in a fixed tree order (left + right
 * after the sync), so the value is bitwise the same however the jobs were
 * scheduled.
 */
#include "apps.h"
#include "kind_shared.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define IG_MIN_DEPTH 4
#define IG_MAX_DEPTH_LIMIT 60
#define IG_DEFAULT_MAX_DEPTH "50"
#define IG_DEFAULT_EPS "1e-9"
/* Halved once per level, eps stays a normal or subnormal double > 0 down to
 * the deepest level (1e-300 / 2^60 ~ 9e-319). */
#define IG_MIN_EPS 1e-300
#define IG_BOUND 1e6          /* |a|, |b| at most this */
#define IG_EXP_BOUND 600.0    /* exp(600) ~ 4e260: the sums cannot overflow */
/* |delta| below this many ulps of the integral of |f| is rounding noise:
 * splitting further cannot make the estimate better. */
#define IG_ROUNDOFF (64 * DBL_EPSILON)

static double ig_poly(double x)
{
    return x * x * x - 2 * x + 1;
}

static double ig_gauss(double x)
{
    return exp(-x * x);
}

static double ig_cauchy(double x)
{
    return 1 / (1 + x * x);
}

typedef struct ig_func {
    const char *name;
    double (*f)(double);
    const char *what;
} ig_func;

/* The argument bytes carry an index into this table: only append to it. */
static const ig_func ig_funcs[] = {
    {"sin", sin, "sin(x)"},
    {"cos", cos, "cos(x)"},
    {"exp", exp, "exp(x), b <= 600"},
    {"poly", ig_poly, "x^3 - 2x + 1"},
    {"sqrt", sqrt, "sqrt(x), a and b >= 0"},
    {"gauss", ig_gauss, "exp(-x^2)"},
    {"cauchy", ig_cauchy, "1/(1 + x^2)"},
};
#define IG_NFUNCS ((int32_t)(sizeof ig_funcs / sizeof ig_funcs[0]))

/* Fixed-width fields with no padding: the bytes may cross machines. */
typedef struct ig_arg {
    double a, b;          /* the interval, b < a allowed */
    double fa, fm, fb;    /* f(a), f((a+b)/2), f(b) */
    double whole;         /* Simpson estimate over [a, b] */
    double eps;           /* tolerance for this interval */
    int32_t fn;           /* index into ig_funcs */
    int32_t depth;        /* 0 for the root */
    int32_t max_depth;
    int32_t reserved;     /* 0 */
} ig_arg;

typedef struct ig_res {
    double value;
    int64_t intervals;    /* accepted leaf intervals */
    int64_t unconverged;  /* of those, accepted without meeting their tolerance */
} ig_res;

static double ig_simpson(double a, double b, double fa, double fm, double fb)
{
    return (b - a) / 6 * (fa + 4 * fm + fb);
}

/* What a job decided about its interval. */
typedef struct ig_step {
    double m, flm, frm;   /* midpoint, f at the quarter points */
    double left, right;   /* Simpson estimates of the halves */
    int accept, converged;
    double value;         /* when accepted: the corrected estimate */
} ig_step;

static ig_step ig_examine(const ig_arg *a)
{
    ig_step s;
    double (*f)(double) = ig_funcs[a->fn].f;
    s.m = 0.5 * (a->a + a->b);
    double lm = 0.5 * (a->a + s.m), rm = 0.5 * (s.m + a->b);
    s.flm = f(lm);
    s.frm = f(rm);
    s.left = ig_simpson(a->a, s.m, a->fa, s.flm, a->fm);
    s.right = ig_simpson(s.m, a->b, a->fm, s.frm, a->fb);
    double delta = s.left + s.right - a->whole;
    s.value = s.left + s.right + delta / 15;

    /* Simpson estimate of the integral of |f|: the scale of rounding noise. */
    double scale = fabs(s.m - a->a) / 6 * (fabs(a->fa) + 4 * fabs(s.flm) + fabs(a->fm)) +
                   fabs(a->b - s.m) / 6 * (fabs(a->fm) + 4 * fabs(s.frm) + fabs(a->fb));
    int splittable = lm != a->a && lm != s.m && rm != s.m && rm != a->b;
    int min_depth = a->max_depth < IG_MIN_DEPTH ? a->max_depth : IG_MIN_DEPTH;

    s.converged = fabs(delta) <= a->eps;
    int noise = fabs(delta) <= IG_ROUNDOFF * scale;
    s.accept = !splittable || a->depth >= a->max_depth ||
               (a->depth >= min_depth && (s.converged || noise));
    return s;
}

/* The check (below) holds a record of another node to what parse allows. */
static int ig_valid(const ig_arg *a, satin_err *err);
SATIN_TASK(ig_res, integrate, ig_arg, ig_valid);

/* An interval: accepted, or its two halves spawned (each a plain call
 * unless thieves need work) and their results added in a fixed order. */
static ig_res integrate(SATIN_FRAME, ig_arg a)
{
    ig_res r = {0, 0, 0};
    /* The body's own guard, whoever spawned it (a record of another node
     * passed ig_valid, which is stricter): a NaN eps would never converge. */
    if (a.fn < 0 || a.fn >= IG_NFUNCS || a.depth < 0 || a.max_depth < 0 ||
        a.max_depth > IG_MAX_DEPTH_LIMIT || !(a.eps > 0) || !isfinite(a.a) ||
        !isfinite(a.b) || !isfinite(a.whole)) {
        satin_fail("integrate: corrupt argument (fn=%d, depth=%d)", (int)a.fn, (int)a.depth);
        return r;
    }
    ig_step s = ig_examine(&a);
    if (!isfinite(s.flm) || !isfinite(s.frm) || !isfinite(s.value)) {
        satin_fail("integrate: %s is not finite on [%.17g, %.17g]", ig_funcs[a.fn].name, a.a,
                   a.b);
        return r;
    }
    if (s.accept) {
        r.value = s.value;
        r.intervals = 1;
        r.unconverged = !s.converged;
        return r;
    }
    ig_arg l = a, h = a;
    l.b = s.m;
    l.fm = s.flm;
    l.fb = a.fm;
    l.whole = s.left;
    h.a = s.m;
    h.fa = a.fm;
    h.fm = s.frm;
    h.whole = s.right;
    l.eps = h.eps = a.eps / 2;
    l.depth = h.depth = a.depth + 1;
    ig_res rl = {0, 0, 0}, rh = {0, 0, 0};
    satin_spawn(integrate, &rl, l);
    satin_spawn(integrate, &rh, h);
    satin_sync();
    r.value = rl.value + rh.value;
    r.intervals = rl.intervals + rh.intervals;
    r.unconverged = rl.unconverged + rh.unconverged;
    return r;
}

static int ig_find_func(const char *name, int32_t *fn, satin_err *err)
{
    char valid[160] = "";
    size_t off = 0;
    for (int32_t i = 0; i < IG_NFUNCS; i++) {
        if (strcmp(ig_funcs[i].name, name) == 0) {
            *fn = i;
            return 0;
        }
        if (off < sizeof valid)
            off += (size_t)snprintf(valid + off, sizeof valid - off, "%s%s",
                                    i ? ", " : "", ig_funcs[i].name);
    }
    return satin_err_set(err, "integrate: unknown function '%s' (valid: %s)", name, valid);
}

/* Rejects intervals where the function is undefined or the sums overflow. */
static int ig_check_domain(const char *fname, double a, double b, satin_err *err)
{
    double lo = a < b ? a : b, hi = a < b ? b : a;
    if (strcmp(fname, "sqrt") == 0 && lo < 0)
        return satin_err_set(err, "integrate: sqrt needs a >= 0 and b >= 0 (got a=%g, b=%g)",
                             a, b);
    if (strcmp(fname, "exp") == 0 && hi > IG_EXP_BOUND)
        return satin_err_set(err, "integrate: exp needs a, b <= %g (got a=%g, b=%g)",
                             IG_EXP_BOUND, a, b);
    return 0;
}

static int ig_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    const char *fname = "";
    double a, b, eps;
    int64_t max_depth;
    ig_arg r;
    memset(&r, 0, sizeof r);
    if (satin_param_str(p, "f", &fname, err) < 0 || ig_find_func(fname, &r.fn, err) < 0 ||
        satin_param_f64(p, "a", -IG_BOUND, IG_BOUND, &a, err) < 0 ||
        satin_param_f64(p, "b", -IG_BOUND, IG_BOUND, &b, err) < 0 ||
        satin_param_f64(p, "eps", -DBL_MAX, DBL_MAX, &eps, err) < 0 ||
        satin_param_i64(p, "max_depth", 0, IG_MAX_DEPTH_LIMIT, &max_depth, err) < 0)
        return -1;
    if (!(eps > 0))
        return satin_err_set(err, "integrate: eps must be > 0 (got %g)", eps);
    if (eps < IG_MIN_EPS)
        return satin_err_set(err, "integrate: eps must be >= %g (got %g)", IG_MIN_EPS, eps);
    if (ig_check_domain(fname, a, b, err) < 0)
        return -1;
    double (*f)(double) = ig_funcs[r.fn].f;
    r.a = a;
    r.b = b;
    r.fa = f(a);
    r.fm = f(0.5 * (a + b));
    r.fb = f(b);
    r.whole = ig_simpson(a, b, r.fa, r.fm, r.fb);
    r.eps = eps;
    r.depth = 0;
    r.max_depth = (int32_t)max_depth;
    if (!isfinite(r.whole))
        return satin_err_set(err, "integrate: %s is not finite on [%g, %g]", fname, a, b);
    return satin_bytes_put(arg, &r, sizeof r, err);
}

/* What parse allows and the halving keeps: the interval within the bounds
 * and the function's domain, f's values and the estimate finite, a depth
 * of at most max_depth and a tolerance of at least the root's smallest
 * halved once a level (less a margin for the rounding of subnormal halves). */
static int ig_valid(const ig_arg *a, satin_err *err)
{
    if (satin_arg_range("integrate", "fn", a->fn, 0, IG_NFUNCS - 1, err) < 0 ||
        satin_arg_range("integrate", "max_depth", a->max_depth, 0, IG_MAX_DEPTH_LIMIT, err) < 0 ||
        satin_arg_range("integrate", "depth", a->depth, 0, a->max_depth, err) < 0 ||
        satin_arg_range("integrate", "reserved", a->reserved, 0, 0, err) < 0)
        return -1;
    if (!(fabs(a->a) <= IG_BOUND && fabs(a->b) <= IG_BOUND))
        return satin_err_set(err, "integrate: interval [%g, %g] beyond |x| <= %g", a->a, a->b,
                             IG_BOUND);
    if (ig_check_domain(ig_funcs[a->fn].name, a->a, a->b, err) < 0)
        return -1;
    if (!(a->eps <= DBL_MAX && ldexp(a->eps, a->depth) >= IG_MIN_EPS / 2))
        return satin_err_set(err, "integrate: eps=%g at depth %d is out of range", a->eps,
                             (int)a->depth);
    if (!isfinite(a->fa) || !isfinite(a->fm) || !isfinite(a->fb) || !isfinite(a->whole))
        return satin_err_set(err, "integrate: f's values or the estimate are not finite");
    return 0;
}

static void ig_format(const void *res, size_t len, double wall_s,
                      satin_result *result, satin_result *stats)
{
    (void)wall_s;
    (void)stats;
    ig_res r = {0, 0, 0};
    if (len == sizeof r)
        memcpy(&r, res, sizeof r);
    satin_result_f64(result, "value", r.value);
    satin_result_i64(result, "intervals", r.intervals);
    satin_result_i64(result, "unconverged", r.unconverged);
}

static const satin_param_def ig_params[] = {
    {"f", NULL, 1, "function: sin, cos, exp, poly (x^3-2x+1), sqrt, gauss (exp(-x^2)), "
                   "cauchy (1/(1+x^2))"},
    {"a", NULL, 1, "lower limit, |a| <= 1e6"},
    {"b", NULL, 1, "upper limit, |b| <= 1e6; b < a gives the signed integral"},
    {"eps", IG_DEFAULT_EPS, 0, "absolute tolerance of the whole integral, >= 1e-300"},
    {"max_depth", IG_DEFAULT_MAX_DEPTH, 0,
     "intervals at this depth are accepted as they are (counted in 'unconverged'), 0..60"},
    {NULL, NULL, 0, NULL},
};

SATIN_KIND(integrate, .summary = "adaptive Simpson integration of a built-in function over [a, b]",
           .params = ig_params, .parse = ig_parse, .root = SATIN_TASK_OF(integrate),
           .format = ig_format);
