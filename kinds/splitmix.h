/*
 * splitmix.h - SplitMix64 (Steele, Lea and Flood, 2014), the generator the
 * kinds make their seeded instances and data with.  One definition, so that
 * every kind's numbers come from the same function; the oracles in tests/
 * and bench/ keep their own copies on purpose, to check the kinds against
 * an independent one.
 */
#ifndef SATIN_SPLITMIX_H
#define SATIN_SPLITMIX_H

#include <stdint.h>

#define SATIN_SPLITMIX_GOLDEN UINT64_C(0x9e3779b97f4a7c15)

/* The finaliser: a bijection of 64-bit words that mixes every bit. */
static inline uint64_t satin_splitmix_final(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Word `z` of a stream as a pure function of its position: for data that
 * each job makes where it runs, whatever ran before. */
static inline uint64_t satin_splitmix_at(uint64_t z)
{
    return satin_splitmix_final(z + SATIN_SPLITMIX_GOLDEN);
}

/* The next word of the stream whose state is *state. */
static inline uint64_t satin_splitmix_next(uint64_t *state)
{
    *state += SATIN_SPLITMIX_GOLDEN;
    return satin_splitmix_final(*state);
}

#endif
