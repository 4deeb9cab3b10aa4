/* control_jobs.c - clients' jobs: requests in; accepted, progress, results and errors out;
 * the job table */
#include "control_internal.h"
#include "accounting.h"
#include "kinds.h"
#include "log.h"
#include "result.h"
#include "satin_endpoint.h"
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


/* ---- sending ------------------------------------------------------------ */

void control_send_to(satin_control *ctl, const unsigned char *rid, size_t rid_len,
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
    ctl->look |= LOOK_CLIENTS;
    if (zmq_send(ctl->router, rid, rid_len, ZMQ_SNDMORE) < 0 ||
        zmq_send(ctl->router, hdr, hlen, ZMQ_SNDMORE) < 0 ||
        zmq_send(ctl->router, body, blen, 0) < 0)
        log_debug("reply %s not sent: %s", satin_msg_type_name(m->type), zmq_strerror(errno));
    free(hdr);
    free(body);
}

void control_send_error(satin_control *ctl, const unsigned char *rid, size_t rid_len,
                       uint64_t request_id, uint64_t job_id, int code, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

void control_send_error(satin_control *ctl, const unsigned char *rid, size_t rid_len,
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
    control_send_to(ctl, rid, rid_len, m);
    satin_msg_destroy(&m);
}

static void send_result(satin_control *ctl, job_entry *e, const waiter *w)
{
    e->result->request_id = w->request_id;
    control_send_to(ctl, w->rid, w->rid_len, e->result);
}

/* ---- the job table ------------------------------------------------------ */

static void start_pending(satin_control *ctl);

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

void control_entry_free(job_entry *e)
{
    satin_kvlist_free(&e->own_start);
    satin_profile_free(&e->own_profile);
    satin_kvlist_free(&e->params);
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
            control_entry_free(ctl->jobs[i]);
            memmove(&ctl->jobs[i], &ctl->jobs[i + 1], (ctl->njobs - i - 1) * sizeof *ctl->jobs);
            ctl->njobs--;
            finished--;
        } else {
            i++;
        }
    }
}

static int64_t realtime_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* What a job is now: pending, running, or how it ended. */
static const char *job_state(const job_entry *e)
{
    if (e->pending)
        return "pending";
    if (e->job)
        return "running";
    if (e->result->status == SATIN_STATUS_OK)
        return "ok";
    return strncmp(e->result->error, "cancelled", 9) == 0 ? "cancelled" : "error";
}

/* The job's accounting record (accounting.h), once its result is final. */
static void account(satin_control *ctl, job_entry *e)
{
    const satin_msg *r = e->result;
    satin_job_account a = {
        .job_id = e->id,
        .node = control_node_id(ctl),
        .owner = e->submitter.name,
        .owner_uid = e->submitter.kind == SATIN_PRINCIPAL_UID ? (long long)e->submitter.uid : -1,
        .kind = e->kind->name,
        .name = e->name,
        .params = &e->params,
        .status = job_state(e),
        .error = r->error,
        .submitted_ns = e->submitted_real_ns,
        .started_ns = e->started_real_ns,
        .finished_ns = realtime_ns(),
        .result = &r->result,
        .stats = &r->stats,
    };
    if (satin_account_write(&a, ctl->opt->accounting) < 0)
        satin_log_limited(&ctl->bad_limit, 60.0, SATIN_LOG_WARN,
                          "cannot append job %" PRIu64 "'s accounting record to %s: %s", e->id,
                          ctl->opt->accounting, strerror(errno));
}

void control_deliver(satin_control *ctl, job_entry *e)
{
    account(ctl, e);
    e->collecting = 0;
    for (size_t i = 0; i < e->nwaiters; i++)
        send_result(ctl, e, &e->waiters[i]);
    free(e->waiters);
    e->waiters = NULL;
    e->nwaiters = 0;
    trim_finished(ctl);
}

/* Called on a worker thread, or on the control thread itself when the
 * job's root ran on another node: hand the entry to the control thread. */
static void on_job_done(satin_job *job, void *arg)
{
    (void)job;
    job_entry *e = arg;
    satin_mailbox_post(&e->ctl->mailbox, &e->item);
}

/* The kind's data into the RESULT, whose bytes it takes over.  Data over
 * the record limit fail the job instead: the client is told why, and its
 * result is neither cut nor sent.  1 when the job failed so. */
static int attach_data(satin_control *ctl, satin_msg *m, satin_result *data)
{
    if (!data->data)
        return 0;
    if (data->data_len > ctl->opt->max_record) {
        m->status = SATIN_STATUS_ERROR;
        satin_msg_set_errorf(m, "%s: the job's data (%zu bytes of %s) exceed the record limit "
                                "(%zu bytes, satind --max-record)",
                             m->kind, data->data_len,
                             data->data_type[0] ? data->data_type : "data",
                             ctl->opt->max_record);
        satin_kvlist_free(&m->result);
        satin_result_free_data(data);
        return 1;
    }
    /* A type is what tells a client there are data: a kind that named
     * none gets the generic one. */
    satin_msg_set_data_type(m, data->data_type[0] ? data->data_type : "application/octet-stream");
    m->data = data->data;   /* taken over, not copied: it may be megabytes */
    m->data_len = data->data_len;
    data->data = NULL;
    satin_result_free_data(data);
    return 0;
}

void control_finish_entry(satin_control *ctl, job_entry *e)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_RESULT);
    m->job_id = e->id;
    satin_msg_set_kind(m, e->kind->name);
    int failed = satin_job_failed(e->job);
    m->status = failed ? SATIN_STATUS_ERROR : SATIN_STATUS_OK;
    satin_msg_set_error(m, failed ? satin_job_error(e->job) : "");
    satin_result data;
    satin_result_init(&data, (satin_kvlist){0});
    satin_kind_format(e->job, &m->result, &m->stats, &data);
    if (attach_data(ctl, m, &data))
        failed = 1;
    if (e->name[0])
        satin_kvlist_add_str(&m->stats, "job_name", e->name);
    e->result = m;
    if (e->profile)
        control_profile_job_done(ctl, e);
    if (ctl->grid) {
        satin_grid_request_stats(ctl->grid, e->id,
                                 SATIN_STATS_PHASE_END | (e->profile ? SATIN_STATS_PROFILE : 0));
        e->collecting = 1;
        e->collect_deadline = satin_now_ns() + COLLECT_DEADLINE_NS;
    }
    double wall = satin_job_wall_seconds(e->job);
    if (failed)
        log_info("job %" PRIu64 " (%s) failed after %.3f s: %s", e->id, e->kind->name, wall,
                 m->error);
    else
        log_info("job %" PRIu64 " (%s) done in %.3f s", e->id, e->kind->name, wall);
    satin_job_destroy(&e->job);
    e->finished_ns = satin_now_ns();
    ctl->running_jobs--;
    ctl->finished_jobs++;
    start_pending(ctl);
    control_publish_metrics(ctl, 0);
    if (!e->collecting) {
        if (e->profile)
            control_profile_collect(ctl, e, NULL);
        control_deliver(ctl, e);
    }
}

static void deliver_finished(satin_mailbox_item *item)
{
    job_entry *e = (job_entry *)item;
    control_finish_entry(e->ctl, e);
}

/* ---- requests ----------------------------------------------------------- */

static void kinds_known(const satin_control *ctl, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = 0;
    for (size_t i = 0; i < satin_registry_nkinds(ctl->reg) && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
                                satin_registry_kind_at(ctl->reg, i)->name);
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
        control_send_error(ctl, rid, rid_len, request_id, 0, SATIN_PROTO_LIMIT_REACHED,
                   "this client already has %d unfinished jobs (the limit per client is %d); "
                   "wait for one to finish", mine, ctl->opt->max_client_jobs);
        return 1;
    }
    if (mine == 0 && clients >= ctl->opt->max_clients) {
        control_send_error(ctl, rid, rid_len, request_id, 0, SATIN_PROTO_LIMIT_REACHED,
                   "%d other clients have unfinished jobs (the limit is %d); try again later",
                   clients, ctl->opt->max_clients);
        return 1;
    }
    return 0;
}

/* The record's kind and argument bytes, or NULL once the client has been
 * told why not (stopping, unknown kind, limits, bad parameters). */
static const satin_kind *check_submit(satin_control *ctl, const unsigned char *rid,
                                      size_t rid_len, const satin_msg *m, satin_bytes *arg)
{
    if (ctl->stopping) {
        control_send_error(ctl, rid, rid_len, m->request_id, 0, SATIN_PROTO_SHUTTING_DOWN,
                           "satind is shutting down and takes no new jobs");
        return NULL;
    }
    for (const unsigned char *c = (const unsigned char *)(m->job_name ? m->job_name : ""); *c; c++)
        if (*c < 0x20 || *c == 0x7f) {
            control_send_error(ctl, rid, rid_len, m->request_id, 0, SATIN_PROTO_BAD_PARAMS,
                               "the job name has a control character (byte 0x%02x)", *c);
            return NULL;
        }
    const satin_kind *kind = satin_registry_kind(ctl->reg, m->kind);
    if (!kind) {
        char known[256];
        kinds_known(ctl, known, sizeof known);
        control_send_error(ctl, rid, rid_len, m->request_id, 0, SATIN_PROTO_UNKNOWN_KIND,
                           "unknown job kind '%s' (known: %s)", m->kind, known);
        return NULL;
    }
    if (ctl->running_jobs >= ctl->opt->max_jobs && ctl->pending_jobs >= ctl->opt->max_pending) {
        control_send_error(ctl, rid, rid_len, m->request_id, 0, SATIN_PROTO_LIMIT_REACHED,
                           "too many jobs: %d running (the limit is %d) and %d waiting (the "
                           "queue holds %d); try again later", ctl->running_jobs,
                           ctl->opt->max_jobs, ctl->pending_jobs, ctl->opt->max_pending);
        return NULL;
    }
    if (over_client_limits(ctl, rid, rid_len, m->request_id))
        return NULL;
    satin_params *params = satin_params_new();
    satin_err err = {""};
    int rc = 0;
    for (size_t i = 0; i < m->nparams && rc == 0; i++)
        rc = satin_params_add(params, m->params[i].key, m->params[i].value, &err);
    if (rc == 0)
        rc = satin_kind_prepare(kind, params, ctl->opt->max_record, arg, &err);
    satin_params_destroy(&params);
    if (rc < 0) {
        /* Name the kind once: some kinds start their messages with it. */
        size_t klen = strlen(kind->name);
        int named = strncmp(err.msg, kind->name, klen) == 0 && err.msg[klen] == ':';
        control_send_error(ctl, rid, rid_len, m->request_id, 0, SATIN_PROTO_BAD_PARAMS, "%s%s%s",
                           named ? "" : kind->name, named ? "" : ": ", err.msg);
        return NULL;
    }
    return kind;
}

/* A new entry in the job table for the record, its submitter waiting. */
static job_entry *add_entry(satin_control *ctl, const satin_kind *kind, const satin_bytes *arg,
                            const unsigned char *rid, size_t rid_len, const satin_msg *m)
{
    job_entry *e = calloc(1, sizeof *e);
    if (!e)
        abort();
    e->ctl = ctl;
    e->item.deliver = deliver_finished;
    e->id = ctl->next_id++;
    e->kind = kind;
    e->job = satin_job_new_parsed(kind, arg);
    e->accepted_ns = satin_now_ns();
    e->submitted_real_ns = realtime_ns();
    for (size_t i = 0; i < m->nparams; i++)
        satin_kvlist_add_str(&e->params, m->params[i].key, m->params[i].value);
    snprintf(e->name, sizeof e->name, "%s", m->job_name ? m->job_name : "");
    add_waiter(e, rid, rid_len, m->request_id, (m->flags & SATIN_FLAG_PROGRESS) != 0);
    e->profile = (m->flags & SATIN_FLAG_PROFILE) != 0;
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
    return e;
}

/* Into the pool: the job runs from now on (and counts as running). */
static void start_entry(satin_control *ctl, job_entry *e)
{
    e->pending = 0;
    e->started_ns = satin_now_ns();
    e->started_real_ns = realtime_ns();
    e->run_at_start = satin_pool_records_run(ctl->pool);
    ctl->running_jobs++;
    if (ctl->grid) {
        satin_grid_place_job(ctl->grid, e->job, e->id);
        satin_grid_counters(ctl->grid, &e->own_start);
        satin_grid_request_stats(ctl->grid, e->id,
                                 SATIN_STATS_PHASE_START | (e->profile ? SATIN_STATS_PROFILE : 0));
    }
    if (e->profile)
        control_profile_begin(ctl, e);
    satin_pool_start(ctl->pool, e->job, on_job_done, e);
}

/* Slots freed: the jobs waiting longest start, in the order they came. */
static void start_pending(satin_control *ctl)
{
    for (size_t i = 0; i < ctl->njobs && ctl->pending_jobs > 0 && !ctl->stopping &&
                       ctl->running_jobs < ctl->opt->max_jobs; i++) {
        job_entry *e = ctl->jobs[i];
        if (!e->pending)
            continue;
        ctl->pending_jobs--;
        log_info("job %" PRIu64 " (%s) starts after %.3f s in the queue", e->id, e->kind->name,
                 (double)(satin_now_ns() - e->accepted_ns) / 1e9);
        start_entry(ctl, e);
    }
}

/* A job that never ran ends: failed with `why`, without the grid's counters. */
static void finish_unstarted(satin_control *ctl, job_entry *e, const char *why)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_RESULT);
    m->job_id = e->id;
    satin_msg_set_kind(m, e->kind->name);
    m->status = SATIN_STATUS_ERROR;
    satin_msg_set_error(m, why);
    if (e->name[0])
        satin_kvlist_add_str(&m->stats, "job_name", e->name);
    e->result = m;
    e->pending = 0;
    ctl->pending_jobs--;
    log_info("job %" PRIu64 " (%s) ended before it started: %s", e->id, e->kind->name, why);
    satin_job_destroy(&e->job);
    e->finished_ns = satin_now_ns();
    ctl->finished_jobs++;
    control_publish_metrics(ctl, 0);
    control_deliver(ctl, e);
}

void control_fail_pending(satin_control *ctl, const char *why)
{
    for (size_t i = 0; i < ctl->njobs && ctl->pending_jobs > 0;) {
        job_entry *e = ctl->jobs[i];
        size_t before = ctl->njobs;
        if (e->pending)
            finish_unstarted(ctl, e, why);
        /* Delivering may trim finished entries before this one. */
        if (ctl->njobs == before)
            i++;
        else
            i = 0;
    }
}

static void on_submit(satin_control *ctl, const satin_principal *who, const unsigned char *rid,
                      size_t rid_len, const satin_msg *m)
{
    satin_bytes arg;
    const satin_kind *kind = check_submit(ctl, rid, rid_len, m, &arg);
    if (!kind)
        return;
    job_entry *e = add_entry(ctl, kind, &arg, rid, rid_len, m);
    e->submitter = *who;
    satin_bytes_free(&arg);
    satin_msg *ack = satin_msg_new(SATIN_MSG_ACCEPTED);
    ack->request_id = m->request_id;
    ack->job_id = e->id;
    control_send_to(ctl, rid, rid_len, ack);
    satin_msg_destroy(&ack);
    if (ctl->running_jobs < ctl->opt->max_jobs) {
        log_info("job %" PRIu64 " (%s%s%s, %zu parameters) accepted from %s", e->id, kind->name,
                 e->name[0] ? " " : "", e->name, m->nparams, who->name);
        start_entry(ctl, e);
        return;
    }
    e->pending = 1;
    ctl->pending_jobs++;
    log_info("job %" PRIu64 " (%s, %zu parameters) accepted; waits: %d running (the limit), "
             "%d waiting", e->id, kind->name, m->nparams, ctl->running_jobs, ctl->pending_jobs);
}

/* Only the job's submitter, or an admin, may `what` it: anyone else gets
 * FORBIDDEN, naming the owner (the job's existence is no secret: --list
 * shows it). */
static int may_act(satin_control *ctl, const satin_principal *who, const job_entry *e,
                   const unsigned char *rid, size_t rid_len, const satin_msg *m,
                   const char *what)
{
    if (satin_principal_may_act(who, &e->submitter))
        return 1;
    log_info("refused %s: may not %s job %" PRIu64 " of %s", who->name, what, e->id,
             e->submitter.name);
    control_send_error(ctl, rid, rid_len, m->request_id, m->job_id, SATIN_PROTO_FORBIDDEN,
                       "job %" PRIu64 " belongs to %s: only its owner or an admin may %s it",
                       e->id, e->submitter.name, what);
    return 0;
}

static void on_wait(satin_control *ctl, const satin_principal *who, const unsigned char *rid,
                      size_t rid_len, const satin_msg *m)
{
    job_entry *e = find_job(ctl, m->job_id);
    if (!e) {
        control_send_error(ctl, rid, rid_len, m->request_id, m->job_id, SATIN_PROTO_UNKNOWN_JOB,
                   "no job %" PRIu64 " on this daemon (unknown, or its result has expired)",
                   m->job_id);
        return;
    }
    if (!may_act(ctl, who, e, rid, rid_len, m, "wait on"))
        return;
    waiter w = {.rid_len = rid_len, .request_id = m->request_id};
    memcpy(w.rid, rid, rid_len);
    /* A result still collecting the grid's counters waits for them: sent
     * now, it would carry no grid.* statistics at all. */
    if (e->result && !e->collecting)
        send_result(ctl, e, &w);
    else
        add_waiter(e, rid, rid_len, m->request_id, (m->flags & SATIN_FLAG_PROGRESS) != 0);
}

static void on_cancel(satin_control *ctl, const satin_principal *who, const unsigned char *rid,
                      size_t rid_len, const satin_msg *m)
{
    job_entry *e = find_job(ctl, m->job_id);
    if (!e) {
        control_send_error(ctl, rid, rid_len, m->request_id, m->job_id, SATIN_PROTO_UNKNOWN_JOB,
                   "no job %" PRIu64 " on this daemon", m->job_id);
        return;
    }
    if (!may_act(ctl, who, e, rid, rid_len, m, "cancel"))
        return;
    int state = e->pending ? SATIN_CANCEL_NOT_STARTED
                : e->job   ? SATIN_CANCEL_STOPPING
                           : SATIN_CANCEL_FINISHED;
    if (e->pending) {
        finish_unstarted(ctl, e, "cancelled by request before it started");
    } else if (e->job) {
        satin_job_cancel(e->job, "by request");
        if (ctl->grid)
            satin_grid_cancel_job(ctl->grid, e->job);
        log_info("job %" PRIu64 " cancelled by %s", e->id, who->name);
    }
    satin_msg *ok = satin_msg_new(SATIN_MSG_OK);
    ok->request_id = m->request_id;
    ok->job_id = m->job_id;
    ok->status = (uint8_t)state;
    control_send_to(ctl, rid, rid_len, ok);
    satin_msg_destroy(&ok);
}

const char *control_node_id(const satin_control *ctl)
{
    return ctl->grid ? ctl->topo->nodes[satin_grid_self(ctl->grid)].id : ctl->opt->node;
}

void control_status_info(satin_control *ctl, satin_kvlist *out)
{
    satin_kvlist_add_str(out, "version", SATIN_VERSION);
    satin_kvlist_add_i64(out, "pid", (int64_t)getpid());
    satin_kvlist_add_str(out, "endpoint", ctl->opt->endpoint);
    satin_kvlist_add_i64(out, "workers", satin_pool_workers(ctl->pool));
    satin_kvlist_add_i64(out, "jobs_running", ctl->running_jobs);
    satin_kvlist_add_i64(out, "jobs_pending", ctl->pending_jobs);
    satin_kvlist_add_i64(out, "jobs_finished", (int64_t)ctl->finished_jobs);
    satin_kvlist_add_i64(out, "invocations_run", (int64_t)satin_pool_records_run(ctl->pool));
    satin_kvlist_add_i64(out, "requests", (int64_t)ctl->requests);
    satin_kvlist_add_i64(out, "bad_messages", (int64_t)ctl->bad_messages);
    satin_kvlist_add_i64(out, "fd_limit", ctl->fd_limit);
    satin_kvlist_add_i64(out, "client_pauses", (int64_t)ctl->client_pauses);
    satin_kvlist_add_i64(out, "max_record", (int64_t)ctl->opt->max_record);
    satin_kvlist_add_i64(out, "max_jobs", ctl->opt->max_jobs);
    satin_kvlist_add_i64(out, "max_pending", ctl->opt->max_pending);
    if (ctl->grid) {
        satin_kvlist_add_i64(out, "grid_nodes", ctl->topo->nnodes);
        satin_kvlist_add_i64(out, "grid_self", satin_grid_self(ctl->grid));
        satin_kvlist_add_str(out, "policy", satin_grid_policy_name(ctl->grid));
        satin_kvlist_add_i64(out, "records_held", satin_grid_running(ctl->grid));
        satin_kvlist_add_i64(out, "topology_reloads_refused", (int64_t)ctl->reloads_refused);
        satin_kvlist_add_i64(out, "membership_changes", (int64_t)ctl->membership_changes);
        double lan, wan;
        satin_grid_failure_timeouts(ctl->grid, &lan, &wan);
        satin_kvlist_add_f64(out, "failure_timeout_lan_ms", lan);
        satin_kvlist_add_f64(out, "failure_timeout_wan_ms", wan);
        satin_kvlist counters;
        satin_kvlist_init(&counters);
        satin_grid_counters(ctl->grid, &counters);
        satin_grid_summarize_waits(&counters, "", out);
        satin_kvlist_free(&counters);
        satin_grid_peers_status(ctl->grid, out);
    }
    satin_kvlist_add_f64(out, "uptime_s", (double)(satin_now_ns() - ctl->started_ns) / 1e9);
}

static void on_status(satin_control *ctl, const unsigned char *rid, size_t rid_len,
                      const satin_msg *m)
{
    satin_msg *r = satin_msg_new(SATIN_MSG_STATUS_REPLY);
    r->request_id = m->request_id;
    control_status_info(ctl, &r->info);
    control_send_to(ctl, rid, rid_len, r);
    satin_msg_destroy(&r);
}

/* LIST: one kvlist per job, unfinished ones first as they came, then
 * (SATIN_LIST_ALL) the finished ones still kept (PROTOCOL.md 6.13-6.14). */
void control_list_jobs(satin_control *ctl, const satin_principal *who, int all, satin_msg *r)
{
    int64_t now = satin_now_ns();
    uint64_t run_now = satin_pool_records_run(ctl->pool);
    for (int finished = 0; finished < 2; finished++) {
        if (finished && !all)
            break;
        for (size_t i = 0; i < ctl->njobs; i++) {
            const job_entry *e = ctl->jobs[i];
            if ((e->job == NULL) != finished)
                continue;
            satin_kvlist *l = satin_msg_add_job(r);
            if (!l)
                break;
            /* Another's job shows what squeue shows; its parameters and
             * error only to its owner and admins. */
            int mine = satin_principal_may_act(who, &e->submitter);
            satin_kvlist_add_i64(l, "job", (int64_t)e->id);
            satin_kvlist_add_str(l, "name", e->name);
            satin_kvlist_add_str(l, "kind", e->kind->name);
            satin_kvlist_add_str(l, "owner", e->submitter.name);
            satin_kvlist_add_str(l, "node", control_node_id(ctl));
            satin_kvlist_add_str(l, "state", job_state(e));
            if (mine) {
                char params[8192];
                satin_kvlist_pairs_text(&e->params, params, sizeof params);
                satin_kvlist_add_str(l, "params", params);
            }
            satin_kvlist_add_f64(l, "age_s", (double)(now - e->accepted_ns) / 1e9);
            int64_t end = e->finished_ns ? e->finished_ns : now;
            satin_kvlist_add_f64(l, "run_s",
                                 e->started_ns ? (double)(end - e->started_ns) / 1e9 : 0.0);
            int64_t run = 0;
            if (e->job && !e->pending)
                run = (int64_t)(run_now - e->run_at_start); /* this node's, as PROGRESS counts */
            else if (e->result)
                satin_kvlist_i64(&e->result->stats, "records_run", &run);
            satin_kvlist_add_i64(l, "invocations", run);
            if (mine && e->result && e->result->error && e->result->error[0])
                satin_kvlist_add_str(l, "error", e->result->error);
        }
    }
}

static void on_list(satin_control *ctl, const satin_principal *who, const unsigned char *rid,
                    size_t rid_len, const satin_msg *m)
{
    if (m->flags & SATIN_LIST_GRID) {
        control_list_grid(ctl, who, rid, rid_len, m);
        return;
    }
    satin_msg *r = satin_msg_new(SATIN_MSG_JOBS);
    r->request_id = m->request_id;
    control_list_jobs(ctl, who, (m->flags & SATIN_LIST_ALL) != 0, r);
    control_send_to(ctl, rid, rid_len, r);
    satin_msg_destroy(&r);
}

static void on_list_kinds(satin_control *ctl, const unsigned char *rid, size_t rid_len,
                          const satin_msg *m)
{
    satin_msg *r = satin_msg_new(SATIN_MSG_KINDS);
    r->request_id = m->request_id;
    for (size_t i = 0; i < satin_registry_nkinds(ctl->reg); i++) {
        const satin_kind *k = satin_registry_kind_at(ctl->reg, i);
        satin_msg_add_kind(r, k->name, k->summary ? k->summary : "");
        const satin_module_info *mod = satin_registry_kind_module(ctl->reg, k);
        satin_msg_set_kind_module(r, mod ? mod->name : "", mod ? mod->version : "");
        for (const satin_param_def *d = k->params; d && d->name; d++)
            satin_msg_add_kind_param(r, d->name, d->def, d->required, d->help ? d->help : "");
    }
    control_send_to(ctl, rid, rid_len, r);
    satin_msg_destroy(&r);
}

static void on_message(satin_control *ctl, const satin_principal *who, const unsigned char *rid,
                       size_t rid_len, zmq_msg_t *hdr, zmq_msg_t *body)
{
    satin_proto_error err = {0};
    satin_msg *m = satin_msg_decode(zmq_msg_data(hdr), zmq_msg_size(hdr), zmq_msg_data(body),
                                    zmq_msg_size(body), ctl->opt->max_record, &err);
    if (!m) {
        ctl->bad_messages++;
        satin_log_limited(&ctl->bad_limit, 10.0, SATIN_LOG_WARN,
                          "dropped a bad client message: %s", err.text);
        if (!err.have_header || err.type != SATIN_MSG_ERROR)
            control_send_error(ctl, rid, rid_len, err.have_header ? err.request_id : 0, 0, err.code,
                       "%s", err.text);
        return;
    }
    ctl->requests++;
    switch (m->type) {
    case SATIN_MSG_SUBMIT: on_submit(ctl, who, rid, rid_len, m); break;
    case SATIN_MSG_WAIT: on_wait(ctl, who, rid, rid_len, m); break;
    case SATIN_MSG_CANCEL: on_cancel(ctl, who, rid, rid_len, m); break;
    case SATIN_MSG_STATUS: on_status(ctl, rid, rid_len, m); break;
    case SATIN_MSG_LIST_KINDS: on_list_kinds(ctl, rid, rid_len, m); break;
    case SATIN_MSG_LIST: on_list(ctl, who, rid, rid_len, m); break;
    case SATIN_MSG_GRID_STATUS: control_on_grid_status(ctl, rid, rid_len, m); break;
    case SATIN_MSG_ERROR: break; /* never answer an error */
    default:
        ctl->bad_messages++;
        control_send_error(ctl, rid, rid_len, m->request_id, 0, SATIN_PROTO_BAD_MESSAGE,
                   "%s is not a request a daemon accepts", satin_msg_type_name(m->type));
    }
    satin_msg_destroy(&m);
}

/* Reads one whole multipart message; anything but [rid][header][body] is bad. */
void control_read_client(satin_control *ctl)
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
            control_send_error(ctl, zmq_msg_data(&part[0]), zmq_msg_size(&part[0]), 0, 0,
                       SATIN_PROTO_FORBIDDEN,
                       "your key %s is not an allowed client of this grid (ask its operator to "
                       "add it under clients:)", key);
    } else if (nparts == 3 && !extra && zmq_msg_size(&part[0]) <= RID_MAX) {
        satin_principal who;
        if (key)
            satin_principal_of_key(&who, key, ctl->topo);
        else if (ctl->client_ipc)
            satin_principal_of_peer_address(&who, zmq_msg_gets(&part[2], "Peer-Address"),
                                            geteuid(), &ctl->user_names);
        else
            satin_principal_anonymous(&who);
        on_message(ctl, &who, zmq_msg_data(&part[0]), zmq_msg_size(&part[0]), &part[1], &part[2]);
    } else if (nparts >= 1 && zmq_msg_size(&part[0]) <= RID_MAX) {
        ctl->bad_messages++;
        satin_log_limited(&ctl->bad_limit, 10.0, SATIN_LOG_WARN,
                          "dropped a client message of %d frames (expected header and body)",
                          nparts - 1 + extra);
        control_send_error(ctl, zmq_msg_data(&part[0]), zmq_msg_size(&part[0]), 0, 0,
                   SATIN_PROTO_BAD_MESSAGE,
                   "a message has exactly two frames, header and body; got %d",
                   nparts - 1 + extra);
    }
    satin_zframes_close(part, nparts);
}

void control_send_progress(satin_control *ctl)
{
    int64_t now = satin_now_ns();
    uint64_t run = satin_pool_records_run(ctl->pool);
    for (size_t i = 0; i < ctl->njobs; i++) {
        job_entry *e = ctl->jobs[i];
        /* A waiting job has nothing to report yet. */
        for (size_t k = 0; e->job && !e->pending && k < e->nwaiters; k++) {
            if (!e->waiters[k].progress)
                continue;
            satin_msg *p = satin_msg_new(SATIN_MSG_PROGRESS);
            p->request_id = e->waiters[k].request_id;
            p->job_id = e->id;
            p->elapsed_ms = (uint64_t)(now - e->accepted_ns) / 1000000;
            p->jobs_run = run - e->run_at_start;
            control_send_to(ctl, e->waiters[k].rid, e->waiters[k].rid_len, p);
            satin_msg_destroy(&p);
        }
    }
}

