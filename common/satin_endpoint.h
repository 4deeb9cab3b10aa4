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

/* The default client endpoint of node `node` of a topology (NULL or "": the
 * plain default above): $SATIN_SOCKET if set, else satind-NODE.sock in the
 * default directory, so that two nodes on one host do not share a socket. */
void satin_endpoint_default_node(char *buf, size_t len, const char *node);

/* Normalises `text` into a ZeroMQ endpoint ("/x" -> "ipc:///x").  Returns 0,
 * or -1 with a message in err for an empty or unsupported endpoint. */
int satin_endpoint_normalise(const char *text, char *buf, size_t len, char *err,
                             size_t errlen);

/* For an ipc endpoint, its filesystem path; NULL for other transports. */
const char *satin_endpoint_ipc_path(const char *endpoint);

/* Into dir: the directory of the socket at `path` ("/" for "/x", "." for a
 * bare name).  -1 if it does not fit. */
int satin_endpoint_socket_dir(const char *path, char *dir, size_t len);

/* 1 if `dir` is the built-in default socket directory of this user
 * ($XDG_RUNTIME_DIR/satin, /run/satin for root, /tmp/satin-UID), whatever
 * $SATIN_SOCKET says; 0 otherwise. */
int satin_endpoint_is_default_dir(const char *dir);

/* Who may trust a socket directory (man satind(8), SOCKET DIRECTORY). */
enum {
    SATIN_DIR_DAEMON = 1,     /* satind binding there (else: a client connecting) */
    SATIN_DIR_DEFAULT = 2,    /* the built-in default directory: the strict rule */
};

/* Checks that no other local user can replace a socket in `dir`, so that a
 * client reaches the daemon it means.  Its owner must be us or root (a client
 * also accepts any owner when `dir` sits in a directory only root can write:
 * root made it, as systemd makes /run/satin for the satin user).  The default
 * directory must moreover be a real directory (no symlink) that neither group
 * nor others may write; any other directory must not be writable by others
 * unless it is sticky (/tmp).  Returns 0; 1 if `dir` does not exist (nothing
 * to trust yet); -1 with the reason and the fix in err. */
int satin_endpoint_check_dir(const char *dir, int flags, char *err, size_t errlen);

#endif
