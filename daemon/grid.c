/*
 * grid.c - this node's part in the grid (see grid.h).
 *
 * Records given away: a record taken from a local tail for another node
 * gets a record id and stays in `given` until its JOB_RESULT comes back;
 * its parent frame waits for it like for a sibling's steal.  Records taken
 * from other nodes run here as stand-in jobs whose result goes back to the
 * owner.  A steal request that gets no reply within STEAL_TIMEOUT counts as
 * an empty reply, so a lost message or a dead peer never stalls a thief.
 */
#include "grid.h"
#include "kinds.h"
#include "log.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define MAX_TIMERS 16
#define STEAL_TIMEOUT_NS 5000000000LL
#define QUEUE_SAMPLE_NS 1000000LL
#define IDLE_RECHECK_NS 2000000LL
#define MAX_JOBS_PER_MESSAGE 64

typedef struct given {
    uint64_t record_id;
    satin_record *r;
    int thief;
} given;

typedef struct standin {
    satin_mailbox_item item;   /* first: the mailbox hands back this pointer */
    satin_grid *grid;
    int owner;
    uint64_t record_id;
    satin_job *job;
    struct standin *next;
} standin;

typedef struct pending_steal {
    uint64_t id;
    int victim;
    unsigned flags;
    int64_t sent_ns;
} pending_steal;

typedef struct collected {
    uint64_t job_id;
    int phase;
    int node;
    satin_kvlist counters;
} collected;

typedef struct counters {
    uint64_t steal_lan, steal_wan, steal_sync, steal_async;
    uint64_t steal_ok_lan, steal_ok_wan;
    uint64_t requests_served, jobs_given, jobs_received, bytes_jobs_out, bytes_jobs_in;
    uint64_t results_sent, results_received, pushes_sent, pushes_received;
    uint64_t load_reports, prefetches, steal_timeouts, idle_events;
    uint64_t wan_in_flight_max;   /* most wide-area steals this node had out at once */
    int64_t wan_wait_ns;
} counters;

struct satin_grid {
    const satin_topology *topo;
    int self;
    satin_pool *pool;
    satin_mailbox *mailbox;
    satin_peers *peers;
    size_t max_record;
    int hungry_fd;

    const satin_policy_ops *ops;
    satin_policy_params params;
    satin_policy *policy;
    satin_policy_env env;
    satin_policy_topology ptopo;
    int *cluster_of, *cluster_size;
    int **members;

    uint64_t rng;
    uint64_t next_request, next_record;
    int64_t timer[MAX_TIMERS];    /* deadline ns, 0 = off */
    int64_t next_sample;
    int64_t last_idle_call;       /* when the policy last heard on_idle or a timer */
    int64_t last_queue_length;

    given *given;
    size_t ngiven, capgiven;
    standin *standins;
    pending_steal *pending;
    size_t npending, cappending;
    collected *coll;
    size_t ncoll, capcoll;
    counters c;
    int draining;                 /* satind is stopping: take no new work */
    satin_security *sec;
};

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return p;
    *cap = *cap ? *cap * 2 : 16;
    void *q = realloc(p, *cap * size);
    if (!q)
        abort();
    return q;
}

static int is_remote(const satin_grid *g, int node)
{
    return g->topo->nodes[node].cluster != g->topo->nodes[g->self].cluster;
}

/* ---- the policy's environment ------------------------------------------------ */

static uint64_t env_steal(void *ctx, int victim, unsigned flags)
{
    satin_grid *g = ctx;
    uint64_t id = g->next_request++;
    /* A stopping node asks for nothing more; the policy waits for a reply
     * that never comes, which is all it needs to do until we exit. */
    if (g->draining)
        return id;
    satin_msg *m = satin_msg_new(SATIN_MSG_STEAL);
    m->request_id = id;
    m->thief = (uint32_t)g->self;
    m->flags = flags;
    m->max_jobs = (uint16_t)g->params.steal_max_jobs;
    satin_peers_send(g->peers, victim, m);
    satin_msg_destroy(&m);
    if (is_remote(g, victim))
        g->c.steal_wan++;
    else
        g->c.steal_lan++;
    if (flags & SATIN_STEAL_SYNC)
        g->c.steal_sync++;
    else
        g->c.steal_async++;
    if (flags & SATIN_STEAL_PREFETCH)
        g->c.prefetches++;
    g->pending = grow(g->pending, &g->cappending, g->npending, sizeof *g->pending);
    g->pending[g->npending++] = (pending_steal){id, victim, flags, satin_now_ns()};
    uint64_t wan = 0;
    for (size_t i = 0; i < g->npending; i++)
        wan += is_remote(g, g->pending[i].victim);
    if (wan > g->c.wan_in_flight_max)
        g->c.wan_in_flight_max = wan;
    return id;
}

static void register_given(satin_grid *g, satin_record *r, uint64_t id, int thief)
{
    g->given = grow(g->given, &g->capgiven, g->ngiven, sizeof *g->given);
    g->given[g->ngiven++] = (given){id, r, thief};
}

/* Appends records taken from local tails to `m` as JOBRECs; returns how many. */
static int attach_jobs(satin_grid *g, satin_msg *m, int thief, int max)
{
    satin_record *recs[MAX_JOBS_PER_MESSAGE];
    if (max > MAX_JOBS_PER_MESSAGE)
        max = MAX_JOBS_PER_MESSAGE;
    int n = satin_pool_take_for_remote(g->pool, recs, max);
    for (int i = 0; i < n; i++) {
        size_t len;
        const void *arg = satin_record_arg(recs[i], &len);
        uint64_t id = g->next_record++;
        satin_msg_add_jobrec(m, (uint32_t)g->self, id,
                             (uint64_t)(uintptr_t)satin_record_job(recs[i]),
                             satin_record_kind(recs[i])->name,
                             (uint32_t)satin_record_result_cap(recs[i]), arg, len);
        register_given(g, recs[i], id, thief);
        g->c.jobs_given++;
        g->c.bytes_jobs_out += len;
    }
    return n;
}

static int env_reply(void *ctx, int thief, uint64_t request_id, unsigned flags, int max_jobs)
{
    satin_grid *g = ctx;
    satin_msg *m = satin_msg_new(SATIN_MSG_STEAL_REPLY);
    m->request_id = request_id;
    m->victim = (uint32_t)g->self;
    int n = attach_jobs(g, m, thief, max_jobs);
    m->flags = flags | (n == 0 && satin_pool_active_jobs(g->pool) > 0 ? SATIN_STEAL_VICTIM_BUSY : 0);
    satin_peers_send(g->peers, thief, m);
    satin_msg_destroy(&m);
    g->c.requests_served++;
    return n;
}

static void env_forward(void *ctx, int to, int thief, uint64_t request_id, unsigned flags)
{
    satin_grid *g = ctx;
    satin_msg *m = satin_msg_new(SATIN_MSG_STEAL);
    m->request_id = request_id;
    m->thief = (uint32_t)thief;
    m->flags = flags | SATIN_STEAL_FORWARDED;
    m->max_jobs = (uint16_t)g->params.steal_max_jobs;
    satin_peers_send(g->peers, to, m);
    satin_msg_destroy(&m);
}

static void env_cancel(void *ctx, int victim, uint64_t request_id)
{
    satin_grid *g = ctx;
    satin_msg *m = satin_msg_new(SATIN_MSG_STEAL_CANCEL);
    m->steal_id = request_id;
    m->thief = (uint32_t)g->self;
    satin_peers_send(g->peers, victim, m);
    satin_msg_destroy(&m);
}

static int env_push(void *ctx, int target)
{
    satin_grid *g = ctx;
    satin_msg *m = satin_msg_new(SATIN_MSG_PUSH);
    int n = attach_jobs(g, m, target, 1);
    if (n)
        satin_peers_send(g->peers, target, m);
    satin_msg_destroy(&m);
    g->c.pushes_sent += (uint64_t)n;
    return n;
}

static void env_send_load(void *ctx, int coordinator, int64_t load)
{
    satin_grid *g = ctx;
    satin_msg *m = satin_msg_new(SATIN_MSG_LOAD);
    m->load = load;
    satin_peers_send(g->peers, coordinator, m);
    satin_msg_destroy(&m);
    g->c.load_reports++;
}

static void env_set_timer(void *ctx, int id, int64_t delay_ns)
{
    satin_grid *g = ctx;
    if (id >= 0 && id < MAX_TIMERS)
        g->timer[id] = satin_now_ns() + (delay_ns > 0 ? delay_ns : 0) + 1;
}

static void env_clear_timer(void *ctx, int id)
{
    satin_grid *g = ctx;
    if (id >= 0 && id < MAX_TIMERS)
        g->timer[id] = 0;
}

static uint64_t env_random(void *ctx)
{
    satin_grid *g = ctx;
    uint64_t x = g->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return g->rng = x;
}

static int64_t env_now(void *ctx)
{
    (void)ctx;
    return satin_now_ns();
}

static int64_t env_queue_length(void *ctx)
{
    satin_grid *g = ctx;
    return satin_pool_queue_length(g->pool);
}

static int env_is_idle(void *ctx)
{
    satin_grid *g = ctx;
    return satin_pool_is_hungry(g->pool);
}

/* ---- jobs that came from other nodes ----------------------------------------- */

static void standin_done(satin_job *job, void *arg)
{
    (void)job;
    standin *s = arg;
    satin_mailbox_post(s->grid->mailbox, &s->item);
}

static void send_job_result(satin_grid *g, int owner, uint64_t record_id, int ok,
                            const char *error, const void *data, size_t len, satin_job *job)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_JOB_RESULT);
    m->owner = (uint32_t)owner;
    m->record_id = record_id;
    m->status = ok ? SATIN_STATUS_OK : SATIN_STATUS_ERROR;
    satin_msg_set_error(m, ok ? "" : error);
    if (ok)
        satin_msg_set_data(m, data, len);
    if (job) {
        uint64_t spawned, run, steals;
        satin_job_counts(job, &spawned, &run, &steals);
        satin_kvlist_add_i64(&m->stats, "jobs_spawned", (int64_t)spawned);
        satin_kvlist_add_i64(&m->stats, "jobs_run", (int64_t)run);
        satin_kvlist_add_i64(&m->stats, "steals_intra", (int64_t)steals);
    }
    satin_peers_send(g->peers, owner, m);
    satin_msg_destroy(&m);
    g->c.results_sent++;
}

/* Starts a JOBREC from another node here; its result goes back by message. */
static void start_standin(satin_grid *g, const satin_msg_jobrec *jr)
{
    const satin_kind *kind = satin_kinds_find(jr->kind);
    if ((int)jr->owner >= g->topo->nnodes || (int)jr->owner == g->self) {
        satin_peers_note_bad(g->peers, "a job record with an impossible owner", -1);
        return;
    }
    if (jr->arg_len > g->max_record || jr->result_cap > g->max_record) {
        satin_peers_note_bad(g->peers, "a job record above the record size limit", (int)jr->owner);
        send_job_result(g, (int)jr->owner, jr->record_id, 0, "job record above the record size limit",
                        NULL, 0, NULL);
        return;
    }
    if (!kind) {
        char err[160];
        snprintf(err, sizeof err, "node %s has no job kind '%s'", g->topo->nodes[g->self].id,
                 jr->kind);
        send_job_result(g, (int)jr->owner, jr->record_id, 0, err, NULL, 0, NULL);
        return;
    }
    standin *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    s->item.type = SATIN_MAIL_STANDIN;
    s->grid = g;
    s->owner = (int)jr->owner;
    s->record_id = jr->record_id;
    s->job = satin_job_new_with_cap(kind, jr->arg, jr->arg_len, jr->result_cap);
    s->next = g->standins;
    g->standins = s;
    g->c.jobs_received++;
    g->c.bytes_jobs_in += jr->arg_len;
    satin_pool_start(g->pool, s->job, standin_done, s);
}

void satin_grid_on_mail(satin_grid *g, satin_mailbox_item *item)
{
    standin *s = (standin *)item;
    size_t len;
    const void *res = satin_job_result(s->job, &len);
    int ok = !satin_job_failed(s->job);
    send_job_result(g, s->owner, s->record_id, ok, satin_job_error(s->job), res, len, s->job);
    for (standin **p = &g->standins; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    satin_job_destroy(&s->job);
    free(s);
}

/* ---- messages from peers -------------------------------------------------------- */

/* The reply to our request `id`, sent by `victim` — which is not the node
 * we asked when the request was forwarded (CHS): request ids are ours and
 * unique, so the id alone says which request this answers. */
static void finish_pending(satin_grid *g, uint64_t id, int victim, int njobs,
                           unsigned reply_flags)
{
    for (size_t i = 0; i < g->npending; i++)
        if (g->pending[i].id == id) {
            pending_steal p = g->pending[i];
            g->pending[i] = g->pending[--g->npending];
            log_debug("steal %" PRIu64 " to node %s answered with %d job(s)", id,
                      g->topo->nodes[victim].id, njobs);
            int wan = is_remote(g, victim);
            if (wan && (p.flags & SATIN_STEAL_SYNC))
                g->c.wan_wait_ns += satin_now_ns() - p.sent_ns;
            if (njobs > 0) {
                if (wan)
                    g->c.steal_ok_wan++;
                else
                    g->c.steal_ok_lan++;
            }
            if (g->ops->on_steal_reply)
                /* The request's flags, plus what the victim said about itself. */
                g->ops->on_steal_reply(g->policy, victim, id, njobs,
                                       p.flags | (reply_flags & SATIN_STEAL_VICTIM_BUSY));
            return;
        }
    /* A reply to a request we no longer wait for (timed out, cancelled):
     * its jobs were started all the same, nothing is lost. */
}

static void on_job_result(satin_grid *g, const satin_msg *m, int from)
{
    for (size_t i = 0; i < g->ngiven; i++) {
        given *gv = &g->given[i];
        if (gv->record_id != m->record_id)
            continue;
        if (gv->thief != from) {
            satin_peers_note_bad(g->peers, "a result for a job given to another node", from);
            return;
        }
        int64_t spawned = 0, run = 0, steals = 0;
        satin_kvlist_i64(&m->stats, "jobs_spawned", &spawned);
        satin_kvlist_i64(&m->stats, "jobs_run", &run);
        satin_kvlist_i64(&m->stats, "steals_intra", &steals);
        satin_job_add_counts(satin_record_job(gv->r), (uint64_t)spawned, (uint64_t)run,
                             (uint64_t)steals);
        satin_record_complete(gv->r, m->status == SATIN_STATUS_OK, m->data, m->data_len,
                              m->error);
        *gv = g->given[--g->ngiven];
        g->c.results_received++;
        if (g->ops->on_result)
            g->ops->on_result(g->policy);
        return;
    }
    satin_peers_note_bad(g->peers, "a result for a job record we never gave away", from);
}

static void on_stats_request(satin_grid *g, const satin_msg *m, int from)
{
    satin_msg *r = satin_msg_new(SATIN_MSG_STATS_REPLY);
    r->job_id = m->job_id;
    r->phase = m->phase;
    satin_grid_counters(g, &r->stats);
    satin_peers_send(g->peers, from, r);
    satin_msg_destroy(&r);
}

static void on_stats_reply(satin_grid *g, const satin_msg *m, int from)
{
    g->coll = grow(g->coll, &g->capcoll, g->ncoll, sizeof *g->coll);
    collected *c = &g->coll[g->ncoll++];
    c->job_id = m->job_id;
    c->phase = m->phase;
    c->node = from;
    satin_kvlist_init(&c->counters);
    satin_kvlist_copy(&c->counters, &m->stats);
}

static void dispatch(satin_grid *g, satin_msg *m)
{
    int from = (int)m->sender;
    switch (m->type) {
    case SATIN_MSG_STEAL:
        if ((int)m->thief >= g->topo->nnodes || (int)m->thief == g->self ||
            ((int)m->thief != from && !(m->flags & SATIN_STEAL_FORWARDED))) {
            satin_peers_note_bad(g->peers, "a steal request for another thief, not forwarded", from);
            break;
        }
        g->ops->on_steal_request(g->policy, from, (int)m->thief, m->request_id, m->flags);
        break;
    case SATIN_MSG_STEAL_REPLY:
        for (size_t i = 0; i < m->njobrecs; i++)
            start_standin(g, &m->jobrecs[i]);
        finish_pending(g, m->request_id, from, (int)m->njobrecs, m->flags);
        break;
    case SATIN_MSG_PUSH: {
        for (size_t i = 0; i < m->njobrecs; i++)
            start_standin(g, &m->jobrecs[i]);
        satin_msg *ack = satin_msg_new(SATIN_MSG_PUSH_ACK);
        ack->record_id = m->njobrecs ? m->jobrecs[0].record_id : 0;
        satin_peers_send(g->peers, from, ack);
        satin_msg_destroy(&ack);
        g->c.pushes_received++;
        if (g->ops->on_push)
            g->ops->on_push(g->policy, from);
        break;
    }
    case SATIN_MSG_PUSH_ACK:
        if (g->ops->on_push_ack)
            g->ops->on_push_ack(g->policy, from);
        break;
    case SATIN_MSG_JOB_RESULT:
        on_job_result(g, m, from);
        break;
    case SATIN_MSG_LOAD:
        if (g->ops->on_load)
            g->ops->on_load(g->policy, from, m->load);
        break;
    case SATIN_MSG_STEAL_CANCEL:
        if (g->ops->on_cancel)
            g->ops->on_cancel(g->policy, (int)m->thief, m->steal_id);
        break;
    case SATIN_MSG_JOB_CANCEL:
        for (size_t i = 0; i < m->nrecord_ids; i++)
            for (standin *s = g->standins; s; s = s->next)
                if (s->owner == from && s->record_id == m->record_ids[i])
                    satin_job_cancel(s->job, "the job was cancelled on its home node");
        break;
    case SATIN_MSG_STATS_REQUEST:
        on_stats_request(g, m, from);
        break;
    case SATIN_MSG_STATS_REPLY:
        on_stats_reply(g, m, from);
        break;
    default:
        break;
    }
}

void satin_grid_on_readable(satin_grid *g)
{
    for (int i = 0; i < 256; i++) {
        int bad;
        satin_msg *m = satin_peers_recv(g->peers, &bad);
        if (!m)
            return;
        dispatch(g, m);
        satin_msg_destroy(&m);
    }
}

void satin_grid_on_hungry(satin_grid *g)
{
    uint64_t n;
    if (read(g->hungry_fd, &n, sizeof n) < 0) {
        /* Spurious: the pool's flag tells. */
    }
    log_debug("node ran dry (hungry %d)", satin_pool_is_hungry(g->pool));
    if (satin_pool_is_hungry(g->pool) && g->ops->on_idle && !g->draining) {
        g->c.idle_events++;
        g->last_idle_call = satin_now_ns();
        g->ops->on_idle(g->policy);
    }
}

/* The dry-node signal is an edge; if it met a moment when the node was not
 * idle after all (a record still queued), the policy heard nothing and would
 * wait for the next edge.  So a node that is dry, has no steal in flight and
 * no timer set (a back-off or a steal ends the wait by itself), re-tells its
 * policy every IDLE_RECHECK_NS - unless the policy waits for work to come
 * (satin_policy_ignore_idle).  1 when that re-check is what the node waits on. */
static int idle_recheck_waits(const satin_grid *g)
{
    if (!g->ops->on_idle || g->ops->on_idle == satin_policy_ignore_idle || g->draining ||
        g->npending)
        return 0;
    for (int id = 0; id < MAX_TIMERS; id++)
        if (g->timer[id])
            return 0;
    return satin_pool_is_hungry(g->pool);
}

long satin_grid_on_tick(satin_grid *g, long cap_ms)
{
    int64_t now = satin_now_ns();
    for (int id = 0; id < MAX_TIMERS; id++)
        if (g->timer[id] && g->timer[id] <= now && !g->draining) {
            g->timer[id] = 0;
            g->last_idle_call = now;
            if (g->ops->on_timer)
                g->ops->on_timer(g->policy, id);
        }
    if (idle_recheck_waits(g) && now - g->last_idle_call > IDLE_RECHECK_NS) {
        g->last_idle_call = now;
        g->c.idle_events++;
        g->ops->on_idle(g->policy);
    }
    for (size_t i = 0; i < g->npending;) {
        if (now - g->pending[i].sent_ns > STEAL_TIMEOUT_NS) {
            g->c.steal_timeouts++;
            log_warn("steal request %" PRIu64 " to node %s got no reply; counted as empty",
                     g->pending[i].id, g->topo->nodes[g->pending[i].victim].id);
            finish_pending(g, g->pending[i].id, g->pending[i].victim, 0, 0);
        } else {
            i++;
        }
    }
    /* Queues only change while jobs run; an idle node reports its last
     * length (0) once and then sleeps. */
    int sampling = g->ops->on_queue_length != satin_policy_ignore_queue_length &&
                   (satin_pool_active_jobs(g->pool) > 0 || g->last_queue_length != 0);
    if (sampling && now >= g->next_sample) {
        g->next_sample = now + QUEUE_SAMPLE_NS;
        int64_t len = satin_pool_queue_length(g->pool);
        if (len != g->last_queue_length && g->ops->on_queue_length) {
            g->last_queue_length = len;
            g->ops->on_queue_length(g->policy, len);
        }
    }
    int64_t next = now + (int64_t)cap_ms * 1000000;
    for (int id = 0; id < MAX_TIMERS && !g->draining; id++)
        if (g->timer[id] && g->timer[id] < next)
            next = g->timer[id];
    if (sampling && g->next_sample < next)
        next = g->next_sample;
    if (idle_recheck_waits(g) && g->last_idle_call + IDLE_RECHECK_NS < next)
        next = g->last_idle_call + IDLE_RECHECK_NS + 1;
    /* Acknowledgements owed and messages to send again. */
    int64_t delivery = satin_peers_tick(g->peers);
    if (delivery < next)
        next = delivery;
    long ms = (long)((next - now + 999999) / 1000000);
    return ms < 0 ? 0 : ms;
}

/* ---- statistics -------------------------------------------------------------------- */

void satin_grid_counters(satin_grid *g, satin_kvlist *out)
{
    const counters *c = &g->c;
    const satin_link_counters *lan = satin_peers_counters(g->peers, 0);
    const satin_link_counters *wan = satin_peers_counters(g->peers, 1);
    satin_kvlist_add_i64(out, "steal_attempts_lan", (int64_t)c->steal_lan);
    satin_kvlist_add_i64(out, "steal_attempts_wan", (int64_t)c->steal_wan);
    satin_kvlist_add_i64(out, "steal_successes_lan", (int64_t)c->steal_ok_lan);
    satin_kvlist_add_i64(out, "steal_successes_wan", (int64_t)c->steal_ok_wan);
    satin_kvlist_add_i64(out, "steal_attempts_sync", (int64_t)c->steal_sync);
    satin_kvlist_add_i64(out, "steal_attempts_async", (int64_t)c->steal_async);
    satin_kvlist_add_i64(out, "steal_timeouts", (int64_t)c->steal_timeouts);
    /* A high-water mark, not a count: meaningful per node (STATUS), not summed. */
    satin_kvlist_add_i64(out, "wan_steals_in_flight_max", (int64_t)c->wan_in_flight_max);
    satin_kvlist_add_i64(out, "requests_served", (int64_t)c->requests_served);
    satin_kvlist_add_i64(out, "jobs_given", (int64_t)c->jobs_given);
    satin_kvlist_add_i64(out, "jobs_received", (int64_t)c->jobs_received);
    satin_kvlist_add_i64(out, "job_bytes_out", (int64_t)c->bytes_jobs_out);
    satin_kvlist_add_i64(out, "job_bytes_in", (int64_t)c->bytes_jobs_in);
    satin_kvlist_add_i64(out, "results_sent", (int64_t)c->results_sent);
    satin_kvlist_add_i64(out, "pushes", (int64_t)c->pushes_sent);
    satin_kvlist_add_i64(out, "load_reports", (int64_t)c->load_reports);
    satin_kvlist_add_i64(out, "prefetches", (int64_t)c->prefetches);
    satin_kvlist_add_i64(out, "idle_events", (int64_t)c->idle_events);
    satin_kvlist_add_f64(out, "wan_wait_s", (double)c->wan_wait_ns / 1e9);
    satin_kvlist_add_f64(out, "idle_s", satin_pool_idle_seconds(g->pool));
    satin_kvlist_add_i64(out, "msgs_lan", (int64_t)lan->msgs_sent);
    satin_kvlist_add_i64(out, "bytes_lan", (int64_t)lan->bytes_sent);
    satin_kvlist_add_i64(out, "msgs_wan", (int64_t)wan->msgs_sent);
    satin_kvlist_add_i64(out, "bytes_wan", (int64_t)wan->bytes_sent);
    satin_kvlist_add_i64(out, "acks_lan", (int64_t)lan->acks_sent);
    satin_kvlist_add_i64(out, "acks_wan", (int64_t)wan->acks_sent);
    satin_kvlist_add_i64(out, "retransmissions", (int64_t)(lan->retransmissions + wan->retransmissions));
    satin_kvlist_add_i64(out, "send_failures", (int64_t)(lan->send_failures + wan->send_failures));
    const satin_delivery_counters *dc = satin_peers_delivery(g->peers);
    satin_kvlist_add_i64(out, "duplicates_dropped", (int64_t)dc->duplicates);
    satin_kvlist_add_i64(out, "out_of_order_dropped", (int64_t)dc->out_of_order);
    satin_kvlist_add_i64(out, "peer_restarts", (int64_t)dc->peer_restarts);
    satin_kvlist_add_i64(out, "unacked_max", (int64_t)dc->unacked_max);
    satin_kvlist_add_i64(out, "bad_peer_messages", (int64_t)satin_peers_bad_messages(g->peers));
    satin_kvlist_add_i64(out, "peers_heard", satin_peers_alive(g->peers));
    satin_kvlist_add_i64(out, "peer_requests_dropped", (int64_t)satin_peers_rate_dropped(g->peers));
    satin_kvlist_add_i64(out, "connections_refused", (int64_t)satin_security_refused(g->sec));
    const char *names[32];
    int64_t values[32];
    int n = g->ops->stats ? g->ops->stats(g->policy, names, values, 32) : 0;
    for (int i = 0; i < n; i++) {
        char key[64];
        snprintf(key, sizeof key, "policy.%s", names[i]);
        satin_kvlist_add_i64(out, key, values[i]);
    }
}

void satin_grid_request_stats(satin_grid *g, uint64_t job_id, int phase)
{
    for (int node = 0; node < g->topo->nnodes; node++) {
        if (node == g->self)
            continue;
        satin_msg *m = satin_msg_new(SATIN_MSG_STATS_REQUEST);
        m->job_id = job_id;
        m->phase = (uint8_t)phase;
        satin_peers_send(g->peers, node, m);
        satin_msg_destroy(&m);
    }
}

int satin_grid_collected(satin_grid *g, uint64_t job_id, int phase, satin_kvlist *out)
{
    int n = 0;
    for (size_t i = 0; i < g->ncoll; i++)
        if (g->coll[i].job_id == job_id && g->coll[i].phase == phase) {
            satin_kvlist_free(&out[g->coll[i].node]);
            satin_kvlist_copy(&out[g->coll[i].node], &g->coll[i].counters);
            n++;
        }
    return n;
}

void satin_grid_forget(satin_grid *g, uint64_t job_id)
{
    for (size_t i = 0; i < g->ncoll;) {
        if (g->coll[i].job_id == job_id) {
            satin_kvlist_free(&g->coll[i].counters);
            g->coll[i] = g->coll[--g->ncoll];
        } else {
            i++;
        }
    }
}

void satin_grid_cancel_job(satin_grid *g, satin_job *job)
{
    for (int node = 0; node < g->topo->nnodes; node++) {
        satin_msg *m = NULL;
        for (size_t i = 0; i < g->ngiven; i++)
            if (g->given[i].thief == node && satin_record_job(g->given[i].r) == job) {
                if (!m) {
                    m = satin_msg_new(SATIN_MSG_JOB_CANCEL);
                    m->owner = (uint32_t)g->self;
                }
                satin_msg_add_record_id(m, g->given[i].record_id);
            }
        if (m) {
            satin_peers_send(g->peers, node, m);
            satin_msg_destroy(&m);
        }
    }
}

int satin_grid_nnodes(const satin_grid *g)
{
    return g->topo->nnodes;
}

int satin_grid_self(const satin_grid *g)
{
    return g->self;
}

const char *satin_grid_policy_name(const satin_grid *g)
{
    return g->ops->name;
}

/* ---- life ---------------------------------------------------------------------------- */

static void pool_hungry(void *arg)
{
    satin_grid *g = arg;
    uint64_t one = 1;
    if (write(g->hungry_fd, &one, sizeof one) < 0) {
        /* Saturated counter: it is ringing already. */
    }
}

static void build_policy_topology(satin_grid *g)
{
    const satin_topology *t = g->topo;
    g->cluster_of = calloc((size_t)t->nnodes, sizeof *g->cluster_of);
    g->cluster_size = calloc((size_t)t->nclusters, sizeof *g->cluster_size);
    g->members = calloc((size_t)t->nclusters, sizeof *g->members);
    if (!g->cluster_of || !g->cluster_size || !g->members)
        abort();
    for (int c = 0; c < t->nclusters; c++) {
        g->cluster_size[c] = t->clusters[c].nnodes;
        g->members[c] = calloc((size_t)t->clusters[c].nnodes, sizeof **g->members);
        if (!g->members[c])
            abort();
        for (int k = 0; k < t->clusters[c].nnodes; k++) {
            int node = t->clusters[c].first_node + k;
            g->members[c][k] = node;
            g->cluster_of[node] = c;
        }
    }
    g->ptopo = (satin_policy_topology){
        .nnodes = t->nnodes,
        .self = g->self,
        .nclusters = t->nclusters,
        .cluster_of = g->cluster_of,
        .cluster_size = g->cluster_size,
        .members = (const int *const *)g->members,
    };
}

satin_grid *satin_grid_new(void *zctx, const satin_topology *topo, int self,
                           const char *policy, satin_pool *pool, satin_mailbox *mailbox,
                           size_t max_record, satin_security *security, double peer_rate)
{
    const satin_policy_ops *ops = satin_policy_find(policy);
    if (!ops) {
        log_error("unknown policy '%s' (expected rs, rp, chs, cls, crs)", policy);
        return NULL;
    }
    satin_grid *g = calloc(1, sizeof *g);
    if (!g)
        abort();
    g->topo = topo;
    g->self = self;
    g->pool = pool;
    g->mailbox = mailbox;
    g->max_record = max_record;
    g->sec = security;
    g->ops = ops;
    g->params = topo->params;
    g->next_request = 1;
    g->next_record = 1;
    /* Seeded per node and reproducible: the same file gives the same draws. */
    g->rng = 0x9E3779B97F4A7C15ull ^ ((uint64_t)(self + 1) * 0xBF58476D1CE4E5B9ull);
    for (const char *s = topo->name; *s; s++)
        g->rng = (g->rng ^ (unsigned char)*s) * 0x100000001B3ull;
    if (!g->rng)
        g->rng = 1;
    g->hungry_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    size_t max_message = (size_t)MAX_JOBS_PER_MESSAGE * (max_record + 128) + 4096;
    g->peers = satin_peers_new(zctx, topo, self, max_message, security, peer_rate);
    if (!g->peers || g->hungry_fd < 0) {
        satin_grid_destroy(&g);
        return NULL;
    }
    build_policy_topology(g);
    g->env = (satin_policy_env){
        .ctx = g,
        .steal = env_steal,
        .reply = env_reply,
        .forward = env_forward,
        .cancel = env_cancel,
        .push = env_push,
        .send_load = env_send_load,
        .set_timer = env_set_timer,
        .clear_timer = env_clear_timer,
        .random = env_random,
        .now = env_now,
        .queue_length = env_queue_length,
        .is_idle = env_is_idle,
    };
    g->policy = ops->create(&g->ptopo, &g->params, &g->env);
    /* RP pushes once a queue is longer than its threshold: spawns must not
     * run in place before the queue can get there. */
    if (ops == &satin_policy_rp)
        satin_pool_set_spawn_reserve(pool, g->params.rp_threshold + 2);
    satin_pool_on_hungry(pool, pool_hungry, g);
    log_info("node %s (%d of %d, cluster %s) runs policy %s", topo->nodes[self].id, self + 1,
             topo->nnodes, topo->clusters[topo->nodes[self].cluster].name, ops->name);
    return g;
}

void satin_grid_destroy(satin_grid **self)
{
    satin_grid *g = *self;
    if (!g)
        return;
    if (g->pool)
        satin_pool_on_hungry(g->pool, NULL, NULL);
    if (g->policy)
        g->ops->destroy(g->policy);
    satin_peers_destroy(&g->peers);
    if (g->hungry_fd >= 0)
        close(g->hungry_fd);
    for (int c = 0; g->members && c < g->topo->nclusters; c++)
        free(g->members[c]);
    free(g->members);
    free(g->cluster_of);
    free(g->cluster_size);
    for (size_t i = 0; i < g->ncoll; i++)
        satin_kvlist_free(&g->coll[i].counters);
    free(g->coll);
    free(g->given);
    free(g->pending);
    /* Stand-ins still running belong to the pool; the daemon only destroys
     * the grid once the pool drained. */
    while (g->standins) {
        standin *s = g->standins;
        g->standins = s->next;
        satin_job_destroy(&s->job);
        free(s);
    }
    free(g);
    *self = NULL;
}

void *satin_grid_socket(satin_grid *g)
{
    return satin_peers_socket(g->peers);
}

int satin_grid_hungry_fd(satin_grid *g)
{
    return g->hungry_fd;
}

void satin_grid_drain(satin_grid *g)
{
    g->draining = 1;
}

int satin_grid_peers_heard(const satin_grid *g)
{
    return satin_peers_alive(g->peers);
}

int satin_grid_busy(const satin_grid *g)
{
    /* Results and records not yet acknowledged count: leaving before the
     * peer has them could lose them.  Not for a peer silent for the steal
     * timeout: it may be gone, and waiting for it would hold the stop. */
    return satin_grid_running(g) + (int)g->npending +
           (int)satin_peers_unacked(g->peers, STEAL_TIMEOUT_NS);
}

int satin_grid_stop(satin_grid *g)
{
    int n = 0;
    for (standin *s = g->standins; s; s = s->next, n++)
        satin_job_cancel(s->job, "satind is shutting down");
    return n;
}

int satin_grid_running(const satin_grid *g)
{
    int n = 0;
    for (const standin *s = g->standins; s; s = s->next)
        n++;
    return n;
}
