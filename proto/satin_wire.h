/*
 * satin_wire.h - the bounded reader and the two-pass writer under the
 * message codec (satin_proto.c), client and peer messages alike.  Internal
 * to proto/.
 *
 * Reader: every read checks the bytes left first; the first failure is
 * recorded in the satin_proto_error and makes all later reads fail too
 * (outputs zeroed), so a decoder never acts on a half-read value.  Field
 * names for error texts are printf formats ("params[%zu].value") that are
 * only rendered when something is wrong, so the good path costs nothing.
 *
 * Writer: run once with no buffer to validate and measure, then again into
 * a buffer of exactly that size.  Validation therefore lives in one place,
 * and the encoder and satin_msg_check cannot disagree.
 */
#ifndef SATIN_WIRE_H
#define SATIN_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "satin_proto.h"

#define SATIN_WIRE_FMT(a, b) __attribute__((format(printf, a, b)))

typedef struct satin_wire_rd {
    const unsigned char *p;
    size_t len, pos;
    const char *what;          /* message name used in texts, e.g. "SUBMIT" */
    satin_proto_error *err;    /* may be NULL */
    int failed;
    /* Byte fields point into p instead of being copied (the caller keeps
     * p alive as long as what it decodes). */
    int borrow;
} satin_wire_rd;

void satin_wire_rd_init(satin_wire_rd *r, const void *p, size_t len,
                        const char *what, satin_proto_error *err);
size_t satin_wire_left(const satin_wire_rd *r);
/* Records an error (the first one wins) and returns -1. */
int satin_wire_fail(satin_wire_rd *r, int code, const char *fmt, ...) SATIN_WIRE_FMT(3, 4);

int satin_wire_u8(satin_wire_rd *r, uint8_t *out, const char *fmt, ...) SATIN_WIRE_FMT(3, 4);
int satin_wire_u16(satin_wire_rd *r, uint16_t *out, const char *fmt, ...) SATIN_WIRE_FMT(3, 4);
int satin_wire_u32(satin_wire_rd *r, uint32_t *out, const char *fmt, ...) SATIN_WIRE_FMT(3, 4);
int satin_wire_u64(satin_wire_rd *r, uint64_t *out, const char *fmt, ...) SATIN_WIRE_FMT(3, 4);
int satin_wire_i64(satin_wire_rd *r, int64_t *out, const char *fmt, ...) SATIN_WIRE_FMT(3, 4);
int satin_wire_f64(satin_wire_rd *r, double *out, const char *fmt, ...) SATIN_WIRE_FMT(3, 4);

/* A str: u16 length + UTF-8 bytes without NUL.  Its length must be in
 * [minlen, maxlen]; a violation is reported with `limit_code`.  *out is a
 * fresh NUL-terminated copy (free it), NULL on failure. */
int satin_wire_str(satin_wire_rd *r, char **out, size_t minlen, size_t maxlen,
                   int limit_code, const char *fmt, ...) SATIN_WIRE_FMT(6, 7);
/* A bytes field: u32 length + raw bytes.  *out points into the frame (no
 * copy; valid as long as the frame is). */
int satin_wire_bytes(satin_wire_rd *r, const unsigned char **out, size_t *len,
                     const char *fmt, ...) SATIN_WIRE_FMT(4, 5);
/* Exactly n raw bytes, no length prefix (a field of fixed size, such as a
 * digest), copied to out; out is zeroed on failure. */
int satin_wire_fixed(satin_wire_rd *r, unsigned char *out, size_t n,
                     const char *fmt, ...) SATIN_WIRE_FMT(4, 5);
/* A u16 count of items that each take at least `min_item` bytes.  More than
 * `max` is reported with `limit_code`; more than the bytes left can hold is
 * a truncation (BAD_MESSAGE).  Callers may allocate `*out` items after
 * this: the allocation is bounded by the frame's real size. */
int satin_wire_count(satin_wire_rd *r, size_t *out, size_t max, size_t min_item,
                     int limit_code, const char *fmt, ...) SATIN_WIRE_FMT(6, 7);
/* The body must be consumed exactly: trailing bytes are an error. */
int satin_wire_end(satin_wire_rd *r);

typedef struct satin_wire_wr {
    unsigned char *p;          /* NULL: measure only */
    size_t len, cap;
    const char *what;
    satin_proto_error *err;    /* may be NULL */
    int failed;
} satin_wire_wr;

void satin_wire_wr_init(satin_wire_wr *w, unsigned char *buf, size_t cap,
                        const char *what, satin_proto_error *err);
int satin_wire_wfail(satin_wire_wr *w, int code, const char *fmt, ...) SATIN_WIRE_FMT(3, 4);
void satin_wire_put_u8(satin_wire_wr *w, uint8_t v);
void satin_wire_put_u16(satin_wire_wr *w, uint16_t v);
void satin_wire_put_u32(satin_wire_wr *w, uint32_t v);
void satin_wire_put_u64(satin_wire_wr *w, uint64_t v);
void satin_wire_put_i64(satin_wire_wr *w, int64_t v);
void satin_wire_put_f64(satin_wire_wr *w, double v);
/* Same rules as satin_wire_str; NULL is written as "". */
int satin_wire_put_str(satin_wire_wr *w, const char *s, size_t minlen, size_t maxlen,
                       int limit_code, const char *fmt, ...) SATIN_WIRE_FMT(6, 7);
int satin_wire_put_bytes(satin_wire_wr *w, const void *data, size_t len,
                         const char *fmt, ...) SATIN_WIRE_FMT(4, 5);
void satin_wire_put_fixed(satin_wire_wr *w, const void *data, size_t n);
int satin_wire_put_count(satin_wire_wr *w, size_t n, size_t max, int limit_code,
                         const char *fmt, ...) SATIN_WIRE_FMT(5, 6);

/* 1 when s[0..len) is well-formed UTF-8 (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF). */
int satin_wire_utf8_ok(const unsigned char *s, size_t len);
/* Length of the well-formed UTF-8 character at s (1..4), 0 if there is none. */
size_t satin_wire_utf8_char(const unsigned char *s, size_t len);

#endif
