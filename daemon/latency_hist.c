/* latency_hist.c - durations in buckets of an eighth of an octave (see latency_hist.h). */
#include "latency_hist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int satin_latency_bucket(int64_t ns)
{
    if (ns < 1000)
        return 0;
    int k = (int)floor(SATIN_LATENCY_PER_OCTAVE * log2((double)ns / 1000.0));
    return k < SATIN_LATENCY_BUCKETS ? k : SATIN_LATENCY_BUCKETS - 1;
}

void satin_latency_hist_add(satin_latency_hist *self, int64_t ns)
{
    self->count[satin_latency_bucket(ns)]++;
}

void satin_latency_hist_counters(const satin_latency_hist *self, const char *prefix,
                                 satin_kvlist *out)
{
    for (int k = 0; k < SATIN_LATENCY_BUCKETS; k++) {
        if (!self->count[k])
            continue;
        char key[SATIN_KV_NAME_MAX + 1];
        snprintf(key, sizeof key, "%s.b%d", prefix, k);
        satin_kvlist_add_i64(out, key, (int64_t)self->count[k]);
    }
}

/* The bucket a counter name holds, or -1 when it is none of `prefix`'s. */
static int bucket_of(const char *name, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0 || name[n] != '.' || name[n + 1] != 'b')
        return -1;
    const char *digits = name + n + 2;
    if (*digits < '0' || *digits > '9')
        return -1;
    char *end;
    long k = strtol(digits, &end, 10);
    return *end == '\0' && k < SATIN_LATENCY_BUCKETS ? (int)k : -1;
}

int satin_latency_hist_is_bucket(const char *name, const char *prefix)
{
    return bucket_of(name, prefix) >= 0;
}

int64_t satin_latency_hist_percentiles(const satin_kvlist *counters, const char *prefix,
                                       const char *name, satin_kvlist *out)
{
    int64_t count[SATIN_LATENCY_BUCKETS] = {0}, total = 0;
    for (size_t i = 0; i < counters->n; i++) {
        const satin_kv *kv = &counters->items[i];
        int k = kv->type == SATIN_KV_I64 ? bucket_of(kv->name, prefix) : -1;
        /* A sum over a job's life cannot shrink; one that did is not counted. */
        if (k >= 0 && kv->i64 > 0) {
            count[k] += kv->i64;
            total += kv->i64;
        }
    }
    if (!total)
        return 0;
    static const struct { int percent; const char *suffix; } wanted[] = {
        {50, "p50_ms"}, {90, "p90_ms"}, {99, "p99_ms"}};
    for (size_t w = 0; w < sizeof wanted / sizeof wanted[0]; w++) {
        /* The smallest bucket that holds the sample of rank ceil(p % of total). */
        int64_t rank = (total * wanted[w].percent + 99) / 100, seen = 0;
        int k = 0;
        while (k < SATIN_LATENCY_BUCKETS - 1 && seen + count[k] < rank)
            seen += count[k++];
        char key[SATIN_KV_NAME_MAX + 1];
        snprintf(key, sizeof key, "%s_%s", name, wanted[w].suffix);
        satin_kvlist_add_f64(out, key, exp2((k + 0.5) / SATIN_LATENCY_PER_OCTAVE) / 1000.0);
    }
    return total;
}
