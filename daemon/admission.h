/*
 * admission.h - whether a message read from the peer ROUTER reaches the
 * node engine.  Every message goes through the same named stages, in order:
 *
 *   frame shape            [routing id][delivery frame][header][body], or
 *                          the first two (an acknowledgement alone)
 *   delivery stamp         the delivery frame reads (delivery.h)
 *   decode                 the codec takes header and body
 *   node identity and key  the sender is another node of the grid, still
 *                          a member, and the connection's CURVE key is
 *                          the one its file lists for it
 *   greeting               the connection said a matching HELLO as that
 *                          node (a HELLO is taken here): one of a
 *                          membership this node has read (roster.h), whose
 *                          numbering the sender's messages are then read in
 *   sequence               the delivery layer takes the stamp: a duplicate
 *                          or a message past a gap goes no further
 *   rate limit             the node's requests within --peer-rate
 *
 * Each stage returns a verdict; the first that is not PASS decides.  The
 * stamp is read early (a message without a good one is bad whatever else
 * it carries) but applied only once the sender is known and greeted, so
 * that nobody can acknowledge or restart another node's numbering.
 *
 * Every rejection, here or later in the engine (satin_admission_note_bad),
 * goes through one function that counts it under its reason and logs it
 * (rate-limited per reason).
 *
 * No sockets: the caller hands in the frames' bytes and the connection's
 * key, so every stage is unit-tested (tests/unit/test_admission.c).
 */
#ifndef SATIN_ADMISSION_H
#define SATIN_ADMISSION_H

#include "delivery.h"
#include "roster.h"
#include "satin_proto.h"
#include "security.h"
#include "topology.h"

#include <stddef.h>
#include <stdint.h>

/* The most frames a peer message has, routing id included. */
#define SATIN_ADMIT_FRAMES 4

/* The routing id of a node's own connection: 'N' and its node id.  Its
 * DEALERs always use it, so a connection ZeroMQ re-opens is still known as
 * that node's; and it names the node whatever file it reads (an index
 * would name another node in another file, and two connections with one
 * routing id take it from each other).  Returns its length. */
#define SATIN_NODE_RID_MAX (1 + 64)
size_t satin_node_rid(const char *node_id, unsigned char rid[SATIN_NODE_RID_MAX]);

typedef enum satin_admit_verdict {
    SATIN_ADMIT_PASS,      /* on to the next stage */
    SATIN_ADMIT_ACCEPT,    /* hand ctx->msg to the engine */
    SATIN_ADMIT_CONSUMED,  /* handled, not for the engine: an acknowledgement, a HELLO, a duplicate */
    SATIN_ADMIT_REJECT,    /* dropped for ctx->reason, counted and logged */
} satin_admit_verdict;

/* Why a message was dropped; each has a counter (STATUS rejected.<name>). */
typedef enum satin_reject_reason {
    SATIN_REJECT_SHAPE,        /* not 4 frames, nor 2 */
    SATIN_REJECT_STAMP,        /* the delivery frame does not read */
    SATIN_REJECT_DECODE,       /* the codec refuses header and body */
    SATIN_REJECT_SENDER,       /* not a peer type, or a sender that is no other node */
    SATIN_REJECT_KEY,          /* the connection's key is not the sender's */
    SATIN_REJECT_ACK_CONNECTION, /* an acknowledgement on a connection that is no node's own */
    SATIN_REJECT_NOT_GREETED,  /* the connection did not greet us as the sender */
    SATIN_REJECT_OTHER_GRID,   /* a HELLO of another topology (grid, membership digest) */
    SATIN_REJECT_UNKNOWN_INDEX,/* a sender index our topology does not have */
    SATIN_REJECT_RATE,         /* a request beyond the sender's rate */
    SATIN_REJECT_SENSELESS,    /* well-formed, but makes no sense (the engine says) */
    SATIN_REJECT_NOT_MEMBER,   /* a node that left our membership (SIGHUP) */
    SATIN_REJECT_NREASONS
} satin_reject_reason;

typedef struct satin_wire_frame {
    const void *data;
    size_t len;
} satin_wire_frame;

/* One message on its way through the stages. */
typedef struct satin_admit_ctx {
    /* From the caller (satin_admit_ctx_init, then the frames). */
    satin_wire_frame frame[SATIN_ADMIT_FRAMES];  /* [routing id][delivery][header][body] */
    int nframes;               /* frames kept */
    int extra;                 /* frames past the last kept one, discarded */
    const char *key;           /* the connection's CURVE key, "" without */
    int64_t now;               /* ns, satin_now_ns's clock */
    /* From the stages. */
    int bare;                  /* the delivery frame alone: an acknowledgement */
    satin_delivery_stamp stamp;
    satin_msg *msg;            /* decoded; the caller's once ACCEPTed, else freed */
    int node;                  /* the sender once known (our slot for it), else -1 */
    int wire;                  /* its index in the file it reads: its messages' numbering */
    const satin_membership *membership;  /* that file, once it greeted us (NULL before) */
    const char *stage;         /* the stage that decided */
    satin_reject_reason reason;
    const char *detail[2];     /* the arguments of the reason's log text */
    char what[200];            /* "a STEAL", "an acknowledgement", how a HELLO differs */
    char count[16];
    char who[64];              /* a node id a HELLO gives (its message is freed when refused) */
    satin_proto_error err;     /* the codec's complaint */
} satin_admit_ctx;

void satin_admit_ctx_init(satin_admit_ctx *ctx, int64_t now);

typedef struct satin_admission satin_admission;

/* What admission asks of the transport: a HELLO to `node` now (`greet`),
 * at most once a second per node asking it to greet us too (`greet_again`:
 * HELLO with SATIN_HELLO_ASK), or at most once a second answering such a
 * HELLO (`answer`); and what it tells it: `node` greeted us as a reader of
 * membership m (`greeted`, optional). */
typedef struct satin_admission_hooks {
    void *ctx;
    void (*greet)(void *ctx, int node);
    void (*greet_again)(void *ctx, int node);
    void (*answer)(void *ctx, int node);
    void (*greeted)(void *ctx, int node, const satin_membership *m, const satin_msg *hello);
} satin_admission_hooks;

/* `roster`, `security` (may be NULL: no key checks) and `delivery` are not
 * owned; nodes are the roster's slots.  `request_rate` as in
 * satin_peers_new. */
satin_admission *satin_admission_new(const satin_roster *roster, size_t max_message,
                                     const satin_security *security, satin_delivery *delivery,
                                     double request_rate, satin_admission_hooks hooks);
/* The roster took a new membership: new slots get their buckets, and the
 * connections of nodes that left are believed no more. */
void satin_admission_membership_changed(satin_admission *self);
void satin_admission_destroy(satin_admission **self);

/* Runs the stages on `ctx`; ACCEPT leaves ctx->msg to the caller. */
satin_admit_verdict satin_admission_run(satin_admission *self, satin_admit_ctx *ctx);

/* The stages, in order, for tests and for reading. */
typedef satin_admit_verdict (*satin_admit_stage_fn)(satin_admission *, satin_admit_ctx *);
typedef struct satin_admit_stage {
    const char *name;
    satin_admit_stage_fn run;
} satin_admit_stage;
const satin_admit_stage *satin_admission_stages(size_t *count);

/* The one rejection path: counts `reason`, logs its text (rate-limited)
 * with the two details (either may be NULL), returns SATIN_ADMIT_REJECT. */
satin_admit_verdict satin_admission_reject(satin_admission *self, satin_reject_reason reason,
                                           const char *detail0, const char *detail1);
/* A well-formed message that makes no sense (a result for a record we
 * never gave away, ...): SATIN_REJECT_SENSELESS. */
void satin_admission_note_bad(satin_admission *self, const char *what, int node);

/* The counter name of `reason` ("not_greeted", ...), and its count. */
const char *satin_admission_reason_name(satin_reject_reason reason);
uint64_t satin_admission_count(const satin_admission *self, satin_reject_reason reason);
/* Messages malformed, forged or senseless, which no healthy grid sends
 * (bad shape, stamp or encoding, a sender or key that is not the node's, a
 * foreign acknowledgement, senseless): STATUS bad_peer_messages, worth an
 * alert. */
uint64_t satin_admission_bad(const satin_admission *self);
/* Messages refused for what ordinary restarts and reloads cause (a
 * connection that has not greeted us yet, another topology, an index or a
 * node our membership does not have): STATUS peer_messages_refused. */
uint64_t satin_admission_routine(const satin_admission *self);

#endif
