/*
 * satin_proto.h - the wire codec shared by satind, libsatin and the tools.
 *
 * A message is two byte frames: a fixed 16-byte header frame and a body
 * frame whose layout depends on the type (proto/PROTOCOL.md is the spec).
 * This module turns a satin_msg into those two frames and back.  It knows
 * nothing about ZeroMQ or the daemon: it includes only libc and proto/.
 *
 * Decoding never trusts the input: every length and count is checked
 * against the bytes that are really there before anything is read or
 * allocated, and a rejected message comes back as NULL plus a protocol
 * error code and a short text that a daemon can send back in an ERROR.
 *
 * Two families of messages share the framing: client <-> daemon (types
 * 1..16) and daemon <-> daemon, the "peer" messages (types 32..44, in the
 * range 32..63 reserved for them).
 *
 * Memory exhaustion aborts the process, as in satin_kv.
 */
#ifndef SATIN_PROTO_H
#define SATIN_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "satin_kv.h"
#include "satin_steal_flags.h"

#define SATIN_PROTO_MAGIC        0x5354u  /* "ST" */
#define SATIN_PROTO_VERSION      3

/* ORPHAN status: the result follows; the sender is still running the
 * record (its result follows in another ORPHAN); or the sender stopped it
 * without a result (none will follow). */
#define SATIN_ORPHAN_RESULT  0
#define SATIN_ORPHAN_RUNNING 1
#define SATIN_ORPHAN_GONE    2
#define SATIN_PROTO_HEADER_SIZE  16

/* Limits (PROTOCOL.md, "Limits").  Encoders refuse to produce, and decoders
 * reject, anything beyond them. */
#define SATIN_PROTO_NAME_MAX         63        /* kv names, param keys, kind names, job names */
#define SATIN_PROTO_STR_MAX          65535     /* any str: u16 length */
#define SATIN_PROTO_MAX_PARAMS       64        /* SUBMIT parameters */
#define SATIN_PROTO_MAX_KV           1024      /* items of one kvlist */
#define SATIN_PROTO_MAX_KINDS        256       /* kinds in one KINDS reply */
#define SATIN_PROTO_MAX_LISTED       16384     /* jobs in one JOBS reply */
#define SATIN_PROTO_MAX_GRID_NODES   65535     /* nodes in one GRID reply (a u16 count) */
#define SATIN_PROTO_MAX_KIND_PARAMS  64        /* parameters of one kind */
#define SATIN_PROTO_DEFAULT_MAX_SIZE (1u << 20) /* header + body, when max_size is 0 */
/* Peer limits (PROTOCOL.md, "Peer messages"). */
#define SATIN_PROTO_MAX_NODES        65536     /* node indexes are 0..65535 */
#define SATIN_PROTO_DIGEST_SIZE      32        /* HELLO membership digest (SHA-256) */
#define SATIN_PROTO_MAX_JOBS         1024      /* STEAL max_jobs, STEAL_REPLY njobs */
#define SATIN_PROTO_MAX_RECORD_IDS   1024      /* JOB_CANCEL record ids */
#define SATIN_PROTO_MAX_VALUES       16        /* VALUES: values of one job */
#define SATIN_PROTO_VALUE_NAME_MAX   31        /* VALUES: a value's name */
#define SATIN_PROTO_MAX_VALUE_ELEMS  4096      /* VALUES: elements of one set */

/* Message types (header byte 3).  32..63 are reserved for daemon-to-daemon
 * (peer) messages; 32..44 are defined, the rest of the range is rejected
 * as unknown like any other unassigned value. */
typedef enum {
    SATIN_MSG_SUBMIT       = 1,   /* c->d */
    SATIN_MSG_ACCEPTED     = 2,   /* d->c */
    SATIN_MSG_PROGRESS     = 3,   /* d->c */
    SATIN_MSG_RESULT       = 4,   /* d->c */
    SATIN_MSG_ERROR        = 5,   /* d->c */
    SATIN_MSG_WAIT         = 6,   /* c->d */
    SATIN_MSG_CANCEL       = 7,   /* c->d */
    SATIN_MSG_OK           = 8,   /* d->c */
    SATIN_MSG_STATUS       = 9,   /* c->d */
    SATIN_MSG_STATUS_REPLY = 10,  /* d->c */
    SATIN_MSG_LIST_KINDS   = 11,  /* c->d */
    SATIN_MSG_KINDS        = 12,  /* d->c */
    SATIN_MSG_LIST         = 13,  /* c->d: the jobs of the daemon */
    SATIN_MSG_JOBS         = 14,  /* d->c: LIST's reply */
    SATIN_MSG_GRID_STATUS  = 15,  /* c->d: every node of the grid, as the daemon sees it */
    SATIN_MSG_GRID         = 16,  /* d->c: GRID_STATUS's reply, one kvlist per node */
    SATIN_MSG_PEER_FIRST   = 32,  /* reserved range for peer messages */
    SATIN_MSG_HELLO        = 32,  /* d->d: first message of a connection */
    SATIN_MSG_STEAL        = 33,  /* d->d: thief (or forwarder) -> victim */
    SATIN_MSG_STEAL_REPLY  = 34,  /* d->d: victim -> thief */
    SATIN_MSG_PUSH         = 35,  /* d->d: one job record, unasked (RP) */
    SATIN_MSG_PUSH_ACK     = 36,  /* d->d: receiver of a PUSH -> its sender */
    SATIN_MSG_JOB_RESULT   = 37,  /* d->d: runner of a stolen/pushed record -> owner */
    SATIN_MSG_LOAD         = 38,  /* d->d: node -> cluster coordinator (CLS) */
    SATIN_MSG_STEAL_CANCEL = 39,  /* d->d: thief withdraws a STEAL (CHS); "CANCEL" of peers */
    SATIN_MSG_JOB_CANCEL   = 40,  /* d->d: owner -> runners of its stolen records */
    SATIN_MSG_STATS_REQUEST = 41, /* d->d: start/end of a job's statistics */
    SATIN_MSG_STATS_REPLY  = 42,  /* d->d: a node's counters for that job */
    SATIN_MSG_HEARTBEAT    = 43,  /* d->d: "still here", on a link that was quiet */
    SATIN_MSG_ORPHAN       = 44,  /* d->d: a result whose owner died, for whoever runs it again */
    SATIN_MSG_JOBS_REQUEST = 45,  /* d->d: the jobs of the node asked, for LIST's GRID flag */
    SATIN_MSG_JOBS_REPLY   = 46,  /* d->d: its jobs, as it would answer the asker's LIST */
    SATIN_MSG_VALUES       = 47,  /* d->d: a job's grid-wide values that grew */
    SATIN_MSG_PEER_LAST    = 63,
} satin_msg_type;

/* JOBS_REQUEST: the client whose LIST the asking node serves (PROTOCOL.md 6.17). */
enum { SATIN_ASKER_ANONYMOUS = 0, SATIN_ASKER_UID = 1, SATIN_ASKER_KEY = 2 };
#define SATIN_PROTO_KEY_LEN 40   /* a CURVE public key in Z85 */

/* Error codes: carried by ERROR messages, and reported by the decoder. */
typedef enum {
    SATIN_PROTO_OK                  = 0,  /* not an error; never sent */
    SATIN_PROTO_BAD_MESSAGE         = 1,
    SATIN_PROTO_UNKNOWN_KIND        = 2,
    SATIN_PROTO_BAD_PARAMS          = 3,
    SATIN_PROTO_TOO_LARGE           = 4,
    SATIN_PROTO_UNKNOWN_JOB         = 5,
    SATIN_PROTO_SHUTTING_DOWN       = 6,
    SATIN_PROTO_LIMIT_REACHED       = 7,
    SATIN_PROTO_UNSUPPORTED_VERSION = 8,
    SATIN_PROTO_FORBIDDEN           = 9,  /* the connection's key may not make requests */
} satin_proto_code;

/* SUBMIT and WAIT flags. */
#define SATIN_FLAG_PROGRESS 0x1u
/* SUBMIT only: record the job's profile (PROTOCOL.md 6.1; proto/satin_profile.h). */
#define SATIN_FLAG_PROFILE  0x2u
/* STEAL / STEAL_REPLY flags: SATIN_STEAL_* of satin_steal_flags.h. */
/* HEARTBEAT flags. */
/* HELLO flags. */
#define SATIN_HELLO_ASK 0x1           /* the sender drops what the receiver sends it on a
                                       * connection that has not greeted it: greet it */
#define SATIN_HEARTBEAT_LEAVING 0x1   /* the sender is stopping: ask it for no more work */
#define SATIN_HEARTBEAT_GREETING 0x2  /* the sender has not heard the receiver yet: answer */
#define SATIN_HEARTBEAT_LEFT 0x4      /* the sender has stopped (after LEAVING): it holds no
                                         record, answers nothing more, and is not to be
                                         waited for */

/* STATS_REQUEST / STATS_REPLY phase.  NODE: not a job's but the node's
 * status, for a GRID_STATUS; the job id is then the requester's query. */
#define SATIN_STATS_PHASE_START 0
#define SATIN_STATS_PHASE_END   1
#define SATIN_STATS_PHASE_NODE  2
/* Or'ed into phase START or END: record this job's profile (START), send
 * it (END).  Not with NODE. */
#define SATIN_STATS_PROFILE     4
/* 0, 1, 2, 4 or 5. */
static inline int satin_stats_phase_valid(unsigned phase)
{
    return phase == SATIN_STATS_PHASE_NODE || (phase & ~(unsigned)SATIN_STATS_PROFILE) <= SATIN_STATS_PHASE_END;
}
/* LIST flags. */
#define SATIN_LIST_ALL 0x1u   /* finished jobs still kept too */
#define SATIN_LIST_GRID 0x2u  /* every live node's jobs, not only the daemon's */
/* RESULT and JOB_RESULT status. */
#define SATIN_STATUS_OK     0
#define SATIN_STATUS_ERROR  1
/* JOB_RESULT only: the holder is leaving and gives the record back, not run;
 * its owner runs it again (PROTOCOL.md 14.19). */
#define SATIN_STATUS_RETURNED 2
/* OK's status: what the CANCEL it acknowledges found. */
#define SATIN_CANCEL_STOPPING    0   /* the job was running: it is being stopped */
#define SATIN_CANCEL_NOT_STARTED 1   /* it was waiting for a slot: it ended without running */
#define SATIN_CANCEL_FINISHED    2   /* it had finished: its result stays as it was */
/* KINDS parameter flags. */
#define SATIN_KIND_PARAM_REQUIRED    0x1u
#define SATIN_KIND_PARAM_HAS_DEFAULT 0x2u

/* Why a message was rejected.  When the header frame could be read (16
 * bytes, right magic) have_header is 1 and type/sender/request_id hold its
 * fields, so that a daemon can answer with an ERROR carrying the same
 * request id even when the body or the version is bad. */
typedef struct satin_proto_error {
    int code;            /* satin_proto_code; 0 when there was no error */
    char text[200];      /* e.g. "truncated SUBMIT: params[2].value needs 300 bytes, 12 left" */
    int have_header;
    int type;
    uint32_t sender;
    uint64_t request_id;
} satin_proto_error;

/* One SUBMIT parameter. */
typedef struct satin_msg_param {
    char *key;
    char *value;
} satin_msg_param;

/* One parameter of a kind, as KINDS describes it. */
typedef struct satin_msg_kind_param {
    char *name;
    char *def;           /* "" when flags lacks SATIN_KIND_PARAM_HAS_DEFAULT */
    unsigned flags;      /* SATIN_KIND_PARAM_*; other bits kept as received */
    char *help;
} satin_msg_kind_param;

/* One module a node loaded, as its HELLO describes it: what the peers
 * compare to give its tasks' records only to nodes with the same build. */
#define SATIN_PROTO_MAX_MODULES      64        /* modules in one HELLO */
#define SATIN_PROTO_MAX_MODULE_TASKS 1024      /* tasks of all modules in one HELLO */
typedef struct satin_msg_module {
    char *name;                                /* 1..63 bytes */
    char *version;                             /* 0..63 bytes */
    unsigned char digest[SATIN_PROTO_DIGEST_SIZE]; /* SHA-256 of its file */
    size_t ntasks;
    char **tasks;                              /* its tasks' names, 1..63 bytes each */
} satin_msg_module;

/* One kind, as KINDS describes it. */
typedef struct satin_msg_kind {
    char *name;
    char *summary;
    char *module;          /* the module that brings it (SATIN_MODULE), 1..63 bytes */
    char *module_version;  /* that module's version, 0..63 bytes */
    size_t nparams;
    satin_msg_kind_param *params;
} satin_msg_kind;

/* One job record (JOBREC) of a STEAL_REPLY or PUSH. */
typedef struct satin_msg_jobrec {
    uint32_t owner;          /* node index that spawned it; gets the JOB_RESULT */
    uint64_t record_id;      /* the owner's handle, opaque to everybody else */
    uint64_t job_id;         /* the owner's job (the client's SUBMIT) */
    uint64_t place;          /* its place in its job's spawn tree (satin_digest.h) */
    uint64_t ancestry[2];    /* the records it descends from that crossed nodes (satin_ancestry) */
    uint64_t origin;         /* the submitted job it belongs to: its root's place, the same for
                                every record of that job on every node */
    char *kind;              /* the registered kind, 1..63 bytes */
    uint32_t result_cap;     /* largest result the owner accepts, bytes */
    unsigned char *arg;      /* argument bytes; never NULL once set or decoded */
    size_t arg_len;
    uint8_t arg_borrowed;    /* 1: arg is not the message's (satin_msg_add_jobrec_ref, or
                                decoded by satin_msg_decode_borrowed) */
} satin_msg_jobrec;

/* One value of a VALUES message: its state as the sender holds it. */
typedef struct satin_msg_value {
    char *name;              /* 1..31 bytes */
    uint8_t op;              /* SATIN_VALUE_* */
    uint8_t set;             /* MIN MAX: 1 once it holds a value (0: nothing joined yet) */
    int64_t scalar;          /* MIN MAX: the value; OR: the bits */
    uint32_t nelems;         /* UNION: its elements, sorted and distinct (the receiver checks) */
    uint64_t *elems;
} satin_msg_value;
enum { SATIN_VALUE_MIN = 1, SATIN_VALUE_MAX = 2, SATIN_VALUE_OR = 3, SATIN_VALUE_UNION = 4 };

/* A decoded (or to-be-encoded) message.  Only the fields of its type are on
 * the wire; the others stay zero.  Strings are owned by the message; a
 * decoded message never has NULL strings where its type carries one
 * (missing text is ""), and the encoder treats NULL as "". */
typedef struct satin_msg {
    /* header */
    int type;               /* satin_msg_type */
    int version;            /* satin_msg_new sets SATIN_PROTO_VERSION; encoded as is */
    uint32_t sender;        /* node id of the sender; 0 for clients; for peer
                               messages its topology index, 0..65535 */
    uint64_t request_id;    /* chosen by the requester, echoed in replies */

    /* body fields, by the types that carry them */
    uint64_t job_id;        /* ACCEPTED PROGRESS RESULT ERROR WAIT CANCEL OK
                               STATS_REQUEST STATS_REPLY */
    uint32_t flags;         /* SUBMIT WAIT: SATIN_FLAG_*; LIST: SATIN_LIST_*; GRID_STATUS:
                               reserved (0); STEAL STEAL_REPLY:
                               SATIN_STEAL_*; HELLO: u16, reserved (0);
                               HEARTBEAT: u8, SATIN_HEARTBEAT_* */
    uint8_t status;         /* RESULT JOB_RESULT: SATIN_STATUS_*; ORPHAN: SATIN_ORPHAN_*;
                             * OK: SATIN_CANCEL_* */
    uint16_t code;          /* ERROR: satin_proto_code */
    uint64_t elapsed_ms;    /* PROGRESS */
    uint64_t jobs_run;      /* PROGRESS; ORPHAN: invocations the result stands for */
    char *kind;             /* SUBMIT RESULT ORPHAN */
    char *error;            /* RESULT JOB_RESULT: the error ("" when ok); ERROR: the message */
    size_t nparams;         /* SUBMIT */
    satin_msg_param *params;
    char *job_name;         /* SUBMIT: the job's name, 0..63 bytes ("" or NULL: none) */
    satin_kvlist result;    /* RESULT */
    char *data_type;        /* RESULT: the type of its data bytes (`data`), 0..63 bytes;
                               "" when the job has none */
    satin_kvlist stats;     /* RESULT JOB_RESULT STATS_REPLY (the counters) */
    satin_kvlist info;      /* STATUS_REPLY */
    size_t njobs;           /* JOBS: one kvlist per job; GRID: one per node */
    satin_kvlist *jobs;
    size_t nkinds;          /* KINDS */
    satin_msg_kind *kinds;

    /* peer messages; node indexes are 0..65535 */
    char *grid_name;        /* HELLO: the topology's grid name, 1..63 bytes */
    uint32_t node_count;    /* HELLO: nodes in the topology, 1..65536 */
    char *node_id;          /* HELLO: the sender's node id in its topology, 1..63 bytes */
    unsigned char digest[SATIN_PROTO_DIGEST_SIZE]; /* HELLO: the sender's membership digest */
    size_t nmodules;        /* HELLO: the kind modules the sender loaded */
    satin_msg_module *modules;
    uint32_t thief;         /* STEAL STEAL_CANCEL: the node that wants work */
    uint32_t victim;        /* STEAL_REPLY: the node answering */
    uint32_t owner;         /* JOB_RESULT JOB_CANCEL: the node that owns the records */
    uint16_t max_jobs;      /* STEAL: 1..1024 */
    uint64_t record_id;     /* PUSH_ACK JOB_RESULT: the owner's record id */
    uint64_t steal_id;      /* STEAL_CANCEL: request id of the STEAL withdrawn */
    int64_t load;           /* LOAD: queue length, >= 0 */
    uint8_t phase;          /* STATS_REQUEST STATS_REPLY: SATIN_STATS_PHASE_* */
    size_t njobrecs;        /* STEAL_REPLY: 0..1024; PUSH: exactly 1 */
    satin_msg_jobrec *jobrecs;
    uint64_t place;         /* ORPHAN: the record's place in its job's spawn tree */
    uint64_t arg_digest;    /* ORPHAN: satin_digest of its kind and argument bytes */
    uint64_t origin;        /* ORPHAN: the submitted job the record belongs to (its JOBREC's);
                             * VALUES: the job the values are of */
    size_t nvalues;         /* VALUES: 1..SATIN_PROTO_MAX_VALUES */
    satin_msg_value *values;
    unsigned char *data;    /* JOB_RESULT ORPHAN: the result bytes; RESULT: the job's data
                               (satin_result_data); non-NULL once set */
    size_t data_len;        /*   or decoded, even when data_len is 0 */
    uint8_t data_borrowed;  /* 1: data is not the message's (as arg_borrowed) */
    uint8_t asker_kind;     /* JOBS_REQUEST: who asks, SATIN_ASKER_* */
    uint8_t asker_admin;    /* JOBS_REQUEST: 1 when the asking node takes them for an admin */
    uint32_t asker_uid;     /* JOBS_REQUEST: their uid (SATIN_ASKER_UID) */
    char *asker_key;        /* JOBS_REQUEST: their public key, 40 Z85 characters (SATIN_ASKER_KEY) */
    size_t nrecord_ids;     /* JOB_CANCEL: 0..1024 */
    uint64_t *record_ids;

    /* Memory the message's borrowed bytes live in, released with it
     * (satin_msg_keep); NULL: none. */
    void (*keep_free)(void *keep);
    void *keep;
} satin_msg;

/* Raises the largest node index the codec takes in peer messages to n - 1
 * (never below SATIN_PROTO_MAX_NODES - 1).  For satin-sim only, whose grids
 * may have millions of nodes: satind never calls it, so a real wire keeps
 * PROTOCOL.md's limit.  Not thread-safe: call it before any encoding. */
void satin_proto_allow_nodes(uint32_t n);

/* A new, empty message of `type` (version 1, everything else zero);
 * NULL when type is not a known message type. */
satin_msg *satin_msg_new(int type);
void satin_msg_destroy(satin_msg **self);

/* Setters copy their strings.  NULL is stored as "". */
void satin_msg_set_kind(satin_msg *self, const char *kind);
/* SUBMIT's job name (copied; NULL or "": none). */
void satin_msg_set_job_name(satin_msg *self, const char *name);
/* RESULT error / ERROR message.  Bytes that are not UTF-8 become '?' and
 * text longer than a str can carry is cut at a character boundary, so an
 * error report can always be encoded. */
void satin_msg_set_error(satin_msg *self, const char *text);
void satin_msg_set_errorf(satin_msg *self, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Appends a SUBMIT parameter; -1 when there are already
 * SATIN_PROTO_MAX_PARAMS.  Other limits are checked by the encoder. */
int satin_msg_add_param(satin_msg *self, const char *key, const char *value);
/* The value of SUBMIT parameter `key`, or NULL. */
const char *satin_msg_param_value(const satin_msg *self, const char *key);
/* Appends an empty kvlist to a JOBS (or GRID) message and returns it; NULL
 * beyond SATIN_PROTO_MAX_LISTED (SATIN_PROTO_MAX_GRID_NODES). */
satin_kvlist *satin_msg_add_job(satin_msg *m);

/* Appends a kind to a KINDS message; -1 beyond SATIN_PROTO_MAX_KINDS. */
int satin_msg_add_kind(satin_msg *self, const char *name, const char *summary);
/* The module (name, version; copied, NULL is "") of the kind added last;
 * -1 when there is none. */
int satin_msg_set_kind_module(satin_msg *self, const char *module, const char *version);
/* Appends a parameter to the kind added last; -1 when there is none or it
 * has SATIN_PROTO_MAX_KIND_PARAMS already.  def NULL: no default (the
 * HAS_DEFAULT flag is then cleared, otherwise set). */
int satin_msg_add_kind_param(satin_msg *self, const char *name, const char *def,
                             int required, const char *help);
/* HELLO grid name and sender's node id (copied; NULL is ""). */
void satin_msg_set_grid_name(satin_msg *self, const char *name);
void satin_msg_set_node_id(satin_msg *self, const char *id);
/* Appends a module to a HELLO (copied); -1 beyond SATIN_PROTO_MAX_MODULES. */
int satin_msg_add_module(satin_msg *self, const char *name, const char *version,
                         const unsigned char digest[SATIN_PROTO_DIGEST_SIZE]);
/* Appends a task to the module added last; -1 when there is none or it is full. */
int satin_msg_add_module_task(satin_msg *self, const char *task);
/* Appends a job record (STEAL_REPLY, PUSH), copying kind and the len bytes
 * at arg (arg may be NULL only when len is 0).  -1 when the message already
 * holds SATIN_PROTO_MAX_JOBS records (1 for a PUSH) or arg is NULL with a
 * length.  Other limits are checked by the encoder. */
int satin_msg_add_jobrec(satin_msg *self, uint32_t owner, uint64_t record_id,
                         uint64_t job_id, const char *kind, uint32_t result_cap,
                         const void *arg, size_t len);
/* RESULT's data type (copied; NULL is ""): non-empty whenever the data
 * (satin_msg_set_data) has bytes. */
void satin_msg_set_data_type(satin_msg *self, const char *type);
/* JOB_RESULT, ORPHAN and RESULT data bytes: a copy of len bytes at data (NULL only with len
 * 0), replacing any earlier ones.  -1 for NULL with a length. */
int satin_msg_set_data(satin_msg *self, const void *data, size_t len);
/* The same two without the copy: the message points at the caller's bytes,
 * which must stay as they are until the message is encoded or destroyed
 * (or satin_msg_own_bytes copies them).  A record's argument or result is
 * encoded once, straight from where it lives: one copy of its bytes on the
 * way out instead of two. */
int satin_msg_add_jobrec_ref(satin_msg *self, uint32_t owner, uint64_t record_id,
                             uint64_t job_id, const char *kind, uint32_t result_cap,
                             const void *arg, size_t len);
int satin_msg_set_data_ref(satin_msg *self, const void *data, size_t len);
/* Copies every borrowed argument and result into the message: for one
 * kept beyond the life of what it borrowed from. */
void satin_msg_own_bytes(satin_msg *self);
/* Ties `keep` to the message: keep_free(keep) runs when it is destroyed.
 * What a message decoded with satin_msg_decode_borrowed borrows from: one
 * thing, so -1 (and nothing tied) when the message keeps one already. */
int satin_msg_keep(satin_msg *self, void (*keep_free)(void *keep), void *keep);
/* Appends a value to a VALUES message (name copied; elems copied, nelems
 * of them, for a UNION); NULL beyond SATIN_PROTO_MAX_VALUES. */
satin_msg_value *satin_msg_add_value(satin_msg *self, const char *name, uint8_t op, uint8_t set,
                                     int64_t scalar, const uint64_t *elems, uint32_t nelems);
/* Appends a JOB_CANCEL record id; -1 beyond SATIN_PROTO_MAX_RECORD_IDS. */
int satin_msg_add_record_id(satin_msg *self, uint64_t id);
/* Calls fn on each node index the body of m's type carries (STEAL and
 * STEAL_CANCEL: thief; STEAL_REPLY: victim; JOB_RESULT and JOB_CANCEL:
 * owner; STEAL_REPLY and PUSH: each record's owner), in that order; stops
 * at the first call that returns -1, and returns -1 then, else 0.  What a
 * node that renumbers them (satind's membership changes) needs to know of
 * the codec. */
int satin_msg_each_node(satin_msg *m, int (*fn)(void *ctx, uint32_t *node), void *ctx);

/* Checks every field of `m` against the limits of its type without
 * encoding: 0, or -1 with err (may be NULL) saying which field is wrong. */
int satin_msg_check(const satin_msg *m, satin_proto_error *err);

/* Encodes `m` into a malloc'd header frame (always 16 bytes) and body frame
 * (*body is non-NULL even when *blen is 0).  -1, with both set to NULL, if
 * a field violates a limit (satin_msg_check says which). */
int satin_msg_encode(const satin_msg *m, unsigned char **hdr, size_t *hlen,
                     unsigned char **body, size_t *blen);
/* The sizes of m's two frames (the header's is always 16): 0, or -1 as
 * satin_msg_encode.  Then satin_msg_encode_to writes both, the header and
 * right after it the body, into `out` of hlen + blen bytes that the caller
 * allocated (e.g. in a buffer it shares with ZeroMQ): 0, or -1 when m
 * no longer has those sizes. */
int satin_msg_encoded_size(const satin_msg *m, size_t *hlen, size_t *blen);
int satin_msg_encode_to(const satin_msg *m, unsigned char *out, size_t hlen, size_t blen);

/* Decodes the two frames.  max_size bounds header + body (0: the default,
 * 1 MiB); the daemon passes its maximum record size.  NULL with err (may be
 * NULL) filled when the message is rejected; body may be NULL when blen is
 * 0.  A message accepted here re-encodes to exactly the same bytes.
 *
 * Peer traffic: max_size is the only size the decoder knows.  It bounds the
 * whole message and each JOBREC's result_cap; a STEAL_REPLY carries up to
 * max_jobs records, so the daemon passes (max_jobs x its record limit +
 * overhead) for peer sockets and checks each record against its own record
 * limit itself. */
satin_msg *satin_msg_decode(const void *hdr, size_t hlen, const void *body,
                            size_t blen, size_t max_size, satin_proto_error *err);
/* The same, but job records' arguments and result bytes point into `body`
 * instead of being copied: body must outlive the message (satin_msg_keep
 * can tie it to it).  How satind reads a record of megabytes without
 * copying it before the pool's own copy. */
satin_msg *satin_msg_decode_borrowed(const void *hdr, size_t hlen, const void *body,
                                     size_t blen, size_t max_size, satin_proto_error *err);

/* 1 for the types a client sends to a daemon (SUBMIT, WAIT, CANCEL,
 * STATUS, LIST_KINDS, LIST, GRID_STATUS), 0 otherwise: a daemon answers any other type from a
 * client with ERROR code 1, and never answers an ERROR. */
int satin_msg_is_request(int type);
/* 1 for the peer (daemon-to-daemon) types this release implements (HELLO
 * .. HEARTBEAT), 0 otherwise, including the unassigned rest of 32..63. */
int satin_msg_is_peer(int type);
/* "SUBMIT", "RESULT", ...; "UNKNOWN" for other values. */
const char *satin_msg_type_name(int type);
/* "bad message", "unknown kind", ...; "ok" for 0, "unknown error" otherwise. */
const char *satin_proto_code_name(int code);

#endif
