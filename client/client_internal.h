/*
 * client_internal.h - what libsatin's files share: the client's state and
 * the calls client_failover.c makes into satin_client.c.  satin_client.c
 * is one connection (sockets, requests, conversations); client_failover.c
 * moves a failover client's jobs to the next endpoint when its node dies.
 * Not installed.
 */
#ifndef SATIN_CLIENT_INTERNAL_H
#define SATIN_CLIENT_INTERNAL_H

#include "endpoint_list.h"
#include "satin_client.h"
#include "satin_proto.h"

#include <stdint.h>

#define CLIENT_ENDPOINT_MAX 512

/* A SUBMIT or WAIT whose RESULT we still expect.  In a plain client `id`
 * is the daemon's job id; a failover client hands out ids of its own,
 * since a job that moves gets a new id on every node it runs on. */
typedef struct conv {
    uint64_t rid;         /* request id of the SUBMIT or WAIT now in flight */
    uint64_t id;          /* the id the caller knows the job by */
    uint64_t job_id;      /* its id on the daemon running it now */
    satin_msg *record;    /* failover clients: the SUBMIT, to send again; else NULL */
    size_t node;          /* failover clients: the endpoint (list index) that accepted it */
    int cancelled;        /* the caller cancelled it: never sent again */
    char *outcome;        /* failover clients: a failure decided here (the job cannot
                           * move on), reported by the next wait; else NULL */
} conv;

struct satin_client {
    void *ctx, *sock, *mon;   /* a context of its own for each connection */
    /* CurveZMQ (tcp:// endpoints of a secured grid): Z85 keys, "" = off. */
    char public_key[41], secret_key[41], server_key[41];
    char endpoint[CLIENT_ENDPOINT_MAX];  /* the endpoint in use */
    uint64_t next_rid;
    int request_timeout_ms;
    int connect_timeout_ms;   /* satin_client_set_connect_timeout() when made */
    int lost;                 /* the connection went away: every call fails */
    conv *convs;
    size_t nconv, capconv;
    satin_msg **mail;         /* replies for live conversations, oldest first */
    size_t nmail, capmail;
    /* Failover clients only (satin_client_new_multi); eps is NULL otherwise. */
    satin_endpoint_list *eps;
    char (*server_keys)[41];  /* per endpoint of eps, "" = no CURVE (satin_client_new_multi_curve) */
    uint64_t next_job;        /* the last job id handed out */
    int64_t last_heard;       /* when the daemon in use last sent anything */
    satin_failover_fn *on_failover;
    void *failover_arg;
};

/* A failover client's ZMTP heartbeat: a ping every second, and a
 * connection whose peer sends nothing for 3 s after a ping is dropped
 * (a frozen process, a vanished host).  Plain clients keep longer ones. */
#define FAILOVER_HEARTBEAT_IVL_MS     1000
#define FAILOVER_HEARTBEAT_TIMEOUT_MS 3000
/* A node whose client side says nothing for this long while a job runs is
 * taken for dead: satind sends PROGRESS about once a second, which a
 * failover client always asks for, so this is a reactor that stopped
 * while its I/O thread still answers pings. */
#define FAILOVER_SILENCE_MS           10000

/* satin_client.c */
int64_t client_now_ms(void);
int client_fail(satin_client_error *err, int code, int proto_code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void client_clear_error(satin_client_error *err);
satin_client *client_alloc(void);
/* A key given as 40 Z85 characters (a public key) or as a file satin-keygen
 * wrote; want_secret: the file's secret key too, into sec. */
int client_read_key(const char *given, int want_secret, char pub[41], char sec[41],
                    satin_client_error *err);
/* Connects to `endpoint` (normalised) and waits for the handshake; on
 * failure the sockets are closed again and err says why. */
int client_connect(satin_client *c, const char *endpoint, satin_client_error *err);
/* Closes the connection and drops every reply kept in the mailbox. */
void client_disconnect(satin_client *c);
/* Sends a short request and waits for its reply within the request
 * timeout; ERROR becomes SATIN_CLIENT_REJECTED.  `m` stays the caller's. */
int client_request(satin_client *c, satin_msg *m, satin_msg **reply, satin_client_error *err);
/* A reply of the wrong type: SATIN_CLIENT_PROTOCOL; *m is freed. */
int client_unexpected(satin_msg **m, const char *request, satin_client_error *err);
conv *client_conv_by_id(satin_client *c, uint64_t id);
void client_conv_add(satin_client *c, const conv *cv);

/* client_failover.c */
/* The node in use is gone (`why`: "connection lost", ...): connects to the
 * next endpoint that answers and submits every live job there again.  OK,
 * or UNREACHABLE ("every endpoint failed: ...") once none is left. */
int failover_move(satin_client *c, const char *why, satin_client_error *err);
/* Whether an outcome means the node in use is gone rather than the request
 * or the job being at fault: rc is the call's, lost 1 when the connection
 * closed, proto_code the ERROR's code (for REJECTED), job_error the failed
 * RESULT's text (else NULL).  1 with a short reason in why, else 0.  Pure,
 * for the unit test. */
int failover_node_gone(int rc, int lost, int proto_code, const char *job_error, char *why,
                       size_t len);
/* satin_client_submit for a failover client; it takes `record`. */
int failover_submit(satin_client *c, satin_msg *record, uint64_t *job_id,
                    satin_client_error *err);
/* satin_client_cancel for a failover client. */
int failover_cancel(satin_client *c, uint64_t id, int *state, satin_client_error *err);
/* A short request (STATUS, LIST_KINDS) that moves on with the jobs when
 * the node in use is gone.  `m` stays the caller's. */
int failover_request(satin_client *c, satin_msg *m, satin_msg **reply, satin_client_error *err);

#endif
