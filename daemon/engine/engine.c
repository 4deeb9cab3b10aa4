/*
 * engine.c - one node's decisions (see engine.h): life, the peer messages
 * that reach the engine, the dry signal, stand-ins ending, and time.
 */
#include "engine_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEAL_TIMEOUT_DEFAULT_NS 5000000000LL
#define FAILURE_TIMEOUT_LAN_NS 3000000000LL
#define FAILURE_TIMEOUT_WAN_NS 10000000000LL

/* ---- small things the engine's files share ---------------------------------- */

void satin_engine_send(satin_engine *e, int to, const satin_msg *m)
{
    /* The last message sent only matters to heartbeats. */
    if (satin_engine_watching(e))
        satin_engine_peer(e, to)->last_sent = e->now;
    e->env.send(e->env.ctx, to, m);
}

int satin_engine_is_remote(const satin_engine *e, int node)
{
    return e->topo.cluster_of[node] != e->topo.cluster_of[e->topo.self];
}

const char *satin_engine_node_name(const satin_engine *e, int node)
{
    if (node < 0 || node >= e->topo.nnodes)
        return "?";
    return e->shape->names ? e->shape->names[node] : "?";
}

void satin_engine_logf(const satin_engine *e, int level, const char *fmt, ...)
{
    /* A steal's every reply has a debug line: formatting it unasked would
     * cost the hot path of a busy node. */
    if (!e->env.log || SATIN_ENGINE_LOG_LEVEL(level) > e->cfg.log_level)
        return;
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    e->env.log(e->env.ctx, level, text);
}

/* ---- life --------------------------------------------------------------------- */

void satin_engine_config_default(satin_engine_config *c)
{
    memset(c, 0, sizeof *c);
    satin_policy_params_default(&c->params);
    c->seed = 1;
    c->max_record = (size_t)1 << 20;
    c->steal_timeout_ns = STEAL_TIMEOUT_DEFAULT_NS;
    c->log_level = SATIN_ENGINE_LOG_INFO;
    c->failure_timeout_lan_ns = FAILURE_TIMEOUT_LAN_NS;
    c->failure_timeout_wan_ns = FAILURE_TIMEOUT_WAN_NS;
    c->orphan_saving = 1;
    c->values_wan_interval_ns = 100000000LL;
}

int satin_engine_take_topology(satin_engine *e, const satin_policy_topology *t)
{
    if (!t || t->self < 0)
        return -1;
    satin_grid_shape *shape = t->shape ? satin_grid_shape_ref(t->shape)
                                       : satin_grid_shape_new(t, e->cfg.node_names);
    if (!shape || t->self >= shape->nnodes) {
        satin_grid_shape_unref(&shape);
        return -1;
    }
    e->shape = shape;
    e->topo = satin_grid_shape_topology(shape, t->self);
    return 0;
}

void satin_engine_drop_topology(satin_engine *e)
{
    satin_grid_shape_unref(&e->shape);
}

satin_engine *satin_engine_new(const satin_engine_config *config, const satin_engine_env *env,
                               int64_t now)
{
    if (!config || !config->policy || !env)
        return NULL;
    satin_engine *e = calloc(1, sizeof *e);
    if (!e)
        abort();
    e->env = *env;
    e->cfg = *config;
    e->ops = config->policy;
    e->now = now;
    e->rng = config->seed ? config->seed : 1;
    e->next_request = 1;
    satin_ledger_init(&e->ledger);
    if (satin_engine_take_topology(e, config->topo) < 0) {
        satin_engine_destroy(&e);
        return NULL;
    }
    satin_engine_faults_init(e);
    satin_engine_policy_env(e);
    e->policy = e->ops->create(&e->topo, &e->cfg.params, &e->penv);
    if (!e->policy) {
        satin_engine_destroy(&e);
        return NULL;
    }
    return e;
}

void satin_engine_destroy(satin_engine **self)
{
    satin_engine *e = *self;
    if (!e)
        return;
    if (e->policy)
        e->ops->destroy(e->policy);
    for (size_t i = 0; e->env.release && i < e->ledger.nstandins; i++)
        e->env.release(e->env.ctx, e->ledger.standins[i].handle);
    satin_engine_drop_topology(e);
    satin_engine_free_collected(e);
    satin_engine_faults_free(e);
    satin_engine_orphans_free(e);
    satin_engine_values_free(e);
    satin_ledger_free(&e->ledger);
    free(e);
    *self = NULL;
}

/* ---- records that come from other nodes --------------------------------------- */

/* `ran`: the record ran here, and its work goes home with the result. */
static void send_result(satin_engine *e, int owner, uint64_t record_id,
                        const satin_engine_outcome *o, int ran)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_JOB_RESULT);
    m->owner = (uint32_t)owner;
    m->record_id = record_id;
    m->status = o->ok ? SATIN_STATUS_OK : SATIN_STATUS_ERROR;
    satin_msg_set_error(m, o->ok ? "" : o->error);
    if (o->ok)
        satin_msg_set_data_ref(m, o->data, o->len);   /* encoded before o goes (or owned when held) */
    if (ran) {
        satin_kvlist_add_i64(&m->stats, "jobs_spawned", (int64_t)o->spawned);
        satin_kvlist_add_i64(&m->stats, "jobs_run", (int64_t)o->run);
        satin_kvlist_add_i64(&m->stats, "steals_intra", (int64_t)o->steals);
    }
    satin_engine_send_result(e, owner, m);
}

static void refuse_record(satin_engine *e, const satin_msg_jobrec *jr, const char *why)
{
    satin_engine_outcome o = {.ok = 0, .error = why};
    send_result(e, (int)jr->owner, jr->record_id, &o, 0);
}

int satin_engine_run_record(satin_engine *e, const satin_msg_jobrec *jr)
{
    char err[160] = "";
    const void *job = NULL;
    void *standin = e->env.start(e->env.ctx, jr, &job, err, sizeof err);
    if (!standin) {
        refuse_record(e, jr, err[0] ? err : "the job record could not be started");
        return -1;
    }
    const void *kept = e->env.standin_arg ? e->env.standin_arg(e->env.ctx, standin) : NULL;
    satin_ledger_add_standin(&e->ledger, standin, (int)jr->owner, jr->record_id, job, jr, kept);
    satin_engine_values_link(e, jr->origin, job, (int)jr->owner);
    return 0;
}

/* Starts a JOBREC from another node here; its result goes back by message. */
static void start_standin(satin_engine *e, int from, const satin_msg_jobrec *jr)
{
    if ((int)jr->owner >= e->topo.nnodes || (int)jr->owner == e->topo.self) {
        e->env.note_bad(e->env.ctx, from, "a job record with an impossible owner");
        return;
    }
    if (jr->arg_len > e->cfg.max_record || jr->result_cap > e->cfg.max_record) {
        e->env.note_bad(e->env.ctx, (int)jr->owner, "a job record above the record size limit");
        refuse_record(e, jr, "job record above the record size limit");
        return;
    }
    char why[160] = "";
    if (e->env.gives_back && e->env.gives_back(e->env.ctx, from, jr->kind, why, sizeof why)) {
        /* Not run here, and not failed: its owner runs it (on_job_result's
         * RETURNED), as a leaving node's records. */
        satin_msg *m = satin_msg_new(SATIN_MSG_JOB_RESULT);
        m->owner = jr->owner;
        m->record_id = jr->record_id;
        m->status = SATIN_STATUS_RETURNED;
        satin_msg_set_error(m, why);
        satin_engine_send(e, (int)jr->owner, m);
        satin_msg_destroy(&m);
        e->c.records_given_back++;
        return;
    }
    if (satin_engine_run_record(e, jr) < 0)
        return;
    e->c.jobs_received++;
    e->c.bytes_jobs_in += jr->arg_len;
}

void satin_engine_on_standin_done(satin_engine *e, int64_t now, void *standin,
                                  const satin_engine_outcome *outcome)
{
    e->now = now;
    satin_standin s;
    if (satin_ledger_take_standin(&e->ledger, standin, &s) < 0)
        return;
    if (s.returned)
        ;   /* given back to its owner, who runs it again: nothing to send */
    else if (s.owner == e->topo.self)
        satin_engine_redo_done(e, &s, outcome);
    else if (s.parked && !outcome->ok)
        satin_engine_park(e, &s);  /* stopped by its owner's death (no orphan saving) */
    else {
        satin_engine_orphan_done(e, &s, outcome);
        if (s.orphan == 2)
            e->c.held_results_dropped++;   /* its owner restarted: nobody to send it to */
        else
            send_result(e, s.owner, s.record_id, outcome, 1);   /* held while it is dead */
    }
    satin_ledger_free_rec(&s.rec);
    satin_engine_values_flush(e);
}

/* ---- peer messages -------------------------------------------------------------- */

/* How a request of ours ended.  One the policy withdrew is no steal either
 * way (its reply is a late one); the others succeed with jobs or fail: an
 * empty reply, or none within the time-out. */
static void count_settled(satin_engine *e, const satin_pending *p, int wan, int njobs)
{
    if (p->withdrawn || p->unsent)
        return;
    if (njobs <= 0) {
        e->c.steal_failures++;
        return;
    }
    if (wan)
        e->c.steal_ok_wan++;
    else
        e->c.steal_ok_lan++;
    if (p->flags & SATIN_STEAL_PREFETCH)
        e->c.prefetch_successes++;
}

/* A steal request of ours ended: answered by `victim` with `njobs` jobs,
 * or timed out (njobs 0). */
void satin_engine_settle(satin_engine *e, const satin_pending *p, int victim, int njobs,
                         unsigned reply_flags)
{
    satin_engine_logf(e, SATIN_ENGINE_LOG_DEBUG, "steal %" PRIu64 " to node %s answered with %d job(s)",
                      p->id, satin_engine_node_name(e, victim), njobs);
    int wan = satin_engine_is_remote(e, victim);
    /* A synchronous steal's wait; inside the cluster only one that was
     * sent and not withdrawn. */
    if ((p->flags & SATIN_STEAL_SYNC) && (wan || (!p->unsent && !p->withdrawn))) {
        int64_t waited = e->now - p->sent_ns;
        if (wan) {
            e->c.wan_wait_ns += waited;
        } else {
            e->c.lan_wait_ns += waited;
            e->c.lan_sync_answered++;
        }
        if (e->env.steal_waited)
            e->env.steal_waited(e->env.ctx, wan, waited);
    }
    count_settled(e, p, wan, njobs);
    /* The request's flags, plus what the victim said about itself. */
    e->ops->on_steal_reply(e->policy, victim, p->id, njobs,
                           p->flags | (reply_flags & SATIN_STEAL_VICTIM_BUSY));
}

/* The reply to our request `id`.  It may come from another node than the
 * one we asked (CHS forwards): request ids are ours and unique, so the id
 * alone says which request this answers. */
static void finish_pending(satin_engine *e, uint64_t id, int victim, int njobs,
                           unsigned reply_flags)
{
    satin_pending p;
    if (satin_ledger_take_pending(&e->ledger, id, &p) < 0) {
        e->c.late_replies++;
        return; /* timed out: its jobs were started all the same */
    }
    if (p.withdrawn)
        e->c.late_replies++; /* the policy ignores it; its jobs are used all the same */
    satin_engine_settle(e, &p, victim, njobs, reply_flags);
}

static void on_steal(satin_engine *e, const satin_msg *m)
{
    int from = (int)m->sender, thief = (int)m->thief;
    if (thief >= e->topo.nnodes || thief == e->topo.self ||
        (thief != from && !(m->flags & SATIN_STEAL_FORWARDED))) {
        e->env.note_bad(e->env.ctx, from, "a steal request for another thief, not forwarded");
        return;
    }
    e->ops->on_steal_request(e->policy, from, thief, m->request_id, m->flags);
}

static void on_steal_reply(satin_engine *e, const satin_msg *m)
{
    for (size_t i = 0; i < m->njobrecs; i++)
        start_standin(e, (int)m->sender, &m->jobrecs[i]);
    finish_pending(e, m->request_id, (int)m->sender, (int)m->njobrecs, m->flags);
}

static void on_push(satin_engine *e, const satin_msg *m)
{
    int from = (int)m->sender;
    for (size_t i = 0; i < m->njobrecs; i++)
        start_standin(e, from, &m->jobrecs[i]);
    satin_msg *ack = satin_msg_new(SATIN_MSG_PUSH_ACK);
    ack->record_id = m->njobrecs ? m->jobrecs[0].record_id : 0;
    satin_engine_send(e, from, ack);
    satin_msg_destroy(&ack);
    e->c.pushes_received++;
    e->ops->on_push(e->policy, from);
}

static void on_job_result(satin_engine *e, const satin_msg *m)
{
    int from = (int)m->sender;
    if (m->status == SATIN_STATUS_RETURNED) {   /* it stays given until it runs again here */
        satin_engine_record_returned(e, from, m->record_id);
        return;
    }
    satin_given g;
    int found = satin_ledger_take_given(&e->ledger, m->record_id, from, &g);
    if (found == -2) {
        e->env.note_bad(e->env.ctx, from, "a result for a job given to another node");
        return;
    }
    satin_peer_watch fresh;
    if (found < 0 && satin_engine_peer_peek(e, from, &fresh)->ever_dead) {
        e->c.late_results_dropped++; /* run again here, and that result counted */
        return;
    }
    if (found < 0) {
        e->env.note_bad(e->env.ctx, from, "a result for a job record we never gave away");
        return;
    }
    satin_engine_result_came(e, from, &g);
    int64_t spawned = 0, run = 0, steals = 0;
    satin_kvlist_i64(&m->stats, "jobs_spawned", &spawned);
    satin_kvlist_i64(&m->stats, "jobs_run", &run);
    satin_kvlist_i64(&m->stats, "steals_intra", &steals);
    satin_engine_outcome o = {
        .ok = m->status == SATIN_STATUS_OK,
        .error = m->error,
        .data = m->data,
        .len = m->data_len,
        .spawned = (uint64_t)spawned,
        .run = (uint64_t)run,
        .steals = (uint64_t)steals,
    };
    e->env.complete(e->env.ctx, g.record, &o);
    e->c.results_received++;
    e->ops->on_result(e->policy);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(const void *const *)a, y = (uintptr_t)*(const void *const *)b;
    return x < y ? -1 : x > y;
}

/* A record to cancel at its holder: sorted by holder, then ledger order. */
typedef struct cancel_item {
    int holder;
    size_t index;
} cancel_item;

static int cmp_cancel_item(const void *a, const void *b)
{
    const cancel_item *x = a, *y = b;
    if (x->holder != y->holder)
        return x->holder < y->holder ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Tells the holders of every record given away of the jobs in `jobs` to
 * stop them, one JOB_CANCEL per holder (more past the codec's limit): one
 * pass over the ledger, since a busy grid can hold many thousand records,
 * and nothing sized by the grid, which can hold a million nodes. */
static void cancel_given_of(satin_engine *e, const void **jobs, size_t njobs)
{
    if (njobs == 0 || e->ledger.ngiven == 0)
        return;
    qsort(jobs, njobs, sizeof *jobs, cmp_ptr);
    cancel_item *items = malloc(e->ledger.ngiven * sizeof *items);
    if (!items)
        abort();
    size_t nitems = 0;
    for (size_t i = 0; i < e->ledger.ngiven; i++) {
        satin_given *g = &e->ledger.given[i];
        if (g->cancel_sent || !bsearch(&g->job, jobs, njobs, sizeof *jobs, cmp_ptr))
            continue;
        if (g->redoing || satin_engine_peer_dead(e, g->holder)) {
            satin_engine_cancel_redo(e, g->record_id, "its job was cancelled");
            satin_ledger_mark_cancel_sent(&e->ledger, i);
            continue;
        }
        items[nitems++] = (cancel_item){g->holder, i};
    }
    qsort(items, nitems, sizeof *items, cmp_cancel_item);
    satin_msg *m = NULL;
    for (size_t k = 0; k < nitems; k++) {
        if (!m) {
            m = satin_msg_new(SATIN_MSG_JOB_CANCEL);
            m->owner = (uint32_t)e->topo.self;
        }
        satin_msg_add_record_id(m, e->ledger.given[items[k].index].record_id);
        satin_ledger_mark_cancel_sent(&e->ledger, items[k].index);
        if (k + 1 == nitems || items[k + 1].holder != items[k].holder ||
            m->nrecord_ids == SATIN_PROTO_MAX_RECORD_IDS) {
            satin_engine_send(e, items[k].holder, m);
            satin_msg_destroy(&m);
        }
    }
    free(items);
}

/* The owner withdrew records it gave us: stop their stand-ins, and pass
 * the cancel on to wherever they gave records themselves. */
static void on_job_cancel(satin_engine *e, const satin_msg *m)
{
    size_t n = m->nrecord_ids, njobs = 0;
    if (n == 0)
        return;
    uint64_t *ids = malloc(n * sizeof *ids);
    const void **jobs = malloc(n * sizeof *jobs);
    if (!ids || !jobs)
        abort();
    memcpy(ids, m->record_ids, n * sizeof *ids);
    qsort(ids, n, sizeof *ids, cmp_u64);
    for (size_t i = 0; i < e->ledger.nstandins && njobs < n; i++) {
        const satin_standin *s = &e->ledger.standins[i];
        if (s->owner != (int)m->sender || !bsearch(&s->record_id, ids, n, sizeof *ids, cmp_u64))
            continue;
        jobs[njobs++] = s->job;
        e->env.cancel(e->env.ctx, s->handle, "the job was cancelled on its home node");
    }
    cancel_given_of(e, jobs, njobs);
    free(ids);
    free(jobs);
}

void satin_engine_on_message(satin_engine *e, int64_t now, const satin_msg *m)
{
    e->now = now;
    if ((int)m->sender < 0 || (int)m->sender >= e->topo.nnodes ||
        (int)m->sender == e->topo.self || !satin_engine_is_member(e, (int)m->sender))
        return;
    satin_engine_heard(e, (int)m->sender);
    switch (m->type) {
    case SATIN_MSG_STEAL:
        on_steal(e, m);
        break;
    case SATIN_MSG_STEAL_REPLY:
        on_steal_reply(e, m);
        break;
    case SATIN_MSG_PUSH:
        on_push(e, m);
        break;
    case SATIN_MSG_PUSH_ACK:
        e->c.push_acks++;
        e->ops->on_push_ack(e->policy, (int)m->sender);
        break;
    case SATIN_MSG_JOB_RESULT:
        on_job_result(e, m);
        break;
    case SATIN_MSG_LOAD:
        e->ops->on_load(e->policy, (int)m->sender, m->load);
        break;
    case SATIN_MSG_STEAL_CANCEL:
        e->c.cancels_received++;
        e->ops->on_cancel(e->policy, (int)m->thief, m->steal_id);
        break;
    case SATIN_MSG_JOB_CANCEL:
        on_job_cancel(e, m);
        break;
    case SATIN_MSG_STATS_REQUEST:
        satin_engine_on_stats_request(e, m);
        break;
    case SATIN_MSG_STATS_REPLY:
        satin_engine_on_stats_reply(e, m);
        break;
    case SATIN_MSG_ORPHAN:
        satin_engine_on_orphan(e, m);
        break;
    case SATIN_MSG_VALUES:
        satin_engine_on_values(e, m);
        break;
    case SATIN_MSG_HEARTBEAT:
        if (m->flags & SATIN_HEARTBEAT_LEAVING)
            satin_engine_peer_leaving(e, (int)m->sender);
        if (m->flags & SATIN_HEARTBEAT_LEFT)
            satin_engine_peer_stopped(e, (int)m->sender);
        if (m->flags & SATIN_HEARTBEAT_GREETING)
            satin_engine_answer_greeting(e, (int)m->sender);
        break; /* else hearing it was the point */
    default:
        break; /* HELLO and the rest are the transport's */
    }
    /* What the message made due: values to a new neighbour (behind the
     * STEAL_REPLY that gave it a record), or grown by it. */
    satin_engine_values_flush(e);
}

/* ---- idleness and time -------------------------------------------------------- */

void satin_engine_tell_idle(satin_engine *e)
{
    e->c.idle_events++;
    e->last_idle_call = e->now;
    e->ops->on_idle(e->policy);
}

void satin_engine_on_dry(satin_engine *e, int64_t now)
{
    e->now = now;
    if (!e->draining && e->env.is_idle(e->env.ctx))
        satin_engine_tell_idle(e);
    satin_engine_values_flush(e);
}

static int any_timer(const satin_engine *e)
{
    for (int id = 0; id < SATIN_ENGINE_MAX_TIMERS; id++)
        if (e->timer[id])
            return 1;
    return 0;
}

/* The dry signal is an edge; if it met a moment when the node was not idle
 * after all (a record still queued), the policy heard nothing and would
 * wait for the next edge.  So a dry node with no steal in flight and no
 * timer set (a back-off or a steal ends the wait by itself) re-tells its
 * policy every IDLE_RECHECK_NS, unless the policy waits for work to come.
 * 1 when that re-check is what the node waits on. */
static int idle_recheck_waits(const satin_engine *e)
{
    if ((e->ops->caps & SATIN_POLICY_WAITS_FOR_WORK) || e->draining || e->ledger.npending ||
        any_timer(e))
        return 0;
    return e->env.is_idle(e->env.ctx);
}

/* Queues only change while jobs run; an idle node reports its last length
 * (0) once and then sleeps. */
static int sampling(const satin_engine *e)
{
    return (e->ops->caps & SATIN_POLICY_SAMPLES_QUEUE) &&
           (e->env.active_jobs(e->env.ctx) > 0 || e->last_queue_length != 0);
}

static void fire_timers(satin_engine *e)
{
    for (int id = 0; id < SATIN_ENGINE_MAX_TIMERS; id++)
        if (e->timer[id] && e->timer[id] <= e->now && !e->draining) {
            e->timer[id] = 0;
            e->last_idle_call = e->now;
            e->ops->on_timer(e->policy, id);
        }
}

static void expire_steals(satin_engine *e)
{
    satin_pending p;
    while (satin_ledger_take_expired(&e->ledger, e->now - e->cfg.steal_timeout_ns - 1, &p) == 0) {
        if (satin_engine_peer_unreachable(e, p.victim)) {
            e->c.steals_to_dead++;
            satin_engine_settle(e, &p, p.victim, 0, 0);
            continue;
        }
        e->c.steal_timeouts++;
        satin_engine_logf(e, SATIN_ENGINE_LOG_WARN,
                          "steal request %" PRIu64 " to node %s got no reply; counted as empty",
                          p.id, satin_engine_node_name(e, p.victim));
        satin_engine_settle(e, &p, p.victim, 0, 0);
    }
}

static void sample_queue(satin_engine *e)
{
    if (!sampling(e) || e->now < e->next_sample)
        return;
    e->next_sample = e->now + SATIN_ENGINE_QUEUE_SAMPLE_NS;
    int64_t len = e->env.queue_length(e->env.ctx);
    if (len != e->last_queue_length) {
        e->last_queue_length = len;
        e->ops->on_queue_length(e->policy, len);
    }
}

/* Records given away whose job stopped here (failed, cancelled, a
 * stand-in withdrawn) and whose holder was not told yet are withdrawn. */
static void scan_stopped_jobs(satin_engine *e)
{
    if (e->now < e->next_cancel_scan || !satin_ledger_cancels_owed(&e->ledger))
        return;
    e->next_cancel_scan = e->now + SATIN_ENGINE_CANCEL_SCAN_NS;
    const void **jobs = malloc(e->ledger.ngiven * sizeof *jobs);
    if (!jobs)
        abort();
    size_t njobs = 0;
    for (size_t i = 0; i < e->ledger.ngiven; i++) {
        const satin_given *g = &e->ledger.given[i];
        if (!g->cancel_sent && e->env.job_stopping(e->env.ctx, g->job))
            jobs[njobs++] = g->job;
    }
    cancel_given_of(e, jobs, njobs);
    free(jobs);
}

void satin_engine_on_tick(satin_engine *e, int64_t now)
{
    e->now = now;
    fire_timers(e);
    scan_stopped_jobs(e);
    if (idle_recheck_waits(e) && now - e->last_idle_call > SATIN_ENGINE_IDLE_RECHECK_NS)
        satin_engine_tell_idle(e);
    expire_steals(e);
    sample_queue(e);
    satin_engine_watch(e);
    satin_engine_values_tick(e);
}

int64_t satin_engine_next_deadline(const satin_engine *e)
{
    int64_t next = INT64_MAX;
    for (int id = 0; id < SATIN_ENGINE_MAX_TIMERS && !e->draining; id++)
        if (e->timer[id] && e->timer[id] < next)
            next = e->timer[id];
    if (sampling(e) && e->next_sample < next)
        next = e->next_sample;
    if (idle_recheck_waits(e) && e->last_idle_call + SATIN_ENGINE_IDLE_RECHECK_NS < next)
        next = e->last_idle_call + SATIN_ENGINE_IDLE_RECHECK_NS + 1;
    if (satin_ledger_cancels_owed(&e->ledger)) {
        int64_t scan = e->next_cancel_scan > e->now ? e->next_cancel_scan
                                                    : e->now + SATIN_ENGINE_CANCEL_SCAN_NS;
        if (scan < next)
            next = scan;
    }
    int64_t watch = satin_engine_watch_deadline(e);
    if (watch < next)
        next = watch;
    int64_t oldest = satin_ledger_oldest_pending(&e->ledger);
    if (oldest != INT64_MAX && oldest + e->cfg.steal_timeout_ns + 1 < next)
        next = oldest + e->cfg.steal_timeout_ns + 1;
    int64_t values = satin_engine_values_deadline(e);
    if (values < next)
        next = values;
    return next;
}

/* ---- the node's own requests ------------------------------------------------ */

int64_t satin_engine_next_tick(const satin_engine *e, int64_t now, int64_t *tick_at)
{
    int64_t d = satin_engine_next_deadline(e);
    if (d == INT64_MAX)
        return -1;
    if (d <= now)
        d = now + 1;
    if (d == *tick_at)
        return -1;
    *tick_at = d;
    return d;
}

void satin_engine_cancel_job(satin_engine *e, int64_t now, const void *job)
{
    e->now = now;
    const void *jobs[1] = {job};
    cancel_given_of(e, jobs, 1);
}

/* ---- stopping and what it is -------------------------------------------------- */

void satin_engine_drain(satin_engine *e)
{
    if (!e->draining)
        satin_engine_say_leaving(e);
    e->draining = 1;
}

int satin_engine_running(const satin_engine *e)
{
    return (int)e->ledger.nstandins;
}

int satin_engine_busy(const satin_engine *e)
{
    return (int)e->ledger.nstandins + (int)e->ledger.npending;
}

int satin_engine_stop(satin_engine *e)
{
    for (size_t i = 0; i < e->ledger.nstandins; i++) {
        satin_standin *s = &e->ledger.standins[i];
        if (s->returned)
            continue;
        if (s->rec && s->owner != e->topo.self && !s->orphan && !s->parked &&
            !satin_engine_peer_unreachable(e, s->owner)) {
            /* Its owner runs it again now, not after our silence: a leave
             * costs the work done here, never the job. */
            satin_msg *m = satin_msg_new(SATIN_MSG_JOB_RESULT);
            m->owner = (uint32_t)s->owner;
            m->record_id = s->record_id;
            m->status = SATIN_STATUS_RETURNED;
            satin_msg_set_error(m, "its holder is leaving");
            satin_engine_send(e, s->owner, m);
            satin_msg_destroy(&m);
            s->returned = 1;
            e->c.records_returned++;
            e->env.cancel(e->env.ctx, s->handle, "given back to its owner: satind is leaving");
            continue;
        }
        e->env.cancel(e->env.ctx, s->handle, "satind is shutting down");
    }
    return (int)e->ledger.nstandins;
}

const satin_policy_ops *satin_engine_policy(const satin_engine *e)
{
    return e->ops;
}

int64_t satin_engine_steal_timeout(const satin_engine *e)
{
    return e->cfg.steal_timeout_ns;
}

int satin_engine_spawn_reserve(const satin_engine *e)
{
    /* RP pushes once a queue is longer than its threshold: spawns must not
     * run in place before the queue can get there. */
    return (e->ops->caps & SATIN_POLICY_PUSHES) ? e->cfg.params.rp_threshold + 2 : 0;
}
