/*
 * peer_kinds.h - which kinds this node and each peer share (PROTOCOL.md
 * 14.2, "The grid agrees on its kinds").
 *
 * Every HELLO carries the sender's kind modules: name, version, the
 * SHA-256 of the file and its tasks.  A record of task T goes to a peer
 * only when the peer has T from a module of the same digest; records that
 * come from a peer whose build of T differs, or of a T this node lacks, go
 * home unrun.  A peer that has not greeted us yet is taken to share our
 * kinds (it checks what it receives).  What differs is logged once per
 * peer and per change of its modules, and summed up for the grid's status.
 */
#ifndef SATIN_PEER_KINDS_H
#define SATIN_PEER_KINDS_H

#include "kinds.h"
#include "satin_proto.h"

#include <stddef.h>

typedef struct satin_peer_kinds satin_peer_kinds;

satin_peer_kinds *satin_peer_kinds_new(const satin_registry *reg);
void satin_peer_kinds_destroy(satin_peer_kinds **self);

/* Our modules, into a HELLO being made. */
void satin_peer_kinds_describe(const satin_peer_kinds *self, satin_msg *hello);
/* A HELLO of the node at `slot`, named `id`: its modules, compared with
 * ours.  Logs (warn) what differs when it changed since its last HELLO, and
 * (info) when a peer that differed agrees again. */
void satin_peer_kinds_heard(satin_peer_kinds *self, int slot, const char *id,
                            const satin_msg *hello);
/* 1 when records of `task` may go to `slot`. */
int satin_peer_kinds_accepts(const satin_peer_kinds *self, int slot, const satin_task *task);
/* 1 when a record of task name `task` from `slot` must not run here, with
 * the reason in `why`. */
int satin_peer_kinds_refuses(const satin_peer_kinds *self, int slot, const char *task,
                             char *why, size_t whylen);
/* For the node's status: its modules ("satin-kinds 0.1.0 3f2a9c1b7e04, ...")
 * and the peers whose kinds differ ("b1: lacks cxx-kinds 1.0; ...", "" when
 * none). */
void satin_peer_kinds_modules_text(const satin_peer_kinds *self, char *buf, size_t len);
void satin_peer_kinds_differ_text(const satin_peer_kinds *self, char *buf, size_t len);

#endif
