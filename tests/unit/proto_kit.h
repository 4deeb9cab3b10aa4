/*
 * proto_kit.h - what the two codec tests share: an independent little frame
 * builder (it must not use the codec it checks) and the fixed-seed fuzzing
 * step.  Header-only, like tap.h: each test is one program.
 */
#ifndef SATIN_PROTO_KIT_H
#define SATIN_PROTO_KIT_H

#include "../tap.h"
#include "satin_proto.h"

#include <stdint.h>

typedef struct {
    unsigned char b[1 << 17];
    size_t n;
} buf;

static inline void b_be(buf *b, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        b->b[b->n++] = (unsigned char)(v >> (8 * (n - 1 - i)));
}
static inline void b_u8(buf *b, unsigned v) { b_be(b, v, 1); }
static inline void b_u16(buf *b, unsigned v) { b_be(b, v, 2); }
static inline void b_u32(buf *b, uint32_t v) { b_be(b, v, 4); }
static inline void b_u64(buf *b, uint64_t v) { b_be(b, v, 8); }
static inline void b_raw(buf *b, const void *p, size_t n)
{
    memcpy(b->b + b->n, p, n);
    b->n += n;
}
/* A str of n bytes (may contain NUL); its length field says `len`. */
static inline void b_rawstr(buf *b, uint16_t len, const void *s, size_t n)
{
    b_u16(b, len);
    b_raw(b, s, n);
}
static inline void b_str(buf *b, const char *s)
{
    b_rawstr(b, (uint16_t)strlen(s), s, strlen(s));
}

/* A fixed-seed generator: each test sets its own seed, the run is repeatable. */
static uint64_t kit_rng = 0x9E3779B97F4A7C15u;

static inline uint64_t xorshift(void)
{
    kit_rng ^= kit_rng << 13;
    kit_rng ^= kit_rng >> 7;
    kit_rng ^= kit_rng << 17;
    return kit_rng;
}

static int fuzz_bad; /* counts failures, reported once */

/* Decodes a heap copy of the frames (so ASan catches overreads), checks the
 * outcome is coherent, and that anything accepted re-encodes identically. */
static inline int fuzz_one(const unsigned char *h, size_t hl, const unsigned char *b, size_t bl)
{
    unsigned char *hc = malloc(hl ? hl : 1), *bc = malloc(bl ? bl : 1);
    memcpy(hc, h, hl);
    memcpy(bc, b, bl);
    satin_proto_error err;
    satin_msg *m = satin_msg_decode(hc, hl, bc, bl, 0, &err);
    int accepted = m != NULL;
    if (m) {
        unsigned char *h2, *b2;
        size_t hl2, bl2;
        if (err.code != 0 || satin_msg_encode(m, &h2, &hl2, &b2, &bl2) < 0 || hl2 != hl ||
            bl2 != bl || memcmp(h2, h, hl) || memcmp(b2, b, bl)) {
            if (fuzz_bad++ < 5)
                diag("accepted %s does not re-encode to the same bytes",
                     satin_msg_type_name(m->type));
        } else {
            free(h2);
            free(b2);
        }
        satin_msg_destroy(&m);
    } else if (err.code < 1 || err.code > 8 || err.text[0] == '\0' ||
               memchr(err.text, '\0', sizeof err.text) == NULL) {
        if (fuzz_bad++ < 5)
            diag("rejection without a proper code/text: %d '%s'", err.code, err.text);
    }
    free(hc);
    free(bc);
    return accepted;
}

#endif
