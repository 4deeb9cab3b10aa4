/*
 * submit_endpoints.h - satin-submit's list of daemon endpoints: each
 * --socket in command-line order, and the client endpoints of a topology
 * file's nodes (--topology).  satin-submit's own: not part of libsatin,
 * which would otherwise need the YAML loader.
 */
#ifndef SATIN_SUBMIT_ENDPOINTS_H
#define SATIN_SUBMIT_ENDPOINTS_H

#include <stddef.h>

typedef struct submit_endpoints {
    char **items;       /* NULL-terminated, as satin_client_new_multi() takes them */
    char **keys;        /* keys[i]: the public key of items[i]'s node for CURVE, "" = none */
    size_t n, cap;
} submit_endpoints;

/* Appends a copy of `endpoint` (no CURVE key). */
void submit_endpoints_add(submit_endpoints *self, const char *endpoint);

/* Appends the default endpoint of node `node` on this machine, the one
 * satind --config FILE --node ID binds when neither --socket nor the
 * node's client: says otherwise: $SATIN_SOCKET, else satind-ID.sock in the
 * default socket directory. */
void submit_endpoints_add_node(submit_endpoints *self, const char *node);

/* Appends the `client:` endpoint of every node of topology `file` that
 * gives one, in file order.  Nodes without one are left out (their default
 * endpoint is a path on their own machine, and satin-grid gives each node
 * a socket in its run directory instead).  A tcp:// client endpoint of a
 * grid under CURVE needs this client's key: with `curve` set it comes with
 * its node's public key (a node without one is left out), without it is
 * left out.  note (len > 0) names what was left out in one line, else "".
 * 0, or -1 with the reason in err: the file is bad, or no node is left. */
int submit_endpoints_from_topology(submit_endpoints *self, const char *file, int curve,
                                   char *note, size_t notelen, char *err, size_t errlen);

void submit_endpoints_free(submit_endpoints *self);

#endif
