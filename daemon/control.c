/* control.c - the control thread: client requests in, results out. */
#include "control.h"
#include "grid.h"
#include "kinds.h"
#include "log.h"
#include "loop.h"
#include "mailbox.h"
#include "satin_endpoint.h"
#include "satin_proto.h"
#include "security.h"
#include "service.h"
#include "zframes.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <zmq.h>

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

typedef struct waiter {
    unsigned char rid[RID_MAX];   /* ZeroMQ routing id of the client connection */
    size_t rid_len;
    uint64_t request_id;
    int progress;
} waiter;

typedef struct job_entry {
    satin_mailbox_item item;      /* first: the mailbox hands back this pointer */
    satin_control *ctl;
    uint64_t id;
    const satin_kind *kind;
    satin_job *job;               /* NULL once finished */
    int64_t accepted_ns;
    uint64_t run_at_start;
    waiter *waiters;
    size_t nwaiters;
    unsigned char owner[RID_MAX]; /* the connection that submitted it */
    size_t owner_len;
    satin_msg *result;            /* the RESULT, kept for later WAITs */
    int collecting;               /* done; waiting for the grid's counters */
    int64_t collect_deadline;
    satin_kvlist own_start;       /* this node's counters when the job began */
} job_entry;

struct satin_control {
    const satind_options *opt;
    satin_pool *pool;
    const satin_kind *const *kinds;
    void *zctx, *router;
    satin_mailbox mailbox;
    char ipc_path[512];           /* the socket file we own, "" for tcp */
    job_entry **jobs;             /* running ones, then finished, oldest first */
    size_t njobs, capjobs;
    uint64_t next_id;
    int running_jobs;
    uint64_t finished_jobs, bad_messages, requests;
    int64_t started_ns;
    int stopping;                 /* 1: draining; 2: cancelled after --stop-timeout */
    satin_log_limit bad_limit, key_limit;
    satin_grid *grid;             /* NULL for a daemon without a topology */
    satin_security *sec;
    int client_curve;             /* tcp:// client endpoint under CURVE: check keys */
    int64_t watchdog_ns, next_watchdog;   /* systemd's WatchdogSec (0: none) */
    int64_t next_progress, stop_deadline;
    int64_t next_collect;         /* the earliest deadline of a collection (INT64_MAX: none) */
    int drained;                  /* the loop ended with every job done */
    satin_loop loop;
    satin_watch client_w, mail_w, signal_w, security_w, monitor_w, peer_w, hungry_w;
    char status_line[256];        /* last STATUS= sent */
    /* The open-file limit.  ZeroMQ's I/O thread accepts client connections
     * as long as the endpoint is bound, and an accept that fails for want
     * of a descriptor aborts it (ipc) or makes it spin (tcp).  So the
     * control thread watches the router's connections (a socket monitor)
     * and unbinds the endpoint while too many descriptors are in use. */
    void *mon;                    /* PAIR: the client router's monitor events */
    long fd_limit, fd_pause, fd_resume;
    enum { CLIENTS_LISTENING, CLIENTS_CLOSING, CLIENTS_PAUSED } listen_state;
    char bound[sizeof ((satind_options *)0)->endpoint]; /* what zmq_bind bound (for zmq_unbind) */
    int64_t paused_until;         /* ns: the earliest time to listen again */
    satin_log_limit fd_log;
    uint64_t client_pauses;
};

/* ---- sending ------------------------------------------------------------ */

static void send_to(satin_control *ctl, const unsigned char *rid, size_t rid_len,
                    satin_msg *m)
{
    unsigned char *hdr = NULL, *body = NULL;
    size_t hlen, blen;
    if (satin_msg_encode(m, &hdr, &hlen, &body, &blen) < 0) {
        satin_proto_error err = {0};
        satin_msg_check(m, &err);
        log_error("cannot encode a %s reply: %s", satin_msg_type_name(m->type), err.text);
        free(hdr);
        free(body);
        return;
    }
    /* ROUTER drops what it cannot route (client gone): never blocks us. */
    if (zmq_send(ctl->router, rid, rid_len, ZMQ_SNDMORE) < 0 ||
        zmq_send(ctl->router, hdr, hlen, ZMQ_SNDMORE) < 0 ||
        zmq_send(ctl->router, body, blen, 0) < 0)
        log_debug("reply %s not sent: %s", satin_msg_type_name(m->type), zmq_strerror(errno));
    free(hdr);
    free(body);
}

static void send_error(satin_control *ctl, const unsigned char *rid, size_t rid_len,
                       uint64_t request_id, uint64_t job_id, int code, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

static void send_error(satin_control *ctl, const unsigned char *rid, size_t rid_len,
                       uint64_t request_id, uint64_t job_id, int code, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    satin_msg *m = satin_msg_new(SATIN_MSG_ERROR);
    m->request_id = request_id;
    m->job_id = job_id;
    m->code = (uint16_t)code;
    satin_msg_set_error(m, text);
    send_to(ctl, rid, rid_len, m);
    satin_msg_destroy(&m);
}

static void send_result(satin_control *ctl, job_entry *e, const waiter *w)
{
    e->result->request_id = w->request_id;
    send_to(ctl, w->rid, w->rid_len, e->result);
}

/* ---- the job table ------------------------------------------------------ */

static job_entry *find_job(satin_control *ctl, uint64_t id)
{
    for (size_t i = 0; i < ctl->njobs; i++)
        if (ctl->jobs[i]->id == id)
            return ctl->jobs[i];
    return NULL;
}

static void add_waiter(job_entry *e, const unsigned char *rid, size_t rid_len,
                       uint64_t request_id, int progress)
{
    waiter *ws = realloc(e->waiters, (e->nwaiters + 1) * sizeof *ws);
    if (!ws)
        abort();
    e->waiters = ws;
    waiter *w = &ws[e->nwaiters++];
    memcpy(w->rid, rid, rid_len);
    w->rid_len = rid_len;
    w->request_id = request_id;
    w->progress = progress;
}

static void entry_free(job_entry *e)
{
    satin_kvlist_free(&e->own_start);
    satin_job_destroy(&e->job);
    satin_msg_destroy(&e->result);
    free(e->waiters);
    free(e);
}

/* Keeps at most `retain` finished entries, dropping the oldest. */
static void trim_finished(satin_control *ctl)
{
    size_t finished = 0;
    for (size_t i = 0; i < ctl->njobs; i++)
        finished += ctl->jobs[i]->job == NULL;
    size_t i = 0;
    while (finished > (size_t)ctl->opt->retain_results && i < ctl->njobs) {
        if (ctl->jobs[i]->job == NULL) {
            entry_free(ctl->jobs[i]);
            memmove(&ctl->jobs[i], &ctl->jobs[i + 1], (ctl->njobs - i - 1) * sizeof *ctl->jobs);
            ctl->njobs--;
            finished--;
        } else {
            i++;
        }
    }
}

static void deliver(satin_control *ctl, job_entry *e)
{
    e->collecting = 0;
    for (size_t i = 0; i < e->nwaiters; i++)
        send_result(ctl, e, &e->waiters[i]);
    free(e->waiters);
    e->waiters = NULL;
    e->nwaiters = 0;
    trim_finished(ctl);
}

/* Adds to `sum` the growth of every counter from `start` to `end`. */
static void add_delta(satin_kvlist *sum, const satin_kvlist *start, const satin_kvlist *end)
{
    for (size_t i = 0; i < end->n; i++) {
        const satin_kv *kv = &end->items[i];
        size_t len = strlen(kv->name);
        if (len > 4 && strcmp(kv->name + len - 4, "_max") == 0)
            continue; /* high-water marks do not add up */
        const satin_kv *s0 = satin_kvlist_find(start, kv->name);
        const satin_kv *acc = satin_kvlist_find(sum, kv->name);
        if (kv->type == SATIN_KV_I64)
            satin_kvlist_add_i64(sum, kv->name, (acc ? acc->i64 : 0) + kv->i64 - (s0 ? s0->i64 : 0));
        else if (kv->type == SATIN_KV_F64)
            satin_kvlist_add_f64(sum, kv->name, (acc ? acc->f64 : 0) + kv->f64 - (s0 ? s0->f64 : 0));
    }
}

/* Sums the growth of every reporting node's counters over the job's life
 * (start[] and end[] per node; our own from e->own_start) into its result,
 * and names the nodes whose counters are not in it, and why. */
static void add_grid_stats(satin_control *ctl, job_entry *e, const satin_kvlist *start,
                           const satin_kvlist *end, int overdue)
{
    int n = satin_grid_nnodes(ctl->grid), self = satin_grid_self(ctl->grid);
    satin_kvlist sum, own_end;
    satin_kvlist_init(&sum);
    satin_kvlist_init(&own_end);
    satin_grid_counters(ctl->grid, &own_end);
    add_delta(&sum, &e->own_start, &own_end);
    int reported = 1;
    char missing[512] = "";
    for (int node = 0; node < n; node++) {
        if (node == self)
            continue;
        if (end[node].n && start[node].n) {
            add_delta(&sum, &start[node], &end[node]);
            reported++;
        } else {
            size_t off = strlen(missing);
            snprintf(missing + off, sizeof missing - off, "%s%s", off ? "," : "",
                     satin_grid_node_name(ctl->grid, node));
        }
    }
    for (size_t k = 0; k < sum.n; k++) {
        char key[80];
        snprintf(key, sizeof key, "grid.%s", sum.items[k].name);
        if (sum.items[k].type == SATIN_KV_I64)
            satin_kvlist_add_i64(&e->result->stats, key, sum.items[k].i64);
        else
            satin_kvlist_add_f64(&e->result->stats, key, sum.items[k].f64);
    }
    satin_kvlist_add_i64(&e->result->stats, "grid.nodes", n);
    satin_kvlist_add_i64(&e->result->stats, "grid.nodes_reporting", reported);
    satin_kvlist_add_str(&e->result->stats, "grid.policy", satin_grid_policy_name(ctl->grid));
    if (missing[0]) {
        satin_kvlist_add_str(&e->result->stats, "grid.nodes_missing", missing);
        satin_kvlist_add_str(&e->result->stats, "grid.missing_why",
                             overdue ? "no answer within the statistics deadline"
                                     : "it does not answer: not waited for");
    }
    satin_kvlist_free(&sum);
    satin_kvlist_free(&own_end);
}

/* A node worth waiting for: one that answers.  A node that is down or cut
 * off must not hold every result up until the deadline. */
static int expected(satin_control *ctl, int node, int64_t now)
{
    return !satin_grid_unresponsive(ctl->grid, node, now, UNRESPONSIVE_NS);
}

/* 1 when the job's counters are all in, or overdue: then its result goes. */
static int try_complete_collection(satin_control *ctl, job_entry *e, int64_t now)
{
    int n = satin_grid_nnodes(ctl->grid), self = satin_grid_self(ctl->grid);
    satin_kvlist *start = calloc((size_t)n, sizeof *start);
    satin_kvlist *end = calloc((size_t)n, sizeof *end);
    if (!start || !end)
        abort();
    satin_grid_collected(ctl->grid, e->id, 0, start);
    satin_grid_collected(ctl->grid, e->id, 1, end);
    int waiting = 0;
    for (int node = 0; node < n; node++)
        waiting += node != self && !end[node].n && expected(ctl, node, now);
    int overdue = now >= e->collect_deadline;
    int ready = waiting == 0 || overdue;
    if (ready) {
        add_grid_stats(ctl, e, start, end, waiting > 0);
        satin_grid_forget(ctl->grid, e->id);
        deliver(ctl, e);
    }
    for (int node = 0; node < n; node++) {
        satin_kvlist_free(&start[node]);
        satin_kvlist_free(&end[node]);
    }
    free(start);
    free(end);
    return ready;
}

/* Finished jobs whose grid counters are all in (or overdue) are delivered;
 * ctl->next_collect says when the next one falls overdue. */
static void complete_collections(satin_control *ctl)
{
    int64_t now = satin_now_ns();
    ctl->next_collect = INT64_MAX;
    for (size_t i = 0; i < ctl->njobs; i++) {
        job_entry *e = ctl->jobs[i];
        if (e->collecting && !try_complete_collection(ctl, e, now) &&
            e->collect_deadline < ctl->next_collect)
            ctl->next_collect = e->collect_deadline;
    }
}

/* Called on a worker thread, or on the control thread itself when the
 * job's root ran on another node: hand the entry to the control thread. */
static void on_job_done(satin_job *job, void *arg)
{
    (void)job;
    job_entry *e = arg;
    satin_mailbox_post(&e->ctl->mailbox, &e->item);
}

static void finish_entry(satin_control *ctl, job_entry *e)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_RESULT);
    m->job_id = e->id;
    satin_msg_set_kind(m, e->kind->name);
    int failed = satin_job_failed(e->job);
    m->status = failed ? SATIN_STATUS_ERROR : SATIN_STATUS_OK;
    satin_msg_set_error(m, failed ? satin_job_error(e->job) : "");
    satin_kind_format(e->job, &m->result, &m->stats);
    e->result = m;
    if (ctl->grid) {
        satin_grid_request_stats(ctl->grid, e->id, 1);
        e->collecting = 1;
        e->collect_deadline = satin_now_ns() + COLLECT_DEADLINE_NS;
    }
    double wall = satin_job_wall_seconds(e->job);
    if (failed)
        log_info("job %" PRIu64 " (%s) failed after %.3f s: %s", e->id, e->kind->name, wall,
                 satin_job_error(e->job));
    else
        log_info("job %" PRIu64 " (%s) done in %.3f s", e->id, e->kind->name, wall);
    satin_job_destroy(&e->job);
    ctl->running_jobs--;
    ctl->finished_jobs++;
    if (!e->collecting)
        deliver(ctl, e);
}

static void deliver_finished(satin_mailbox_item *item)
{
    job_entry *e = (job_entry *)item;
    finish_entry(e->ctl, e);
}

/* ---- requests ----------------------------------------------------------- */

static void kinds_known(const satin_control *ctl, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = 0;
    for (const satin_kind *const *k = ctl->kinds; *k && off < len; k++)
        off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", (*k)->name);
}

static int same_client(const job_entry *e, const unsigned char *rid, size_t rid_len)
{
    return e->owner_len == rid_len && memcmp(e->owner, rid, rid_len) == 0;
}

/* One client must not take the whole daemon: a cap on its unfinished jobs,
 * and on how many clients may have unfinished jobs at once. */
static int over_client_limits(satin_control *ctl, const unsigned char *rid, size_t rid_len,
                              uint64_t request_id)
{
    int mine = 0, clients = 0;
    for (size_t i = 0; i < ctl->njobs; i++) {
        const job_entry *e = ctl->jobs[i];
        if (!e->job)
            continue;
        if (same_client(e, rid, rid_len)) {
            mine++;
            continue;
        }
        /* Count each other client once: at its first unfinished job. */
        size_t j = 0;
        while (j < i && !(ctl->jobs[j]->job && same_client(ctl->jobs[j], e->owner, e->owner_len)))
            j++;
        clients += j == i;
    }
    if (mine >= ctl->opt->max_client_jobs) {
        send_error(ctl, rid, rid_len, request_id, 0, SATIN_PROTO_LIMIT_REACHED,
                   "this client already has %d unfinished jobs (the limit per client is %d); "
                   "wait for one to finish", mine, ctl->opt->max_client_jobs);
        return 1;
    }
    if (mine == 0 && clients >= ctl->opt->max_clients) {
        send_error(ctl, rid, rid_len, request_id, 0, SATIN_PROTO_LIMIT_REACHED,
                   "%d other clients have unfinished jobs (the limit is %d); try again later",
                   clients, ctl->opt->max_clients);
        return 1;
    }
    return 0;
}

static void on_submit(satin_control *ctl, const unsigned char *rid, size_t rid_len,
                      const satin_msg *m)
{
    if (ctl->stopping) {
        send_error(ctl, rid, rid_len, m->request_id, 0, SATIN_PROTO_SHUTTING_DOWN,
                   "satind is shutting down and takes no new jobs");
        return;
    }
    const satin_kind *kind = satin_kinds_find(ctl->kinds, m->kind);
    if (!kind) {
        char known[256];
        kinds_known(ctl, known, sizeof known);
        send_error(ctl, rid, rid_len, m->request_id, 0, SATIN_PROTO_UNKNOWN_KIND,
                   "unknown job kind '%s' (known: %s)", m->kind, known);
        return;
    }
    if (ctl->running_jobs >= ctl->opt->max_jobs) {
        send_error(ctl, rid, rid_len, m->request_id, 0, SATIN_PROTO_LIMIT_REACHED,
                   "too many jobs running (the limit is %d); try again later",
                   ctl->opt->max_jobs);
        return;
    }
    if (over_client_limits(ctl, rid, rid_len, m->request_id))
        return;
    satin_params *params = satin_params_new();
    satin_err err = {""};
    satin_bytes arg;
    int rc = 0;
    for (size_t i = 0; i < m->nparams && rc == 0; i++)
        rc = satin_params_add(params, m->params[i].key, m->params[i].value, &err);
    if (rc == 0)
        rc = satin_kind_prepare(kind, params, ctl->opt->max_record, &arg, &err);
    satin_params_destroy(&params);
    if (rc < 0) {
        /* Name the kind once: some kinds start their messages with it. */
        size_t klen = strlen(kind->name);
        int named = strncmp(err.msg, kind->name, klen) == 0 && err.msg[klen] == ':';
        send_error(ctl, rid, rid_len, m->request_id, 0, SATIN_PROTO_BAD_PARAMS, "%s%s%s",
                   named ? "" : kind->name, named ? "" : ": ", err.msg);
        return;
    }
    job_entry *e = calloc(1, sizeof *e);
    if (!e)
        abort();
    e->ctl = ctl;
    e->item.deliver = deliver_finished;
    e->id = ctl->next_id++;
    e->kind = kind;
    e->job = satin_job_new(kind, arg.data, arg.len);
    satin_bytes_free(&arg);
    e->accepted_ns = satin_now_ns();
    e->run_at_start = satin_pool_jobs_run(ctl->pool);
    add_waiter(e, rid, rid_len, m->request_id, (m->flags & SATIN_FLAG_PROGRESS) != 0);
    memcpy(e->owner, rid, rid_len);
    e->owner_len = rid_len;
    if (ctl->njobs == ctl->capjobs) {
        size_t cap = ctl->capjobs ? ctl->capjobs * 2 : 64;
        job_entry **jobs = realloc(ctl->jobs, cap * sizeof *jobs);
        if (!jobs)
            abort();
        ctl->jobs = jobs;
        ctl->capjobs = cap;
    }
    ctl->jobs[ctl->njobs++] = e;
    ctl->running_jobs++;
    if (ctl->grid) {
        satin_grid_counters(ctl->grid, &e->own_start);
        satin_grid_request_stats(ctl->grid, e->id, 0);
    }

    satin_msg *ack = satin_msg_new(SATIN_MSG_ACCEPTED);
    ack->request_id = m->request_id;
    ack->job_id = e->id;
    send_to(ctl, rid, rid_len, ack);
    satin_msg_destroy(&ack);
    log_info("job %" PRIu64 " (%s, %zu parameters) accepted", e->id, kind->name, m->nparams);
    satin_pool_start(ctl->pool, e->job, on_job_done, e);
}

static void on_wait(satin_control *ctl, const unsigned char *rid, size_t rid_len,
                    const satin_msg *m)
{
    job_entry *e = find_job(ctl, m->job_id);
    if (!e) {
        send_error(ctl, rid, rid_len, m->request_id, m->job_id, SATIN_PROTO_UNKNOWN_JOB,
                   "no job %" PRIu64 " on this daemon (unknown, or its result has expired)",
                   m->job_id);
        return;
    }
    waiter w = {.rid_len = rid_len, .request_id = m->request_id};
    memcpy(w.rid, rid, rid_len);
    if (e->result)
        send_result(ctl, e, &w);
    else
        add_waiter(e, rid, rid_len, m->request_id, (m->flags & SATIN_FLAG_PROGRESS) != 0);
}

static void on_cancel(satin_control *ctl, const unsigned char *rid, size_t rid_len,
                      const satin_msg *m)
{
    job_entry *e = find_job(ctl, m->job_id);
    if (!e) {
        send_error(ctl, rid, rid_len, m->request_id, m->job_id, SATIN_PROTO_UNKNOWN_JOB,
                   "no job %" PRIu64 " on this daemon", m->job_id);
        return;
    }
    if (e->job) {
        satin_job_cancel(e->job, "by request");
        if (ctl->grid)
            satin_grid_cancel_job(ctl->grid, e->job);
        log_info("job %" PRIu64 " cancelled by a client", e->id);
    }
    satin_msg *ok = satin_msg_new(SATIN_MSG_OK);
    ok->request_id = m->request_id;
    ok->job_id = m->job_id;
    send_to(ctl, rid, rid_len, ok);
    satin_msg_destroy(&ok);
}

static void on_status(satin_control *ctl, const unsigned char *rid, size_t rid_len,
                      const satin_msg *m)
{
    satin_msg *r = satin_msg_new(SATIN_MSG_STATUS_REPLY);
    r->request_id = m->request_id;
    satin_kvlist_add_str(&r->info, "version", SATIN_VERSION);
    satin_kvlist_add_i64(&r->info, "pid", (int64_t)getpid());
    satin_kvlist_add_str(&r->info, "endpoint", ctl->opt->endpoint);
    satin_kvlist_add_i64(&r->info, "workers", satin_pool_workers(ctl->pool));
    satin_kvlist_add_i64(&r->info, "jobs_running", ctl->running_jobs);
    satin_kvlist_add_i64(&r->info, "jobs_finished", (int64_t)ctl->finished_jobs);
    satin_kvlist_add_i64(&r->info, "invocations_run", (int64_t)satin_pool_jobs_run(ctl->pool));
    satin_kvlist_add_i64(&r->info, "requests", (int64_t)ctl->requests);
    satin_kvlist_add_i64(&r->info, "bad_messages", (int64_t)ctl->bad_messages);
    satin_kvlist_add_i64(&r->info, "fd_limit", ctl->fd_limit);
    satin_kvlist_add_i64(&r->info, "client_pauses", (int64_t)ctl->client_pauses);
    satin_kvlist_add_i64(&r->info, "max_record", (int64_t)ctl->opt->max_record);
    satin_kvlist_add_i64(&r->info, "max_jobs", ctl->opt->max_jobs);
    if (ctl->grid) {
        satin_kvlist_add_i64(&r->info, "grid_nodes", satin_grid_nnodes(ctl->grid));
        satin_kvlist_add_i64(&r->info, "grid_self", satin_grid_self(ctl->grid));
        satin_kvlist_add_str(&r->info, "policy", satin_grid_policy_name(ctl->grid));
        satin_kvlist_add_i64(&r->info, "records_held", satin_grid_running(ctl->grid));
        satin_grid_counters(ctl->grid, &r->info);
    }
    satin_kvlist_add_f64(&r->info, "uptime_s", (double)(satin_now_ns() - ctl->started_ns) / 1e9);
    send_to(ctl, rid, rid_len, r);
    satin_msg_destroy(&r);
}

static void on_list_kinds(satin_control *ctl, const unsigned char *rid, size_t rid_len,
                          const satin_msg *m)
{
    satin_msg *r = satin_msg_new(SATIN_MSG_KINDS);
    r->request_id = m->request_id;
    for (const satin_kind *const *k = ctl->kinds; *k; k++) {
        satin_msg_add_kind(r, (*k)->name, (*k)->summary ? (*k)->summary : "");
        for (const satin_param_def *d = (*k)->params; d && d->name; d++)
            satin_msg_add_kind_param(r, d->name, d->def, d->required, d->help ? d->help : "");
    }
    send_to(ctl, rid, rid_len, r);
    satin_msg_destroy(&r);
}

static void on_message(satin_control *ctl, const unsigned char *rid, size_t rid_len,
                       zmq_msg_t *hdr, zmq_msg_t *body)
{
    satin_proto_error err = {0};
    satin_msg *m = satin_msg_decode(zmq_msg_data(hdr), zmq_msg_size(hdr), zmq_msg_data(body),
                                    zmq_msg_size(body), ctl->opt->max_record, &err);
    if (!m) {
        ctl->bad_messages++;
        satin_log_limited(&ctl->bad_limit, 10.0, SATIN_LOG_WARN,
                          "dropped a bad client message: %s", err.text);
        if (!err.have_header || err.type != SATIN_MSG_ERROR)
            send_error(ctl, rid, rid_len, err.have_header ? err.request_id : 0, 0, err.code,
                       "%s", err.text);
        return;
    }
    ctl->requests++;
    switch (m->type) {
    case SATIN_MSG_SUBMIT: on_submit(ctl, rid, rid_len, m); break;
    case SATIN_MSG_WAIT: on_wait(ctl, rid, rid_len, m); break;
    case SATIN_MSG_CANCEL: on_cancel(ctl, rid, rid_len, m); break;
    case SATIN_MSG_STATUS: on_status(ctl, rid, rid_len, m); break;
    case SATIN_MSG_LIST_KINDS: on_list_kinds(ctl, rid, rid_len, m); break;
    case SATIN_MSG_ERROR: break; /* never answer an error */
    default:
        ctl->bad_messages++;
        send_error(ctl, rid, rid_len, m->request_id, 0, SATIN_PROTO_BAD_MESSAGE,
                   "%s is not a request a daemon accepts", satin_msg_type_name(m->type));
    }
    satin_msg_destroy(&m);
}

/* Reads one whole multipart message; anything but [rid][header][body] is bad. */
static void read_client(satin_control *ctl)
{
    zmq_msg_t part[3];
    int extra, nparts = satin_zframes_recv(ctl->router, part, 3, &extra);
    const char *key = nparts == 3 && ctl->client_curve ? satin_security_key_of(&part[2]) : NULL;
    if (key && !satin_security_key_is_client(ctl->sec, key)) {
        /* zauth admits every key of the topology; only `clients:` may submit. */
        ctl->bad_messages++;
        satin_log_limited(&ctl->key_limit, 60.0, SATIN_LOG_WARN,
                          "refused a request from key %s: not in the topology's clients", key);
        if (zmq_msg_size(&part[0]) <= RID_MAX)
            send_error(ctl, zmq_msg_data(&part[0]), zmq_msg_size(&part[0]), 0, 0,
                       SATIN_PROTO_FORBIDDEN,
                       "your key %s is not an allowed client of this grid (ask its operator to "
                       "add it under clients:)", key);
    } else if (nparts == 3 && !extra && zmq_msg_size(&part[0]) <= RID_MAX) {
        on_message(ctl, zmq_msg_data(&part[0]), zmq_msg_size(&part[0]), &part[1], &part[2]);
    } else if (nparts >= 1 && zmq_msg_size(&part[0]) <= RID_MAX) {
        ctl->bad_messages++;
        satin_log_limited(&ctl->bad_limit, 10.0, SATIN_LOG_WARN,
                          "dropped a client message of %d frames (expected header and body)",
                          nparts - 1 + extra);
        send_error(ctl, zmq_msg_data(&part[0]), zmq_msg_size(&part[0]), 0, 0,
                   SATIN_PROTO_BAD_MESSAGE,
                   "a message has exactly two frames, header and body; got %d",
                   nparts - 1 + extra);
    }
    satin_zframes_close(part, nparts);
}

static void send_progress(satin_control *ctl)
{
    int64_t now = satin_now_ns();
    uint64_t run = satin_pool_jobs_run(ctl->pool);
    for (size_t i = 0; i < ctl->njobs; i++) {
        job_entry *e = ctl->jobs[i];
        for (size_t k = 0; e->job && k < e->nwaiters; k++) {
            if (!e->waiters[k].progress)
                continue;
            satin_msg *p = satin_msg_new(SATIN_MSG_PROGRESS);
            p->request_id = e->waiters[k].request_id;
            p->job_id = e->id;
            p->elapsed_ms = (uint64_t)(now - e->accepted_ns) / 1000000;
            p->jobs_run = run - e->run_at_start;
            send_to(ctl, e->waiters[k].rid, e->waiters[k].rid_len, p);
            satin_msg_destroy(&p);
        }
    }
}

/* ---- start, run, stop ----------------------------------------------------- */

/* Makes the socket's directory if missing: 0700, or 0750 for the group of
 * --socket-group, so that its members can reach the socket. */
static int make_socket_dir(const char *dir, const char *group)
{
    struct group *gr = group[0] ? getgrnam(group) : NULL;
    if (group[0] && !gr) {
        log_error("--socket-group: no group named '%s'", group);
        return -1;
    }
    mode_t mode = gr ? 0750 : 0700;
    char d[520];
    snprintf(d, sizeof d, "%s/", dir);
    for (char *s = strchr(d + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        if (mkdir(d, mode) == 0) {
            /* mkdir's mode passed through the umask; the group's access must not. */
            if (chmod(d, mode) < 0 || (gr && chown(d, (uid_t)-1, gr->gr_gid) < 0)) {
                log_error("cannot set up directory %s for the socket: %s", d, strerror(errno));
                return -1;
            }
        } else if (errno != EEXIST) {
            log_error("cannot create directory %s for the socket: %s", d, strerror(errno));
            return -1;
        }
        *s = '/';
    }
    return 0;
}

/* Refuses a socket directory another user could write (they would delete
 * our socket and bind their own daemon in its place: our clients would talk
 * to it), and to take over the socket of a live daemon (libzmq would
 * silently unlink it). */
static int prepare_ipc(const char *path, const char *group)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    char dir[512], err[1024];
    if (strlen(path) >= sizeof sa.sun_path) {
        log_error("socket path %s is too long (at most %zu bytes)", path, sizeof sa.sun_path - 1);
        return -1;
    }
    satin_endpoint_socket_dir(path, dir, sizeof dir);
    int flags = SATIN_DIR_DAEMON | (satin_endpoint_is_default_dir(dir) ? SATIN_DIR_DEFAULT : 0);
    /* Checked before and after making it: what we would create inside
     * someone else's directory is theirs to replace. */
    int rc = satin_endpoint_check_dir(dir, flags, err, sizeof err);
    if (rc == 1) {
        if (make_socket_dir(dir, group) < 0)
            return -1;
        rc = satin_endpoint_check_dir(dir, flags, err, sizeof err);
    }
    if (rc != 0) {
        log_error("%s", rc < 0 ? err : "the socket directory vanished while being made");
        return -1;
    }
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0) {
        int live = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
        close(fd);
        if (live) {
            log_error("another daemon is already listening on %s", path);
            return -1;
        }
    }
    return 0;
}

/* Local users of that group may submit; everybody else is kept out by the
 * socket file's mode (0660). */
static int set_socket_group(const char *path, const char *group)
{
    struct group *gr = getgrnam(group);
    if (!gr) {
        log_error("--socket-group: no group named '%s'", group);
        return -1;
    }
    if (chown(path, (uid_t)-1, gr->gr_gid) < 0) {
        log_error("cannot give the socket %s to group %s: %s", path, group, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- the client endpoint and the open-file limit ------------------------------ */

/* Connections the kernel queues for ZeroMQ to accept: a burst that comes in
 * between our look at the descriptors and the unbind is at most this plus
 * what the I/O thread accepts meanwhile, well within the margin below. */
#define CLIENT_BACKLOG 32
#define CLIENT_PAUSE_NS 1000000000LL

static long open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1;   /* the directory's own descriptor */
}

/* The soft RLIMIT_NOFILE is raised to the hard one (capped: nothing here
 * needs more): systemd's default soft limit of 1024 would otherwise bound
 * the clients of a node whose administrator allowed more.  Then
 * ZMQ_MAX_SOCKETS and the thresholds at which client connections are
 * paused and resumed follow from the limit. */
static void size_fd_limits(satin_control *ctl, const satin_topology *topo)
{
    struct rlimit rl;
    long limit = 1024;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rlim_t want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > 65536 ? 65536 : rl.rlim_max;
        if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
            struct rlimit raised = {want, rl.rlim_max};
            if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
                rl.rlim_cur = want;
        }
        limit = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 65536 ? 65536 : (long)rl.rlim_cur;
    }
    /* Every ZeroMQ socket holds a descriptor (its mailbox): a few of ours,
     * one per peer, and CZMQ's; more than half the limit would only let
     * sockets starve the connections. */
    long sockets = limit / 2 > 1023 ? 1023 : limit / 2;
    if (sockets < 32)
        sockets = 32;
    satin_security_set_max_sockets((int)sockets);
    long margin = limit / 4 > 32 ? limit / 4 : 32;
    ctl->fd_limit = limit;
    ctl->fd_pause = limit - margin;
    /* Unbinding closes the client connections, so what remains in use
     * after a pause is the daemon's own: a small hysteresis is enough. */
    ctl->fd_resume = ctl->fd_pause - margin / 2;
    /* Peers: a connection each way per node, and the sockets themselves. */
    long peers = topo ? 3L * topo->nnodes : 0;
    long room = ctl->fd_pause - 32 - peers;
    if (room < 64)
        log_warn("the open-file limit (RLIMIT_NOFILE %ld) leaves room for about %ld client "
                 "connections: raise it (LimitNOFILE= in the unit, ulimit -n)",
                 limit, room > 0 ? room : 0);
    else
        log_info("open-file limit %ld: satind stops listening for clients while %ld "
                 "descriptors are in use", limit, ctl->fd_pause);
}

/* Binds the client endpoint (again, after a pause). */
static int bind_clients(satin_control *ctl)
{
    const satind_options *opt = ctl->opt;
    const char *path = satin_endpoint_ipc_path(opt->endpoint);
    if (path && prepare_ipc(path, opt->socket_group) < 0)
        return -1;
    int backlog = CLIENT_BACKLOG;
    zmq_setsockopt(ctl->router, ZMQ_BACKLOG, &backlog, sizeof backlog);
    /* The socket file: read-write for its owner and group, nothing for others. */
    mode_t old = umask(0117);
    int rc = zmq_bind(ctl->router, opt->endpoint);
    int bind_errno = errno;
    umask(old);
    if (rc < 0) {
        log_error("cannot listen on %s: %s", opt->endpoint, zmq_strerror(bind_errno));
        return -1;
    }
    size_t len = sizeof ctl->bound;
    if (zmq_getsockopt(ctl->router, ZMQ_LAST_ENDPOINT, ctl->bound, &len) < 0)
        snprintf(ctl->bound, sizeof ctl->bound, "%s", opt->endpoint);
    if (path) {
        snprintf(ctl->ipc_path, sizeof ctl->ipc_path, "%s", path);
        chmod(path, 0660);
        if (opt->socket_group[0] && set_socket_group(path, opt->socket_group) < 0)
            return -1;
    }
    ctl->listen_state = CLIENTS_LISTENING;
    return 0;
}

static int watch_clients(satin_control *ctl)
{
    char ep[64];
    snprintf(ep, sizeof ep, "inproc://satind-clients-%p", (void *)ctl);
    if (zmq_socket_monitor(ctl->router, ep,
                           ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_ACCEPT_FAILED |
                               ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_CLOSED) < 0) {
        log_error("cannot watch the client connections: %s", zmq_strerror(errno));
        return -1;
    }
    ctl->mon = zmq_socket(ctl->zctx, ZMQ_PAIR);
    if (!ctl->mon || zmq_connect(ctl->mon, ep) < 0) {
        log_error("cannot watch the client connections: %s", zmq_strerror(errno));
        return -1;
    }
    return 0;
}

/* Pauses or resumes accepting clients by the descriptors in use.  Paused,
 * the endpoint is unbound: a new client is refused at once (no socket file,
 * a closed port) instead of waiting for an accept that cannot come.
 * ZeroMQ closes the connections accepted through an endpoint along with it,
 * so their clients see the connection lost (their jobs run on): the price
 * of keeping the daemon alive, paid only at the limit.  A pause lasts at
 * least CLIENT_PAUSE_NS, so that a flood of connections does not make the
 * endpoint come and go (and legitimate clients with it) as fast as it can. */
static void pace_clients(satin_control *ctl, int accept_failed)
{
    long used = open_fds();
    if (used < 0)
        return;
    if (ctl->listen_state == CLIENTS_LISTENING && (used >= ctl->fd_pause || accept_failed)) {
        if (zmq_unbind(ctl->router, ctl->bound) < 0) {
            log_error("cannot stop listening on %s: %s", ctl->bound, zmq_strerror(errno));
            return;
        }
        ctl->listen_state = CLIENTS_CLOSING;
        ctl->paused_until = satin_now_ns() + CLIENT_PAUSE_NS;
        ctl->client_pauses++;
        satin_log_limited(&ctl->fd_log, 10.0, SATIN_LOG_WARN,
                          "%ld of %ld file descriptors in use (RLIMIT_NOFILE): not listening "
                          "for clients for now (ZeroMQ closes the client connections with the "
                          "endpoint); raise the limit (LimitNOFILE= in the unit, ulimit -n)",
                          used, ctl->fd_limit);
    } else if (ctl->listen_state == CLIENTS_PAUSED && used <= ctl->fd_resume &&
               satin_now_ns() >= ctl->paused_until && !ctl->stopping) {
        if (bind_clients(ctl) == 0)
            log_info("accepting client connections again (%ld of %ld file descriptors in use)",
                     used, ctl->fd_limit);
    }
}

static void on_client_events(satin_control *ctl)
{
    int check = 0, failed = 0;
    for (;;) {
        zmq_msg_t f;
        zmq_msg_init(&f);
        if (zmq_msg_recv(&f, ctl->mon, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&f);
            break;
        }
        uint16_t ev = 0;
        uint32_t val = 0;
        if (zmq_msg_size(&f) >= 6) {
            memcpy(&ev, zmq_msg_data(&f), 2);
            memcpy(&val, (const char *)zmq_msg_data(&f) + 2, 4);
        }
        while (zmq_msg_more(&f)) {
            zmq_msg_close(&f);
            zmq_msg_init(&f);
            if (zmq_msg_recv(&f, ctl->mon, 0) < 0)
                break;
        }
        zmq_msg_close(&f);
        if (ev == ZMQ_EVENT_CLOSED && ctl->listen_state == CLIENTS_CLOSING)
            ctl->listen_state = CLIENTS_PAUSED;   /* the listener (and its file) is gone */
        if (ev == ZMQ_EVENT_ACCEPT_FAILED && (val == EMFILE || val == ENFILE))
            failed = 1;
        check = 1;
    }
    if (check)
        pace_clients(ctl, failed);
}

satin_control *satin_control_new(const satind_options *opt, satin_pool *pool,
                                 const satin_kind *const *kinds,
                                 const satin_topology *topo, int self)
{
    satin_control *ctl = calloc(1, sizeof *ctl);
    if (!ctl)
        abort();
    ctl->opt = opt;
    ctl->pool = pool;
    ctl->kinds = kinds;
    ctl->next_id = 1;
    ctl->started_ns = satin_now_ns();
    if (satin_mailbox_init(&ctl->mailbox) < 0) {
        log_error("cannot create the worker mailbox: %s", strerror(errno));
        free(ctl);
        return NULL;
    }
    size_fd_limits(ctl, topo);
    ctl->zctx = satin_security_context();
    if (topo) {
        char key[600], err[1024];
        satin_security_key_path(topo, self, opt->key, key, sizeof key);
        ctl->sec = satin_security_new(ctl->zctx, topo, self, key, err, sizeof err);
        if (!ctl->sec) {
            log_error("%s", err);
            satin_control_destroy(&ctl);
            return NULL;
        }
    }
    ctl->router = zmq_socket(ctl->zctx, ZMQ_ROUTER);
    int linger = 1000;
    /* Frames far beyond the record limit are cut off by ZeroMQ itself; the
     * ones in between get a clear "too large" error from the decoder. */
    int64_t maxmsg = (int64_t)(opt->max_record * 4 > (16u << 20) ? opt->max_record * 4 : 16u << 20);
    zmq_setsockopt(ctl->router, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(ctl->router, ZMQ_MAXMSGSIZE, &maxmsg, sizeof maxmsg);

    const char *path = satin_endpoint_ipc_path(opt->endpoint);
    if (!path && satin_security_enabled(ctl->sec)) {
        satin_security_make_server(ctl->sec, ctl->router);
        ctl->client_curve = 1;
    } else if (!path) {
        log_warn("the client endpoint %s is plain text: anyone who can reach it may submit "
                 "(use security: curve with a clients: list between machines)", opt->endpoint);
    }
    if (bind_clients(ctl) < 0) {
        satin_control_destroy(&ctl);
        return NULL;
    }
    if (watch_clients(ctl) < 0) {
        satin_control_destroy(&ctl);
        return NULL;
    }
    if (topo) {
        ctl->grid = satin_grid_new(ctl->zctx, topo, self, opt->policy, pool, kinds,
                                   &ctl->mailbox, opt->max_record, ctl->sec, opt->peer_rate);
        if (!ctl->grid) {
            satin_control_destroy(&ctl);
            return NULL;
        }
    }
    log_info("listening for clients on %s with %d workers", opt->endpoint,
             satin_pool_workers(pool));
    return ctl;
}

/* The line `systemctl status` shows; sent only when it changes. */
static void update_service_status(satin_control *ctl)
{
    char line[256];
    int off = snprintf(line, sizeof line, "%s%d job(s) running, %" PRIu64 " finished",
                       ctl->stopping ? "stopping: " : "", ctl->running_jobs, ctl->finished_jobs);
    if (ctl->grid && off > 0 && (size_t)off < sizeof line)
        snprintf(line + off, sizeof line - (size_t)off,
                 "; %d record(s) of other nodes; %d of %d peers heard; policy %s",
                 satin_grid_running(ctl->grid), satin_grid_peers_heard(ctl->grid),
                 satin_grid_nnodes(ctl->grid) - 1, satin_grid_policy_name(ctl->grid));
    if (strcmp(line, ctl->status_line) != 0) {
        snprintf(ctl->status_line, sizeof ctl->status_line, "%s", line);
        satin_service_status("%s", line);
    }
}

/* SIGTERM: take no new jobs and no new work from peers, and let what runs
 * finish: our jobs, and the records other nodes gave us (their results go
 * home), so that no job of the grid is lost. */
static void begin_stop(satin_control *ctl, const char *why)
{
    ctl->stopping = 1;
    log_info("stopping (%s): %d job(s) running, %d record(s) of other nodes; waiting up to "
             "%.0f s for them to finish", why, ctl->running_jobs,
             ctl->grid ? satin_grid_running(ctl->grid) : 0, ctl->opt->stop_timeout_s);
    if (ctl->grid)
        satin_grid_drain(ctl->grid);
    satin_service_stopping("stopping: waiting for running jobs");
}

/* The stop timeout passed: cancel what still runs; the clients get an error. */
static void cancel_running(satin_control *ctl)
{
    ctl->stopping = 2;
    log_warn("%d job(s) and %d record(s) of other nodes still running after %.0f s: "
             "cancelling them", ctl->running_jobs, ctl->grid ? satin_grid_running(ctl->grid) : 0,
             ctl->opt->stop_timeout_s);
    for (size_t i = 0; i < ctl->njobs; i++)
        if (ctl->jobs[i]->job)
            satin_job_cancel(ctl->jobs[i]->job, "satind is shutting down");
    if (ctl->grid)
        satin_grid_stop(ctl->grid);
}

/* Jobs that did not drain in time: their clients still get an answer. */
static void abandon_running(satin_control *ctl)
{
    for (size_t i = 0; i < ctl->njobs; i++) {
        job_entry *e = ctl->jobs[i];
        if (!e->job)
            continue;
        for (size_t k = 0; k < e->nwaiters; k++)
            send_error(ctl, e->waiters[k].rid, e->waiters[k].rid_len,
                       e->waiters[k].request_id, e->id, SATIN_PROTO_SHUTTING_DOWN,
                       "cancelled: satind is shutting down");
        e->nwaiters = 0;
    }
}

/* SIGHUP: logrotate moved the log file.  Nothing else is reloaded: a new
 * topology or key needs a restart (every node must agree on them). */
static void on_hangup(satin_control *ctl)
{
    if (satin_log_reopen() < 0)
        log_error("SIGHUP: cannot reopen %s: %s", ctl->opt->log_file, strerror(errno));
    log_info("SIGHUP: log reopened; %d job(s) running, %" PRIu64 " finished%s", ctl->running_jobs,
             ctl->finished_jobs, ctl->stopping ? ", stopping" : "");
}

/* ---- the reactor ------------------------------------------------------------
 * One satin_loop (common/loop.h) watches every descriptor of the control
 * thread; each has a small handler, and `pump` runs after every batch of
 * events: it drains what ZeroMQ holds (its descriptors only say "look
 * again"), fires the grid's and the daemon's deadlines, and says when it
 * must run next. */

/* 1 while `sock` has a message waiting. */
static int zmq_readable(void *sock)
{
    int events = 0;
    size_t len = sizeof events;
    return sock && zmq_getsockopt(sock, ZMQ_EVENTS, &events, &len) == 0 && (events & ZMQ_POLLIN);
}

/* A batch of client requests; 1 when more are waiting (fairness to peers). */
static int serve_clients(satin_control *ctl)
{
    for (int i = 0; i < 64; i++) {
        if (!zmq_readable(ctl->router))
            return 0;
        read_client(ctl);
    }
    return zmq_readable(ctl->router);
}

/* A batch of peer messages; 1 when more are waiting. */
static int serve_peers(satin_control *ctl)
{
    if (!ctl->grid || !zmq_readable(satin_grid_socket(ctl->grid)))
        return 0;
    satin_grid_on_readable(ctl->grid);
    return zmq_readable(satin_grid_socket(ctl->grid));
}

static int serve_security_log(satin_control *ctl)
{
    void *s = satin_security_log_socket(ctl->sec);
    if (zmq_readable(s))
        satin_security_on_log(ctl->sec);
    return zmq_readable(s);
}

static void on_client_fd(satin_watch *w, uint32_t events)
{
    (void)events;
    serve_clients(w->arg);
}

static void on_peer_fd(satin_watch *w, uint32_t events)
{
    (void)events;
    serve_peers(w->arg);
}

static void on_security_fd(satin_watch *w, uint32_t events)
{
    (void)events;
    serve_security_log(w->arg);
}

static void on_monitor_fd(satin_watch *w, uint32_t events)
{
    (void)events;
    on_client_events(w->arg);
}

static void on_mail(satin_watch *w, uint32_t events)
{
    (void)events;
    satin_control *ctl = w->arg;
    satin_mailbox_deliver_all(&ctl->mailbox);
}

static void on_hungry(satin_watch *w, uint32_t events)
{
    (void)events;
    satin_control *ctl = w->arg;
    satin_grid_on_hungry(ctl->grid);
}

static void on_signal(satin_watch *w, uint32_t events)
{
    (void)events;
    satin_control *ctl = w->arg;
    struct signalfd_siginfo si;
    while (read(w->fd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGHUP) {
            on_hangup(ctl);
        } else if (!ctl->stopping) {
            begin_stop(ctl, strsignal((int)si.ssi_signo));
            ctl->stop_deadline = satin_now_ns() + (int64_t)(ctl->opt->stop_timeout_s * 1e9);
        }
    }
}

/* The graceful stop's stages, by their deadlines; 1 when the loop ends. */
static int stop_due(satin_control *ctl, int64_t now)
{
    if (ctl->stopping && ctl->running_jobs == 0 &&
        (!ctl->grid || satin_grid_busy(ctl->grid) == 0)) {
        for (size_t i = 0; i < ctl->njobs; i++)
            if (ctl->jobs[i]->collecting)
                deliver(ctl, ctl->jobs[i]);
        ctl->drained = 1;
        return 1;
    }
    if (ctl->stopping == 1 && now >= ctl->stop_deadline) {
        cancel_running(ctl);
        ctl->stop_deadline = now + DRAIN_DEADLINE_NS;
    } else if (ctl->stopping == 2 && now >= ctl->stop_deadline) {
        log_warn("%d job(s) did not stop within %.0f s; leaving them", ctl->running_jobs,
                 DRAIN_DEADLINE_NS / 1e9);
        abandon_running(ctl);
        return 1;
    }
    return 0;
}

/* Progress lines, systemd's status and watchdog: once a second or so. */
static int64_t housekeeping(satin_control *ctl, int64_t now)
{
    if (now >= ctl->next_progress) {
        /* A resume that found too many descriptors in use, or failed to
         * bind, is tried again here: no event may come to retry it. */
        if (ctl->listen_state == CLIENTS_PAUSED)
            pace_clients(ctl, 0);
        send_progress(ctl);
        update_service_status(ctl);
        ctl->next_progress = now + PROGRESS_INTERVAL_NS;
    }
    /* From the loop itself: a stuck loop stops the pings, and systemd
     * restarts us.  Half the interval, as sd_watchdog_enabled(3) says. */
    if (ctl->watchdog_ns && now >= ctl->next_watchdog) {
        satin_service_watchdog();
        ctl->next_watchdog = now + ctl->watchdog_ns / 2;
    }
    int64_t next = ctl->next_progress;
    if (ctl->watchdog_ns && ctl->next_watchdog < next)
        next = ctl->next_watchdog;
    return next;
}

static int64_t pump(void *arg, int64_t now)
{
    satin_control *ctl = arg;
    if (stop_due(ctl, now)) {
        satin_loop_stop(&ctl->loop);
        return now;
    }
    int64_t next = housekeeping(ctl, now);
    if (ctl->grid) {
        int64_t g = satin_grid_tick(ctl->grid, satin_now_ns());
        if (g < next)
            next = g;
        complete_collections(ctl);
        if (ctl->next_collect < next)
            next = ctl->next_collect;
    }
    /* The stop's deadlines are checked here, not by timers of their own. */
    if (ctl->stopping && now + STOP_RECHECK_NS < next)
        next = now + STOP_RECHECK_NS;
    /* Last: a send on a socket may take the "look again" signal of its
     * ZMQ_FD, so whatever it holds is read now, after every send above. */
    int more = serve_clients(ctl) | serve_peers(ctl) | serve_security_log(ctl);
    if (zmq_readable(ctl->mon)) {
        on_client_events(ctl);
        more |= zmq_readable(ctl->mon);
    }
    return more ? now : next;
}

static int watch_zmq(satin_control *ctl, satin_watch *w, void *sock, satin_watch_fn fn)
{
    int fd;
    size_t len = sizeof fd;
    if (!sock)
        return 0;
    w->arg = ctl;
    if (zmq_getsockopt(sock, ZMQ_FD, &fd, &len) < 0)
        return -1;
    return satin_loop_add(&ctl->loop, w, fd, EPOLLIN, fn);
}

static int watch_fd(satin_control *ctl, satin_watch *w, int fd, satin_watch_fn fn)
{
    w->arg = ctl;
    return fd < 0 ? 0 : satin_loop_add(&ctl->loop, w, fd, EPOLLIN, fn);
}

static int set_up_reactor(satin_control *ctl, int signal_fd)
{
    char err[256];
    if (satin_loop_init(&ctl->loop, NULL, err, sizeof err) < 0) {
        log_error("%s", err);
        return -1;
    }
    if (watch_zmq(ctl, &ctl->client_w, ctl->router, on_client_fd) < 0 ||
        watch_fd(ctl, &ctl->mail_w, ctl->mailbox.fd, on_mail) < 0 ||
        watch_fd(ctl, &ctl->signal_w, signal_fd, on_signal) < 0 ||
        watch_zmq(ctl, &ctl->security_w, satin_security_log_socket(ctl->sec), on_security_fd) < 0 ||
        watch_zmq(ctl, &ctl->monitor_w, ctl->mon, on_monitor_fd) < 0 ||
        (ctl->grid && (watch_zmq(ctl, &ctl->peer_w, satin_grid_socket(ctl->grid), on_peer_fd) < 0 ||
                       watch_fd(ctl, &ctl->hungry_w, satin_grid_hungry_fd(ctl->grid), on_hungry) < 0))) {
        log_error("cannot watch the control thread's sockets: %s", strerror(errno));
        satin_loop_close(&ctl->loop);
        return -1;
    }
    return 0;
}

int satin_control_run(satin_control *ctl, int signal_fd)
{
    if (set_up_reactor(ctl, signal_fd) < 0)
        return 0;
    ctl->next_progress = satin_now_ns() + PROGRESS_INTERVAL_NS;
    ctl->watchdog_ns = satin_service_watchdog_interval_ns();
    update_service_status(ctl);
    satin_loop_run(&ctl->loop, pump, ctl);
    satin_loop_close(&ctl->loop);
    return ctl->drained;
}

void satin_control_destroy(satin_control **self)
{
    satin_control *ctl = *self;
    if (!ctl)
        return;
    satin_grid_destroy(&ctl->grid);
    if (ctl->mon) {
        zmq_socket_monitor(ctl->router, NULL, 0);
        zmq_close(ctl->mon);
    }
    if (ctl->router)
        zmq_close(ctl->router);
    satin_security_destroy(&ctl->sec);
    if (ctl->zctx)
        satin_security_context_end();
    if (ctl->ipc_path[0])
        unlink(ctl->ipc_path);
    /* Running entries belong to jobs the pool may still touch: only free
     * the finished ones unless everything drained. */
    for (size_t i = 0; i < ctl->njobs; i++)
        if (!ctl->jobs[i]->job || ctl->running_jobs == 0)
            entry_free(ctl->jobs[i]);
    free(ctl->jobs);
    satin_mailbox_destroy(&ctl->mailbox);
    free(ctl);
    *self = NULL;
}
