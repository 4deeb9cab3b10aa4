/*
 * security.h - CurveZMQ for one node.  The node's key pair comes from a
 * secret key file (satin-keygen writes it; mode 0600 or we refuse it); the
 * public keys of the topology (nodes and allowed clients) go into an
 * in-memory CZMQ certificate store served to libzmq by CZMQ's zauth actor.
 * A connection whose key is not listed never completes its handshake; each
 * refused key is logged once per interval.
 *
 * Under `security: none` the object exists but does nothing: sockets stay
 * plain text and every key check passes.
 */
#ifndef SATIN_SECURITY_H
#define SATIN_SECURITY_H

#include "topology.h"

#include <stddef.h>
#include <stdint.h>

typedef struct satin_security satin_security;

/* The one ZeroMQ context of satind: zauth answers ZAP requests only for
 * sockets of its own context, so every socket must come from here.  CZMQ's
 * signal handlers are left out (satind takes signals on a signalfd). */
void *satin_security_context(void);
/* The most ZeroMQ sockets that context may hold (ZMQ_MAX_SOCKETS); call
 * after satin_security_context and before any socket is made. */
void satin_security_set_max_sockets(void *zmq_ctx, int n);
/* Ends that context; every socket must be closed first. */
void satin_security_context_end(void);

/* Where node `self`'s secret key is looked for: `given` (--key) if set,
 * else $CREDENTIALS_DIRECTORY/satind.key (systemd's LoadCredential), else
 * the topology's `keys:` directory/NODE.key, else /etc/satin/keys/NODE.key. */
void satin_security_key_path(const satin_topology *t, int self, const char *given, char *buf,
                             size_t len);

/* Loads and checks the node's key pair and starts ZAP.  NULL with the reason
 * in err (which file, and why) when the grid uses CURVE and the key cannot
 * be used: missing, readable by others, malformed, or not this node's. */
satin_security *satin_security_new(void *zctx, const satin_topology *t, int self,
                                   const char *key_path, char *err, size_t errlen);
void satin_security_destroy(satin_security **self);
int satin_security_enabled(const satin_security *self);

/* Makes `sock` (before bind) a CURVE server with this node's key. */
void satin_security_make_server(satin_security *self, void *sock);
/* Makes `sock` (before connect) a CURVE client of the node whose public
 * key is `server_key` (Z85). */
void satin_security_make_client(satin_security *self, void *sock, const char *server_key);
/* A new membership (SIGHUP; `t` outlives the object or the next call):
 * zauth takes the public keys it lists from now on, and the clients: list
 * with them.  0, or -1 with the reason in err (the old keys stay). */
int satin_security_set_topology(satin_security *self, const satin_topology *t, char *err,
                                size_t errlen);

/* The key a message arrived with (ZeroMQ's User-Id: zauth sets it to the
 * peer's Z85 public key), "" when there is none. */
const char *satin_security_key_of(void *zmq_message);
/* 1 when a message that arrived with key `z85` may come from the node for
 * which its file lists `listed` (always 1 without CURVE). */
int satin_security_key_matches(const satin_security *self, const char *z85, const char *listed);
/* 1 when `z85` belongs to a client allowed by the topology's `clients:`. */
int satin_security_key_is_client(const satin_security *self, const char *z85);

/* zauth reports refusals through CZMQ's log; this socket receives them (for
 * zmq_poll; NULL when security is off), and on_log turns them into our own
 * rate-limited log lines and counts them. */
void *satin_security_log_socket(satin_security *self);
void satin_security_on_log(satin_security *self);
uint64_t satin_security_refused(const satin_security *self);

#endif
