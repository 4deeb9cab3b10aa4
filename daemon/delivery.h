/*
 * delivery.h - reliable delivery of the peer messages that carry work.
 *
 * ZeroMQ keeps order on one connection but loses what was queued on a
 * connection it drops (a heartbeat timeout on a congested wide-area link,
 * a reset, a peer's ROUTER handing a routing id over to a new connection).
 * A lost job record or JOB_RESULT would leave a parent waiting forever, so
 * the messages that move work (STEAL_REPLY with jobs, PUSH, PUSH_ACK,
 * JOB_RESULT, JOB_CANCEL, ORPHAN, and VALUES behind records) are numbered per destination, kept until the
 * destination acknowledges them, and sent again when no acknowledgement
 * comes (go-back-N: a receiver takes only the next number in sequence).
 * Requests that a timeout already covers (STEAL, empty replies, LOAD, the
 * statistics round) stay unnumbered and cost nothing.
 *
 * Every peer message carries a 32-byte delivery frame: the sender's epoch
 * (random per daemon start), the message's number (0 = unnumbered), and the
 * acknowledgement of what the sender has taken from the addressee (the
 * addressee's epoch and its last number received in order).  An
 * acknowledgement owed and not carried by other traffic within ACK_DELAY
 * goes alone, as a message of just that frame.  A peer whose epoch changes
 * has restarted: what was queued for its previous run is dropped.
 *
 * No sockets, no clocks, no threads here: the caller passes the time and a
 * function that puts frames on the wire, so every rule is unit-tested.
 */
#ifndef SATIN_DELIVERY_H
#define SATIN_DELIVERY_H

#include <stddef.h>
#include <stdint.h>

#include "shared_bytes.h"

#define SATIN_DELIVERY_FRAME_SIZE 32
/* How long an acknowledgement may wait for a message to ride on. */
#define SATIN_DELIVERY_ACK_DELAY_NS 25000000LL
/* Retransmission timeout bounds; it adapts to the measured round trip
 * (srtt + 4 rttvar) and doubles while nothing is acknowledged.  Before the
 * first measurement it is longer: the first message to a peer also waits
 * for a new connection's handshakes, several round trips on a WAN. */
#define SATIN_DELIVERY_RTO_INITIAL_NS 3000000000LL
#define SATIN_DELIVERY_RTO_MIN_NS 1000000000LL
#define SATIN_DELIVERY_RTO_MAX_NS 60000000000LL

typedef struct satin_delivery_stamp {
    uint64_t epoch;       /* the sender's run */
    uint64_t seq;         /* 1, 2, ... per destination; 0 = unnumbered */
    uint64_t ack_epoch;   /* the addressee's run that `ack` refers to (0: none) */
    uint64_t ack;         /* the last number taken in order from the addressee */
} satin_delivery_stamp;

void satin_delivery_stamp_encode(const satin_delivery_stamp *stamp,
                                 unsigned char out[SATIN_DELIVERY_FRAME_SIZE]);
/* 0, or -1 when the frame is not SATIN_DELIVERY_FRAME_SIZE bytes or its
 * epoch is 0. */
int satin_delivery_stamp_decode(const void *frame, size_t len, satin_delivery_stamp *stamp);

/* Puts one message on the wire: a message (header and body, the codec's
 * two frames) or, when hdr is NULL, an acknowledgement alone.  Returns 0
 * when the transport took it, -1 when not (e.g. its queue is full); a
 * numbered message that was not taken stays queued and is sent again.
 * hdr and body lie in `bytes` (NULL with an acknowledgement), which the
 * transport may hold a reference of (satin_shared_bytes_ref) instead of
 * copying them, until they have left. */
typedef int (*satin_delivery_send_fn)(void *ctx, int peer, const unsigned char *frame,
                                      const void *hdr, size_t hlen, const void *body,
                                      size_t blen, satin_shared_bytes *bytes,
                                      int retransmission);

typedef struct satin_delivery_counters {
    uint64_t numbered;         /* numbered messages sent (first time) */
    uint64_t retransmissions;  /* numbered messages sent again */
    uint64_t acks_alone;       /* acknowledgements sent as a message of their own */
    uint64_t duplicates;       /* numbered messages received again (dropped) */
    uint64_t out_of_order;     /* received past a gap (dropped, sent again later) */
    uint64_t stale;            /* from a peer's previous run (dropped) */
    uint64_t peer_restarts;    /* peers seen with a new epoch */
    uint64_t discarded;        /* queued for a peer's previous run, dropped */
    uint64_t unacked_max;      /* most messages waiting for acknowledgement to one peer */
} satin_delivery_counters;

typedef struct satin_delivery satin_delivery;

/* State for peers 0..npeers-1; `epoch` != 0 names this run. */
satin_delivery *satin_delivery_new(int npeers, uint64_t epoch, satin_delivery_send_fn send,
                                   void *ctx);
void satin_delivery_destroy(satin_delivery **self);

/* Sends a message to `peer`, numbered when `numbered` (then kept until
 * acknowledged).  Returns what the send function returned; for a numbered
 * message -1 only means "queued, not yet on the wire".  It takes the
 * caller's reference to `bytes`, which hold the header (hlen bytes) and
 * right after it the body (blen): the encoding is neither copied to be
 * kept nor to be sent. */
int satin_delivery_send_shared(satin_delivery *self, int peer, int numbered,
                               satin_shared_bytes *bytes, size_t hlen, size_t blen,
                               int64_t now_ns);

enum {
    SATIN_DELIVERY_TAKE = 0,  /* hand the message to the node */
    SATIN_DELIVERY_DROP = 1,  /* a duplicate, past a gap, or from a previous run */
};
/* What to do with a message from `peer` that carried `stamp`; reads its
 * acknowledgement and notes the peer's epoch.  A bare acknowledgement
 * (no message) is passed with `bare` set and always returns DROP. */
int satin_delivery_receive(satin_delivery *self, int peer, const satin_delivery_stamp *stamp,
                           int bare, int64_t now_ns);

/* Sends the acknowledgements and retransmissions that are due; returns
 * the time (ns) of the next thing due, or INT64_MAX. */
int64_t satin_delivery_tick(satin_delivery *self, int64_t now_ns);

/* Peers from the current count up to `npeers` start afresh (the grid grew). */
void satin_delivery_grow(satin_delivery *self, int npeers);
/* Each message to `peer` still waiting for its acknowledgement, header and
 * body, is passed to fn, which may hand back new bytes for it (header then
 * body in one buffer, whose reference it gives; return 1) or leave it
 * (return 0): for a node whose numbering of the grid changed (the header's
 * sender, node numbers in bodies). */
typedef int (*satin_delivery_rewrite_fn)(void *ctx, int peer, const unsigned char *hdr,
                                         size_t hlen, const unsigned char *body, size_t blen,
                                         satin_shared_bytes **out, size_t *out_hlen,
                                         size_t *out_blen);
void satin_delivery_rewrite_peer(satin_delivery *self, int peer, satin_delivery_rewrite_fn fn,
                                 void *ctx);
/* Drops what waits for `peer`'s acknowledgement (it left the grid). */
void satin_delivery_forget(satin_delivery *self, int peer);
/* The run of `peer` we last heard from (0: none yet); it changes when the
 * peer restarts. */
uint64_t satin_delivery_peer_epoch(const satin_delivery *self, int peer);
/* Numbered messages to `peer` not acknowledged yet. */
size_t satin_delivery_unacked(const satin_delivery *self, int peer);
/* The current retransmission timeout towards `peer`. */
int64_t satin_delivery_rto(const satin_delivery *self, int peer);
const satin_delivery_counters *satin_delivery_counters_get(const satin_delivery *self);

#endif
