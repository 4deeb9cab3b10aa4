/*
 * link.h - one emulated directed link between two clusters: its latency,
 * jitter and bandwidth, the token bucket that every connection using this
 * direction shares, and its counters.  No I/O here: the relay asks the
 * link how long to hold bytes and how many it may send now.
 */
#ifndef WANEM_LINK_H
#define WANEM_LINK_H

#include "clock.h"

#include <stddef.h>
#include <stdint.h>

#define WANEM_MAX_MS 60000.0          /* latency and jitter: as in the topology */
#define WANEM_MAX_KBPS 10000000.0     /* 10 GByte/s */

typedef struct wan_link {
    int from, to;                     /* cluster indexes */
    double latency_ms, jitter_ms, bandwidth_kBps;
    double rate;                      /* bytes per second (bandwidth_kBps * 1000) */
    double burst;                     /* the bucket's size in bytes */
    double tokens;                    /* bytes that may be sent now */
    int64_t refill_ns;                /* when `tokens` was last brought up to date */
    size_t quantum;                   /* most bytes one connection sends per turn */
    int partitioned;
    uint64_t rng;                     /* jitter: this link's own seeded sequence */
    /* counters */
    uint64_t bytes;                   /* delivered to the receiving side */
    uint64_t connections;             /* connections that used this direction */
    int open;                         /* of which open now */
    uint64_t queued;                  /* bytes held now */
    int64_t stalled_ns;               /* time with due bytes that could not go out */
    int64_t stall_since_ns;           /* 0: not stalled now */
} wan_link;

/* Monotonic nanoseconds. */


void wan_link_init(wan_link *l, int from, int to, double latency_ms, double jitter_ms,
                   double bandwidth_kBps, uint64_t seed, int64_t now);
/* New parameters from now on; a negative value leaves that one as it is.
 * Bytes already held keep the delay they were given. */
void wan_link_set(wan_link *l, double latency_ms, double jitter_ms, double bandwidth_kBps,
                  int64_t now);

/* How long to hold a chunk read now: latency plus a jitter draw from
 * [0, jitter] (never less than the latency). */
int64_t wan_link_delay_ns(wan_link *l);

/* The bucket: bring it up to `now`, what may be sent, spend, and when
 * `n` bytes (at most the bucket's size) will be there. */
void wan_link_refill(wan_link *l, int64_t now);
size_t wan_link_tokens(const wan_link *l);
void wan_link_spend(wan_link *l, size_t n);
int64_t wan_link_ready_at(const wan_link *l, size_t n, int64_t now);

/* Stall accounting: `stalled` says whether bytes are due but held back
 * (by the bucket or a partition) as of `now`. */
void wan_link_stall(wan_link *l, int stalled, int64_t now);
int64_t wan_link_stalled_ns(const wan_link *l, int64_t now);

#endif
