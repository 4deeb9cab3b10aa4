/*
 * primefactors.c - factor every integer of a range [lo, hi] by trial
 * division: a prime-factors application like the one in the paper's set
 * (the paper gives no definition, so this one is ours), made into a
 * divide-and-conquer over a range of numbers.
 *
 * Definition.  For x >= 1 let Omega(x) be the number of prime factors of x
 * counted with multiplicity and sopfr(x) their sum (Omega(1) = sopfr(1) = 0;
 * 12 = 2*2*3 gives 3 and 7).  The job reports, over lo <= x <= hi:
 *     factors  = sum of Omega(x)
 *     primes   = how many x are prime (Omega(x) = 1)
 *     checksum = sum of sopfr(x)
 * All three are exact integers.  The limits hi <= 2^40 and at most 2^22
 * numbers per job keep the checksum below 2^22 * 2^40 < 2^63.
 *
 * A job whose range holds more than `threshold` numbers splits it at the
 * middle and spawns both halves; smaller ranges are factored sequentially,
 * each number by trial division with 2, 3 and then 6j-1, 6j+1 up to the
 * square root of what is left (at most 2^20 for x <= 2^40, so d*d cannot
 * overflow).  The cost per number varies a lot (primes are the expensive
 * ones, about sqrt(x)/3 divisions), so the halving gives the load balancer
 * irregular work.  Every range is an invocation of the typed task
 * `primefactors` (a pf_arg in, a pf_res back).
 */
#include "apps.h"
#include "kind_shared.h"

#include <stdint.h>
#include <string.h>

#define PF_MAX_HI (INT64_C(1) << 40)
#define PF_MAX_COUNT (INT64_C(1) << 22)
#define PF_DEFAULT_THRESHOLD "1000"
/* Sequential ranges look at the cancel flag once per this many numbers. */
#define PF_CANCEL_EVERY 256

/* Fixed-width fields with no padding: the bytes may cross machines. */
typedef struct pf_arg {
    int64_t lo, hi;       /* inclusive, 1 <= lo <= hi <= 2^40 */
    int64_t threshold;    /* ranges of at most this many numbers: sequential */
} pf_arg;

typedef struct pf_res {
    int64_t factors;
    int64_t primes;
    int64_t checksum;
} pf_res;

/* Adds x's prime factorization to r. */
static void pf_factor(uint64_t x, pf_res *r)
{
    int64_t count = 0, sum = 0;
    static const uint64_t small[] = {2, 3};
    for (int i = 0; i < 2; i++) {
        while (x % small[i] == 0) {
            x /= small[i];
            count++;
            sum += (int64_t)small[i];
        }
    }
    for (uint64_t d = 5; d * d <= x; d += 6) {
        while (x % d == 0) {
            x /= d;
            count++;
            sum += (int64_t)d;
        }
        uint64_t e = d + 2;
        while (x % e == 0) {
            x /= e;
            count++;
            sum += (int64_t)e;
        }
    }
    if (x > 1) {   /* what is left has no factor up to its square root */
        count++;
        sum += (int64_t)x;
    }
    r->factors += count;
    r->primes += count == 1;
    r->checksum += sum;
}

static void pf_seq(int64_t lo, int64_t hi, pf_res *r)
{
    for (int64_t x = lo; x <= hi; x++) {
        if ((x - lo) % PF_CANCEL_EVERY == PF_CANCEL_EVERY - 1 && satin_cancelled())
            return;
        pf_factor((uint64_t)x, r);
    }
}

static int pf_valid(const pf_arg *a, satin_err *err);
SATIN_TASK(pf_res, primefactors, pf_arg, pf_valid);

/* The argument is what pf_valid accepts: parse's, a spawn's, or one that
 * passed the check. */
static pf_res primefactors(SATIN_FRAME, pf_arg a)
{
    pf_res r = {0, 0, 0};
    if (a.hi - a.lo + 1 <= a.threshold) {
        pf_seq(a.lo, a.hi, &r);
        return r;
    }
    int64_t mid = a.lo + (a.hi - a.lo) / 2;
    pf_res rl = {0, 0, 0}, rh = {0, 0, 0};
    satin_spawn(primefactors, &rl, (pf_arg){a.lo, mid, a.threshold});
    satin_spawn(primefactors, &rh, (pf_arg){mid + 1, a.hi, a.threshold});
    satin_sync();
    r.factors = rl.factors + rh.factors;
    r.primes = rl.primes + rh.primes;
    r.checksum = rl.checksum + rh.checksum;
    return r;
}

static int pf_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    pf_arg a;
    memset(&a, 0, sizeof a);
    if (satin_param_i64(p, "lo", 1, PF_MAX_HI, &a.lo, err) < 0 ||
        satin_param_i64(p, "hi", 1, PF_MAX_HI, &a.hi, err) < 0 ||
        satin_param_i64(p, "threshold", 1, PF_MAX_COUNT, &a.threshold, err) < 0)
        return -1;
    if (a.lo > a.hi)
        return satin_err_set(err, "primefactors: lo=%lld must not exceed hi=%lld",
                             (long long)a.lo, (long long)a.hi);
    if (a.hi - a.lo >= PF_MAX_COUNT)
        return satin_err_set(err,
                             "primefactors: range [%lld, %lld] holds %lld numbers, "
                             "more than the limit of %lld",
                             (long long)a.lo, (long long)a.hi, (long long)(a.hi - a.lo + 1),
                             (long long)PF_MAX_COUNT);
    return satin_bytes_put(arg, &a, sizeof a, err);
}

/* What parse allows; the halves of a range stay within it. */
static int pf_valid(const pf_arg *a, satin_err *err)
{
    if (satin_arg_range("primefactors", "lo", a->lo, 1, PF_MAX_HI, err) < 0 ||
        satin_arg_range("primefactors", "hi", a->hi, a->lo, PF_MAX_HI, err) < 0 ||
        satin_arg_range("primefactors", "hi - lo", a->hi - a->lo, 0, PF_MAX_COUNT - 1, err) < 0 ||
        satin_arg_range("primefactors", "threshold", a->threshold, 1, PF_MAX_COUNT, err) < 0)
        return -1;
    return 0;
}

static void pf_format(const void *res, size_t len, double wall_s,
                      satin_result *result, satin_result *stats)
{
    (void)wall_s;
    (void)stats;
    pf_res r = {0, 0, 0};
    if (len == sizeof r)
        memcpy(&r, res, sizeof r);
    satin_result_i64(result, "factors", r.factors);
    satin_result_i64(result, "primes", r.primes);
    satin_result_i64(result, "checksum", r.checksum);
}

static const satin_param_def pf_params[] = {
    {"lo", "2", 0, "first number of the range, 1..2^40"},
    {"hi", NULL, 1, "last number of the range, lo..2^40, at most 2^22 numbers in all"},
    {"threshold", PF_DEFAULT_THRESHOLD, 0,
     "ranges of at most this many numbers are factored sequentially, 1..2^22"},
    {NULL, NULL, 0, NULL},
};

SATIN_KIND(primefactors,
           .summary = "factor every number of a range by trial division: prime factor count, "
                      "primes, sum of prime factors",
           .params = pf_params, .parse = pf_parse, .root = SATIN_TASK_OF(primefactors),
           .format = pf_format);
