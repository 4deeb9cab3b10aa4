/*
 * submit_endpoints.c - satin-submit's endpoints from --socket and --topology
 * (submit_endpoints.h).
 */
#include "submit_endpoints.h"
#include "satin_endpoint.h"
#include "topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_die(const char *s)
{
    char *d = strdup(s);
    if (!d)
        abort();
    return d;
}

static void add_keyed(submit_endpoints *self, const char *endpoint, const char *key)
{
    if (self->n + 1 >= self->cap) {
        size_t cap = self->cap ? self->cap * 2 : 8;
        char **items = realloc(self->items, cap * sizeof *items);
        if (!items)
            abort();
        self->items = items;
        char **keys = realloc(self->keys, cap * sizeof *keys);
        if (!keys)
            abort();
        self->keys = keys;
        self->cap = cap;
    }
    self->items[self->n] = dup_or_die(endpoint);
    self->keys[self->n] = dup_or_die(key);
    self->n++;
    self->items[self->n] = self->keys[self->n] = NULL;
}

void submit_endpoints_add(submit_endpoints *self, const char *endpoint)
{
    add_keyed(self, endpoint, "");
}

void submit_endpoints_add_node(submit_endpoints *self, const char *node)
{
    char ep[4200];
    satin_endpoint_default_node(ep, sizeof ep, node);
    add_keyed(self, ep, "");
}

void submit_endpoints_free(submit_endpoints *self)
{
    for (size_t i = 0; i < self->n; i++) {
        free(self->items[i]);
        free(self->keys[i]);
    }
    free(self->items);
    free(self->keys);
    memset(self, 0, sizeof *self);
}

/* Appends ", ID" (or "ID" first) to a list of node ids being built. */
static void add_id(char *buf, size_t len, const char *id)
{
    size_t off = strlen(buf);
    if (off < len)
        snprintf(buf + off, len - off, "%s%s", off ? ", " : "", id);
}

int submit_endpoints_from_topology(submit_endpoints *self, const char *file, int curve,
                                   char *note, size_t notelen, char *err, size_t errlen)
{
    char none[256] = "", keyless[256] = "";
    satin_topology *t = satin_topology_load(file, err, errlen);
    if (!t)
        return -1;
    size_t before = self->n;
    for (int i = 0; i < t->nnodes; i++) {
        const satin_node_def *nd = &t->nodes[i];
        if (!nd->client[0])
            add_id(none, sizeof none, nd->id);
        else if (!t->security_none && strncmp(nd->client, "tcp://", 6) == 0) {
            if (curve && nd->public_key[0])
                add_keyed(self, nd->client, nd->public_key);
            else
                add_id(keyless, sizeof keyless, nd->id);
        } else
            submit_endpoints_add(self, nd->client);
    }
    const char *why = curve ? "left out, tcp:// under CURVE without a public_key: "
                            : "left out, tcp:// under CURVE (give --key): ";
    if (notelen)
        snprintf(note, notelen, "%s%s%s%s%s",
                 none[0] ? "left out, without a client endpoint: " : "", none,
                 none[0] && keyless[0] ? "; " : "", keyless[0] ? why : "", keyless);
    int rc = 0;
    if (self->n == before) {
        snprintf(err, errlen,
                 "%s: no node has a client endpoint satin-submit can use (%s); give the "
                 "nodes' endpoints with --socket (satin-grid up prints them)",
                 file, keyless[0] ? (curve ? "tcp:// under CURVE, and no node has a public_key"
                                           : "tcp:// under CURVE needs --key")
                                  : "no node gives 'client:'");
        rc = -1;
    }
    satin_topology_destroy(&t);
    return rc;
}
