/*
 * satin_digest.h - the identity of an invocation record across nodes: its
 * place in its job's spawn tree and a digest of what it computes.
 *
 * A job's root gets a place from the node it was submitted to (unique in
 * the grid: that node, its run and the job), and the i-th spawn (from 1)
 * of an invocation at place p is at satin_place_child(p, i).  Kinds are
 * pure and spawn in an order fixed by their arguments, so a record run
 * again spawns its children at the same places with the same arguments:
 * that is what lets a result computed for a dead owner (an orphan,
 * PROTOCOL.md 14.12b) stand in for the child of the re-run.
 *
 * Neither is cryptographic: peers are authenticated, and a false match
 * needs both 64-bit values to collide (the digest covers the kind name
 * and the argument bytes, so even that match computes the same value).
 */
#ifndef SATIN_DIGEST_H
#define SATIN_DIGEST_H

#include <stddef.h>
#include <stdint.h>

/* A bijective 64-bit mixer (splitmix64's finaliser). */
static inline uint64_t satin_digest_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* The place of the index-th spawn (1, 2, ...) of the invocation at `parent`. */
static inline uint64_t satin_place_child(uint64_t parent, uint32_t index)
{
    return satin_digest_mix(parent + 0x9e3779b97f4a7c15ULL * ((uint64_t)index + 1));
}

/* The place of a job's root: `node` and its run `epoch` make it unique in
 * the grid, `job_id` in the node's run. */
uint64_t satin_place_root(uint32_t node, uint64_t epoch, uint64_t job_id);

/* The places of the records a record descends from that crossed between
 * nodes, as a 128-bit Bloom filter (three bits per place, taken from the
 * place's own hash bits).  "May hold" can be wrong only towards yes. */
typedef struct satin_ancestry {
    uint64_t w[2];
} satin_ancestry;

static inline void satin_ancestry_add(satin_ancestry *a, uint64_t place)
{
    for (int i = 0; i < 3; i++) {
        unsigned bit = (unsigned)(place >> (7 * i)) & 127u;
        a->w[bit >> 6] |= 1ULL << (bit & 63u);
    }
}

static inline int satin_ancestry_may_hold(const satin_ancestry *a, uint64_t place)
{
    for (int i = 0; i < 3; i++) {
        unsigned bit = (unsigned)(place >> (7 * i)) & 127u;
        if (!(a->w[bit >> 6] & (1ULL << (bit & 63u))))
            return 0;
    }
    return 1;
}

/* A digest of a record's kind name and argument bytes. */
uint64_t satin_digest(const char *kind, const void *arg, size_t len);

#endif
