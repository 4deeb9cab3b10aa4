/*
 * value_spread.c - the per-link schedule of a job's value updates
 * (value_spread.h).  A job has few neighbours (the nodes its records went
 * to or came from), so the links are a plain array searched in order.
 */
#include "value_spread.h"

#include <stdlib.h>

typedef struct spread_link {
    int peer;
    int wan;
    uint32_t pending;      /* values grown since this link's last message */
    int sent_any;
    int64_t last_sent;
} spread_link;

struct satin_value_spread {
    int64_t wan_interval;
    spread_link *links;
    size_t n, cap;
};

satin_value_spread *satin_value_spread_new(int64_t wan_interval_ns)
{
    satin_value_spread *self = calloc(1, sizeof *self);
    if (self)
        self->wan_interval = wan_interval_ns > 0 ? wan_interval_ns : 0;
    return self;
}

void satin_value_spread_destroy(satin_value_spread **self)
{
    if (!self || !*self)
        return;
    free((*self)->links);
    free(*self);
    *self = NULL;
}

static spread_link *find(const satin_value_spread *self, int peer)
{
    for (size_t i = 0; i < self->n; i++)
        if (self->links[i].peer == peer)
            return &self->links[i];
    return NULL;
}

int satin_value_spread_link(satin_value_spread *self, int peer, int wan, uint32_t pending)
{
    if (find(self, peer))
        return 0;
    if (self->n == self->cap) {
        size_t cap = self->cap ? self->cap * 2 : 4;
        spread_link *links = realloc(self->links, cap * sizeof *links);
        if (!links)
            return -1;
        self->links = links;
        self->cap = cap;
    }
    self->links[self->n++] = (spread_link){.peer = peer, .wan = wan, .pending = pending};
    return 0;
}

void satin_value_spread_unlink(satin_value_spread *self, int peer)
{
    spread_link *l = find(self, peer);
    if (l)
        *l = self->links[--self->n];
}

size_t satin_value_spread_links(const satin_value_spread *self)
{
    return self->n;
}

uint32_t satin_value_spread_pending(const satin_value_spread *self, int peer)
{
    const spread_link *l = find(self, peer);
    return l ? l->pending : 0;
}

int satin_value_spread_peer(const satin_value_spread *self, size_t i)
{
    return i < self->n ? self->links[i].peer : -1;
}

void satin_value_spread_grew(satin_value_spread *self, uint32_t grew, int from)
{
    for (size_t i = 0; i < self->n; i++)
        if (self->links[i].peer != from)
            self->links[i].pending |= grew;
}

void satin_value_spread_resend_to(satin_value_spread *self, int peer, uint32_t values)
{
    spread_link *l = find(self, peer);
    if (l)
        l->pending |= values;
}

void satin_value_spread_resend(satin_value_spread *self, uint32_t values)
{
    satin_value_spread_grew(self, values, -1);
}

static int due(const satin_value_spread *self, const spread_link *l, int64_t now)
{
    return l->pending &&
           (!l->wan || !l->sent_any || now - l->last_sent >= self->wan_interval);
}

int satin_value_spread_next(satin_value_spread *self, int64_t now, int *peer, uint32_t *values)
{
    for (size_t i = 0; i < self->n; i++) {
        spread_link *l = &self->links[i];
        if (!due(self, l, now))
            continue;
        *peer = l->peer;
        *values = l->pending;
        l->pending = 0;
        l->sent_any = 1;
        l->last_sent = now;
        return 1;
    }
    return 0;
}

int64_t satin_value_spread_deadline(const satin_value_spread *self, int64_t now)
{
    int64_t t = INT64_MAX;
    for (size_t i = 0; i < self->n; i++) {
        const spread_link *l = &self->links[i];
        if (!l->pending)
            continue;
        int64_t at = due(self, l, now) ? now : l->last_sent + self->wan_interval;
        if (at < t)
            t = at;
    }
    return t;
}
