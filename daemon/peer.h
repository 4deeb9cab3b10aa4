/*
 * peer.h - the peer transport of one node: one bound ROUTER socket that
 * every other node sends to, and one DEALER per peer we talk to, opened
 * lazily on first contact (a 1000-node grid must not open a million
 * connections).  A message is a delivery frame (delivery.h) then the
 * codec's two frames; the header's sender is this node's index in the
 * topology.  Nodes are the roster's slots (roster.h) here and to the
 * caller; on the wire they are indexes of the file their sender reads,
 * renumbered both ways here.  The messages that carry work are numbered, acknowledged and
 * sent again until they arrive, so a dropped connection loses none.
 */
#ifndef SATIN_PEER_H
#define SATIN_PEER_H

#include "admission.h"
#include "delivery.h"
#include "peer_kinds.h"
#include "roster.h"
#include "satin_proto.h"
#include "security.h"
#include "topology.h"

#include <stdint.h>

typedef struct satin_peers satin_peers;

/* Per link class (same cluster = LAN, other cluster = WAN). */
typedef struct satin_link_counters {
    uint64_t msgs_sent;        /* messages (first sending; not acknowledgements) */
    uint64_t bytes_sent;       /* everything on the wire, acknowledgements and resends too */
    uint64_t msgs_received, bytes_received;
    uint64_t send_failures;    /* not taken by ZeroMQ (a numbered one is sent again) */
    uint64_t acks_sent;        /* acknowledgements sent alone */
    uint64_t retransmissions;  /* numbered messages sent again */
    uint64_t zero_copy_sends;  /* messages whose body ZeroMQ sent from our buffer, uncopied */
} satin_link_counters;

/* `security` (not owned) makes every connection CurveZMQ when the grid uses
 * it; `request_rate` caps the requests (steals, load reports, statistics
 * requests, greetings) each peer may send per second, with a one-second
 * burst: the excess is dropped, counted and logged, and a dropped steal
 * request simply counts as empty at its thief.  Results and replies answer
 * our own requests and are never dropped. */
satin_peers *satin_peers_new(void *zmq_ctx, const satin_roster *roster, size_t max_message,
                             satin_security *security, double request_rate);
void satin_peers_destroy(satin_peers **self);
/* The kinds table that our HELLOs describe and theirs fill (borrowed; set
 * before the first message). */
void satin_peers_set_kinds(satin_peers *self, satin_peer_kinds *kinds);
/* The ROUTER socket, for zmq_poll. */
void *satin_peers_socket(satin_peers *self);
/* Sends `m` to node `to` (never blocks).  A numbered message (one that
 * carries work) is kept until acknowledged; another that the peer's queue
 * cannot take is counted and dropped.  Returns 0 or -1. */
int satin_peers_send(satin_peers *self, int to, satin_msg *m);
/* The roster took a new membership; `before` is the one read until now.
 * New nodes are reachable, the connections of nodes that left, moved or
 * took a new key are closed (all of them when our own index changed: it
 * is our routing id), messages waiting for acknowledgement are numbered
 * as the new file, and every peer still connected is greeted with it. */
void satin_peers_membership_changed(satin_peers *self, const satin_membership *before);
/* Sends the acknowledgements and retransmissions that are due; returns
 * when (ns, satin_now_ns's clock) the next is due, or INT64_MAX. */
int64_t satin_peers_tick(satin_peers *self);
/* Numbered messages not yet acknowledged, to the peers heard from within
 * the last `heard_within_ns` (a peer silent longer may be gone for good). */
size_t satin_peers_unacked(const satin_peers *self, int64_t heard_within_ns);
const satin_delivery_counters *satin_peers_delivery(const satin_peers *self);
/* The next message from a peer that admission (admission.h) accepts, or
 * NULL when none is waiting (errno EAGAIN: ZeroMQ had nothing more).  What
 * it rejects is counted, logged (rate-limited) and dropped, and reading goes
 * on; *bad tells. */
satin_msg *satin_peers_recv(satin_peers *self, int *bad);
/* Peers heard from so far, and the last time (ns) we heard from `node`. */
int satin_peers_alive(const satin_peers *self);
int64_t satin_peers_last_heard(const satin_peers *self, int node);
/* The run of `node` its messages come from (0: none yet). */
uint64_t satin_peers_epoch(const satin_peers *self, int node);
const satin_link_counters *satin_peers_counters(const satin_peers *self, int wan);
/* Malformed, forged or senseless messages (admission.h); per reason: satin_admission_count. */
uint64_t satin_peers_bad_messages(const satin_peers *self);
/* Messages refused for what restarts and reloads cause (admission.h). */
uint64_t satin_peers_refused_messages(const satin_peers *self);
const satin_admission *satin_peers_admission(const satin_peers *self);
/* Requests dropped because their peer exceeded its rate. */
uint64_t satin_peers_rate_dropped(const satin_peers *self);
/* Counts and logs (rate-limited) a well-formed message that makes no sense
 * (a result for a record we never gave away, ...). */
void satin_peers_note_bad(satin_peers *self, const char *what, int node);

#endif
