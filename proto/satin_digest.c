/* satin_digest.c - record identities (satin_digest.h). */
#include "satin_digest.h"

#include <string.h>

uint64_t satin_place_root(uint32_t node, uint64_t epoch, uint64_t job_id)
{
    uint64_t h = satin_digest_mix(0x5341544e00000000ULL ^ node);
    h = satin_digest_mix(h ^ epoch);
    return satin_digest_mix(h ^ job_id);
}

/* Up to 8 bytes as a little-endian word: every node digests alike,
 * whatever its byte order. */
static uint64_t load_le(const unsigned char *p, size_t n)
{
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++)
        w |= (uint64_t)p[i] << (8 * i);
    return w;
}

/* Eight bytes at a time through the mixer; the length goes in first, so
 * that a shorter argument padded with zeroes digests differently. */
static uint64_t digest_bytes(uint64_t h, const unsigned char *p, size_t len)
{
    h = satin_digest_mix(h ^ (uint64_t)len);
    for (; len >= 8; p += 8, len -= 8)
        h = satin_digest_mix(h ^ load_le(p, 8));
    if (len)
        h = satin_digest_mix(h ^ load_le(p, len) ^ 0x8000000000000000ULL);
    return h;
}

uint64_t satin_digest(const char *kind, const void *arg, size_t len)
{
    uint64_t h = digest_bytes(0x6f727068616e2131ULL, (const unsigned char *)kind, strlen(kind));
    return digest_bytes(h, arg, len);
}
