/*
 * satin_endpoint.h - the client endpoint syntax shared by satind and its
 * clients: "ipc:///path" or "tcp://host:port", and a bare path meaning ipc.
 */
#ifndef SATIN_ENDPOINT_H
#define SATIN_ENDPOINT_H

#include <stddef.h>

/* The default client endpoint: $SATIN_SOCKET if set, else
 * ipc://$XDG_RUNTIME_DIR/satin/satind.sock, else /run/satin/satind.sock for
 * root and /tmp/satin-UID/satind.sock for other users. */
void satin_endpoint_default(char *buf, size_t len);

/* Normalises `text` into a ZeroMQ endpoint ("/x" -> "ipc:///x").  Returns 0,
 * or -1 with a message in err for an empty or unsupported endpoint. */
int satin_endpoint_normalise(const char *text, char *buf, size_t len, char *err,
                             size_t errlen);

/* For an ipc endpoint, its filesystem path; NULL for other transports. */
const char *satin_endpoint_ipc_path(const char *endpoint);

#endif
