/*
 * ledger.h - remote work and who owns it: records this node gave to other
 * nodes (their parents wait here), stand-ins for records other nodes gave
 * us (their results go home), and our steal requests still out.  Plain
 * bookkeeping, no policy and no messages: the engine decides, the ledger
 * remembers.
 */
#ifndef SATIN_LEDGER_H
#define SATIN_LEDGER_H

#include "satin_proto.h"

#include <stddef.h>
#include <stdint.h>

typedef struct satin_given {
    uint64_t record_id;     /* ours, unique per node run */
    void *record;           /* the driver's record; its parent waits for it */
    const void *job;        /* the local job it belongs to */
    uint64_t origin;        /* the submitted job it belongs to (JOBREC's origin) */
    int holder;             /* the node running it */
    int cancel_sent;        /* its holder was told to stop it */
    int redoing;            /* its holder died: it runs again here, as a stand-in of ours */
} satin_given;

typedef struct satin_standin {
    void *handle;           /* the driver's stand-in */
    int owner;              /* the node its result goes to */
    uint64_t record_id;     /* the owner's id for it */
    const void *job;        /* the driver's job it runs as (records taken from it carry it) */
    satin_msg_jobrec *rec;  /* a copy of the record, to start it again; NULL for ours.
                             * Its argument may be the driver's (env.standin_arg). */
    int parked;             /* its owner died: cancelled, and started again if it comes back */
    int orphan;             /* its owner died (1) or restarted (2): it runs on, and its result
                             * is told to every node for the re-run (engine_orphans.c) */
    int returned;           /* given back to its owner (we are leaving): its end sends nothing */
} satin_standin;

typedef struct satin_pending {
    uint64_t id;            /* our request id */
    int victim;             /* the node asked first (CHS may forward it) */
    unsigned flags;
    int64_t sent_ns;
    int withdrawn;          /* the policy cancelled it: its reply is no steal (late) */
    int unsent;             /* its victim was dead or leaving: it ends at once, counted as
                             * no steal (only in steals_to_dead) */
} satin_pending;

typedef struct satin_ledger {
    uint64_t next_record;
    satin_given *given;
    size_t ngiven, capgiven;
    size_t ncancel_sent;    /* of them, those whose holder was told to stop */
    satin_standin *standins;
    size_t nstandins, capstandins;
    satin_pending *pending;
    size_t npending, cappending;
} satin_ledger;

void satin_ledger_init(satin_ledger *l);
void satin_ledger_free(satin_ledger *l);

/* Records given away.  give returns the record's new id. */
uint64_t satin_ledger_give(satin_ledger *l, void *record, const void *job, uint64_t origin,
                           int holder);
/* Removes and returns the record `id` held by `holder`: 0; -1 unknown id;
 * -2 the id is known but another node holds it (left in place). */
int satin_ledger_take_given(satin_ledger *l, uint64_t id, int holder, satin_given *out);

/* The same whoever holds it (a record run again here after its holder
 * died): 0, or -1 when the id is unknown. */
int satin_ledger_take_given_any(satin_ledger *l, uint64_t id, satin_given *out);

/* Marks given[i] as withdrawn (its holder was sent a JOB_CANCEL). */
void satin_ledger_mark_cancel_sent(satin_ledger *l, size_t i);
/* 1 while a record given away has not been withdrawn. */
int satin_ledger_cancels_owed(const satin_ledger *l);

/* Stand-ins; `rec` (may be NULL) is copied, but for its argument when
 * `arg_kept` (rec->arg_len bytes that stay as they are while the stand-in
 * runs) is given: the copy then refers to those (satin_ledger_own_arg). */
void satin_ledger_add_standin(satin_ledger *l, void *handle, int owner, uint64_t record_id,
                              const void *job, const satin_msg_jobrec *rec,
                              const void *arg_kept);
/* Removes the stand-in `handle`: 0, or -1 when it is unknown.  Its `rec`
 * is the caller's then (satin_ledger_free_rec). */
int satin_ledger_take_standin(satin_ledger *l, void *handle, satin_standin *out);
/* A copy whose argument is a copy of its own from then on, should the
 * bytes it refers to go (a stand-in's record kept after it ended). */
void satin_ledger_own_arg(satin_msg_jobrec *rec);
/* Frees a copy (its argument only if it is the copy's own). */
void satin_ledger_free_rec(satin_msg_jobrec **rec);
/* The stand-in for (owner, record_id), or NULL. */
const satin_standin *satin_ledger_find_standin(const satin_ledger *l, int owner,
                                               uint64_t record_id);

/* Steal requests in flight. */
void satin_ledger_add_pending(satin_ledger *l, uint64_t id, int victim, unsigned flags,
                              int64_t sent_ns);
/* Marks request `id` as withdrawn (it stays until its reply or time-out):
 * 0, or -1 when it is not (any longer) pending. */
int satin_ledger_withdraw_pending(satin_ledger *l, uint64_t id);
/* Removes request `id`: 0, or -1 when it is not (any longer) pending. */
int satin_ledger_take_pending(satin_ledger *l, uint64_t id, satin_pending *out);
/* The oldest request to `victim`, removed: 0, or -1 when there is none. */
int satin_ledger_take_pending_to(satin_ledger *l, int victim, satin_pending *out);
/* The oldest request sent at or before `before_ns`, removed, or -1. */
int satin_ledger_take_expired(satin_ledger *l, int64_t before_ns, satin_pending *out);
/* When the oldest pending request was sent (INT64_MAX when none). */
int64_t satin_ledger_oldest_pending(const satin_ledger *l);

#endif
