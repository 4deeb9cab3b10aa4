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

/* User names by uid, each looked up once: getpwuid_r may ask a directory
 * service over the network, and the control loop must not wait on it for
 * every request of a user it has seen.  The last SATIN_USER_NAMES users
 * are kept; a user renamed after the lookup keeps the old name until the
 * entry is reused or the daemon restarts.  One thread's (the control's). */
#define SATIN_USER_NAMES 32
typedef struct satin_user_names {
    uid_t uid[SATIN_USER_NAMES];
    char name[SATIN_USER_NAMES][64];
    int n, next;
} satin_user_names;

void satin_principal_anonymous(satin_principal *p);
/* The uid's user (its name from `names`, NULL: looked up each time); root
 * and `daemon_uid` are admins. */
void satin_principal_of_uid(satin_principal *p, uid_t uid, uid_t daemon_uid,
                            satin_user_names *names);
/* From libzmq's Peer-Address of an ipc:// message ("HOST:UID:GID:PID");
 * -1 (and anonymous) when it carries no uid. */
int satin_principal_of_peer_address(satin_principal *p, const char *peer_address,
                                    uid_t daemon_uid, satin_user_names *names);
/* A CURVE client's key, named and made admin as the topology lists it. */
void satin_principal_of_key(satin_principal *p, const char *z85, const satin_topology *topo);
/* 1 when `actor` may wait on, cancel and read the parameters of a job of
 * `owner`: the same uid or key, both anonymous, or an admin. */
int satin_principal_may_act(const satin_principal *actor, const satin_principal *owner);

#endif
