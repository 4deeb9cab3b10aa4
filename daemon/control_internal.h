/*
 * control_internal.h - what the control thread's files share: its state
 * and the functions one file calls in another.  control.c is the reactor
 * and the daemon's life, control_jobs.c the clients' jobs and requests,
 * control_collect.c the statistics round's sums, control_listen.c the
 * client endpoint (its directory and the open-file limit).
 */
#ifndef SATIN_CONTROL_INTERNAL_H
#define SATIN_CONTROL_INTERNAL_H

#include "control.h"
#include "grid.h"
#include "kinds.h"
#include "log.h"
#include "loop.h"
#include "mailbox.h"
#include "principal.h"
#include "satin_proto.h"
#include "security.h"

#include <stddef.h>
#include <stdint.h>

#define RID_MAX 256
#define PROGRESS_INTERVAL_NS 1000000000LL
/* After the stop timeout, cancelled jobs get this long to unwind. */
#define DRAIN_DEADLINE_NS 5000000000LL
/* How long a finished job waits for the other nodes' counters. */
#define COLLECT_DEADLINE_NS 1000000000LL
/* A peer that left a request unanswered this long is not waited for. */
#define UNRESPONSIVE_NS 1000000000LL
/* How often a stop's deadlines are looked at. */
#define STOP_RECHECK_NS 100000000LL
/* How long a view of the grid (GRID_STATUS) waits for the other nodes. */
#define GRID_QUERY_WAIT_NS 1000000000LL
/* Views of the grid gathered at once, at most. */
#define GRID_QUERIES_MAX 64

typedef struct waiter {
    unsigned char rid[RID_MAX];   /* ZeroMQ routing id of the client connection */
    size_t rid_len;
    uint64_t request_id;
    int progress;
} waiter;

/* A GRID_STATUS waiting for the other nodes' status (control_grid.c). */
typedef struct grid_query {
    uint64_t id;                  /* the query number the peers echo */
    unsigned char rid[RID_MAX];
    size_t rid_len;
    uint64_t request_id;
    int64_t deadline;
} grid_query;

typedef struct jobs_query jobs_query;   /* control_jobs_grid.c */

typedef struct job_entry {
    satin_mailbox_item item;      /* first: the mailbox hands back this pointer */
    satin_control *ctl;
    uint64_t id;
    const satin_kind *kind;
    satin_job *job;               /* NULL once finished */
    int64_t accepted_ns;
    int64_t started_ns;           /* 0 while it waits in the queue (pending) */
    int64_t finished_ns;          /* 0 until it ends */
    int64_t submitted_real_ns, started_real_ns; /* CLOCK_REALTIME, for its accounting record */
    satin_kvlist params;          /* the SUBMIT's key=value pairs, for the same */
    char name[SATIN_PROTO_NAME_MAX + 1]; /* the SUBMIT's job name ("" for none) */
    int pending;                  /* accepted over --max-jobs: waits for a slot */
    uint64_t run_at_start;
    waiter *waiters;
    size_t nwaiters;
    unsigned char owner[RID_MAX]; /* the connection that submitted it */
    size_t owner_len;
    satin_principal submitter;    /* who: only they (or an admin) may wait, cancel, see params */
    satin_msg *result;            /* the RESULT, kept for later WAITs */
    int collecting;               /* done; waiting for the grid's counters */
    int64_t collect_deadline;
    satin_kvlist own_start;       /* this node's counters when the job began */
    int profile;                  /* SUBMIT asked for a profile (control_profile.c) */
    int64_t profile_origin;       /* the job's start, CLOCK_REALTIME ns */
    int64_t profile_wall;         /* its wall time, ns */
    satin_profile own_profile;    /* this node's part, until the round is in */
} job_entry;

/* ZeroMQ sockets whose descriptor's "look again" signal may have been taken
 * by a call of ours (a send, a bind, a batch of reads cut short) while
 * messages wait: the pump asks each of these whether it has input (two
 * system calls a socket).  A socket read until it had nothing is left out
 * until its descriptor rings again: with nothing waiting, new input rings it. */
enum {
    LOOK_CLIENTS = 1u << 0,
    LOOK_PEERS = 1u << 1,
    LOOK_SECURITY = 1u << 2,
    LOOK_MONITOR = 1u << 3,
    LOOK_ALL = LOOK_CLIENTS | LOOK_PEERS | LOOK_SECURITY | LOOK_MONITOR,
};

struct satin_control {
    const satind_options *opt;
    satin_pool *pool;
    const satin_registry *reg;     /* the kinds and tasks of the modules loaded */
    void *zctx, *router;
    satin_mailbox mailbox;
    char ipc_path[512];           /* the socket file we own, "" for tcp */
    job_entry **jobs;             /* running ones, then finished, oldest first */
    size_t njobs, capjobs;
    uint64_t next_id;
    int running_jobs;
    int pending_jobs;             /* accepted, waiting for one of the --max-jobs slots */
    uint64_t finished_jobs, bad_messages, requests;
    int64_t started_ns;
    int stopping;                 /* 1: draining; 2: cancelled after --stop-timeout */
    satin_log_limit bad_limit, key_limit;
    satin_grid *grid;             /* NULL for a daemon without a topology */
    const satin_topology *topo;   /* the one it runs with: satind's main owns the first, the
                                   * grid's roster those SIGHUP brought */
    uint64_t reloads_refused;     /* SIGHUPs whose topology was invalid, or whose membership
                                   * change this node could not take */
    uint64_t membership_changes;  /* SIGHUPs whose membership change was taken */
    satin_security *sec;
    int client_curve;             /* tcp:// client endpoint under CURVE: check keys */
    int client_ipc;               /* ipc:// client endpoint: clients are uids */
    satin_user_names user_names;  /* their names, looked up once */
    int64_t watchdog_ns, next_watchdog;   /* systemd's WatchdogSec (0: none) */
    int64_t next_progress, stop_deadline;
    int64_t next_collect;         /* the earliest deadline of a collection (INT64_MAX: none) */
    grid_query *grid_queries;     /* GRID_STATUS requests being gathered */
    size_t ngrid_queries;
    uint64_t grid_query_seq;
    struct jobs_query **jobs_queries; /* LIST --grid requests being gathered */
    size_t njobs_queries;
    uint64_t jobs_query_seq;
    int drained;                  /* the loop ended with every job done */
    satin_loop loop;
    satin_watch client_w, mail_w, signal_w, security_w, monitor_w, peer_w, hungry_w;
    unsigned look;                /* LOOK_*: ZeroMQ sockets the pump must look at again */
    char status_line[256];        /* last STATUS= sent */
    /* The open-file limit.  ZeroMQ's I/O thread accepts client connections
     * as long as the endpoint is bound, and an accept that fails for want
     * of a descriptor aborts it (ipc) or makes it spin (tcp).  So the
     * control thread watches the router's connections (a socket monitor)
     * and unbinds the endpoint while too many descriptors are in use. */
    void *mon;                    /* PAIR: the client router's monitor events */
    long fd_limit, fd_pause, fd_resume;
    long fd_estimate;             /* descriptors in use: the last count, plus accepts since,
                                   * minus disconnects since (cheap, for floods) */
    enum { CLIENTS_LISTENING, CLIENTS_CLOSING, CLIENTS_PAUSED } listen_state;
    char bound[sizeof ((satind_options *)0)->endpoint]; /* what zmq_bind bound (for zmq_unbind) */
    int64_t paused_until;         /* ns: the earliest time to listen again */
    satin_log_limit fd_log;
    uint64_t client_pauses;
    struct satin_metrics *metrics; /* --metrics, or NULL */
    int64_t next_metrics;          /* when the next periodic publication is due */
    int dashboard_query;           /* a view of the grid for the dashboard is being gathered */
    int dashboard_jobs_query;      /* and the grid's jobs */
};

/* control_jobs.c */
void control_send_to(satin_control *ctl, const unsigned char *rid, size_t rid_len, satin_msg *m);
void control_send_error(satin_control *ctl, const unsigned char *rid, size_t rid_len,
                        uint64_t request_id, uint64_t job_id, int code, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
void control_deliver(satin_control *ctl, job_entry *e);
void control_entry_free(job_entry *e);
void control_finish_entry(satin_control *ctl, job_entry *e);
void control_read_client(satin_control *ctl);
void control_send_progress(satin_control *ctl);
/* Stopping: jobs still waiting for a slot end now, failed with `why`. */
void control_fail_pending(satin_control *ctl, const char *why);
/* This node's id in its topology, else --node's ("" without either). */
const char *control_node_id(const satin_control *ctl);
/* What STATUS answers: this node's figures and, in a grid, its counters. */
void control_status_info(satin_control *ctl, satin_kvlist *out);
/* What LIST answers `who`: one kvlist per job added to r (JOBS), the
 * unfinished ones first, then with `all` the finished ones kept. */
void control_list_jobs(satin_control *ctl, const satin_principal *who, int all, satin_msg *r);

/* control_metrics.c: --metrics.  Publishes the status as Prometheus text
 * (a no-op without --metrics); `now` 0: at once, else when a second passed. */
int control_start_metrics(satin_control *ctl);
void control_publish_metrics(satin_control *ctl, int64_t now);

/* control_dashboard.c: the dashboard's data under /api/ (with --metrics):
 * published with the metrics while someone has asked for it lately; the
 * grid's view (a GRID_STATUS of our own, rid_len 0) when it is in. */
void control_publish_dashboard(satin_control *ctl);
void control_dashboard_grid(satin_control *ctl, const satin_msg *grid);
void control_dashboard_jobs(satin_control *ctl, const satin_msg *jobs);

/* control_collect.c: finished jobs whose grid counters are in (or overdue)
 * are delivered; ctl->next_collect says when the next falls overdue. */
void control_complete_collections(satin_control *ctl);
/* Stopping: every collection ends now with the counters that came. */
void control_flush_collections(satin_control *ctl);

/* control_grid.c: GRID_STATUS.  Peers that ask get this node's figures
 * (control_grid_init, once the grid is made). */
void control_grid_init(satin_control *ctl);
void control_on_grid_status(satin_control *ctl, const unsigned char *rid, size_t rid_len,
                            const satin_msg *m);
/* Answers the views whose nodes have all answered, or whose wait is over
 * (all of them when `stopping`); returns the next deadline (INT64_MAX: none). */
int64_t control_complete_grid_queries(satin_control *ctl, int stopping);

/* control_jobs_grid.c: LIST with the GRID flag, every live node's jobs;
 * peers' JOBS_REQUEST answered (init, once the grid is made); the lists
 * whose nodes have all answered, or whose wait is over (all when
 * `stopping`), answered: returns the next deadline (INT64_MAX: none). */
void control_jobs_grid_init(satin_control *ctl);
void control_list_grid(satin_control *ctl, const satin_principal *who, const unsigned char *rid,
                       size_t rid_len, const satin_msg *m);
int64_t control_complete_jobs_queries(satin_control *ctl, int stopping);
void control_jobs_grid_free(satin_control *ctl);

/* control_profile.c: a job's profile (SUBMIT flag 0x2).  begin when it
 * starts, job_done when it ended (before its job is destroyed), collect
 * when the round is in: `end[node]` the counters each node answered with
 * (NULL without a grid); adds the profile.* items to the result's stats. */
void control_profile_begin(satin_control *ctl, job_entry *e);
void control_profile_job_done(satin_control *ctl, job_entry *e);
void control_profile_collect(satin_control *ctl, job_entry *e, const satin_kvlist *end);

/* control_listen.c */
void control_size_fd_limits(satin_control *ctl, const satin_topology *topo);
/* SIGHUP (control_reload.c): re-reads the topology file and logs how it
 * differs; 0 (membership unchanged), 1 (membership changed and applied) or
 * -1 (invalid, or a change this node cannot take: nothing applied). */
int control_reload_topology(satin_control *ctl);
int control_bind_clients(satin_control *ctl);
int control_watch_clients(satin_control *ctl);
void control_pace_clients(satin_control *ctl, int accept_failed);
void control_on_client_events(satin_control *ctl);

#endif
