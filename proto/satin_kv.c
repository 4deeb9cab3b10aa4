/* satin_kv.c - ordered typed key/value lists. */
#include "satin_kv.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

void satin_kvlist_init(satin_kvlist *l)
{
    memset(l, 0, sizeof *l);
}

void satin_kvlist_free(satin_kvlist *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->items[i].name);
        free(l->items[i].str);
    }
    free(l->items);
    memset(l, 0, sizeof *l);
}

static char *dup_or_die(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d)
        abort();
    return d;
}

/* The slot for `name`: the existing one (its old value released) or a new one. */
static satin_kv *slot(satin_kvlist *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->items[i].name, name) == 0) {
            free(l->items[i].str);
            l->items[i].str = NULL;
            return &l->items[i];
        }
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        satin_kv *items = realloc(l->items, cap * sizeof *items);
        if (!items)
            abort();
        l->items = items;
        l->cap = cap;
    }
    satin_kv *kv = &l->items[l->n++];
    memset(kv, 0, sizeof *kv);
    kv->name = dup_or_die(name);
    return kv;
}

void satin_kvlist_add_i64(satin_kvlist *l, const char *name, int64_t v)
{
    satin_kv *kv = slot(l, name);
    kv->type = SATIN_KV_I64;
    kv->i64 = v;
}

void satin_kvlist_add_f64(satin_kvlist *l, const char *name, double v)
{
    satin_kv *kv = slot(l, name);
    kv->type = SATIN_KV_F64;
    kv->f64 = v;
}

void satin_kvlist_add_str(satin_kvlist *l, const char *name, const char *v)
{
    satin_kv *kv = slot(l, name);
    kv->type = SATIN_KV_STR;
    kv->str = dup_or_die(v);
}

const satin_kv *satin_kvlist_find(const satin_kvlist *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->items[i].name, name) == 0)
            return &l->items[i];
    return NULL;
}

int satin_kvlist_i64(const satin_kvlist *l, const char *name, int64_t *out)
{
    const satin_kv *kv = satin_kvlist_find(l, name);
    if (!kv || kv->type != SATIN_KV_I64)
        return -1;
    *out = kv->i64;
    return 0;
}

int satin_kvlist_f64(const satin_kvlist *l, const char *name, double *out)
{
    const satin_kv *kv = satin_kvlist_find(l, name);
    if (!kv || kv->type != SATIN_KV_F64)
        return -1;
    *out = kv->f64;
    return 0;
}

const char *satin_kvlist_str(const satin_kvlist *l, const char *name)
{
    const satin_kv *kv = satin_kvlist_find(l, name);
    return kv && kv->type == SATIN_KV_STR ? kv->str : NULL;
}

void satin_kvlist_copy(satin_kvlist *dst, const satin_kvlist *src)
{
    for (size_t i = 0; i < src->n; i++) {
        const satin_kv *kv = &src->items[i];
        if (kv->type == SATIN_KV_I64)
            satin_kvlist_add_i64(dst, kv->name, kv->i64);
        else if (kv->type == SATIN_KV_F64)
            satin_kvlist_add_f64(dst, kv->name, kv->f64);
        else
            satin_kvlist_add_str(dst, kv->name, kv->str);
    }
}

/* One pair's text at buf + o; the new end, or 0 when it does not fit. */
static size_t put_pair(char *buf, size_t len, size_t o, const char *sep, const satin_kv *kv)
{
    static const char hex[] = "0123456789ABCDEF";
    int n = snprintf(buf + o, len - o, "%s%s=", sep, kv->name);
    if (n < 0 || (size_t)n >= len - o)
        return 0;
    o += (size_t)n;
    for (const unsigned char *v = (const unsigned char *)(kv->str ? kv->str : ""); *v; v++) {
        int esc = *v == '%' || *v == ' ' || *v < 0x20 || *v == 0x7f;
        if (o + (esc ? 3 : 1) >= len)
            return 0;
        if (esc) {
            buf[o++] = '%';
            buf[o++] = hex[*v >> 4];
            buf[o++] = hex[*v & 15];
        } else
            buf[o++] = (char)*v;
    }
    buf[o] = '\0';
    return o;
}

void satin_kvlist_pairs_text(const satin_kvlist *l, char *buf, size_t len)
{
    size_t o = 0;
    if (!len)
        return;
    buf[0] = '\0';
    for (size_t i = 0; l && i < l->n; i++) {
        size_t end = put_pair(buf, len, o, i ? " " : "", &l->items[i]);
        if (!end) {
            buf[o] = '\0';   /* the last pair did not fit: whole pairs only */
            break;
        }
        o = end;
    }
}
