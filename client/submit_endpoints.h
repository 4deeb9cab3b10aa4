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
    size_t n, cap;
} submit_endpoints;

/* Appends a copy of `endpoint`. */
void submit_endpoints_add(submit_endpoints *self, const char *endpoint);

/* Appends the `client:` endpoint of every node of topology `file` that
 * gives one, in file order.  Nodes without one are left out (their default
 * endpoint is a path on their own machine, and satin-grid gives each node
 * a socket in its run directory instead), as are tcp:// client endpoints
 * of a grid under CURVE (a client with several endpoints does not do CURVE
 * yet); note (len > 0) then names them in one line, else it is "".
 * 0, or -1 with the reason in err: the file is bad, or no node is left. */
int submit_endpoints_from_topology(submit_endpoints *self, const char *file, char *note,
                                   size_t notelen, char *err, size_t errlen);

void submit_endpoints_free(submit_endpoints *self);

#endif
