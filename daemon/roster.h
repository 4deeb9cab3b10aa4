/*
 * roster.h - every node this node has known since it started, by a number
 * of its own that never changes (a slot), and the memberships (topology
 * files) it has read, so that peers reading an older or newer one can
 * still be understood.
 *
 * On the wire a node is its index in the sender's topology file (PROTOCOL.md
 * 14); inside the node (engine, ledger, policy) it is a slot.  At start the
 * slots are the file's indexes.  When SIGHUP brings a new membership, a
 * node that stays keeps its slot, a new one gets the next, and one that
 * left keeps its slot, no longer a member.  Each membership read is kept
 * with its digest (what HELLO carries) and a map from its indexes to our
 * slots: a message is read with the membership its sender greeted us with,
 * and written with our own current one.
 */
#ifndef SATIN_ROSTER_H
#define SATIN_ROSTER_H

#include "topology.h"

#include <stdint.h>

/* One membership as a node read it: the file, its digest, and its
 * indexes' slots here (-1: a node we do not know). */
typedef struct satin_membership {
    satin_topology *topo;
    unsigned char digest[SATIN_TOPOLOGY_DIGEST_SIZE];
    int *slot_of;                  /* [topo->nnodes] */
    int *index_of;                 /* [nslots_then] a slot's index here, -1: not listed */
    int nslots_then;               /* slots when it was read: later ones are not listed */
    int generation;                /* 0 for the file read at start, then 1, 2, ... */
    int owned;                     /* the roster destroys topo */
} satin_membership;

typedef struct satin_roster satin_roster;

/* The file read at start (not taken: it must outlive the roster), in which
 * this node is `self`.  Memberships keep their addresses for the roster's
 * life. */
satin_roster *satin_roster_new(const satin_topology *topo, int self);
void satin_roster_destroy(satin_roster **self);

/* A new membership becomes the current one (takes `topo`, which lists this
 * node).  Returns how many slots it added. */
int satin_roster_update(satin_roster *r, satin_topology *topo);

/* The current membership and its file. */
const satin_membership *satin_roster_current(const satin_roster *r);
const satin_topology *satin_roster_topology(const satin_roster *r);
/* Slot `slot`'s index in membership m, -1 when m does not list it. */
int satin_membership_index(const satin_membership *m, int slot);
/* The membership whose digest this is, or NULL: one this node never read. */
const satin_membership *satin_roster_find(const satin_roster *r, const unsigned char *digest);

int satin_roster_nslots(const satin_roster *r);
int satin_roster_self(const satin_roster *r);
/* The node id of a slot (stable for the roster's life), "?" out of range. */
const char *satin_roster_name(const satin_roster *r, int slot);
/* Every slot's name, [nslots], stable until the next update. */
const char *const *satin_roster_names(const satin_roster *r);
/* The slot's index in the current file, -1 when it is no member now. */
int satin_roster_index(const satin_roster *r, int slot);
/* The slot's definition in the current file, or NULL. */
const satin_node_def *satin_roster_node(const satin_roster *r, int slot);
/* The slot of the node with this id, or -1. */
int satin_roster_slot_named(const satin_roster *r, const char *id);
/* The current file's index `index` as a slot (-1 out of range). */
int satin_roster_slot(const satin_roster *r, int index);

#endif
