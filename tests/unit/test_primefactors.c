/*
 * test_primefactors.c - the primefactors kind: factor counts, prime counts
 * and sums of prime factors of ranges against a smallest-prime-factor sieve
 * (small numbers) and plain trial division by every d >= 2 (numbers near
 * 10^12 and 2^40), whatever the threshold and the number of workers; the
 * known values for [2, 100]; and the error texts of bad parameters.
 */
#include "kinds.h"
#include "../tap.h"

#define KIND_UNDER_TEST "primefactors"
#include "kind_kit.h"

#define SIEVE_MAX 200000

static int32_t spf[SIEVE_MAX + 1]; /* smallest prime factor; 0 for 0 and 1 */

typedef struct sums {
    int64_t factors, primes, checksum;
} sums;

static void sieve(void)
{
    for (int32_t i = 2; i <= SIEVE_MAX; i++)
        if (!spf[i])
            for (int32_t j = i; j <= SIEVE_MAX; j += i)
                if (!spf[j])
                    spf[j] = i;
}

static void add_sieved(int64_t x, sums *s)
{
    int64_t count = 0;
    while (x > 1) {
        int32_t p = spf[x];
        x /= p;
        count++;
        s->checksum += p;
    }
    s->factors += count;
    s->primes += count == 1;
}

/* Trial division by every d = 2, 3, 4, ... while d*d <= x. */
static void add_trial(int64_t x, sums *s)
{
    int64_t count = 0;
    for (int64_t d = 2; d * d <= x; d++) {
        while (x % d == 0) {
            x /= d;
            count++;
            s->checksum += d;
        }
    }
    if (x > 1) {
        count++;
        s->checksum += x;
    }
    s->factors += count;
    s->primes += count == 1;
}

static sums expected(int64_t lo, int64_t hi)
{
    sums s = {0, 0, 0};
    for (int64_t x = lo; x <= hi; x++) {
        if (hi <= SIEVE_MAX)
            add_sieved(x, &s);
        else
            add_trial(x, &s);
    }
    return s;
}

/* Runs primefactors on [lo, hi] (threshold < 0: the default); fails the
 * sums (-1) with a diagnostic when the job fails. */
static sums run_pf(satin_pool *pool, int64_t lo, int64_t hi, int64_t threshold)
{
    char pl[48], ph[48], pt[48];
    snprintf(pl, sizeof pl, "lo=%lld", (long long)lo);
    snprintf(ph, sizeof ph, "hi=%lld", (long long)hi);
    snprintf(pt, sizeof pt, "threshold=%lld", (long long)threshold);
    const char *params[] = {pl, ph, threshold >= 0 ? pt : NULL, NULL};
    satin_outcome o;
    sums s = {-1, -1, -1};
    satin_run_record(pool, kit_kinds(), "primefactors", params, &o);
    if (o.failed) {
        diag("primefactors [%lld, %lld] failed: %s", (long long)lo, (long long)hi, o.error);
    } else if (satin_kvlist_i64(&o.result, "factors", &s.factors) < 0 ||
               satin_kvlist_i64(&o.result, "primes", &s.primes) < 0 ||
               satin_kvlist_i64(&o.result, "checksum", &s.checksum) < 0) {
        diag("primefactors gave no i64 factors/primes/checksum");
        s.factors = -1;
    }
    satin_outcome_free(&o);
    return s;
}

typedef struct range_case {
    int64_t lo, hi, threshold;
    sums want;
} range_case;

#define TERA INT64_C(1000000000000)
#define TOP (INT64_C(1) << 40)

/* Around 10^12 and at the top of the range, primes cost ~10^6 divisions each
 * in the plain trial division here: the expected sums are computed once. */
static range_case ranges[] = {
    {1, 50000, -1, {0, 0, 0}},
    {1, 50000, 1, {0, 0, 0}},       /* a job per number */
    {1, 50000, 7, {0, 0, 0}},
    {1, 50000, 4194304, {0, 0, 0}}, /* all sequential */
    {150000, 200000, 100, {0, 0, 0}},
    {2, 3, 1, {0, 0, 0}},
    {TERA, TERA + 150, 16, {0, 0, 0}},
    {TOP - 100, TOP, 1, {0, 0, 0}},
};
#define NRANGES (sizeof ranges / sizeof ranges[0])

static void compute_expected(void)
{
    for (size_t i = 0; i < NRANGES; i++)
        ranges[i].want = expected(ranges[i].lo, ranges[i].hi);
}

static void check_ranges(satin_pool *pool, int workers)
{
    for (size_t i = 0; i < NRANGES; i++) {
        const range_case *r = &ranges[i];
        sums got = run_pf(pool, r->lo, r->hi, r->threshold);
        if (!ok(got.factors == r->want.factors && got.primes == r->want.primes &&
                    got.checksum == r->want.checksum,
                "[%lld, %lld] threshold=%lld, %d worker(s)", (long long)r->lo,
                (long long)r->hi, (long long)r->threshold, workers))
            diag("got factors=%lld primes=%lld checksum=%lld, expected %lld %lld %lld",
                 (long long)got.factors, (long long)got.primes, (long long)got.checksum,
                 (long long)r->want.factors, (long long)r->want.primes,
                 (long long)r->want.checksum);
    }
}

static void check_known(satin_pool *pool)
{
    /* Sum of Omega(x) for x <= 100 is 239 (OEIS A022559); 25 primes below 100. */
    sums s = run_pf(pool, 2, 100, -1);
    is_i64(s.factors, 239, "[2, 100]: 239 prime factors");
    is_i64(s.primes, 25, "[2, 100]: 25 primes");
    s = run_pf(pool, 12, 12, -1);
    is_i64(s.factors, 3, "12 = 2*2*3: 3 factors");
    is_i64(s.checksum, 7, "12 = 2*2*3: they sum to 7");
    s = run_pf(pool, 1, 1, -1);
    ok(s.factors == 0 && s.primes == 0 && s.checksum == 0, "1 has no prime factors");
    /* The default lo is 2. */
    satin_outcome o;
    int64_t v = -1;
    satin_run_record(pool, kit_kinds(), "primefactors", (const char *[]){"hi=10", NULL}, &o);
    ok(!o.failed && satin_kvlist_i64(&o.result, "factors", &v) == 0 && v == 15,
       "hi=10 alone: [2, 10] has 15 prime factors");
    satin_outcome_free(&o);
}

static void check_bad_params(satin_pool *pool)
{
    check_bad(pool, (const char *[]){NULL}, "needs parameter 'hi'", "missing hi");
    check_bad(pool, (const char *[]){"lo=0", "hi=10", NULL}, "out of range", "lo=0");
    check_bad(pool, (const char *[]){"hi=0", NULL}, "out of range", "hi=0");
    check_bad(pool, (const char *[]){"hi=1099511627777", NULL}, "out of range", "hi=2^40+1");
    check_bad(pool, (const char *[]){"lo=20", "hi=10", NULL}, "lo=20 must not exceed hi=10",
              "lo > hi");
    check_bad(pool, (const char *[]){"lo=1", "hi=4194305", NULL}, "more than the limit",
              "2^22+1 numbers");
    check_bad(pool, (const char *[]){"hi=10", "threshold=0", NULL}, "out of range",
              "threshold=0");
    check_bad(pool, (const char *[]){"hi=1e6", NULL}, "not an integer", "hi=1e6");
    check_bad(pool, (const char *[]){"hi=10", "n=10", NULL}, "unknown parameter 'n'",
              "unknown key");
}

int main(void)
{
    sieve();
    compute_expected();
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = 2});
    check_known(pool);
    check_ranges(pool, 2);
    check_bad_params(pool);
    satin_pool_destroy(&pool);

    pool = satin_pool_new(&(satin_pool_config){.workers = 1});
    check_ranges(pool, 1);
    satin_pool_destroy(&pool);
    return done_testing();
}
