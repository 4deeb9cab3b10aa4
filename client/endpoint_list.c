/*
 * endpoint_list.c - the ordered endpoints of a failover client and why each
 * one that was given up failed (endpoint_list.h).
 */
#include "endpoint_list.h"
#include "satin_endpoint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENDPOINT_MAX 512

typedef struct entry {
    char endpoint[ENDPOINT_MAX];
    char *cause, *why;           /* NULL until it failed */
} entry;

struct satin_endpoint_list {
    entry *items;
    size_t n, cap;
    size_t current;              /* == n once every endpoint has failed */
};

satin_endpoint_list *satin_endpoint_list_new(void)
{
    satin_endpoint_list *l = calloc(1, sizeof *l);
    if (!l)
        abort();   /* as everywhere in libsatin: memory exhaustion is not reported */
    return l;
}

void satin_endpoint_list_destroy(satin_endpoint_list **self)
{
    satin_endpoint_list *l = self ? *self : NULL;
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++) {
        free(l->items[i].cause);
        free(l->items[i].why);
    }
    free(l->items);
    free(l);
    *self = NULL;
}

int satin_endpoint_list_add(satin_endpoint_list *self, const char *text, char *err,
                            size_t errlen)
{
    char ep[ENDPOINT_MAX];
    if (!text || !*text)
        satin_endpoint_default(ep, sizeof ep);
    else if (satin_endpoint_normalise(text, ep, sizeof ep, err, errlen) < 0)
        return -1;
    for (size_t i = 0; i < self->n; i++)
        if (strcmp(self->items[i].endpoint, ep) == 0)
            return 1;
    if (self->n == self->cap) {
        size_t cap = self->cap ? self->cap * 2 : 4;
        entry *items = realloc(self->items, cap * sizeof *items);
        if (!items)
            abort();
        self->items = items;
        self->cap = cap;
    }
    entry *e = &self->items[self->n++];
    snprintf(e->endpoint, sizeof e->endpoint, "%s", ep);
    e->cause = e->why = NULL;
    return 0;
}

size_t satin_endpoint_list_count(const satin_endpoint_list *self)
{
    return self->n;
}

const char *satin_endpoint_list_at(const satin_endpoint_list *self, size_t i)
{
    return i < self->n ? self->items[i].endpoint : NULL;
}

const char *satin_endpoint_list_current(const satin_endpoint_list *self)
{
    return satin_endpoint_list_at(self, self->current);
}

size_t satin_endpoint_list_position(const satin_endpoint_list *self)
{
    return self->current;
}

static char *dup_or(const char *s, const char *otherwise)
{
    char *d = strdup(s ? s : otherwise);
    if (!d)
        abort();
    return d;
}

const char *satin_endpoint_list_fail(satin_endpoint_list *self, const char *cause,
                                     const char *why)
{
    if (self->current >= self->n)
        return NULL;
    entry *e = &self->items[self->current++];
    free(e->cause);
    free(e->why);
    e->cause = dup_or(cause, "failed");
    e->why = dup_or(why, e->cause);
    return satin_endpoint_list_current(self);
}

const char *satin_endpoint_list_cause(const satin_endpoint_list *self, size_t i)
{
    return i < self->n ? self->items[i].cause : NULL;
}

void satin_endpoint_list_summary(const satin_endpoint_list *self, char *buf, size_t len)
{
    if (len == 0)
        return;
    if (self->n == 0) {
        snprintf(buf, len, "no endpoint given");
        return;
    }
    size_t off = (size_t)snprintf(buf, len, "every endpoint failed: ");
    for (size_t i = 0; i < self->n && off < len; i++) {
        const entry *e = &self->items[i];
        if (e->why)
            off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? "; " : "", e->why);
        else
            off += (size_t)snprintf(buf + off, len - off, "%s%s (not tried)", i ? "; " : "",
                                    e->endpoint);
    }
}
