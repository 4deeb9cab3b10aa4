/*
 * latency_hist.h - a histogram of durations whose buckets are an eighth of
 * an octave wide (each bound 9 % above the one before), kept as counters:
 * a node's buckets add up across nodes and across a job's life as every
 * other counter does, and percentiles read from the sum are within 4.5 %
 * of the true value.  A mean of waits is ruled by its few slowest on a
 * shared machine; the median is the typical wait.
 */
#ifndef SATIN_LATENCY_HIST_H
#define SATIN_LATENCY_HIST_H

#include "satin_kv.h"

#include <stdint.h>

/* 1 us to 2^26 us (67 s) in eighths of an octave; the first bucket also
 * takes everything shorter than 1 us, the last everything longer. */
#define SATIN_LATENCY_PER_OCTAVE 8
#define SATIN_LATENCY_BUCKETS (26 * SATIN_LATENCY_PER_OCTAVE)

typedef struct satin_latency_hist {
    uint64_t count[SATIN_LATENCY_BUCKETS];
} satin_latency_hist;

/* The bucket of a duration: floor(8 * log2(microseconds)), clamped. */
int satin_latency_bucket(int64_t ns);
void satin_latency_hist_add(satin_latency_hist *self, int64_t ns);

/* The buckets that hold anything, as i64 counters "<prefix>.b<k>" (bucket
 * k: from 2^(k/8) up to 2^((k+1)/8) microseconds). */
void satin_latency_hist_counters(const satin_latency_hist *self, const char *prefix,
                                 satin_kvlist *out);

/* 1 when `name` is one of those counters. */
int satin_latency_hist_is_bucket(const char *name, const char *prefix);

/* Reads the buckets "<prefix>.b<k>" of `counters` and adds to `out` the
 * median, the 90th and the 99th percentile in milliseconds (f64
 * "<name>_p50_ms", "_p90_ms", "_p99_ms"; each the geometric middle of its
 * bucket).  Returns the samples counted; with none, adds nothing. */
int64_t satin_latency_hist_percentiles(const satin_kvlist *counters, const char *prefix,
                                       const char *name, satin_kvlist *out);

#endif
