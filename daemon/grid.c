/*
 * grid.c - satind's adapter around the node engine (daemon/engine/): it
 * turns peer messages, the pool's dry signal, finished stand-ins and time
 * into engine events, and the engine's actions into messages on the peer
 * transport and calls on the worker pool.  It decides nothing itself.
 */
#include "grid.h"
#include "engine/engine.h"
#include "kinds.h"
#include "latency_hist.h"
#include "peer_kinds.h"
#include "log.h"
#include "satin_digest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>


/* A record of another node running here. */
typedef struct standin {
    satin_mailbox_item item;   /* first: the mailbox hands back this pointer */
    satin_grid *grid;
    satin_job *job;
} standin;

struct satin_grid {
    satin_roster *roster;         /* nodes by slot (roster.h): what the engine numbers */
    satin_policy_config policy;   /* the policy and its tunables */
    int self;
    satin_pool *pool;
    const satin_registry *reg;        /* the tasks other nodes' records may name */
    satin_peer_kinds *kinds;          /* which of them each peer shares */
    satin_mailbox *mailbox;
    satin_peers *peers;
    satin_security *sec;
    int hungry_fd;
    satin_engine *engine;
    satin_log_limit engine_log_limit;
    int64_t *asked;               /* [slot] oldest request unanswered since (see env_send) */
    int nasked;
    uint64_t run;                 /* this run of the node, in its jobs' root places */
    satin_grid_status_fn *status_fn;  /* what a peer asking for our status gets */
    void *status_arg;
    satin_grid_jobs_fn *jobs_fn;      /* JOBS_REQUEST and JOBS_REPLY: the control thread's */
    void *jobs_arg;
    /* The control thread's own share of a steal's round trip: from reading
     * a steal request to its reply sent (policy, taking records, encoding,
     * handing it to ZeroMQ), and from reading a reply to its records
     * started; bench/steal-latency sets them beside the wire's. */
    uint64_t steals_served, replies_taken;
    uint64_t records_refused;   /* records of other nodes whose task refused their argument */
    satin_log_limit refuse_log_limit;
    int64_t serve_ns, take_ns;
    int64_t serve_cpu_ns;         /* of serve_ns, the control thread's CPU time */
    satin_value_decl value_decls[SATIN_VALUES_MAX];   /* env_value_decls' answer */
    /* Each synchronous steal's round trip, inside the cluster and across
     * (the engine's lan_wait_s and wan_wait_s, one by one). */
    satin_latency_hist lan_waits, wan_waits;
};

/* The prefixes of the steals' round-trip buckets among the counters. */
#define SATIN_GRID_LAN_WAIT_HIST "lan_wait_hist"
#define SATIN_GRID_WAN_WAIT_HIST "wan_wait_hist"

/* ---- the engine's environment -------------------------------------------------- */

/* While a profile is recorded: the node's own steal requests, out and back
 * (one it withdraws is back too: no answer will come). */
static void profile_sent(satin_grid *g, int to, const satin_msg *m)
{
    if (m->type == SATIN_MSG_STEAL && (int)m->thief == g->self) {
        const satin_node_def *a = satin_roster_node(g->roster, to);
        const satin_node_def *b = satin_roster_node(g->roster, g->self);
        satin_pool_profile_steal(g->pool, m->request_id, a && b && a->cluster != b->cluster);
    } else if (m->type == SATIN_MSG_STEAL_CANCEL && (int)m->thief == g->self) {
        satin_pool_profile_answered(g->pool, m->steal_id);
    }
}

/* A STATS_REQUEST with the profile bit: phase 0 opens this node's
 * recording of the owner's job, phase 1 sends it back. */
static void env_profile(void *ctx, int owner, uint64_t job_id, int phase, satin_kvlist *out)
{
    satin_grid *g = ctx;
    if (phase == SATIN_STATS_PHASE_START) {
        satin_pool_profile_begin(g->pool, owner, job_id);
        return;
    }
    satin_profile p;
    satin_profile_init(&p);
    if (satin_pool_profile_end(g->pool, owner, job_id, 0, satin_realtime_offset_ns(), &p) == 0) {
        char *text = malloc(SATIN_PROFILE_MAX_TEXT + 1);
        if (!text)
            abort();
        if (satin_profile_encode(&p, text, SATIN_PROFILE_MAX_TEXT + 1) >= 0)
            satin_kvlist_add_str(out, "profile", text);
        free(text);
    }
    satin_profile_free(&p);
}

static void env_send(void *ctx, int to, const satin_msg *m)
{
    satin_grid *g = ctx;
    /* Remember the oldest request the peer has not answered since. */
    if (m->type == SATIN_MSG_STEAL || m->type == SATIN_MSG_STATS_REQUEST ||
        m->type == SATIN_MSG_JOBS_REQUEST) {
        int64_t now = satin_now_ns();
        if (g->asked[to] <= satin_peers_last_heard(g->peers, to))
            g->asked[to] = now;
    }
    if (satin_pool_profiling(g->pool))
        profile_sent(g, to, m);
    satin_peers_send(g->peers, to, (satin_msg *)m);
}

static void env_describe(void *ctx, void *record, satin_engine_record *out)
{
    (void)ctx;
    satin_record *r = record;
    out->record = r;
    out->job = satin_record_job(r);
    out->kind = satin_record_task(r)->name;
    out->arg = satin_record_arg(r, &out->arg_len);
    out->result_cap = satin_record_result_cap(r);
    out->place = satin_record_place(r);
    satin_record_ancestry(r, out->ancestry);
    out->origin = satin_record_origin(r);
}

typedef struct for_peer {
    const satin_peer_kinds *kinds;
    int peer;
} for_peer;

static int peer_accepts(void *arg, const satin_task *task)
{
    const for_peer *f = arg;
    return satin_peer_kinds_accepts(f->kinds, f->peer, task);
}

static int env_take(void *ctx, int peer, satin_engine_record *out, int max, int push)
{
    satin_grid *g = ctx;
    satin_record *recs[SATIN_ENGINE_MAX_JOBS_PER_MESSAGE];
    if (max > SATIN_ENGINE_MAX_JOBS_PER_MESSAGE)
        max = SATIN_ENGINE_MAX_JOBS_PER_MESSAGE;
    /* Only records of kinds the peer runs from the same build as ours. */
    for_peer f = {g->kinds, peer};
    int n = satin_pool_take_for_peer(g->pool, recs, max, push, peer_accepts, &f);
    if (!push && max > 0)
        satin_pool_set_wanted(g->pool, n == 0);
    for (int i = 0; i < n; i++)
        env_describe(g, recs[i], &out[i]);
    return n;
}

static int64_t env_last_heard(void *ctx, int peer)
{
    satin_grid *g = ctx;
    return satin_peers_last_heard(g->peers, peer);
}

static uint64_t env_peer_epoch(void *ctx, int peer)
{
    satin_grid *g = ctx;
    return satin_peers_epoch(g->peers, peer);
}

static void env_complete(void *ctx, void *record, const satin_engine_outcome *o)
{
    (void)ctx;
    satin_record *r = record;
    satin_job_add_counts(satin_record_job(r), o->spawned, o->run, o->steals);
    satin_record_complete(r, o->ok, o->data, o->len, o->error);
}

/* Called on a worker thread: hand the stand-in to the control thread. */
static void standin_done(satin_job *job, void *arg)
{
    (void)job;
    standin *s = arg;
    satin_mailbox_post(s->grid->mailbox, &s->item);
}

/* On the control thread: tell the engine, which sends the result home. */
static void deliver_standin(satin_mailbox_item *item)
{
    standin *s = (standin *)item;
    size_t len;
    const void *res = satin_job_result(s->job, &len);
    uint64_t spawned, run, steals;
    satin_job_counts(s->job, &spawned, &run, &steals);
    satin_engine_outcome o = {
        .ok = !satin_job_failed(s->job),
        .error = satin_job_error(s->job),
        .data = res,
        .len = len,
        .spawned = spawned,
        .run = run,
        .steals = steals,
    };
    satin_engine_on_standin_done(s->grid->engine, satin_now_ns(), s, &o);
    satin_job_destroy(&s->job);
    free(s);
}

static int env_gives_back(void *ctx, int from, const char *kind, char *why, size_t whylen)
{
    satin_grid *g = ctx;
    char reason[200];
    if (!satin_peer_kinds_refuses(g->kinds, from, kind, reason, sizeof reason))
        return 0;
    snprintf(why, whylen, "node %s gives it back: %s", satin_roster_name(g->roster, g->self),
             reason);
    return 1;
}

static void *env_start(void *ctx, const satin_msg_jobrec *jr, const void **job, char *err,
                       size_t errlen)
{
    satin_grid *g = ctx;
    const satin_task *task = satin_registry_task(g->reg, jr->kind);
    if (!task) {
        snprintf(err, errlen, "node %s has no task '%s'", satin_roster_name(g->roster, g->self),
                 jr->kind);
        return NULL;
    }
    /* Argument bytes from another node run only once their task accepts
     * them: a kind trusts what it checked, not what a peer sent. */
    satin_err why = {""};
    if (task->check(jr->arg, jr->arg_len, &why) < 0) {
        g->records_refused++;
        /* At most one line a second: a peer that sends such records
         * cannot flood the log (the counter has them all). */
        satin_log_limited(&g->refuse_log_limit, 1.0, SATIN_LOG_WARN,
                          "refused a %s record of node %s (%zu argument bytes): %s", jr->kind,
                          satin_roster_name(g->roster, (int)jr->owner), jr->arg_len, why.msg);
        snprintf(err, errlen, "node %s refused a %s record: %s",
                 satin_roster_name(g->roster, g->self), jr->kind, why.msg);
        return NULL;
    }
    standin *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    s->item.deliver = deliver_standin;
    s->grid = g;
    s->job = satin_job_new_task(task, jr->arg, jr->arg_len, jr->result_cap);
    satin_job_set_place(s->job, jr->place);
    satin_job_set_remote(s->job);
    satin_job_set_ancestry(s->job, jr->ancestry);
    satin_job_set_origin(s->job, jr->origin);
    satin_job_set_values(s->job, satin_registry_task_values(g->reg, task));
    *job = s->job;
    satin_pool_start(g->pool, s->job, standin_done, s);
    return s;
}

/* The stand-in's job keeps its argument until deliver_standin (or
 * env_release) destroys it, after the engine is done with the stand-in:
 * the engine's ledger refers to it rather than copying it again. */
static const void *env_standin_arg(void *ctx, void *handle)
{
    (void)ctx;
    size_t len;
    return satin_job_arg(((standin *)handle)->job, &len);
}

/* ---- grid-wide values: the pool's copy per origin <-> the engine's ---------------- */

/* The engine's declarations of a kind's values (their joins share numbers:
 * SATIN_LEAST is SATIN_JOIN_MIN, and so on). */
static size_t value_decls_of(const satin_value_def *defs, satin_value_decl *out)
{
    size_t n = 0;
    for (; defs && n < SATIN_VALUES_MAX && defs[n].name; n++) {
        out[n] = (satin_value_decl){.op = (satin_join_op)defs[n].join};
        snprintf(out[n].name, sizeof out[n].name, "%s", defs[n].name);
    }
    return n;
}

static size_t env_value_decls(void *ctx, const void *job, const satin_value_decl **decls)
{
    satin_grid *g = ctx;
    size_t n = value_decls_of(satin_job_value_defs(job), g->value_decls);
    *decls = g->value_decls;
    return n;
}

/* Joins the pool's states v[0..n) of `defs` into the engine's `into`. */
static void join_pool_states(satin_job_values *into, const satin_value_def *defs,
                             const int64_t *v, size_t n)
{
    char err[160];
    for (size_t i = 0; i < n && i < satin_job_values_count(into); i++)
        if (v[i] != satin_value_bottom(defs[i].join))
            satin_job_values_join_i64(into, defs[i].name, (satin_join_op)defs[i].join, v[i], err,
                                      sizeof err);
}

static void env_value_states(void *ctx, uint64_t origin, satin_job_values *into)
{
    satin_grid *g = ctx;
    const satin_value_def *defs;
    int64_t v[SATIN_VALUES_MAX];
    size_t n = satin_pool_values(g->pool, origin, &defs, v, NULL);
    join_pool_states(into, defs, v, n);
}

static void env_values_grew(void *ctx, uint64_t origin, const satin_job_values *vals,
                            uint32_t grew)
{
    satin_grid *g = ctx;
    int64_t v[SATIN_VALUES_MAX] = {0};
    for (size_t i = 0; i < satin_job_values_count(vals) && i < SATIN_VALUES_MAX; i++) {
        const satin_value_state *st = satin_job_values_state(vals, i);
        v[i] = st->set ? st->scalar : satin_value_bottom((int)st->op);
    }
    satin_pool_values_join(g->pool, origin, v, grew);
}

/* News that this node's workers made values of `origin` grow: posted from
 * a worker, handed to the engine on the control thread. */
typedef struct values_news {
    satin_mailbox_item item;   /* first: the mailbox hands back this pointer */
    satin_grid *grid;
    uint64_t origin;
} values_news;

static void deliver_values(satin_mailbox_item *item)
{
    values_news *news = (values_news *)item;
    satin_grid *g = news->grid;
    const satin_value_def *defs;
    int64_t v[SATIN_VALUES_MAX];
    uint32_t grown;
    size_t n = satin_pool_values(g->pool, news->origin, &defs, v, &grown);
    satin_value_decl decls[SATIN_VALUES_MAX];
    char err[160];
    satin_job_values *vals = grown ? satin_job_values_new(decls, value_decls_of(defs, decls), err,
                                                          sizeof err)
                                   : NULL;
    if (vals) {
        join_pool_states(vals, defs, v, n);
        satin_engine_values_grew(g->engine, satin_now_ns(), news->origin, vals, grown);
    }
    satin_job_values_destroy(&vals);
    free(news);
}

static void pool_values_grew(void *arg, uint64_t origin)
{
    satin_grid *g = arg;
    values_news *news = calloc(1, sizeof *news);
    if (!news)
        abort();
    news->item.deliver = deliver_values;
    news->grid = g;
    news->origin = origin;
    satin_mailbox_post(g->mailbox, &news->item);
}

static void env_orphan(void *ctx, int status, int holder, uint64_t origin, uint64_t place,
                       uint64_t digest, const void *data, size_t len, uint64_t runs)
{
    satin_grid *g = ctx;
    if (status == SATIN_ORPHAN_RESULT)
        satin_pool_add_orphan(g->pool, origin, place, digest, data, len, runs);
    else if (status == SATIN_ORPHAN_RUNNING)
        satin_pool_expect_orphan(g->pool, origin, place, digest, holder);
    else
        satin_pool_abandon_orphans(g->pool, holder, place, digest, 0);
}

static void env_promised(void *ctx, void *handle)
{
    (void)ctx;
    standin *s = handle;
    satin_job_set_promised(s->job);
}

static void env_orphans_void(void *ctx, int holder)
{
    satin_grid *g = ctx;
    satin_pool_abandon_orphans(g->pool, holder, 0, 0, 1);
}

static void env_cancel(void *ctx, void *handle, const char *why)
{
    (void)ctx;
    standin *s = handle;
    satin_job_cancel(s->job, why);
}

static int env_job_stopping(void *ctx, const void *job)
{
    (void)ctx;
    return satin_job_stopping(job);
}

static void env_release(void *ctx, void *handle)
{
    (void)ctx;
    standin *s = handle;
    satin_job_destroy(&s->job);
    free(s);
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

static int env_active_jobs(void *ctx)
{
    satin_grid *g = ctx;
    return satin_pool_active_jobs(g->pool);
}



/* The node's counters that are not the engine's: the pool's idle time, the
 * transport's links and delivery, admission and security. */
static void env_counters(void *ctx, satin_kvlist *out)
{
    satin_grid *g = ctx;
    const satin_link_counters *lan = satin_peers_counters(g->peers, 0);
    const satin_link_counters *wan = satin_peers_counters(g->peers, 1);
    satin_kvlist_add_f64(out, "idle_s", satin_pool_idle_seconds(g->pool));
    uint64_t starts;
    double start_wait;
    satin_pool_remote_start_waits(g->pool, &starts, &start_wait);
    satin_kvlist_add_i64(out, "remote_starts", (int64_t)starts);
    satin_kvlist_add_f64(out, "remote_start_wait_s", start_wait);
    satin_kvlist_add_i64(out, "steal_requests_read", (int64_t)g->steals_served);
    satin_kvlist_add_f64(out, "steal_serve_s", (double)g->serve_ns * 1e-9);
    satin_kvlist_add_f64(out, "steal_serve_cpu_s", (double)g->serve_cpu_ns * 1e-9);
    satin_kvlist_add_i64(out, "steal_replies_read", (int64_t)g->replies_taken);
    satin_kvlist_add_i64(out, "records_refused", (int64_t)g->records_refused);
    satin_kvlist_add_f64(out, "steal_reply_take_s", (double)g->take_ns * 1e-9);
    satin_kvlist_add_i64(out, "profile_events", (int64_t)satin_pool_profile_events(g->pool));
    satin_latency_hist_counters(&g->lan_waits, SATIN_GRID_LAN_WAIT_HIST, out);
    satin_latency_hist_counters(&g->wan_waits, SATIN_GRID_WAN_WAIT_HIST, out);
    satin_orphan_stats os;
    satin_pool_expire_orphans(g->pool);
    satin_pool_orphan_stats(g->pool, &os);
    satin_kvlist_add_i64(out, "orphans_held", (int64_t)os.held);
    satin_kvlist_add_i64(out, "orphans_used", (int64_t)os.used);
    satin_kvlist_add_i64(out, "orphans_waited", (int64_t)os.waited);
    satin_kvlist_add_i64(out, "orphan_waits_given_up", (int64_t)os.gave_up);
    satin_kvlist_add_i64(out, "orphan_promises_void", (int64_t)os.abandoned);
    satin_kvlist_add_i64(out, "orphan_runs_saved", (int64_t)os.runs_saved);
    satin_kvlist_add_i64(out, "orphans_expired", (int64_t)(os.expired + os.evicted));
    satin_kvlist_add_i64(out, "msgs_lan", (int64_t)lan->msgs_sent);
    satin_kvlist_add_i64(out, "bytes_lan", (int64_t)lan->bytes_sent);
    satin_kvlist_add_i64(out, "msgs_wan", (int64_t)wan->msgs_sent);
    satin_kvlist_add_i64(out, "bytes_wan", (int64_t)wan->bytes_sent);
    satin_kvlist_add_i64(out, "acks_lan", (int64_t)lan->acks_sent);
    satin_kvlist_add_i64(out, "acks_wan", (int64_t)wan->acks_sent);
    satin_kvlist_add_i64(out, "retransmissions", (int64_t)(lan->retransmissions + wan->retransmissions));
    satin_kvlist_add_i64(out, "send_failures", (int64_t)(lan->send_failures + wan->send_failures));
    satin_kvlist_add_i64(out, "zero_copy_sends",
                         (int64_t)(lan->zero_copy_sends + wan->zero_copy_sends));
    const satin_delivery_counters *dc = satin_peers_delivery(g->peers);
    satin_kvlist_add_i64(out, "duplicates_dropped", (int64_t)dc->duplicates);
    satin_kvlist_add_i64(out, "out_of_order_dropped", (int64_t)dc->out_of_order);
    satin_kvlist_add_i64(out, "peer_restarts", (int64_t)dc->peer_restarts);
    satin_kvlist_add_i64(out, "unacked_max", (int64_t)dc->unacked_max);
    satin_kvlist_add_i64(out, "bad_peer_messages", (int64_t)satin_peers_bad_messages(g->peers));
    satin_kvlist_add_i64(out, "peer_messages_refused",
                         (int64_t)satin_peers_refused_messages(g->peers));
    satin_kvlist_add_i64(out, "peers_heard", satin_peers_alive(g->peers));
    satin_kvlist_add_i64(out, "peer_requests_dropped", (int64_t)satin_peers_rate_dropped(g->peers));
    satin_kvlist_add_i64(out, "connections_refused", (int64_t)satin_security_refused(g->sec));
    const satin_admission *adm = satin_peers_admission(g->peers);
    for (int r = 0; r < SATIN_REJECT_NREASONS; r++) {
        char key[SATIN_KV_NAME_MAX + 1];
        snprintf(key, sizeof key, "rejected.%s", satin_admission_reason_name(r));
        satin_kvlist_add_i64(out, key, (int64_t)satin_admission_count(adm, r));
    }
}

static void env_steal_waited(void *ctx, int wan, int64_t ns)
{
    satin_grid *g = ctx;
    satin_latency_hist_add(wan ? &g->wan_waits : &g->lan_waits, ns);
}

static void env_node_status(void *ctx, satin_kvlist *out)
{
    satin_grid *g = ctx;
    if (g->status_fn)
        g->status_fn(g->status_arg, out);
    else
        satin_engine_counters(g->engine, out);
}

static void env_note_bad(void *ctx, int node, const char *what)
{
    satin_grid *g = ctx;
    satin_peers_note_bad(g->peers, what, node);
}

static void env_log(void *ctx, int level, const char *text)
{
    satin_grid *g = ctx;
    satin_log_level l = (satin_log_level)SATIN_ENGINE_LOG_LEVEL(level);
    /* Warnings come from what peers do (or fail to do): rate-limited, but
     * for the engine's own bounded events (a peer's death, its return). */
    if (l <= SATIN_LOG_WARN && !(level & SATIN_ENGINE_LOG_EVENT))
        satin_log_limited(&g->engine_log_limit, 1.0, l, "%s", text);
    else
        satin_log(l, "%s", text);
}

/* ---- events ---------------------------------------------------------------------- */

static int64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int satin_grid_on_readable(satin_grid *g)
{
    for (int i = 0; i < 256; i++) {
        int bad;
        satin_msg *m = satin_peers_recv(g->peers, &bad);
        if (!m)
            return errno == EAGAIN ? 0 : 1;
        if (m->type == SATIN_MSG_STEAL_REPLY && satin_pool_profiling(g->pool))
            satin_pool_profile_answered(g->pool, m->request_id);
        if (m->type == SATIN_MSG_JOBS_REQUEST || m->type == SATIN_MSG_JOBS_REPLY) {
            if (g->jobs_fn)
                g->jobs_fn(g->jobs_arg, (int)m->sender, m);
            satin_msg_destroy(&m);
            continue;
        }
        int64_t t0 = satin_now_ns();
        /* A steal request's serving, in CPU time too, to tell its own work
         * from waiting for a CPU.  The thread's CPU clock is a system call
         * (1.4 us each on the VM of bench/README.md), read twice per request;
         * about one read falls inside each of the two intervals measured. */
        int64_t c0 = m->type == SATIN_MSG_STEAL ? thread_cpu_ns() : 0;
        satin_engine_on_message(g->engine, t0, m);
        if (m->type == SATIN_MSG_STEAL) {
            g->steals_served++;
            g->serve_ns += satin_now_ns() - t0;
            g->serve_cpu_ns += thread_cpu_ns() - c0;
        } else if (m->type == SATIN_MSG_STEAL_REPLY) {
            g->replies_taken++;
            g->take_ns += satin_now_ns() - t0;
        }
        satin_msg_destroy(&m);
    }
    return 1;
}

void satin_grid_on_hungry(satin_grid *g)
{
    uint64_t n;
    if (read(g->hungry_fd, &n, sizeof n) < 0) {
        /* Spurious: the engine asks the pool whether it is idle. */
    }
    satin_engine_on_dry(g->engine, satin_now_ns());
}

int64_t satin_grid_tick(satin_grid *g, int64_t now, int64_t late_ns)
{
    if (late_ns > 0)
        satin_engine_on_late(g->engine, now, late_ns);
    satin_engine_on_tick(g->engine, now);
    int64_t next = satin_engine_next_deadline(g->engine);
    /* Acknowledgements owed and messages to send again. */
    int64_t delivery = satin_peers_tick(g->peers);
    return delivery < next ? delivery : next;
}

/* ---- what control.c asks --------------------------------------------------------- */

void satin_grid_counters(satin_grid *g, satin_kvlist *out)
{
    satin_engine_counters(g->engine, out);
}

void satin_grid_summarize_waits(const satin_kvlist *counters, const char *prefix,
                                satin_kvlist *out)
{
    char key[SATIN_KV_NAME_MAX + 1];
    for (size_t i = 0; i < counters->n; i++) {
        const satin_kv *kv = &counters->items[i];
        if (satin_latency_hist_is_bucket(kv->name, SATIN_GRID_LAN_WAIT_HIST) ||
            satin_latency_hist_is_bucket(kv->name, SATIN_GRID_WAN_WAIT_HIST))
            continue;
        snprintf(key, sizeof key, "%s%s", prefix, kv->name);
        if (kv->type == SATIN_KV_I64)
            satin_kvlist_add_i64(out, key, kv->i64);
        else if (kv->type == SATIN_KV_F64)
            satin_kvlist_add_f64(out, key, kv->f64);
        else
            satin_kvlist_add_str(out, key, kv->str);
    }
    snprintf(key, sizeof key, "%slan_wait", prefix);
    satin_latency_hist_percentiles(counters, SATIN_GRID_LAN_WAIT_HIST, key, out);
    snprintf(key, sizeof key, "%swan_wait", prefix);
    satin_latency_hist_percentiles(counters, SATIN_GRID_WAN_WAIT_HIST, key, out);
}

void satin_grid_request_stats(satin_grid *g, uint64_t job_id, int phase)
{
    satin_engine_request_stats(g->engine, satin_now_ns(), job_id, phase);
}

int satin_grid_collected(satin_grid *g, uint64_t job_id, int phase, satin_kvlist *out)
{
    return satin_engine_collected(g->engine, job_id, phase, out);
}

void satin_grid_place_job(satin_grid *g, satin_job *job, uint64_t job_id)
{
    uint64_t root = satin_place_root((uint32_t)g->self, g->run, job_id);
    satin_job_set_place(job, root);
    satin_job_set_origin(job, root);
}

void satin_grid_forget(satin_grid *g, uint64_t job_id)
{
    satin_engine_forget(g->engine, job_id);
}

void satin_grid_cancel_job(satin_grid *g, satin_job *job)
{
    satin_engine_cancel_job(g->engine, satin_now_ns(), job);
}

void satin_grid_failure_timeouts(const satin_grid *g, double *lan_ms, double *wan_ms)
{
    int64_t lan, wan;
    satin_engine_failure_timeouts(g->engine, &lan, &wan);
    *lan_ms = (double)lan / 1e6;
    *wan_ms = (double)wan / 1e6;
}

void satin_grid_set_failure_timeouts(satin_grid *g, double lan_ms, double wan_ms)
{
    satin_engine_set_failure_timeouts(g->engine, satin_now_ns(), (int64_t)(lan_ms * 1e6),
                                      (int64_t)(wan_ms * 1e6));
}

int satin_grid_nnodes(const satin_grid *g)
{
    return satin_roster_nslots(g->roster);
}

int satin_grid_is_member(const satin_grid *g, int node)
{
    return satin_roster_index(g->roster, node) >= 0;
}

int satin_grid_self(const satin_grid *g)
{
    return g->self;
}

const char *satin_grid_policy_name(const satin_grid *g)
{
    return satin_engine_policy(g->engine)->name;
}

void satin_grid_kinds_status(const satin_grid *g, char *modules, size_t mlen, char *differ,
                             size_t dlen)
{
    satin_peer_kinds_modules_text(g->kinds, modules, mlen);
    satin_peer_kinds_differ_text(g->kinds, differ, dlen);
}

void satin_grid_peers_status(const satin_grid *g, satin_kvlist *out)
{
    int64_t now = satin_now_ns();
    for (int p = 0; p < satin_roster_nslots(g->roster); p++) {
        if (p == g->self || !satin_grid_is_member(g, p))
            continue;
        int64_t heard;
        satin_peer_state st = satin_engine_peer_state(g->engine, p, &heard);
        char key[96], value[192], ties[96];
        snprintf(key, sizeof key, "peer.%s", satin_roster_name(g->roster, p));
        satin_engine_describe_ties(g->engine, p, ties, sizeof ties);
        if (heard)
            snprintf(value, sizeof value, "%s (heard %.1f s ago)%s", satin_peer_state_name(st),
                     (double)(now - heard) / 1e9, ties);
        else
            snprintf(value, sizeof value, "%s (never heard)%s", satin_peer_state_name(st), ties);
        satin_kvlist_add_str(out, key, value);
    }
}

void satin_grid_set_jobs_handler(satin_grid *g, satin_grid_jobs_fn *fn, void *arg)
{
    g->jobs_fn = fn;
    g->jobs_arg = arg;
}

void satin_grid_send_jobs(satin_grid *g, int node, satin_msg *m)
{
    env_send(g, node, m);
}

void satin_grid_set_status_source(satin_grid *g, satin_grid_status_fn *fn, void *arg)
{
    g->status_fn = fn;
    g->status_arg = arg;
}

void satin_grid_request_status(satin_grid *g, uint64_t query)
{
    satin_engine_request_status(g->engine, satin_now_ns(), query);
}

int satin_grid_peer_status(const satin_grid *g, int node, uint64_t query, satin_kvlist *out)
{
    return satin_engine_peer_status(g->engine, node, query, out, NULL);
}

int satin_grid_slot(const satin_grid *g, int index)
{
    return satin_roster_slot(g->roster, index);
}

void satin_grid_peer_view(const satin_grid *g, int node, satin_grid_view *out)
{
    satin_peer_info pi;
    satin_engine_peer_info(g->engine, node, &pi);
    int64_t now = satin_now_ns();
    *out = (satin_grid_view){
        .state = satin_peer_state_name(pi.state),
        .silent_s = pi.heard ? (double)(now - pi.heard) / 1e9 : -1,
        .dead_s = pi.state == SATIN_PEER_DEAD && pi.died ? (double)(now - pi.died) / 1e9 : -1,
        .leaving = pi.leaving,
    };
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
    satin_engine_drain(g->engine);
}

int satin_grid_unresponsive(const satin_grid *g, int node, int64_t now, int64_t within_ns)
{
    int64_t asked = g->asked[node];
    return asked > satin_peers_last_heard(g->peers, node) && now - asked > within_ns;
}

const char *satin_grid_node_name(const satin_grid *g, int node)
{
    return satin_roster_name(g->roster, node);
}

int satin_grid_node_cluster(const satin_grid *g, int node)
{
    const satin_node_def *d = satin_roster_node(g->roster, node);
    return d ? d->cluster : 0;
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
    return satin_engine_busy(g->engine) +
           (int)satin_peers_unacked(g->peers, satin_engine_steal_timeout(g->engine));
}

int satin_grid_stop(satin_grid *g)
{
    return satin_engine_stop(g->engine);
}

void satin_grid_say_left(satin_grid *g)
{
    satin_engine_say_left(g->engine);
}

int satin_grid_running(const satin_grid *g)
{
    return satin_engine_running(g->engine);
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

/* The membership as the engine sees it, by slot, in arrays it copies:
 * freed by free_policy_topology once the engine has them.  A slot of a
 * node that left is no member; clusters are the current file's. */
static satin_policy_topology policy_topology(const satin_roster *r)
{
    const satin_topology *t = satin_roster_topology(r);
    int n = satin_roster_nslots(r);
    int *cluster_of = calloc((size_t)n, sizeof *cluster_of);
    int *cluster_size = calloc((size_t)t->nclusters, sizeof *cluster_size);
    int **members = calloc((size_t)t->nclusters, sizeof *members);
    if (!cluster_of || !cluster_size || !members)
        abort();
    for (int s = 0; s < n; s++)
        cluster_of[s] = SATIN_POLICY_NOT_MEMBER;
    for (int c = 0; c < t->nclusters; c++) {
        cluster_size[c] = t->clusters[c].nnodes;
        members[c] = calloc((size_t)t->clusters[c].nnodes + 1, sizeof **members);
        if (!members[c])
            abort();
        for (int k = 0; k < t->clusters[c].nnodes; k++) {
            int slot = satin_roster_slot(r, t->clusters[c].first_node + k);
            members[c][k] = slot;
            cluster_of[slot] = c;
        }
    }
    return (satin_policy_topology){
        .nnodes = n,
        .self = satin_roster_self(r),
        .nclusters = t->nclusters,
        .cluster_of = cluster_of,
        .cluster_size = cluster_size,
        .members = (const int *const *)members,
    };
}

static void free_policy_topology(satin_policy_topology *pt)
{
    for (int c = 0; c < pt->nclusters; c++)
        free((void *)pt->members[c]);
    free((void *)pt->members);
    free((void *)pt->cluster_of);
    free((void *)pt->cluster_size);
}

/* Seeded per node and reproducible: the same file gives the same draws. */
static uint64_t node_seed(const satin_topology *topo, int self)
{
    uint64_t seed = 0x9E3779B97F4A7C15ull ^ ((uint64_t)(self + 1) * 0xBF58476D1CE4E5B9ull);
    for (const char *s = topo->name; *s; s++)
        seed = (seed ^ (unsigned char)*s) * 0x100000001B3ull;
    return seed ? seed : 1;
}

static satin_engine *make_engine(satin_grid *g, size_t max_record)
{
    const satin_topology *t = satin_roster_topology(g->roster);
    satin_policy_topology ptopo = policy_topology(g->roster);
    satin_engine_config cfg;
    satin_engine_config_default(&cfg);
    cfg.topo = &ptopo;
    cfg.node_names = satin_roster_names(g->roster);
    cfg.policy = g->policy.ops;
    cfg.params = g->policy.params;
    cfg.seed = node_seed(t, g->self);
    cfg.max_record = max_record;
    /* The engine's levels are the log's (SATIN_ENGINE_LOG_* = SATIN_LOG_*). */
    cfg.log_level = (int)satin_log_get_level();
    cfg.failure_timeout_lan_ns = (int64_t)(t->failure_timeout_lan_ms * 1e6);
    cfg.failure_timeout_wan_ns = (int64_t)(t->failure_timeout_wan_ms * 1e6);
    cfg.orphan_saving = t->orphan_saving;
    satin_engine_env env = {
        .ctx = g,
        .send = env_send,
        .take = env_take,
        .complete = env_complete,
        .start = env_start,
        .gives_back = env_gives_back,
        .standin_arg = env_standin_arg,
        .cancel = env_cancel,
        .release = env_release,
        .job_stopping = env_job_stopping,
        .queue_length = env_queue_length,
        .is_idle = env_is_idle,
        .active_jobs = env_active_jobs,
        .counters = env_counters,
        .node_status = env_node_status,
        .note_bad = env_note_bad,
        .log = env_log,
        .describe = env_describe,
        .last_heard = env_last_heard,
        .peer_epoch = env_peer_epoch,
        .orphan = env_orphan,
        .orphans_void = env_orphans_void,
        .promised = env_promised,
        .profile = env_profile,
        .steal_waited = env_steal_waited,
        .value_decls = env_value_decls,
        .value_states = env_value_states,
        .values_grew = env_values_grew,
    };
    satin_engine *e = satin_engine_new(&cfg, &env, satin_now_ns());
    free_policy_topology(&ptopo);
    return e;
}

static void grow_asked(satin_grid *g)
{
    int n = satin_roster_nslots(g->roster);
    if (n <= g->nasked)
        return;
    g->asked = realloc(g->asked, (size_t)n * sizeof *g->asked);
    if (!g->asked)
        abort();
    memset(g->asked + g->nasked, 0, (size_t)(n - g->nasked) * sizeof *g->asked);
    g->nasked = n;
}

int satin_grid_set_membership(satin_grid *g, satin_topology *next, char *err, size_t errlen)
{
    if (satin_security_set_topology(g->sec, next, err, errlen) < 0) {
        satin_topology_destroy(&next);
        return -1;
    }
    const satin_membership *before = satin_roster_current(g->roster);
    int added = satin_roster_update(g->roster, next);
    grow_asked(g);
    satin_peers_membership_changed(g->peers, before);
    satin_policy_topology ptopo = policy_topology(g->roster);
    int rc = satin_engine_set_members(g->engine, satin_now_ns(), &ptopo,
                                      satin_roster_names(g->roster));
    free_policy_topology(&ptopo);
    if (rc < 0) {
        /* The roster made it: a slot per node, ours kept.  Not reached. */
        snprintf(err, errlen, "the node engine refused the new membership");
        return -1;
    }
    return added;
}

const satin_topology *satin_grid_topology(const satin_grid *g)
{
    return satin_roster_topology(g->roster);
}

satin_grid *satin_grid_new(void *zctx, const satin_topology *topo, int self,
                           const satin_policy_config *policy, satin_pool *pool,
                           const satin_registry *reg, satin_mailbox *mailbox,
                           size_t max_record, satin_security *security, double peer_rate)
{
    satin_grid *g = calloc(1, sizeof *g);
    if (!g)
        abort();
    g->roster = satin_roster_new(topo, self);
    g->self = self;
    g->policy = *policy;
    g->pool = pool;
    g->reg = reg;
    g->mailbox = mailbox;
    g->sec = security;
    g->hungry_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (getrandom(&g->run, sizeof g->run, 0) != (ssize_t)sizeof g->run)
        g->run = (uint64_t)satin_now_ns() ^ ((uint64_t)getpid() << 40);
    grow_asked(g);
    size_t max_message = (size_t)SATIN_ENGINE_MAX_JOBS_PER_MESSAGE * (max_record + 128) + 4096;
    g->peers = satin_peers_new(zctx, g->roster, max_message, security, peer_rate);
    g->kinds = satin_peer_kinds_new(reg);
    if (g->peers)
        satin_peers_set_kinds(g->peers, g->kinds);
    if (!g->peers || g->hungry_fd < 0 || !(g->engine = make_engine(g, max_record))) {
        satin_grid_destroy(&g);
        return NULL;
    }
    int reserve = satin_engine_spawn_reserve(g->engine);
    if (reserve > 0)
        satin_pool_set_spawn_reserve(pool, reserve);
    satin_pool_on_hungry(pool, pool_hungry, g);
    satin_pool_on_values(pool, pool_values_grew, g);
    log_info("node %s (%d of %d, cluster %s) runs policy %s", topo->nodes[self].id, self + 1,
             topo->nnodes, topo->clusters[topo->nodes[self].cluster].name, policy->ops->name);
    return g;
}

void satin_grid_destroy(satin_grid **self)
{
    satin_grid *g = *self;
    if (!g)
        return;
    if (g->pool) {
        satin_pool_on_hungry(g->pool, NULL, NULL);
        satin_pool_on_values(g->pool, NULL, NULL);
    }
    /* Stand-ins still running belong to the pool; the daemon only destroys
     * the grid once the pool drained, and finished ones were delivered. */
    satin_engine_destroy(&g->engine);
    satin_peers_destroy(&g->peers);
    satin_peer_kinds_destroy(&g->kinds);
    if (g->hungry_fd >= 0)
        close(g->hungry_fd);
    free(g->asked);
    satin_roster_destroy(&g->roster);
    free(g);
    *self = NULL;
}
