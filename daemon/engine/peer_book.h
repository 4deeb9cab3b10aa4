/*
 * peer_book.h - what a node knows of each peer, kept only for the peers it
 * has something to know about.
 *
 * A node of a large grid talks to few of its peers: a table with an entry
 * for every node would cost each node of a simulated million-node grid
 * more than a hundred megabytes.  So a peer gets its record the first time
 * something about it must be written (a death, a heartbeat, a message
 * heard while failures are watched); a peer without one is as every peer
 * is at start, alive and unheard (engine_faults.c reads it so).
 */
#ifndef SATIN_PEER_BOOK_H
#define SATIN_PEER_BOOK_H

#include "engine.h"

#include <stddef.h>
#include <stdint.h>

/* A peer as this node sees it (engine_faults.c). */
typedef struct satin_peer_watch {
    satin_peer_state state;
    int ever_dead;                /* its results for records run again are late, not senseless */
    uint64_t epoch;               /* its run, as the transport saw it (0: unknown) */
    int64_t heard;                /* the last message the engine was given from it */
    int heard_any;                /* 1 once anything came (virtual time may start at 0) */
    int leaving;                  /* it said it is stopping: no more work for it */
    int left;                     /* it said it stopped (after leaving): nothing more from it */
    int64_t quiet_since;          /* dead: when it was last heard before (or our start) */
    int greeted;                  /* it had a HEARTBEAT from us (so it knows we are here) */
    int tied;                     /* work tied us to it at the last watch */
    int64_t tied_since;           /* since when: its silence counts from there at the earliest */
    int64_t last_sent;            /* our last message to it */
    int member;                   /* 0: it left the grid's membership (engine_members.c) */
    int64_t joined;               /* when it joined the membership after our start (0: before) */
    int64_t died;                 /* when we took it for dead (its last death) */
    int64_t status_asked;         /* our last status request to it (a tie until it speaks) */
} satin_peer_watch;

typedef struct satin_peer_book {
    int *keys;                    /* [cap] a peer, or -1 */
    satin_peer_watch **records;   /* [cap] each allocated alone: pointers stay valid */
    size_t cap, n;
} satin_peer_book;

void satin_peer_book_init(satin_peer_book *b);
void satin_peer_book_free(satin_peer_book *b);
/* The peer's record, or NULL when it has none. */
satin_peer_watch *satin_peer_book_find(const satin_peer_book *b, int peer);
/* The peer's record, made from `fresh` if it had none. */
satin_peer_watch *satin_peer_book_get(satin_peer_book *b, int peer, const satin_peer_watch *fresh);

#endif
