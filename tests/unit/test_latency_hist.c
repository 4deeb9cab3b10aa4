/*
 * test_latency_hist.c - durations into eighth-of-an-octave buckets, the
 * buckets as counters that add up across nodes, and percentiles read back
 * from them.
 */
#include "../tap.h"
#include "latency_hist.h"

#include <math.h>
#include <string.h>

/* The f64 `name` of `l`, or -1. */
static double f64_of(const satin_kvlist *l, const char *name)
{
    double v;
    return satin_kvlist_f64(l, name, &v) == 0 ? v : -1;
}

/* Percentiles are bucket middles, computed the same way: equal to 1e-12. */
static void is_ms(double got, double want, const char *what)
{
    if (!ok(fabs(got - want) < 1e-12, "%s", what))
        diag("got %.9f ms, want %.9f ms", got, want);
}

static double middle_ms(int k)
{
    return exp2((k + 0.5) / 8.0) / 1000.0;
}

int main(void)
{
    /* Bucket bounds: 2^(k/8) us, so 1 us opens bucket 0, 2 us bucket 8,
     * 128 us bucket 56; just below a bound is the bucket before. */
    is_i64(satin_latency_bucket(0), 0, "0 ns: the first bucket");
    is_i64(satin_latency_bucket(999), 0, "below 1 us: the first bucket");
    is_i64(satin_latency_bucket(1000), 0, "1 us: bucket 0");
    is_i64(satin_latency_bucket(2000), 8, "2 us: bucket 8");
    is_i64(satin_latency_bucket(1999), 7, "just below 2 us: bucket 7");
    is_i64(satin_latency_bucket(128000), 56, "128 us: bucket 56");
    is_i64(satin_latency_bucket(139585), 57, "128 us x 2^(1/8) (139.58): bucket 57");
    is_i64(satin_latency_bucket(139580), 56, "just below it: bucket 56");
    is_i64(satin_latency_bucket(INT64_MAX), SATIN_LATENCY_BUCKETS - 1,
           "longer than the last bound: the last bucket");

    /* Node A: 60 waits of 100 us and 40 of 1 ms; node B: 100 of 1 ms. */
    satin_latency_hist a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    for (int i = 0; i < 60; i++)
        satin_latency_hist_add(&a, 100000);
    for (int i = 0; i < 40; i++)
        satin_latency_hist_add(&a, 1000000);
    for (int i = 0; i < 100; i++)
        satin_latency_hist_add(&b, 1000000);
    int k100 = satin_latency_bucket(100000), k1000 = satin_latency_bucket(1000000);
    is_i64(k100, 53, "100 us: bucket 53");
    is_i64(k1000, 79, "1 ms: bucket 79");

    satin_kvlist ca, cb;
    satin_kvlist_init(&ca);
    satin_kvlist_init(&cb);
    satin_latency_hist_counters(&a, "w", &ca);
    satin_latency_hist_counters(&b, "w", &cb);
    is_i64((int64_t)ca.n, 2, "only the buckets that hold anything are counters");
    int64_t v = 0;
    is_i64(satin_kvlist_i64(&ca, "w.b53", &v), 0, "bucket 53 is w.b53");
    is_i64(v, 60, "holding 60");
    ok(satin_latency_hist_is_bucket("w.b53", "w"), "w.b53 is a bucket of w");
    ok(!satin_latency_hist_is_bucket("w.b208", "w"), "w.b208 is past the last bucket");
    ok(!satin_latency_hist_is_bucket("w.b", "w"), "w.b names no bucket");
    ok(!satin_latency_hist_is_bucket("w.b5x", "w"), "w.b5x names no bucket");
    ok(!satin_latency_hist_is_bucket("wx.b5", "w"), "wx.b5 is another prefix's");
    ok(!satin_latency_hist_is_bucket("lan_wait_s", "w"), "an ordinary counter is none");

    /* One node alone: median and 90th in its buckets. */
    satin_kvlist out;
    satin_kvlist_init(&out);
    is_i64(satin_latency_hist_percentiles(&ca, "w", "x", &out), 100, "A: 100 samples");
    is_ms(f64_of(&out, "x_p50_ms"), middle_ms(k100), "A: the median is 100 us's bucket");
    is_ms(f64_of(&out, "x_p90_ms"), middle_ms(k1000), "A: the 90th is 1 ms's bucket");
    ok(fabs(f64_of(&out, "x_p50_ms") - 0.1) / 0.1 < 0.045, "A: the median within 4.5 per cent");
    satin_kvlist_free(&out);

    /* Both nodes' counters in one list, as the statistics round sums them:
     * 60 of 200 at 100 us, so the median moves to 1 ms. */
    satin_kvlist sum;
    satin_kvlist_init(&sum);
    satin_kvlist_copy(&sum, &ca);
    int64_t both = 0;
    satin_kvlist_i64(&cb, "w.b79", &both);
    satin_kvlist_i64(&ca, "w.b79", &v);
    satin_kvlist_add_i64(&sum, "w.b79", both + v);
    satin_kvlist_add_i64(&sum, "lan_wait_s", 7);   /* not a bucket: ignored */
    satin_kvlist_init(&out);
    is_i64(satin_latency_hist_percentiles(&sum, "w", "x", &out), 200, "A + B: 200 samples");
    is_ms(f64_of(&out, "x_p50_ms"), middle_ms(k1000), "A + B: the median is 1 ms's");
    is_ms(f64_of(&out, "x_p99_ms"), middle_ms(k1000), "A + B: the 99th too");
    satin_kvlist_free(&out);

    /* The rank is ceil(p % of n): with 2 samples, the median is the first. */
    satin_kvlist two;
    satin_kvlist_init(&two);
    satin_kvlist_add_i64(&two, "w.b10", 1);
    satin_kvlist_add_i64(&two, "w.b20", 1);
    satin_kvlist_init(&out);
    satin_latency_hist_percentiles(&two, "w", "x", &out);
    is_ms(f64_of(&out, "x_p50_ms"), middle_ms(10), "2 samples: the median is the lower");
    is_ms(f64_of(&out, "x_p90_ms"), middle_ms(20), "2 samples: the 90th the upper");
    satin_kvlist_free(&out);

    /* No samples: nothing added. */
    satin_kvlist none;
    satin_kvlist_init(&none);
    satin_kvlist_add_i64(&none, "w.b3", 0);
    satin_kvlist_init(&out);
    is_i64(satin_latency_hist_percentiles(&none, "w", "x", &out), 0, "empty buckets: no samples");
    is_i64((int64_t)out.n, 0, "and no percentiles");

    satin_kvlist_free(&out);
    satin_kvlist_free(&none);
    satin_kvlist_free(&two);
    satin_kvlist_free(&sum);
    satin_kvlist_free(&ca);
    satin_kvlist_free(&cb);
    return done_testing();
}
