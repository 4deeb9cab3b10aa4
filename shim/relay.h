/*
 * relay.h - the relays: a listening socket for every (cluster, node of
 * another cluster) pair of the topology, and for every connection accepted
 * there a connection of our own to the node, with the bytes of each
 * direction held in a delay queue and paced by that direction's link.
 *
 * The relay for traffic from cluster c to node n listens on
 * shim_host:satin_topology_shim_port(t, c, n).  Bytes towards the node take
 * the link c -> cluster(n); bytes back on the same connection take
 * cluster(n) -> c.
 */
#ifndef WANEM_RELAY_H
#define WANEM_RELAY_H

#include "link.h"
#include "loop.h"
#include "topology.h"

typedef struct relay relay;

/* Binds every relay port (and adds them to the loop).  NULL with a message
 * in err when one cannot be bound or a node's host cannot be resolved. */
relay *relay_new(satin_loop *loop, const satin_topology *t, uint64_t seed, char *err,
                 size_t errlen);
/* Closes every connection and listener. */
void relay_free(relay **r);

/* The loop's pump: sends what is due and allowed, returns when next to run. */
int64_t relay_pump(void *r, int64_t now);

/* The directed link between two clusters (NULL for a cluster to itself or
 * out of range). */
wan_link *relay_link(relay *r, int from, int to);
/* Breaks every open connection between clusters a and b (both ways) as a
 * failing WAN would: both ends see a reset, the bytes held are lost.
 * Returns how many were broken; *dropped (if not NULL): how many bytes the
 * two directed links held for them. */
int relay_reset(relay *r, int a, int b, uint64_t *dropped);
/* Listening sockets and open connections, for the log. */
int relay_listeners(const relay *r);
int relay_open_connections(const relay *r);

#endif
