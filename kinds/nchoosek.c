/*
 * nchoosek.c - the binomial coefficient C(n, k) counted by Pascal's rule
 * (one of the paper's applications, "n choose k"):
 *
 *     C(n, 0) = C(n, n) = 1,   C(n, k) = C(n-1, k-1) + C(n-1, k)
 *
 * The recursion is deliberately the naive one: a job for C(n, k) makes about
 * 2 C(n, k) calls, so this is, like fib, a fine-grained spawn benchmark whose
 * answer is known exactly.  A job with n >= threshold spawns its two
 * subproblems; below the threshold the recursion is plain sequential C.
 *
 * Parameters are checked so that the result is exact: 0 <= k <= n <= 1000
 * and C(n, k) <= 2^63 - 1 (every subproblem's value is at most C(n, k), so
 * no partial sum overflows either).  C(n, k) for k near n/2 fits up to n = 66;
 * the running time grows with C(n, k) itself: n = 32, k = 16 (6e8) takes a
 * few seconds on one core, n = 34, k = 17 about four times as long.
 */
#include "apps.h"
#include "kind_shared.h"

#include <stdint.h>
#include <string.h>

#define NCK_MAX_N 1000
#define NCK_DEFAULT_THRESHOLD "20"
/* In the sequential recursion, ask whether the job was cancelled at every
 * n >= NCK_CANCEL_CHECK_N that is a multiple of 8: n falls by one a level
 * on every path, so at most 8 levels (2^8 calls) pass between two looks,
 * and below it a subproblem makes at most 2 C(23, 11) = 2.7e6 calls.  (Asking
 * only where k and n - k were both 8 or more left C(990, 7), 10^17 calls,
 * without a look.) */
#define NCK_CANCEL_CHECK_N 24

/* Fixed-width fields with no padding: the bytes may cross machines. */
typedef struct nck_arg {
    int32_t n;
    int32_t k;
    int32_t threshold;  /* subproblems with n below this run sequentially */
    int32_t reserved;   /* 0 */
} nck_arg;

/* The check (below) holds a record of another node to what parse allows.
 * The argument is 16 bytes: a spawn passes it in two registers. */
static int nck_valid(const nck_arg *a, satin_err *err);
SATIN_TASK(int64_t, nchoosek, nck_arg, nck_valid);

static int64_t nck_seq(int32_t n, int32_t k)
{
    if (k == 0 || k == n)
        return 1;
    if ((n & 7) == 0 && n >= NCK_CANCEL_CHECK_N && satin_cancelled())
        return 0;
    return nck_seq(n - 1, k - 1) + nck_seq(n - 1, k);
}

/* Pascal's rule, each subproblem a spawn (a plain call unless thieves need
 * work) down to the threshold. */
static int64_t nchoosek(SATIN_FRAME, nck_arg a)
{
    if (a.n < 0 || a.n > NCK_MAX_N || a.k < 0 || a.k > a.n) {
        satin_fail("nchoosek: corrupt argument (n=%d, k=%d)", (int)a.n, (int)a.k);
        return 0;
    }
    if (a.k == 0 || a.k == a.n || a.n < a.threshold)
        return nck_seq(a.n, a.k);
    int64_t x = 0, y = 0;
    satin_spawn(nchoosek, &x, (nck_arg){a.n - 1, a.k - 1, a.threshold, a.reserved});
    satin_spawn(nchoosek, &y, (nck_arg){a.n - 1, a.k, a.threshold, a.reserved});
    satin_sync();
    return x + y;
}

static int64_t nck_gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* 1 when C(n, k) <= 2^63 - 1 (0 <= k <= n).  C(n, j) for j = 1..min(k, n-k)
 * is C(n, j-1) (n-j+1) / j, which grows with j; each step is exact (j
 * divides the product, and with g = gcd(C(n, j-1), j) the quotient j / g
 * divides n-j+1), so the first product that overflows says no.  At most a
 * few dozen steps before one does: cheap enough for every record checked. */
static int nck_fits(int32_t n, int32_t k)
{
    if (k > n - k)
        k = n - k;
    int64_t c = 1;
    for (int32_t j = 1; j <= k; j++) {
        int64_t g = nck_gcd(c, j);
        if (__builtin_mul_overflow(c / g, (n - j + 1) / (j / g), &c))
            return 0;
    }
    return 1;
}

static int nck_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    int64_t n, k, threshold;
    if (satin_param_i64(p, "n", 0, NCK_MAX_N, &n, err) < 0 ||
        satin_param_i64(p, "k", 0, NCK_MAX_N, &k, err) < 0 ||
        satin_param_i64(p, "threshold", 0, NCK_MAX_N + 1, &threshold, err) < 0)
        return -1;
    if (k > n)
        return satin_err_set(err, "nchoosek: k=%lld must not exceed n=%lld", (long long)k,
                             (long long)n);
    if (!nck_fits((int32_t)n, (int32_t)k))
        return satin_err_set(err,
                             "nchoosek: C(%lld, %lld) does not fit in a signed 64-bit "
                             "integer (at most 2^63-1)",
                             (long long)n, (long long)k);
    nck_arg a;
    memset(&a, 0, sizeof a);
    a.n = (int32_t)n;
    a.k = (int32_t)k;
    a.threshold = (int32_t)threshold;
    return satin_bytes_put(arg, &a, sizeof a, err);
}

/* What parse allows; a child's C(n-1, k-1) and C(n-1, k) are at most its
 * parent's, so they fit too. */
static int nck_valid(const nck_arg *a, satin_err *err)
{
    if (satin_arg_range("nchoosek", "n", a->n, 0, NCK_MAX_N, err) < 0 ||
        satin_arg_range("nchoosek", "k", a->k, 0, a->n, err) < 0 ||
        satin_arg_range("nchoosek", "threshold", a->threshold, 0, NCK_MAX_N + 1, err) < 0 ||
        satin_arg_range("nchoosek", "reserved", a->reserved, 0, 0, err) < 0)
        return -1;
    if (!nck_fits(a->n, a->k))
        return satin_err_set(err, "nchoosek: C(%d, %d) does not fit in a signed 64-bit integer",
                             (int)a->n, (int)a->k);
    return 0;
}

static const satin_param_def nck_params[] = {
    {"n", NULL, 1, "set size, 0..1000"},
    {"k", NULL, 1, "subset size, 0..n; C(n, k) must fit in 63 bits"},
    {"threshold", NCK_DEFAULT_THRESHOLD, 0,
     "subproblems C(n', k') with n' below this are counted sequentially "
     "(0: spawn down to the leaves)"},
    {NULL, NULL, 0, NULL},
};

SATIN_KIND(nchoosek, .summary = "binomial coefficient C(n, k) by the naive Pascal recursion",
           .params = nck_params, .parse = nck_parse, .root = SATIN_TASK_OF(nchoosek),
           .format = satin_format_value);
