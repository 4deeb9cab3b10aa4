/*
 * endpoint_list.h - libsatin's ordered list of daemon endpoints for a
 * client that moves its jobs on when a node dies (satin_client_new_multi).
 *
 * The list is walked once, front to back: the current endpoint is the one
 * in use; when it fails, the reason is kept and the next one becomes
 * current.  An endpoint that failed is never tried again, so a client
 * makes at most one attempt per endpoint and its failure is final once
 * the list is used up.  Pure bookkeeping (no sockets), so it is tested
 * without daemons (tests/unit/test_client_endpoints.c).  Internal to
 * libsatin: not installed.
 */
#ifndef SATIN_ENDPOINT_LIST_H
#define SATIN_ENDPOINT_LIST_H

#include <stddef.h>

typedef struct satin_endpoint_list satin_endpoint_list;

satin_endpoint_list *satin_endpoint_list_new(void);
void satin_endpoint_list_destroy(satin_endpoint_list **self);

/* Appends `text` ("ipc:///path", "/path", "tcp://host:port"; NULL or "" for
 * the default endpoint) in its normalised form.  0 when added, 1 when it
 * normalises to an endpoint already listed (dropped: trying a node twice
 * gains nothing), -1 with the reason in err when it is not an endpoint. */
int satin_endpoint_list_add(satin_endpoint_list *self, const char *text, char *err,
                            size_t errlen);

size_t satin_endpoint_list_count(const satin_endpoint_list *self);
/* The i-th endpoint (normalised), or NULL past the end. */
const char *satin_endpoint_list_at(const satin_endpoint_list *self, size_t i);

/* The endpoint in use, or NULL once every one has failed. */
const char *satin_endpoint_list_current(const satin_endpoint_list *self);
/* Its index (the count once every one has failed). */
size_t satin_endpoint_list_position(const satin_endpoint_list *self);

/* The current endpoint failed: keeps `cause` (short, for the failover
 * notice: "connection lost") and `why` (a whole phrase naming the
 * endpoint, for the final error: "satind at ipc:///x stopped answering
 * (connection lost)") and makes the next endpoint current.  Returns it, or
 * NULL when none is left. */
const char *satin_endpoint_list_fail(satin_endpoint_list *self, const char *cause,
                                     const char *why);
/* The cause kept for the i-th endpoint; NULL if it has not failed. */
const char *satin_endpoint_list_cause(const satin_endpoint_list *self, size_t i);

/* Into buf: "every endpoint failed: WHY1; WHY2; ..." in list order, for
 * the error of a client that has run out of endpoints ("no endpoint given"
 * for an empty list). */
void satin_endpoint_list_summary(const satin_endpoint_list *self, char *buf, size_t len);

#endif
