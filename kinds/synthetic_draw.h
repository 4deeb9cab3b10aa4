/*
 * synthetic_draw.h - the leaf times of the `synthetic` kind, as a pure
 * function of (distribution, mean, shape, seed, leaf index), so that the
 * kind, its unit test and any benchmark script agree on every draw.
 *
 * Each leaf has its own random stream (splitmix64 started from a state made
 * of the seed and the leaf index): word k (k = 0, 1, ...) of the stream of
 * leaf L under seed S is
 *     syn_mix64(syn_mix64(S) ^ syn_mix64(L ^ 0x5851f42d4c957f2d) + (k+1) * golden)
 * (golden = 0x9e3779b97f4a7c15, arithmetic modulo 2^64), so a draw never
 * depends on which leaves ran before it, or where.
 *
 *   const    every leaf waits exactly mean_us
 *   uniform  an integer uniform on [0, 2*mean_us] (word 0 modulo 2*mean_us+1;
 *            the bias is below 2^-32): the mean is exactly mean_us
 *   gamma    Gamma(shape, scale = mean_us/shape) by Marsaglia and Tsang
 *            (2000) with normals from the polar method and the u^(1/shape)
 *            boost for shape < 1, rounded to the nearest microsecond.  SimMatrix's
 *            "mtc_64" many-task workload (mean 64 s, standard deviation
 *            486 s) is shape = (64/486)^2 ~ 0.0173.
 * Every draw is clamped to [0, SYN_MAX_DRAW_US].
 *
 * const and uniform use integer arithmetic only.  gamma uses log, sqrt and
 * pow from libm: the same libm gives the same draws; another libm may differ
 * in the last bit of a log and, very rarely, move a draw by one microsecond.
 */
#ifndef SATIN_SYNTHETIC_DRAW_H
#define SATIN_SYNTHETIC_DRAW_H

#include <math.h>
#include <stdint.h>

#include "splitmix.h"

#define SYN_DIST_CONST 0
#define SYN_DIST_UNIFORM 1
#define SYN_DIST_GAMMA 2

/* 2^36 us, about 19 hours: with at most 2^26 leaves the sum fits in int64. */
#define SYN_MAX_DRAW_US (INT64_C(1) << 36)

static inline uint64_t syn_mix64(uint64_t z)
{
    return satin_splitmix_final(z);
}

typedef struct syn_stream {
    uint64_t state;
} syn_stream;

static inline syn_stream syn_stream_of(uint64_t seed, uint64_t leaf)
{
    syn_stream s = {syn_mix64(seed) ^ syn_mix64(leaf ^ UINT64_C(0x5851f42d4c957f2d))};
    return s;
}

static inline uint64_t syn_next(syn_stream *s)
{
    return satin_splitmix_next(&s->state);
}

/* Uniform on (0, 1]: never 0, so that log() is finite. */
static inline double syn_unit(syn_stream *s)
{
    return (double)((syn_next(s) >> 11) + 1) * (1.0 / 9007199254740992.0);
}

/* A standard normal (Marsaglia's polar method, one of the pair). */
static inline double syn_normal(syn_stream *s)
{
    for (;;) {
        double u = 2 * syn_unit(s) - 1, v = 2 * syn_unit(s) - 1;
        double q = u * u + v * v;
        if (q > 0 && q < 1)
            return u * sqrt(-2 * log(q) / q);
    }
}

/* Gamma(shape, 1) for shape >= 1 (Marsaglia and Tsang). */
static inline double syn_gamma_ge1(syn_stream *s, double shape)
{
    double d = shape - 1.0 / 3, c = 1 / sqrt(9 * d);
    for (;;) {
        double z = syn_normal(s);
        double v = 1 + c * z;
        if (v <= 0)
            continue;
        v = v * v * v;
        double u = syn_unit(s);
        if (log(u) < 0.5 * z * z + d - d * v + d * log(v))
            return d * v;
    }
}

/* The wait of leaf `leaf`, in microseconds. */
static inline int64_t syn_draw_us(int32_t dist, int64_t mean_us, double shape, uint64_t seed,
                                  uint64_t leaf)
{
    if (mean_us <= 0)
        return 0;
    syn_stream s = syn_stream_of(seed, leaf);
    int64_t r;
    switch (dist) {
    case SYN_DIST_UNIFORM:
        r = (int64_t)(syn_next(&s) % (uint64_t)(2 * mean_us + 1));
        break;
    case SYN_DIST_GAMMA: {
        double g;
        if (shape >= 1) {
            g = syn_gamma_ge1(&s, shape);
        } else {
            g = syn_gamma_ge1(&s, shape + 1);
            g *= pow(syn_unit(&s), 1 / shape);
        }
        double us = g * ((double)mean_us / shape);
        r = us >= (double)SYN_MAX_DRAW_US ? SYN_MAX_DRAW_US : (int64_t)(us + 0.5);
        break;
    }
    default:
        r = mean_us;
        break;
    }
    if (r < 0)
        r = 0;
    return r > SYN_MAX_DRAW_US ? SYN_MAX_DRAW_US : r;
}

#endif
