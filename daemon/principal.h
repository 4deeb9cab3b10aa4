/*
 * principal.h - who asks: the owner of a job and the one who wants to wait
 * on it, cancel it or read its parameters.
 *
 * A client of an ipc:// endpoint is the uid the kernel gives for its end of
 * the socket (SO_PEERCRED, which libzmq reports in a message's Peer-Address
 * as "HOST:UID:GID:PID"); a client of a tcp:// endpoint under CURVE is its
 * public key, named as in the topology's clients:.  A plain tcp:// client
 * proves nothing and is "anonymous": anonymous jobs are anyone's.  Root and
 * the daemon's own user (over IPC), and a client listed with admin: true,
 * may act on every job.
 */
#ifndef SATIN_PRINCIPAL_H
#define SATIN_PRINCIPAL_H

#include "topology.h"

#include <sys/types.h>

typedef enum {
    SATIN_PRINCIPAL_ANONYMOUS,   /* plain tcp://: nothing proved */
    SATIN_PRINCIPAL_UID,         /* ipc:// */
    SATIN_PRINCIPAL_KEY,         /* tcp:// under CURVE */
} satin_principal_kind;

typedef struct satin_principal {
    satin_principal_kind kind;
    uid_t uid;                   /* SATIN_PRINCIPAL_UID */
    char key[41];                /* SATIN_PRINCIPAL_KEY: Z85 */
    char name[80];               /* shown: a user name (or "uid N"), "key:CLIENT", "anonymous" */
    int admin;
} satin_principal;

void satin_principal_anonymous(satin_principal *p);
/* The uid's user; root and `daemon_uid` are admins. */
void satin_principal_of_uid(satin_principal *p, uid_t uid, uid_t daemon_uid);
/* From libzmq's Peer-Address of an ipc:// message ("HOST:UID:GID:PID");
 * -1 (and anonymous) when it carries no uid. */
int satin_principal_of_peer_address(satin_principal *p, const char *peer_address,
                                    uid_t daemon_uid);
/* A CURVE client's key, named and made admin as the topology lists it. */
void satin_principal_of_key(satin_principal *p, const char *z85, const satin_topology *topo);
/* 1 when `actor` may wait on, cancel and read the parameters of a job of
 * `owner`: the same uid or key, both anonymous, or an admin. */
int satin_principal_may_act(const satin_principal *actor, const satin_principal *owner);

#endif
