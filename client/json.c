/* json.c - a tiny JSON writer; see json.h for the rules. */
#include "json.h"
#include "satin_kv.h"
#include "satin_wire.h"   /* the codec's UTF-8 check, so both ends agree on "valid" */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put(satin_json *j, const char *s, size_t n)
{
    if (j->len + n + 1 > j->cap) {
        size_t cap = j->cap ? j->cap : 64;
        while (cap < j->len + n + 1)
            cap *= 2;
        char *b = realloc(j->buf, cap);
        if (!b)
            abort();
        j->buf = b;
        j->cap = cap;
    }
    memcpy(j->buf + j->len, s, n);
    j->len += n;
    j->buf[j->len] = '\0';
}

static void puts_(satin_json *j, const char *s)
{
    put(j, s, strlen(s));
}

void satin_json_init(satin_json *j)
{
    memset(j, 0, sizeof *j);
}

void satin_json_free(satin_json *j)
{
    free(j->buf);
    satin_json_init(j);
}

const char *satin_json_text(const satin_json *j)
{
    return j->buf ? j->buf : "";
}

int satin_json_done(const satin_json *j)
{
    return j->depth == 0 && j->len > 0;
}

/* Called before every value: places the comma inside arrays and checks
 * that a value is allowed here. */
static void before_value(satin_json *j)
{
    if (j->depth == 0) {
        if (j->len > 0)
            abort();              /* a second top-level value */
        return;
    }
    if (j->open[j->depth - 1] == '{') {
        if (!j->want_value)
            abort();              /* a member needs its key first */
        j->want_value = 0;
        return;
    }
    if (j->nonempty[j->depth - 1])
        put(j, ",", 1);
    j->nonempty[j->depth - 1] = 1;
}

static void begin(satin_json *j, char open)
{
    before_value(j);
    if (j->depth == SATIN_JSON_MAX_DEPTH)
        abort();
    j->open[j->depth] = open;
    j->nonempty[j->depth] = 0;
    j->depth++;
    put(j, &open, 1);
}

static void end(satin_json *j, char open, char close)
{
    if (j->depth == 0 || j->open[j->depth - 1] != open || j->want_value)
        abort();
    j->depth--;
    put(j, &close, 1);
}

void satin_json_object_begin(satin_json *j) { begin(j, '{'); }
void satin_json_object_end(satin_json *j) { end(j, '{', '}'); }
void satin_json_array_begin(satin_json *j) { begin(j, '['); }
void satin_json_array_end(satin_json *j) { end(j, '[', ']'); }

static void put_escaped(satin_json *j, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    put(j, "\"", 1);
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            put(j, esc, 2);
            i++;
        } else if (c < 0x20 || c == 0x7F) {
            const char *named = c == '\b' ? "\\b" : c == '\f' ? "\\f" : c == '\n' ? "\\n"
                              : c == '\r' ? "\\r" : c == '\t' ? "\\t" : NULL;
            if (named)
                puts_(j, named);
            else {
                snprintf(esc, sizeof esc, "\\u%04x", c);
                puts_(j, esc);
            }
            i++;
        } else {
            /* Runs of plain bytes and whole UTF-8 characters go out as they are. */
            size_t k = satin_wire_utf8_char(p + i, n - i);
            if (k == 0) {
                puts_(j, "\xEF\xBF\xBD");   /* U+FFFD for a byte that is not UTF-8 */
                k = 1;
            } else
                put(j, s + i, k);
            i += k;
        }
    }
    put(j, "\"", 1);
}

void satin_json_key(satin_json *j, const char *key)
{
    if (j->depth == 0 || j->open[j->depth - 1] != '{' || j->want_value)
        abort();
    if (j->nonempty[j->depth - 1])
        put(j, ",", 1);
    j->nonempty[j->depth - 1] = 1;
    put_escaped(j, key, strlen(key));
    put(j, ":", 1);
    j->want_value = 1;
}

void satin_json_strn(satin_json *j, const char *s, size_t n)
{
    before_value(j);
    put_escaped(j, s, n);
}

void satin_json_str(satin_json *j, const char *s)
{
    if (!s)
        satin_json_null(j);
    else
        satin_json_strn(j, s, strlen(s));
}

void satin_json_i64(satin_json *j, int64_t v)
{
    char b[32];
    before_value(j);
    snprintf(b, sizeof b, "%" PRId64, v);
    puts_(j, b);
}

void satin_json_u64(satin_json *j, uint64_t v)
{
    char b[32];
    before_value(j);
    snprintf(b, sizeof b, "%" PRIu64, v);
    puts_(j, b);
}

char *satin_json_fmt_f64(char *buf, size_t len, double v)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (!isfinite(v) || strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

void satin_json_f64(satin_json *j, double v)
{
    char b[40];
    if (!isfinite(v)) {
        satin_json_null(j);
        return;
    }
    before_value(j);
    puts_(j, satin_json_fmt_f64(b, sizeof b, v));
}

void satin_json_bool(satin_json *j, int v)
{
    before_value(j);
    puts_(j, v ? "true" : "false");
}

void satin_json_null(satin_json *j)
{
    before_value(j);
    puts_(j, "null");
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : -1;
}

void satin_json_params_text(satin_json *j, const char *text)
{
    if (!text) {
        satin_json_null(j);
        return;
    }
    satin_json_object_begin(j);
    const char *p = text;
    while (*p) {
        if (*p == ' ') {
            p++;
            continue;
        }
        size_t wl = strcspn(p, " ");
        const char *eq = memchr(p, '=', wl);
        size_t kl = eq ? (size_t)(eq - p) : wl;
        char *key = malloc(kl + 1), *val = malloc(wl + 1);
        if (!key || !val)
            abort();
        memcpy(key, p, kl);
        key[kl] = '\0';
        size_t o = 0;
        for (const char *v = eq ? eq + 1 : p + wl; v < p + wl; v++) {
            int hi, lo;
            if (*v == '%' && v + 2 < p + wl && (hi = hex_digit(v[1])) >= 0 &&
                (lo = hex_digit(v[2])) >= 0) {
                val[o++] = (char)(hi * 16 + lo);
                v += 2;
            } else
                val[o++] = *v;
        }
        satin_json_key(j, key);
        satin_json_strn(j, val, o);
        free(key);
        free(val);
        p += wl;
    }
    satin_json_object_end(j);
}

void satin_json_kv(satin_json *j, const satin_kv *kv)
{
    satin_json_key(j, kv->name);
    if (kv->type == SATIN_KV_I64)
        satin_json_i64(j, kv->i64);
    else if (kv->type == SATIN_KV_F64)
        satin_json_f64(j, kv->f64);
    else
        satin_json_str(j, kv->str);
}
