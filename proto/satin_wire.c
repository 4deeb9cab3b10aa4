/* satin_wire.c - bounded reader and two-pass writer (see satin_wire.h). */
#include "satin_wire.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared ------------------------------------------------------------- */

static void set_error(satin_proto_error *err, int code, const char *text)
{
    if (!err)
        return;
    err->code = code;
    snprintf(err->text, sizeof err->text, "%s", text);
}

/* Renders the lazily formatted field name. */
static void field_name(char *buf, size_t size, const char *fmt, va_list ap)
{
    vsnprintf(buf, size, fmt, ap);
}

size_t satin_wire_utf8_char(const unsigned char *s, size_t len)
{
    if (len == 0)
        return 0;
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned lo = 0x80, hi = 0xBF;   /* allowed range of the 2nd byte */
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0;               /* no overlong 3-byte forms */
        else if (c == 0xED)
            hi = 0x9F;               /* no UTF-16 surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;               /* no overlong 4-byte forms */
        else if (c == 0xF4)
            hi = 0x8F;               /* nothing above U+10FFFF */
    } else
        return 0;                    /* stray continuation, C0/C1, F5..FF */
    if (len < n || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k < n; k++)
        if ((s[k] & 0xC0) != 0x80)
            return 0;
    return n;
}

int satin_wire_utf8_ok(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        size_t n = satin_wire_utf8_char(s + i, len - i);
        if (n == 0)
            return 0;
        i += n;
    }
    return 1;
}

/* ---- reader --------------------------------------------------------------- */

void satin_wire_rd_init(satin_wire_rd *r, const void *p, size_t len,
                        const char *what, satin_proto_error *err)
{
    r->p = p;
    r->len = p ? len : 0;
    r->pos = 0;
    r->what = what;
    r->err = err;
    r->failed = 0;
    r->borrow = 0;
}

size_t satin_wire_left(const satin_wire_rd *r)
{
    return r->len - r->pos;
}

static int rd_vfail(satin_wire_rd *r, int code, const char *fmt, va_list ap)
{
    if (!r->failed) {
        char text[sizeof ((satin_proto_error *)0)->text];
        vsnprintf(text, sizeof text, fmt, ap);
        set_error(r->err, code, text);
    }
    r->failed = 1;
    return -1;
}

int satin_wire_fail(satin_wire_rd *r, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rd_vfail(r, code, fmt, ap);
    va_end(ap);
    return -1;
}

/* Reports that `field` (+ suffix) needs `need` bytes but fewer are left.
 * Lying lengths and plain truncation look the same from here, and they are
 * the same fault: the frame ends before the field does. */
static int rd_short(satin_wire_rd *r, size_t need, const char *suffix,
                    const char *fmt, va_list ap)
{
    char name[96];
    field_name(name, sizeof name, fmt, ap);
    return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE,
                           "truncated %s: %s%s needs %zu bytes, %zu left",
                           r->what, name, suffix, need, satin_wire_left(r));
}

/* The next n bytes, or NULL (error recorded) when they are not all there. */
static const unsigned char *rd_take(satin_wire_rd *r, size_t n, const char *suffix,
                                    const char *fmt, va_list ap)
{
    if (r->failed)
        return NULL;
    if (satin_wire_left(r) < n) {
        rd_short(r, n, suffix, fmt, ap);
        return NULL;
    }
    const unsigned char *q = r->p + r->pos;
    r->pos += n;
    return q;
}

static uint64_t get_be(const unsigned char *q, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v << 8 | q[i];
    return v;
}

/* One fixed-width big-endian integer; 0 in *v on failure. */
static int rd_int(satin_wire_rd *r, size_t n, uint64_t *v, const char *fmt, va_list ap)
{
    const unsigned char *q = rd_take(r, n, "", fmt, ap);
    *v = q ? get_be(q, n) : 0;
    return q ? 0 : -1;
}

#define RD_INT(fn, type, n)                                         \
    int fn(satin_wire_rd *r, type *out, const char *fmt, ...)       \
    {                                                               \
        uint64_t v;                                                 \
        va_list ap;                                                 \
        va_start(ap, fmt);                                          \
        int rc = rd_int(r, n, &v, fmt, ap);                         \
        va_end(ap);                                                 \
        *out = (type)v;                                             \
        return rc;                                                  \
    }

RD_INT(satin_wire_u8, uint8_t, 1)
RD_INT(satin_wire_u16, uint16_t, 2)
RD_INT(satin_wire_u32, uint32_t, 4)
RD_INT(satin_wire_u64, uint64_t, 8)

/* Two's complement without relying on implementation-defined conversion. */
static int64_t u64_to_i64(uint64_t v)
{
    return v <= (uint64_t)INT64_MAX ? (int64_t)v : -(int64_t)(~v) - 1;
}

int satin_wire_i64(satin_wire_rd *r, int64_t *out, const char *fmt, ...)
{
    uint64_t v;
    va_list ap;
    va_start(ap, fmt);
    int rc = rd_int(r, 8, &v, fmt, ap);
    va_end(ap);
    *out = u64_to_i64(v);
    return rc;
}

int satin_wire_f64(satin_wire_rd *r, double *out, const char *fmt, ...)
{
    uint64_t v;
    va_list ap;
    va_start(ap, fmt);
    int rc = rd_int(r, 8, &v, fmt, ap);
    va_end(ap);
    /* The bits as they came: NaN payloads and -0.0 survive the trip. */
    memcpy(out, &v, sizeof *out);
    return rc;
}

int satin_wire_str(satin_wire_rd *r, char **out, size_t minlen, size_t maxlen,
                   int limit_code, const char *fmt, ...)
{
    va_list ap;
    *out = NULL;
    if (r->failed)
        return -1;
    va_start(ap, fmt);
    const unsigned char *q = rd_take(r, 2, " length", fmt, ap);
    va_end(ap);
    if (!q)
        return -1;
    size_t n = (size_t)get_be(q, 2);
    char name[96];
    if (n < minlen || n > maxlen) {
        va_start(ap, fmt);
        field_name(name, sizeof name, fmt, ap);
        va_end(ap);
        if (n < minlen && n == 0)
            return satin_wire_fail(r, limit_code, "%s: %s is empty", r->what, name);
        return satin_wire_fail(r, limit_code, "%s: %s is %zu bytes, must be %zu..%zu",
                               r->what, name, n, minlen, maxlen);
    }
    va_start(ap, fmt);
    q = rd_take(r, n, "", fmt, ap);
    va_end(ap);
    if (!q)
        return -1;
    /* C strings end at NUL: a NUL inside would silently cut the value, so
     * two different messages would decode alike.  Refuse it. */
    if (memchr(q, 0, n) || !satin_wire_utf8_ok(q, n)) {
        va_start(ap, fmt);
        field_name(name, sizeof name, fmt, ap);
        va_end(ap);
        return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE, "%s: %s %s", r->what, name,
                               memchr(q, 0, n) ? "contains a NUL byte"
                                               : "is not valid UTF-8");
    }
    char *s = malloc(n + 1);   /* n <= bytes really present */
    if (!s)
        abort();
    memcpy(s, q, n);
    s[n] = '\0';
    *out = s;
    return 0;
}

int satin_wire_bytes(satin_wire_rd *r, const unsigned char **out, size_t *len,
                     const char *fmt, ...)
{
    va_list ap;
    *out = NULL;
    *len = 0;
    va_start(ap, fmt);
    const unsigned char *q = rd_take(r, 4, " length", fmt, ap);
    va_end(ap);
    if (!q)
        return -1;
    size_t n = (size_t)get_be(q, 4);
    va_start(ap, fmt);
    q = rd_take(r, n, "", fmt, ap);
    va_end(ap);
    if (!q)
        return -1;
    *out = q;
    *len = n;
    return 0;
}

int satin_wire_fixed(satin_wire_rd *r, unsigned char *out, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const unsigned char *q = rd_take(r, n, "", fmt, ap);
    va_end(ap);
    if (!q) {
        memset(out, 0, n);
        return -1;
    }
    memcpy(out, q, n);
    return 0;
}

int satin_wire_count(satin_wire_rd *r, size_t *out, size_t max, size_t min_item,
                     int limit_code, const char *fmt, ...)
{
    va_list ap;
    uint64_t v;
    *out = 0;
    va_start(ap, fmt);
    int rc = rd_int(r, 2, &v, fmt, ap);
    va_end(ap);
    if (rc < 0)
        return -1;
    char name[96];
    if (v > max) {
        va_start(ap, fmt);
        field_name(name, sizeof name, fmt, ap);
        va_end(ap);
        return satin_wire_fail(r, limit_code, "%s: %s is %zu, at most %zu",
                               r->what, name, (size_t)v, max);
    }
    /* A count that the rest of the frame cannot possibly hold is a lie:
     * refuse it before anybody allocates room for that many items. */
    if (v * min_item > satin_wire_left(r)) {
        va_start(ap, fmt);
        field_name(name, sizeof name, fmt, ap);
        va_end(ap);
        return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE,
                               "truncated %s: %s %zu needs at least %zu bytes, %zu left",
                               r->what, name, (size_t)v, (size_t)v * min_item,
                               satin_wire_left(r));
    }
    *out = (size_t)v;
    return 0;
}

int satin_wire_end(satin_wire_rd *r)
{
    if (r->failed)
        return -1;
    if (r->pos != r->len)
        return satin_wire_fail(r, SATIN_PROTO_BAD_MESSAGE, "%s: %zu trailing byte%s",
                               r->what, satin_wire_left(r), satin_wire_left(r) == 1 ? "" : "s");
    return 0;
}

/* ---- writer --------------------------------------------------------------- */

void satin_wire_wr_init(satin_wire_wr *w, unsigned char *buf, size_t cap,
                        const char *what, satin_proto_error *err)
{
    w->p = buf;
    w->len = 0;
    w->cap = buf ? cap : 0;
    w->what = what;
    w->err = err;
    w->failed = 0;
}

static int wr_vfail(satin_wire_wr *w, int code, const char *fmt, va_list ap)
{
    if (!w->failed) {
        char text[sizeof ((satin_proto_error *)0)->text];
        vsnprintf(text, sizeof text, fmt, ap);
        set_error(w->err, code, text);
    }
    w->failed = 1;
    return -1;
}

int satin_wire_wfail(satin_wire_wr *w, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wr_vfail(w, code, fmt, ap);
    va_end(ap);
    return -1;
}

static void wr_put(satin_wire_wr *w, const void *data, size_t n)
{
    if (w->failed)
        return;
    if (w->p) {
        /* The measuring pass sized the buffer; running past it means the
         * message changed between the passes. */
        if (w->cap - w->len < n) {
            satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "%s: message changed while encoding",
                             w->what);
            return;
        }
        if (n)
            memcpy(w->p + w->len, data, n);
    }
    w->len += n;
}

static void put_be(satin_wire_wr *w, uint64_t v, size_t n)
{
    unsigned char b[8];
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
    wr_put(w, b, n);
}

void satin_wire_put_u8(satin_wire_wr *w, uint8_t v) { put_be(w, v, 1); }
void satin_wire_put_u16(satin_wire_wr *w, uint16_t v) { put_be(w, v, 2); }
void satin_wire_put_u32(satin_wire_wr *w, uint32_t v) { put_be(w, v, 4); }
void satin_wire_put_u64(satin_wire_wr *w, uint64_t v) { put_be(w, v, 8); }
void satin_wire_put_i64(satin_wire_wr *w, int64_t v) { put_be(w, (uint64_t)v, 8); }

void satin_wire_put_fixed(satin_wire_wr *w, const void *data, size_t n) { wr_put(w, data, n); }

void satin_wire_put_f64(satin_wire_wr *w, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    put_be(w, u, 8);
}

int satin_wire_put_str(satin_wire_wr *w, const char *s, size_t minlen, size_t maxlen,
                       int limit_code, const char *fmt, ...)
{
    if (w->failed)
        return -1;
    if (!s)
        s = "";
    size_t n = strlen(s);
    if (n < minlen || n > maxlen || !satin_wire_utf8_ok((const unsigned char *)s, n)) {
        char name[96];
        va_list ap;
        va_start(ap, fmt);
        field_name(name, sizeof name, fmt, ap);
        va_end(ap);
        if (n == 0 && minlen > 0)
            return satin_wire_wfail(w, limit_code, "%s: %s is empty", w->what, name);
        if (n < minlen || n > maxlen)
            return satin_wire_wfail(w, limit_code, "%s: %s is %zu bytes, must be %zu..%zu",
                                    w->what, name, n, minlen, maxlen);
        return satin_wire_wfail(w, SATIN_PROTO_BAD_MESSAGE, "%s: %s is not valid UTF-8",
                                w->what, name);
    }
    put_be(w, n, 2);
    wr_put(w, s, n);
    return w->failed ? -1 : 0;
}

int satin_wire_put_bytes(satin_wire_wr *w, const void *data, size_t len,
                         const char *fmt, ...)
{
    if (w->failed)
        return -1;
    if (len > UINT32_MAX) {
        char name[96];
        va_list ap;
        va_start(ap, fmt);
        field_name(name, sizeof name, fmt, ap);
        va_end(ap);
        return satin_wire_wfail(w, SATIN_PROTO_TOO_LARGE, "%s: %s is %zu bytes, at most %u",
                                w->what, name, len, (unsigned)UINT32_MAX);
    }
    put_be(w, len, 4);
    wr_put(w, data, len);
    return w->failed ? -1 : 0;
}

int satin_wire_put_count(satin_wire_wr *w, size_t n, size_t max, int limit_code,
                         const char *fmt, ...)
{
    if (w->failed)
        return -1;
    if (n > max || n > UINT16_MAX) {
        char name[96];
        va_list ap;
        va_start(ap, fmt);
        field_name(name, sizeof name, fmt, ap);
        va_end(ap);
        return satin_wire_wfail(w, limit_code, "%s: %s is %zu, at most %zu",
                                w->what, name, n, max);
    }
    put_be(w, n, 2);
    return w->failed ? -1 : 0;
}
