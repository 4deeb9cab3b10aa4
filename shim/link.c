/*
 * link.c - a directed link's parameters, token bucket, jitter and counters.
 *
 * The bucket holds at most `burst` bytes: 10 ms worth of the bandwidth, but
 * at least 4 KiB (so that a slow link does not wake us for every few
 * hundred bytes) and at most 1 MiB.  It starts full.  So in any interval of
 * length T a link delivers at most burst + rate * T bytes: the lower bound
 * on a transfer's time that the tests check.
 */
#include "link.h"

#include <math.h>
#include <time.h>

#define BURST_S 0.010
#define BURST_MIN 4096.0
#define BURST_MAX 1048576.0
#define MSS 1448   /* a TCP segment's payload, the smallest share per turn */

/* splitmix64: small, good enough for jitter, and the same on every machine
 * for the same seed, so that a run can be repeated. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void set_rate(wan_link *l, double bandwidth_kBps)
{
    l->bandwidth_kBps = bandwidth_kBps;
    l->rate = bandwidth_kBps * 1000.0;
    l->burst = fmin(fmax(l->rate * BURST_S, BURST_MIN), BURST_MAX);
    /* A quarter of the bucket per turn keeps connections sharing it in
     * step without a system call per few bytes on fast links. */
    l->quantum = (size_t)fmax(MSS, l->burst / 4);
    if (l->tokens > l->burst)
        l->tokens = l->burst;
}

void wan_link_init(wan_link *l, int from, int to, double latency_ms, double jitter_ms,
                   double bandwidth_kBps, uint64_t seed, int64_t now)
{
    *l = (wan_link){.from = from, .to = to, .latency_ms = latency_ms, .jitter_ms = jitter_ms,
                    .refill_ns = now};
    /* Each link its own sequence, so that traffic on one link does not
     * change the jitter another link sees. */
    l->rng = seed ^ ((uint64_t)(from + 1) << 32) ^ (uint64_t)(to + 1);
    next_random(&l->rng);
    set_rate(l, bandwidth_kBps);
    l->tokens = l->burst;
}

void wan_link_set(wan_link *l, double latency_ms, double jitter_ms, double bandwidth_kBps,
                  int64_t now)
{
    if (latency_ms >= 0)
        l->latency_ms = latency_ms;
    if (jitter_ms >= 0)
        l->jitter_ms = jitter_ms;
    if (bandwidth_kBps > 0) {
        wan_link_refill(l, now);   /* the time so far at the old rate */
        set_rate(l, bandwidth_kBps);
    }
}

int64_t wan_link_delay_ns(wan_link *l)
{
    double ms = l->latency_ms;
    if (l->jitter_ms > 0) {
        double u = (double)(next_random(&l->rng) >> 11) / 9007199254740992.0;   /* [0, 1) */
        ms += u * l->jitter_ms;
    }
    /* Rounded up: the latency is a floor, never to be undercut. */
    return (int64_t)ceil(ms * 1e6);
}

void wan_link_refill(wan_link *l, int64_t now)
{
    if (now <= l->refill_ns)
        return;
    l->tokens = fmin(l->burst, l->tokens + l->rate * (double)(now - l->refill_ns) / 1e9);
    l->refill_ns = now;
}

size_t wan_link_tokens(const wan_link *l)
{
    return l->tokens > 0 ? (size_t)floor(l->tokens) : 0;
}

void wan_link_spend(wan_link *l, size_t n)
{
    l->tokens -= (double)n;
}

int64_t wan_link_ready_at(const wan_link *l, size_t n, int64_t now)
{
    double need = fmin((double)n, l->burst) - l->tokens;
    if (need <= 0)
        return now;
    /* +1 ns so that floor(tokens) has surely reached n by then. */
    return l->refill_ns + (int64_t)ceil(need / l->rate * 1e9) + 1;
}

void wan_link_stall(wan_link *l, int stalled, int64_t now)
{
    if (stalled && !l->stall_since_ns) {
        l->stall_since_ns = now ? now : 1;
    } else if (!stalled && l->stall_since_ns) {
        l->stalled_ns += now - l->stall_since_ns;
        l->stall_since_ns = 0;
    }
}

int64_t wan_link_stalled_ns(const wan_link *l, int64_t now)
{
    return l->stalled_ns + (l->stall_since_ns ? now - l->stall_since_ns : 0);
}
