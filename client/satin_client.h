/*
 * satin_client.h - libsatin: submit jobs to a satind and collect their results.
 *
 * A satin_client is one connection to one daemon (a ZeroMQ DEALER socket
 * speaking SGP/3, proto/PROTOCOL.md).  Typical use:
 *
 *     satin_client_error err;
 *     satin_client *c = satin_client_new(NULL, &err);      // default endpoint
 *     if (!c) { fprintf(stderr, "%s\n", err.text); exit(69); }
 *     const char *params[] = {"n=30", NULL};
 *     uint64_t job;
 *     satin_job_report rep;
 *     if (satin_client_submit(c, "fib", params, 0, &job, &err) == SATIN_CLIENT_OK &&
 *         satin_client_wait(c, job, -1, &rep, NULL, NULL, &err) == SATIN_CLIENT_OK) {
 *         int64_t v;
 *         satin_client_values_i64(&rep.result, "value", &v);
 *         satin_job_report_free(&rep);
 *     }
 *     satin_client_destroy(&c);
 *
 * Every call that talks to the daemon returns a satin_client_rc and, when
 * it is not SATIN_CLIENT_OK, fills the caller's satin_client_error (which
 * may be NULL when the caller does not care).  The daemon's own texts (a
 * rejected record, a failed job) are passed on verbatim.
 *
 * Several jobs may be in flight on one connection: replies are matched by
 * request id, and replies that arrive while the caller waits for something
 * else are kept until asked for.  A satin_client is not thread-safe: use
 * it from one thread at a time (or one client per thread).
 *
 * Lost connections: when the daemon goes away while the client waits
 * (ZeroMQ reports the disconnect), the call returns SATIN_CLIENT_UNREACHABLE
 * ("lost connection to satind") instead of waiting forever; every later
 * call on that client fails the same way.  Make a new client to reconnect,
 * or make the client with several endpoints (satin_client_new_multi) to
 * have its jobs re-submitted to the next one when a node dies.
 *
 * This header and libc's are all a program needs: the types below are
 * libsatin's own, not the codec's, so the wire code can change without
 * breaking programs built against an older copy of it.
 */
#ifndef SATIN_CLIENT_H
#define SATIN_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a call came to.  The numbers are part of the API. */
typedef enum {
    SATIN_CLIENT_OK          = 0,
    SATIN_CLIENT_REJECTED    = 1, /* the daemon answered ERROR: proto_code + its text */
    SATIN_CLIENT_JOB_FAILED  = 2, /* the job ran and failed (RESULT status 1), or was cancelled */
    SATIN_CLIENT_UNREACHABLE = 3, /* no daemon there, it did not answer, or the connection was lost */
    SATIN_CLIENT_TIMEOUT     = 4, /* the caller's timeout expired; the job keeps running */
    SATIN_CLIENT_PROTOCOL    = 5, /* the daemon sent something SGP/3 does not allow */
    SATIN_CLIENT_INVALID     = 6, /* the caller's arguments are bad; nothing was sent */
} satin_client_rc;

/* The SGP/3 protocol version this library speaks (proto/PROTOCOL.md). */
#define SATIN_CLIENT_PROTOCOL_VERSION 3

/* The SGP/3 error codes (proto/PROTOCOL.md, ERROR), as
 * satin_client_error.proto_code carries them.  The numbers are the wire's. */
typedef enum {
    SATIN_CLIENT_E_BAD_MESSAGE         = 1,
    SATIN_CLIENT_E_UNKNOWN_KIND        = 2,
    SATIN_CLIENT_E_BAD_PARAMS          = 3,
    SATIN_CLIENT_E_TOO_LARGE           = 4,
    SATIN_CLIENT_E_UNKNOWN_JOB         = 5,
    SATIN_CLIENT_E_SHUTTING_DOWN       = 6,
    SATIN_CLIENT_E_LIMIT_REACHED       = 7,
    SATIN_CLIENT_E_UNSUPPORTED_VERSION = 8,
    SATIN_CLIENT_E_FORBIDDEN           = 9,  /* the connection's key may not make requests */
} satin_client_proto_code;

/* Why a call failed.  code is the satin_client_rc the call returned;
 * proto_code is the SGP/3 error code (satin_client_proto_code) for REJECTED
 * and PROTOCOL, 0 otherwise; text is a one-line explanation without a trailing
 * newline (for REJECTED and JOB_FAILED exactly the daemon's text, cut only
 * if longer than the buffer). */
typedef struct satin_client_error {
    int code;
    int proto_code;
    char text[512];
} satin_client_error;

/* One named value of a result, of statistics or of a daemon's status. */
typedef enum {
    SATIN_CLIENT_I64 = 1,
    SATIN_CLIENT_F64 = 2,
    SATIN_CLIENT_STR = 3,
} satin_client_value_type;

typedef struct satin_client_value {
    char *name;                    /* 1..63 bytes of UTF-8 */
    satin_client_value_type type;
    int64_t i64;                   /* SATIN_CLIENT_I64 */
    double f64;                    /* SATIN_CLIENT_F64 */
    char *str;                     /* SATIN_CLIENT_STR (NULL otherwise) */
} satin_client_value;

/* The values in the daemon's order; names are unique.  Free with
 * satin_client_values_free(). */
typedef struct satin_client_values {
    size_t n;
    satin_client_value *items;
} satin_client_values;

/* The value called `name`, or NULL. */
const satin_client_value *satin_client_values_find(const satin_client_values *l,
                                                   const char *name);
/* 0 when `name` is there with that type (and *out set), -1 otherwise. */
int satin_client_values_i64(const satin_client_values *l, const char *name, int64_t *out);
int satin_client_values_f64(const satin_client_values *l, const char *name, double *out);
/* The text of `name`, or NULL when it is missing or not text. */
const char *satin_client_values_str(const satin_client_values *l, const char *name);
/* Frees what the list holds and empties it; safe on an emptied list. */
void satin_client_values_free(satin_client_values *l);

/* The outcome of a finished job (a RESULT message). */
typedef struct satin_job_report {
    uint64_t job_id;
    char kind[64];          /* the kind as the daemon names it */
    int ok;                 /* 1: status ok; 0: the job failed */
    char *error;            /* the daemon's error text, verbatim; "" when ok
                               (NULL only in a report a call left empty) */
    satin_client_values result; /* the kind's result, in the daemon's order; empty on error */
    satin_client_values stats;  /* statistics of the run (wall_s, jobs_run, ...) */
    /* The bytes the kind returned beside its result (an image, a matrix:
     * what `satin-submit --output FILE` writes), and their type as the kind
     * names it ("image/x-portable-pixmap").  A job has data exactly when
     * data_type is not "": data is then its data_len bytes (data_len may be
     * 0); without data, data is NULL and data_len 0.  data_type is NULL
     * only in a report a call left empty. */
    char *data_type;
    unsigned char *data;
    size_t data_len;
} satin_job_report;

/* A job kind the daemon runs, with its parameters (LIST_KINDS). */
typedef struct satin_client_kind_param {
    char *name;
    int required;           /* 1: a record must give it */
    int has_default;        /* 1: def is the value used when a record leaves it out */
    char *def;              /* "" when has_default is 0 */
    char *help;             /* one line */
} satin_client_kind_param;

typedef struct satin_client_kind {
    char *name;
    char *summary;          /* one line */
    size_t nparams;
    satin_client_kind_param *params;
    char *module;           /* the module that brings the kind (its SATIN_MODULE name) */
    char *module_version;   /* that module's version ("" when it gives none) */
} satin_client_kind;

/* The kinds in the daemon's order.  Free with satin_client_kinds_free(). */
typedef struct satin_client_kinds {
    size_t n;
    satin_client_kind *items;
} satin_client_kinds;

/* Frees what the list holds and empties it; safe on an emptied list. */
void satin_client_kinds_free(satin_client_kinds *kinds);

/* Called for each PROGRESS message while satin_client_wait() waits.
 * elapsed_ms counts from the job's acceptance; jobs_run is the number of
 * invocations of the job's tree completed so far. */
typedef void satin_progress_fn(uint64_t job_id, uint64_t elapsed_ms, uint64_t jobs_run,
                               void *arg);

/* satin_client_submit() flags. */
#define SATIN_CLIENT_PROGRESS 0x1u  /* ask the daemon for PROGRESS messages */
#define SATIN_CLIENT_PROFILE  0x2u  /* ask for the job's profile: profile.* items in its
                                     * statistics (PROTOCOL.md 14.12; satin-submit --profile) */

/* How long satin_client_new() waits for the connection, and the default
 * reply timeout of short requests (SUBMIT's ACCEPTED, CANCEL, STATUS,
 * LIST_KINDS).  A daemon answers those at once; one that does not within
 * this time counts as unreachable. */
#define SATIN_CLIENT_DEFAULT_TIMEOUT_MS 5000

typedef struct satin_client satin_client;

/* How long the constructors below wait for a connection (each endpoint of
 * a failover client, and each later endpoint it moves to), for clients
 * made after the call; ms <= 0 restores SATIN_CLIENT_DEFAULT_TIMEOUT_MS.
 * Process-wide (satin-submit's --timeout bounds its connect wait with it). */
void satin_client_set_connect_timeout(int ms);

/* Connects to the daemon at `endpoint` ("ipc:///path", "/path" or
 * "tcp://host:port"; NULL or "" for the default endpoint, satin-submit's:
 * $SATIN_SOCKET, else $XDG_RUNTIME_DIR/satin/satind.sock, else
 * /run/satin/satind.sock for root or /tmp/satin-UID/satind.sock) and waits until the connection is established.
 * Returns the client, or NULL with err filled: SATIN_CLIENT_INVALID for a
 * malformed endpoint, SATIN_CLIENT_UNREACHABLE when no daemon answers
 * there (for ipc: the socket file is missing, or nobody listens on it). */
satin_client *satin_client_new(const char *endpoint, satin_client_error *err);

/* The same for a tcp:// endpoint of a grid under `security: curve`:
 * `key_file` is this client's key pair (what `satin-keygen NAME` writes as
 * NAME.key, mode 0600; its public key must be in the topology's clients:),
 * `server_key` the daemon node's public key, as 40 Z85 characters or the
 * NAME.pub file satin-keygen wrote.  A daemon that refuses the
 * key gives SATIN_CLIENT_UNREACHABLE with a message that says so. */
satin_client *satin_client_new_curve(const char *endpoint, const char *key_file,
                                     const char *server_key, satin_client_error *err);

/* A client with an ordered list of endpoints (NULL-terminated; "" stands
 * for the default endpoint, and an endpoint given twice counts once) that
 * moves its jobs on when a node dies.  It connects to the first endpoint
 * that answers; NULL with SATIN_CLIENT_INVALID for a malformed endpoint or
 * an empty list, SATIN_CLIENT_UNREACHABLE ("every endpoint failed: ...",
 * one reason per endpoint) when none does.  Plain endpoints only (ipc, or
 * tcp to a grid under `security: none`); satin_client_new_multi_curve()
 * below for CURVE.
 *
 * The guarantee.  A job submitted through it is sent to the node in use;
 * when that node dies before its RESULT arrives, the same job record
 * (kind and parameters) is submitted again to the next endpoint of the
 * list that answers, and so on down the list.  A node counts as dead when:
 *   - its connection closes (the process died or was killed: noticed at
 *     once through the socket monitor);
 *   - it stops answering ZeroMQ heartbeats (a ping every 1 s; a frozen
 *     process or a vanished host is dropped within about 4 s);
 *   - it sends nothing for 10 s while a job runs (satind sends PROGRESS
 *     about once a second, which this client always asks for);
 *   - it does not accept a submission within the request timeout
 *     (satin_client_set_request_timeout, default 5 s);
 *   - it is shutting down (it refuses the job, or ends it "cancelled:
 *     satind is shutting down").
 * What that means:
 *   - the job starts again from scratch on the next node: nothing of the
 *     first run is kept, and its statistics are lost (the report's are the
 *     last run's alone);
 *   - a node that was slow rather than dead may still finish its copy: the
 *     job then ran twice (harmless, as a job is a pure function of its
 *     argument bytes), but the caller never sees that copy;
 *   - exactly one result: satin_client_wait() returns one report per job,
 *     from the run that finished on the node in use.  The connection to a
 *     node given up is closed before its jobs move, so a late RESULT from it
 *     cannot arrive; on the new connection each job has a new request id and
 *     only the current one is matched;
 *   - each endpoint is tried once, in order; a failure is final only when
 *     every endpoint has failed (SATIN_CLIENT_UNREACHABLE, "every endpoint
 *     failed: ..." with each one's reason);
 *   - death is noticed while the client is inside a call (submit, wait,
 *     status, list kinds); jobs move then, all of them at once;
 *   - a failed job (RESULT status error, other than a shutdown) is a
 *     result, not a death: it is not re-run.
 *
 * Job ids.  A job that moves gets a new id on every node, so such a client
 * numbers its jobs itself (1, 2, 3, ... in submission order): the id from
 * satin_client_submit() is the client's, and satin_client_wait(),
 * satin_client_cancel(), progress callbacks and the report's job_id use it.
 * It waits for and cancels only jobs it submitted (REJECTED with proto_code
 * 5 for any other id, and for its own once their report was returned).
 * satin_client_endpoint() names the node in use. */
satin_client *satin_client_new_multi(const char *const *endpoints, satin_client_error *err);

/* The same under `security: curve`: server_keys[i] is the public key (40
 * Z85 characters or a .pub file) of the node at endpoints[i], a tcp://
 * endpoint; "" or NULL for an endpoint without CURVE (ipc).  key_file is
 * this client's key pair, as for satin_client_new_curve(). */
satin_client *satin_client_new_multi_curve(const char *const *endpoints,
                                           const char *const *server_keys,
                                           const char *key_file, satin_client_error *err);

/* What a failover client tells when it re-submits a job. */
typedef struct satin_client_failover {
    uint64_t job_id;        /* the client's id for the job */
    uint64_t node_job_id;   /* its id on the node left behind; 0 if that node never
                               accepted it */
    const char *from;       /* the endpoint left behind */
    const char *cause;      /* why: "connection lost", "no reply for 10 s", "no answer
                               in time", "shutting down" */
    const char *to;         /* the endpoint the job is submitted to now */
} satin_client_failover;

typedef void satin_failover_fn(const satin_client_failover *event, void *arg);

/* Calls fn(event, arg) each time a job is re-submitted, before it is sent
 * (fn NULL: no calls).  fn runs inside a call on the client and must not
 * call the client itself.  No effect on a single-endpoint client. */
void satin_client_set_failover_fn(satin_client *self, satin_failover_fn *fn, void *arg);

/* Closes the connection and frees the client; sets *self to NULL.  Jobs
 * submitted through it keep running on the daemon.  NULL is a no-op. */
void satin_client_destroy(satin_client **self);

/* The normalised endpoint this client is connected to ("ipc:///..."); for
 * a failover client the node in use (the last one tried once every
 * endpoint has failed). */
const char *satin_client_endpoint(const satin_client *self);

/* The id the node in use knows job `job_id` by (what --wait or --cancel on
 * that node's endpoint takes): job_id itself for a plain client; for a
 * failover client its current node's id, 0 when no node has accepted it
 * (yet) or the job is not this client's. */
uint64_t satin_client_node_job_id(satin_client *self, uint64_t job_id);

/* Sets the reply timeout of short requests (see above); ms <= 0 restores
 * the default. */
void satin_client_set_request_timeout(satin_client *self, int ms);

/* Submits one job record: `kind` with `params`, a NULL-terminated list of
 * "key=value" strings (NULL: none).  The syntax and the protocol limits
 * (key 1..63 bytes, no repeated key, at most 64 parameters, UTF-8) are
 * checked before anything is sent (SATIN_CLIENT_INVALID); the kind's own
 * checks happen in the daemon (SATIN_CLIENT_REJECTED with proto_code 2
 * unknown kind, 3 bad parameters, 4 too large, 6 shutting down, 7 limit
 * reached).  On success *job_id is the daemon's job id.  flags:
 * SATIN_CLIENT_PROGRESS to receive progress in satin_client_wait(). */
int satin_client_submit(satin_client *self, const char *kind, const char *const *params,
                        unsigned flags, uint64_t *job_id, satin_client_error *err);

/* satin_client_submit with a name for the job (NULL or "": none): 0..63
 * bytes of UTF-8 without control characters (SATIN_CLIENT_INVALID
 * otherwise), shown wherever the job is (satin_client_list's `name`, the
 * report's stats `job_name`, the accounting record).  Names need not be
 * unique.  A failover client submits the name again with the job. */
int satin_client_submit_named(satin_client *self, const char *kind, const char *const *params,
                              unsigned flags, const char *name, uint64_t *job_id,
                              satin_client_error *err);

/* Waits for job `job_id` to finish and fills *report (free it with
 * satin_job_report_free()).  A job submitted through this client is waited
 * for on its own conversation; any other job is attached to with a WAIT
 * request (from another connection, or after a restart of the caller).
 * timeout_ms < 0 waits as long as it takes; on SATIN_CLIENT_TIMEOUT the job
 * keeps running and the call may be repeated.  progress (may be NULL) is
 * called with arg for each PROGRESS message; for jobs submitted here it
 * needs SATIN_CLIENT_PROGRESS at submit time.  Returns SATIN_CLIENT_OK, or
 * SATIN_CLIENT_JOB_FAILED with the report filled all the same (ok = 0,
 * error = the daemon's text, also copied to err), REJECTED (proto_code 5:
 * the daemon does not know the job), TIMEOUT, UNREACHABLE, PROTOCOL.  On
 * any other result than OK and JOB_FAILED the report is left empty. */
int satin_client_wait(satin_client *self, uint64_t job_id, int timeout_ms,
                      satin_job_report *report, satin_progress_fn *progress, void *arg,
                      satin_client_error *err);

/* Asks the daemon to cancel job `job_id`.  SATIN_CLIENT_OK when the daemon
 * knew the job (a finished job is not changed; waiters of a running one get
 * a failed report with error "cancelled"), SATIN_CLIENT_REJECTED with
 * proto_code 5 when it does not. */
int satin_client_cancel(satin_client *self, uint64_t job_id, satin_client_error *err);

/* What a cancel found (satin_client_cancel_job). */
enum {
    SATIN_CLIENT_CANCEL_STOPPING = 0,    /* the job was running: it is being stopped */
    SATIN_CLIENT_CANCEL_NOT_STARTED = 1, /* it waited for a slot: it ended without running */
    SATIN_CLIENT_CANCEL_FINISHED = 2,    /* it had finished: its result stays as it was */
};

/* satin_client_cancel, and on SATIN_CLIENT_OK *state (may be NULL) says
 * what the daemon found: SATIN_CLIENT_CANCEL_*. */
int satin_client_cancel_job(satin_client *self, uint64_t job_id, int *state,
                            satin_client_error *err);

/* The daemon's jobs (LIST): unfinished ones in the order they came, then
 * with `all` the finished ones it still keeps.  Each job's values: job,
 * name ("" for none), kind, owner, node, state (pending, running, ok,
 * error, cancelled), params ("k=v ...", with %, spaces and control
 * characters of a value as %XX: PROTOCOL.md 6.14),
 * age_s, run_s, invocations, and error when it failed.  *jobs is an array of
 * *njobs, freed with satin_client_jobs_free(). */
int satin_client_list(satin_client *self, int all, satin_client_values **jobs, size_t *njobs,
                      satin_client_error *err);
void satin_client_jobs_free(satin_client_values *jobs, size_t njobs);

/* satin_client_list for the whole grid: the daemon's jobs, then those of
 * every other live node of its grid in topology order, each with its
 * `node`, as each node shows them to this client (another's parameters
 * left out; the daemon waits about a second at most for the others).  A
 * node that did not answer is one entry with only `node` and `unanswered`
 * (1).  A daemon without a topology lists its own. */
int satin_client_list_grid(satin_client *self, int all, satin_client_values **jobs,
                           size_t *njobs, satin_client_error *err);

/* The daemon's state and counters.  *out is overwritten (not freed first);
 * free it with satin_client_values_free().  Left empty on failure. */
int satin_client_status(satin_client *self, satin_client_values *out, satin_client_error *err);

/* The whole grid as the daemon sees it (GRID_STATUS): one list of values
 * per node of its topology, in file order (a daemon without a topology is
 * a grid of one, named after its host): node, cluster, index, asked (1 for the daemon asked),
 * state (alive, suspected, dead, leaving or left, as the daemon sees that
 * node), answered (1 when the node's own figures came), silent_s (since
 * the daemon last heard it; absent for the daemon itself and for a node
 * never heard), dead_s (since the daemon took it for dead; only then),
 * and when answered: pid, workers, workers_busy, jobs_running,
 * jobs_pending, queue_length, records_held, steal_attempts,
 * steal_successes, steal_failures, wan_msgs, wan_bytes, uptime_s.  The
 * daemon waits about a second at most for the other nodes.  *nodes is an
 * array of *nnodes, freed with satin_client_jobs_free(). */
int satin_client_grid_status(satin_client *self, satin_client_values **nodes, size_t *nnodes,
                             satin_client_error *err);

/* The kinds the daemon runs, with their parameters and defaults.  *kinds is
 * overwritten (not freed first); free it with satin_client_kinds_free().
 * Left empty on failure. */
int satin_client_list_kinds(satin_client *self, satin_client_kinds *kinds,
                            satin_client_error *err);

/* Frees what a report holds and empties it; safe on an emptied report. */
void satin_job_report_free(satin_job_report *report);

/* A short name for a satin_client_rc: "ok", "rejected", ... */
const char *satin_client_rc_name(int rc);

#ifdef __cplusplus
}
#endif
#endif
