/* satin_profile.c - a node's profile as text (see satin_profile.h). */
#include "satin_profile.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The longest header: node= and 63 bytes, cluster= and 5 digits, the
 * worker count, and three times at 20 characters each with their keys. */
#define HEADER_MAX 200

void satin_profile_init(satin_profile *p)
{
    memset(p, 0, sizeof *p);
    p->cluster = -1;
    p->truncated = SATIN_PROFILE_WHOLE;
}

void satin_profile_free(satin_profile *p)
{
    free(p->ev);
    satin_profile_init(p);
}

void satin_profile_add(satin_profile *p, int64_t t, char what, uint32_t n)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 256;
        p->ev = realloc(p->ev, p->cap * sizeof *p->ev);
        if (!p->ev)
            abort();
    }
    p->ev[p->n++] = (satin_profile_event){t, what, n};
}

/* The header, with `truncated` for its t=; its length. */
static int header(const satin_profile *p, int64_t truncated, char *head, size_t cap)
{
    int h = 0;
    if (p->node[0])
        h += snprintf(head + h, cap - (size_t)h, "node=%s cluster=%d ", p->node, p->cluster);
    h += snprintf(head + h, cap - (size_t)h, "w=%d s=%" PRId64 " e=%" PRId64, p->workers,
                  p->start, p->end);
    if (truncated != SATIN_PROFILE_WHOLE)
        h += snprintf(head + h, cap - (size_t)h, " t=%" PRId64, truncated);
    return h;
}

static int event_text(const satin_profile_event *e, int64_t prev, char *out, size_t cap)
{
    return snprintf(out, cap, " %" PRId64 "%c%" PRIu32, e->t - prev, e->what, e->n);
}

long satin_profile_encode(const satin_profile *p, char *buf, size_t cap)
{
    if (cap > SATIN_PROFILE_MAX_TEXT + 1)
        cap = SATIN_PROFILE_MAX_TEXT + 1;
    char head[HEADER_MAX + 1], one[48];
    int h = header(p, p->truncated, head, sizeof head);
    /* Whole when it fits; else room is kept for the t= that says where the
     * events stop. */
    size_t total = 0, room;
    int64_t prev = p->start;
    for (size_t i = 0; i < p->n; i++) {
        if (p->truncated != SATIN_PROFILE_WHOLE && p->ev[i].t > p->truncated)
            break;
        total += (size_t)event_text(&p->ev[i], prev, one, sizeof one);
        prev = p->ev[i].t;
    }
    if ((size_t)h + total + 1 <= cap) {
        room = total;
    } else {
        size_t need = (size_t)h + 1 + (p->truncated == SATIN_PROFILE_WHOLE ? 24 : 0);
        if (cap < need)
            return -1;
        room = cap - need;
    }
    int64_t truncated = p->truncated;
    size_t len = 0;
    char *evs = malloc(room + 1);
    if (!evs)
        abort();
    prev = p->start;
    for (size_t i = 0; i < p->n; i++) {
        const satin_profile_event *e = &p->ev[i];
        if (p->truncated != SATIN_PROFILE_WHOLE && e->t > p->truncated)
            break;
        int k = event_text(e, prev, one, sizeof one);
        if (len + (size_t)k > room) {
            truncated = e->t;
            break;
        }
        memcpy(evs + len, one, (size_t)k);
        len += (size_t)k;
        prev = e->t;
    }
    h = header(p, truncated, head, sizeof head);
    memcpy(buf, head, (size_t)h);
    memcpy(buf + h, evs, len);
    free(evs);
    buf[h + (long)len] = 0;
    return h + (long)len;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Decimal digits, with an optional '-' when `sign`; no overflow. */
static int number(const char **s, int sign, int64_t *out)
{
    const char *c = *s;
    int neg = sign && *c == '-';
    if (neg)
        c++;
    if (*c < '0' || *c > '9')
        return -1;
    uint64_t v = 0;
    for (; *c >= '0' && *c <= '9'; c++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*c - '0');
    }
    if (v > (uint64_t)INT64_MAX)
        return -1;
    *out = neg ? -(int64_t)v : (int64_t)v;
    *s = c;
    return 0;
}

/* "key=" then a number, then a space or the end. */
static int field(const char **s, const char *key, int64_t *out)
{
    size_t k = strlen(key);
    if (strncmp(*s, key, k) != 0)
        return -1;
    const char *c = *s + k;
    if (number(&c, 1, out) < 0 || (*c != ' ' && *c != 0))
        return -1;
    *s = *c ? c + 1 : c;
    return 0;
}

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '-';
}

int satin_profile_decode(const char *text, satin_profile *p, char *err, size_t errlen)
{
    satin_profile_free(p);
    const char *s = text;
    int64_t v;
    size_t len = strlen(text);
    if (len > SATIN_PROFILE_MAX_TEXT || (len && text[len - 1] == ' '))
        return fail(err, errlen, "profile: too long, or a space at its end");
    if (strncmp(s, "node=", 5) == 0) {
        s += 5;
        size_t k = 0;
        while (name_char(s[k]))
            k++;
        if (k == 0 || k > 63 || s[k] != ' ')
            return fail(err, errlen, "profile: bad node name");
        memcpy(p->node, s, k);
        p->node[k] = 0;
        s += k + 1;
        if (field(&s, "cluster=", &v) < 0 || v < 0 || v > 65535)
            return fail(err, errlen, "profile: bad cluster after node=%s", p->node);
        p->cluster = (int)v;
    }
    if (field(&s, "w=", &v) < 0 || v < 1 || v > SATIN_PROFILE_MAX_WORKERS)
        return fail(err, errlen, "profile: no worker count (w=1..%d) where expected",
                    SATIN_PROFILE_MAX_WORKERS);
    p->workers = (int)v;
    if (field(&s, "s=", &p->start) < 0 || field(&s, "e=", &p->end) < 0 || p->end < p->start)
        return fail(err, errlen, "profile: no start and end (s=, e=, s <= e)");
    if (strncmp(s, "t=", 2) == 0) {
        if (field(&s, "t=", &p->truncated) < 0 || p->truncated < p->start ||
            p->truncated > p->end)
            return fail(err, errlen, "profile: bad truncation time (t= between s= and e=)");
    }
    int64_t t = p->start;
    while (*s) {
        int64_t delta, n;
        if (number(&s, 0, &delta) < 0 || delta > p->end - t)
            return fail(err, errlen, "profile: event %zu: bad time, or past the end", p->n + 1);
        char what = *s++;
        if (what != SATIN_PROFILE_BUSY && what != SATIN_PROFILE_FREE &&
            what != SATIN_PROFILE_LAN && what != SATIN_PROFILE_WAN &&
            what != SATIN_PROFILE_ANSWERED)
            return fail(err, errlen, "profile: event %zu: unknown kind", p->n + 1);
        if (number(&s, 0, &n) < 0 || n > UINT32_MAX ||
            ((what == SATIN_PROFILE_BUSY || what == SATIN_PROFILE_FREE) && n >= p->workers))
            return fail(err, errlen, "profile: event %zu: bad number", p->n + 1);
        if (*s == ' ')
            s++;
        else if (*s)
            return fail(err, errlen, "profile: event %zu: junk after it", p->n + 1);
        t += delta;
        if (p->truncated != SATIN_PROFILE_WHOLE && t > p->truncated)
            return fail(err, errlen, "profile: event %zu: after the truncation", p->n + 1);
        satin_profile_add(p, t, what, (uint32_t)n);
    }
    return 0;
}
