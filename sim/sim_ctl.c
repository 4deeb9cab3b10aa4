/* sim_ctl.c - the nodes' control threads as serial resources (sim_ctl.h). */
#include "sim_ctl.h"

#include <stdlib.h>

void sim_ctl_init(sim_ctl *c, int nnodes, int64_t send_ns, int64_t recv_ns)
{
    c->send_ns = send_ns > 0 ? send_ns : 0;
    c->recv_ns = recv_ns > 0 ? recv_ns : 0;
    c->nnodes = nnodes;
    c->waited_ns = 0;
    c->nodes = calloc((size_t)(nnodes > 0 ? nnodes : 1), sizeof *c->nodes);
    if (!c->nodes)
        abort();
}

void sim_ctl_free(sim_ctl *c, void (*drop)(void *))
{
    for (int i = 0; c->nodes && i < c->nnodes; i++) {
        sim_ctl_node *t = &c->nodes[i];
        for (size_t k = 0; drop && k < t->n; k++)
            drop(t->q[(t->head + k) % t->cap].data);
        free(t->q);
    }
    free(c->nodes);
    c->nodes = NULL;
}

/* The thread takes `cost` from `now` or when it is free, whichever is later. */
static int64_t occupy(sim_ctl *c, sim_ctl_node *t, int64_t now, int64_t cost)
{
    int64_t start = now > t->free_at ? now : t->free_at;
    c->waited_ns += start - now;
    t->free_at = start + cost;
    return t->free_at;
}

int64_t sim_ctl_send(sim_ctl *c, int node, int64_t now)
{
    sim_ctl_node *t = &c->nodes[node];
    if (c->send_ns == 0 && t->free_at <= now)
        return now;
    return occupy(c, t, now, c->send_ns);
}

/* Starts decoding an arrival: now when the thread is idle and decoding is free. */
static int64_t start_decode(sim_ctl *c, sim_ctl_node *t, int64_t now)
{
    if (c->recv_ns == 0 && t->free_at <= now)
        return now;
    t->decoding = 1;
    return occupy(c, t, now, c->recv_ns);
}

int64_t sim_ctl_arrive(sim_ctl *c, int node, int64_t now, void *data, int64_t aux)
{
    sim_ctl_node *t = &c->nodes[node];
    if (!t->decoding)
        return start_decode(c, t, now);
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        sim_ctl_msg *q = malloc(cap * sizeof *q);
        if (!q)
            abort();
        for (size_t k = 0; k < t->n; k++)
            q[k] = t->q[(t->head + k) % t->cap];
        free(t->q);
        t->q = q;
        t->head = 0;
        t->cap = cap;
    }
    t->q[(t->head + t->n++) % t->cap] = (sim_ctl_msg){data, aux, now};
    return -1;
}

int64_t sim_ctl_next(sim_ctl *c, int node, int64_t now, sim_ctl_msg *out)
{
    sim_ctl_node *t = &c->nodes[node];
    t->decoding = 0;
    if (t->n == 0)
        return -1;
    *out = t->q[t->head];
    t->head = (t->head + 1) % t->cap;
    t->n--;
    c->waited_ns += now - out->arrived;
    return start_decode(c, t, now);
}
