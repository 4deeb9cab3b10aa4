/* metrics_text.c - a status list as Prometheus text (see metrics_text.h). */
#include "metrics_text.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sample {
    char family[128];
    const char *help;   /* NULL: HELP_UNKNOWN with the base name */
    char base[96];
    int gauge;
    char labels[320];   /* without braces: a="x",b="y" */
    double value;
    int integral;       /* print `ival` exactly */
    long long ival;
} sample;

typedef struct out_buf {
    char *s;
    size_t len, cap;
} out_buf;

static void put(out_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(out_buf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0)
            abort();
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = 2 * b->cap + (size_t)n + 1;
        b->s = realloc(b->s, b->cap);
        if (!b->s)
            abort();
    }
}

/* Letters, digits and '_' (':' is for recording rules); a leading digit
 * gets a '_' before it. */
static void sanitize(char *dst, size_t cap, const char *src)
{
    size_t o = 0;
    if (*src >= '0' && *src <= '9' && o + 1 < cap)
        dst[o++] = '_';
    for (; *src && o + 1 < cap; src++) {
        char c = *src;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_';
        dst[o++] = ok ? c : '_';
    }
    dst[o] = '\0';
}

/* A label value: backslash, double quote and newline escaped. */
static void label(char *dst, size_t cap, const char *name, const char *value)
{
    size_t o = strlen(dst);
    int n = snprintf(dst + o, cap - o, "%s%s=\"", o ? "," : "", name);
    if (n < 0 || (size_t)n >= cap - o)
        return;
    o += (size_t)n;
    for (const char *v = value; *v && o + 3 < cap; v++) {
        if (*v == '\\' || *v == '"')
            dst[o++] = '\\', dst[o++] = *v;
        else if (*v == '\n')
            dst[o++] = '\\', dst[o++] = 'n';
        else
            dst[o++] = *v;
    }
    if (o + 1 < cap)
        dst[o++] = '"';
    dst[o] = '\0';
}

/* Splits the class out of `key`: "steal_attempts_wan", "wan_wait_s" and
 * "failure_timeout_lan_ms" give "steal_attempts", "wait_s" and
 * "failure_timeout_ms".  NULL when the key has none. */
static const char *split_class(const char *key, char *base, size_t cap)
{
    static const char *const classes[] = {"lan", "wan"};
    size_t len = strlen(key);
    for (int c = 0; c < 2; c++) {
        char mid[8], tail[8], head[8];
        snprintf(mid, sizeof mid, "_%s_", classes[c]);
        snprintf(tail, sizeof tail, "_%s", classes[c]);
        snprintf(head, sizeof head, "%s_", classes[c]);
        const char *at;
        if (len > 4 && strcmp(key + len - 4, tail) == 0) {
            snprintf(base, cap, "%.*s", (int)(len - 4), key);
            return classes[c];
        }
        if (strncmp(key, head, 4) == 0 && len > 4) {
            snprintf(base, cap, "%s", key + 4);
            return classes[c];
        }
        if ((at = strstr(key, mid))) {
            snprintf(base, cap, "%.*s%s", (int)(at - key), key, at + 4);
            return classes[c];
        }
    }
    snprintf(base, cap, "%s", key);
    return NULL;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* One number of the status as a sample; 0 if it is left out. */
static int number_sample(const satin_kv *kv, const char *node, sample *s)
{
    char key[SATIN_KV_NAME_MAX + 1], base[SATIN_KV_NAME_MAX + 16];
    double v = kv->type == SATIN_KV_I64 ? (double)kv->i64 : kv->f64;
    int integral = kv->type == SATIN_KV_I64;
    memset(s, 0, sizeof *s);
    if (strcmp(kv->name, "pid") == 0)
        return 0;
    if (node && *node)
        label(s->labels, sizeof s->labels, "node", node);
    if (strncmp(kv->name, "rejected.", 9) == 0) {
        snprintf(s->family, sizeof s->family, "satin_peer_messages_rejected_total");
        s->help = "Peer messages rejected, by reason.";
        label(s->labels, sizeof s->labels, "reason", kv->name + 9);
        s->value = v, s->integral = integral, s->ival = (long long)kv->i64;
        return 1;
    }
    sanitize(key, sizeof key, kv->name);
    /* A policy's own counters keep their names whole (policy.wan_backoffs
     * beside policy.backoffs is no class of one metric). */
    const char *cls = strncmp(kv->name, "policy.", 7) == 0
                          ? (snprintf(base, sizeof base, "%s", key), NULL)
                          : split_class(key, base, sizeof base - 8);
    size_t bl = strlen(base);
    if (ends_with(base, "_ms")) {
        snprintf(base + bl - 3, sizeof base - (bl - 3), "_seconds");
        v /= 1000.0, integral = 0;
    } else if (ends_with(base, "_s")) {
        snprintf(base + bl - 2, sizeof base - (bl - 2), "_seconds");
    } else if (strcmp(base, "max_record") == 0) {
        snprintf(base, sizeof base, "max_record_bytes");
    }
    if (cls)
        label(s->labels, sizeof s->labels, "class", cls);
    const satin_metric_name *m = satin_metric_name_of(base);
    s->gauge = m && m->gauge;
    s->help = m ? m->help : NULL;
    snprintf(s->base, sizeof s->base, "%s", base);
    snprintf(s->family, sizeof s->family, "satin_%s%s", m ? m->family : base,
             s->gauge ? "" : "_total");
    s->value = v, s->integral = integral, s->ival = (long long)kv->i64;
    return 1;
}

static void print_value(out_buf *b, const sample *s)
{
    if (s->integral)
        put(b, "%lld\n", s->ival);
    else if (isnan(s->value))
        put(b, "NaN\n");
    else if (isinf(s->value))
        put(b, "%sInf\n", s->value > 0 ? "+" : "-");
    else
        put(b, "%.17g\n", s->value);
}

char *satin_metrics_render(const satin_kvlist *status, const char *node, size_t *len)
{
    sample *all = calloc(status->n + 1, sizeof *all);
    if (!all)
        abort();
    size_t n = 0;
    char info[512] = "";
    if (node && *node)
        label(info, sizeof info, "node", node);
    for (size_t i = 0; i < status->n; i++) {
        const satin_kv *kv = &status->items[i];
        if (kv->type != SATIN_KV_STR) {
            n += (size_t)number_sample(kv, node, &all[n]);
            continue;
        }
        if (strcmp(kv->name, "version") == 0 || strcmp(kv->name, "policy") == 0) {
            label(info, sizeof info, kv->name, kv->str);
        } else if (strncmp(kv->name, "peer.", 5) == 0 && kv->name[5]) {
            sample *s = &all[n++];
            memset(s, 0, sizeof *s);
            snprintf(s->family, sizeof s->family, "satin_peer_up");
            s->help = "1 while the peer is alive as this node sees it, else 0.";
            s->gauge = 1;
            if (node && *node)
                label(s->labels, sizeof s->labels, "node", node);
            label(s->labels, sizeof s->labels, "peer", kv->name + 5);
            s->integral = 1;
            s->ival = strncmp(kv->str, "alive", 5) == 0;
        }
    }
    out_buf b = {.cap = 4096};
    b.s = malloc(b.cap);
    if (!b.s)
        abort();
    b.s[0] = '\0';
    put(&b, "# HELP satin_info The node's version and load-balancing policy.\n");
    put(&b, "# TYPE satin_info gauge\nsatin_info{%s} 1\n", info);
    /* A family's samples must stand together: each is printed at its
     * first appearance, with every later sample of it. */
    char *done = calloc(n + 1, 1);
    if (!done)
        abort();
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        if (all[i].help)
            put(&b, "# HELP %s %s\n", all[i].family, all[i].help);
        else
            put(&b, "# HELP %s " SATIN_METRIC_HELP_UNKNOWN "\n", all[i].family, all[i].base);
        put(&b, "# TYPE %s %s\n", all[i].family, all[i].gauge ? "gauge" : "counter");
        for (size_t k = i; k < n; k++) {
            if (done[k] || strcmp(all[k].family, all[i].family) != 0)
                continue;
            done[k] = 1;
            if (all[k].labels[0])
                put(&b, "%s{%s} ", all[k].family, all[k].labels);
            else
                put(&b, "%s ", all[k].family);
            print_value(&b, &all[k]);
        }
    }
    free(done);
    free(all);
    if (len)
        *len = b.len;
    return b.s;
}
