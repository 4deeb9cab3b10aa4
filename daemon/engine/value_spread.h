/*
 * value_spread.h - when a job's grid-wide values go to whom: a node sends
 * an update to its neighbours in the job (the nodes it exchanged records
 * of the job with), inside its cluster at once, across the wide area at
 * most once per directed link per interval, carrying the latest state of
 * the values that grew since that link's last message.
 *
 * A node forwards a value only when a join made it grow, so a flood over
 * the job's neighbours ends: once every node holds the join of all
 * updates, nothing grows and nothing is sent.  Sending states rather than
 * deltas is what makes batching free: the message a link sends after its
 * interval holds every join of the interval in one.
 *
 * Pure: the engine asks which messages are due at a time it gives.
 */
#ifndef SATIN_VALUE_SPREAD_H
#define SATIN_VALUE_SPREAD_H

#include <stddef.h>
#include <stdint.h>

typedef struct satin_value_spread satin_value_spread;

/* wan_interval_ns: the least time between two messages on a link to
 * another cluster (0: at once, as inside a cluster). */
satin_value_spread *satin_value_spread_new(int64_t wan_interval_ns);
void satin_value_spread_destroy(satin_value_spread **self);

/* peer becomes a neighbour in the job (wan: in another cluster), with the
 * values of `pending` to send it.  A known neighbour keeps its link as it
 * is: it had the values when it became one, and hears whatever grew since
 * (so a record more to it costs no message of values).  -1: out of memory. */
int satin_value_spread_link(satin_value_spread *self, int peer, int wan, uint32_t pending);
/* The values of `values` to neighbour `peer` again (a message to it may
 * have been lost); nothing when it is no neighbour. */
void satin_value_spread_resend_to(satin_value_spread *self, int peer, uint32_t values);
/* peer is no neighbour any more (dead, gone, or the job ended there). */
void satin_value_spread_unlink(satin_value_spread *self, int peer);
size_t satin_value_spread_links(const satin_value_spread *self);
/* The values waiting to go to `peer` (0: none, or no such neighbour). */
uint32_t satin_value_spread_pending(const satin_value_spread *self, int peer);
/* The peer of link i (0 <= i < links); unlinking may reorder the links. */
int satin_value_spread_peer(const satin_value_spread *self, size_t i);

/* The values of `grew` grew here, by a join of this node's own (from -1)
 * or of an update from neighbour `from`, which needs no echo. */
void satin_value_spread_grew(satin_value_spread *self, uint32_t grew, int from);
/* Every value to every neighbour: after a message may have been lost (a
 * neighbour died holding updates it had not passed on). */
void satin_value_spread_resend(satin_value_spread *self, uint32_t values);

/* The next message due at `now`: its peer and the values it carries
 * (their current states); 1, or 0 when none is due.  Taking it counts as
 * sending it. */
int satin_value_spread_next(satin_value_spread *self, int64_t now, int *peer, uint32_t *values);
/* When the next message becomes due: `now` when one is due already,
 * INT64_MAX when none waits. */
int64_t satin_value_spread_deadline(const satin_value_spread *self, int64_t now);

#endif
