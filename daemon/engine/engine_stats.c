/*
 * engine_stats.c - the node counters and the statistics round: a node that
 * finishes a job asks every peer for its counters at the job's start and
 * end (phase 0 and 1) and sums what they answer; and a view of the grid
 * asks every peer for its status (phase 2), kept per peer until the next.
 * What each counter means is in README.md, "Counters"; the policy adds the
 * few only it can know, as policy.*.
 */
#include "engine_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void satin_engine_counters(const satin_engine *e, satin_kvlist *out)
{
    const satin_engine_tally *c = &e->c;
    satin_kvlist_add_i64(out, "steal_attempts_lan", (int64_t)c->steal_lan);
    satin_kvlist_add_i64(out, "steal_attempts_wan", (int64_t)c->steal_wan);
    satin_kvlist_add_i64(out, "steal_successes_lan", (int64_t)c->steal_ok_lan);
    satin_kvlist_add_i64(out, "steal_successes_wan", (int64_t)c->steal_ok_wan);
    satin_kvlist_add_i64(out, "steal_failures", (int64_t)c->steal_failures);
    satin_kvlist_add_i64(out, "late_replies", (int64_t)c->late_replies);
    satin_kvlist_add_i64(out, "steal_attempts_sync", (int64_t)c->steal_sync);
    satin_kvlist_add_i64(out, "steal_attempts_async", (int64_t)c->steal_async);
    satin_kvlist_add_i64(out, "steal_timeouts", (int64_t)c->steal_timeouts);
    satin_kvlist_add_i64(out, "steal_cancels", (int64_t)c->cancels_sent);
    /* A high-water mark, not a count: meaningful per node (STATUS), not summed. */
    satin_kvlist_add_i64(out, "wan_steals_in_flight_max", (int64_t)c->wan_in_flight_max);
    satin_kvlist_add_i64(out, "requests_served", (int64_t)c->requests_served);
    satin_kvlist_add_i64(out, "requests_forwarded", (int64_t)c->requests_forwarded);
    satin_kvlist_add_i64(out, "steal_cancels_received", (int64_t)c->cancels_received);
    satin_kvlist_add_i64(out, "steal_cancels_forwarded", (int64_t)c->cancels_forwarded);
    satin_kvlist_add_i64(out, "jobs_given", (int64_t)c->jobs_given);
    satin_kvlist_add_i64(out, "jobs_received", (int64_t)c->jobs_received);
    satin_kvlist_add_i64(out, "job_bytes_out", (int64_t)c->bytes_jobs_out);
    satin_kvlist_add_i64(out, "job_bytes_in", (int64_t)c->bytes_jobs_in);
    satin_kvlist_add_i64(out, "results_sent", (int64_t)c->results_sent);
    satin_kvlist_add_i64(out, "results_received", (int64_t)c->results_received);
    satin_kvlist_add_i64(out, "pushes", (int64_t)c->pushes_sent);
    satin_kvlist_add_i64(out, "pushes_received", (int64_t)c->pushes_received);
    satin_kvlist_add_i64(out, "push_acks", (int64_t)c->push_acks);
    satin_kvlist_add_i64(out, "load_reports", (int64_t)c->load_reports);
    satin_kvlist_add_i64(out, "prefetches", (int64_t)c->prefetches);
    satin_kvlist_add_i64(out, "prefetch_successes", (int64_t)c->prefetch_successes);
    satin_kvlist_add_i64(out, "idle_events", (int64_t)c->idle_events);
    satin_kvlist_add_f64(out, "wan_wait_s", (double)c->wan_wait_ns / 1e9);
    satin_kvlist_add_f64(out, "lan_wait_s", (double)c->lan_wait_ns / 1e9);
    satin_kvlist_add_i64(out, "lan_sync_answered", (int64_t)c->lan_sync_answered);
    satin_engine_fault_counters(e, out);
    satin_engine_orphan_counters(e, out);
    satin_engine_values_counters(e, out);
    if (e->env.counters)
        e->env.counters(e->env.ctx, out);
    const char *names[32];
    int64_t values[32];
    int n = e->ops->stats(e->policy, names, values, 32);
    for (int i = 0; i < n; i++) {
        char key[64];
        snprintf(key, sizeof key, "policy.%s", names[i]);
        satin_kvlist_add_i64(out, key, values[i]);
    }
}

void satin_engine_request_stats(satin_engine *e, int64_t now, uint64_t job_id, int phase)
{
    e->now = now;
    for (int node = 0; node < e->topo.nnodes; node++) {
        if (node == e->topo.self || !satin_engine_is_member(e, node))
            continue;
        satin_msg *m = satin_msg_new(SATIN_MSG_STATS_REQUEST);
        m->job_id = job_id;
        m->phase = (uint8_t)phase;
        satin_engine_send(e, node, m);
        satin_msg_destroy(&m);
    }
}

void satin_engine_request_status(satin_engine *e, int64_t now, uint64_t query)
{
    e->now = now;
    int64_t longest = e->cfg.failure_timeout_lan_ns > e->cfg.failure_timeout_wan_ns
                          ? e->cfg.failure_timeout_lan_ns
                          : e->cfg.failure_timeout_wan_ns;
    /* Death comes within 1.25 time-outs of the request; watch a while longer. */
    e->status_watch_until = now + 2 * longest;
    for (int node = 0; node < e->topo.nnodes; node++) {
        if (node == e->topo.self || !satin_engine_is_member(e, node))
            continue;
        satin_engine_peer(e, node)->status_asked = now;
        satin_msg *m = satin_msg_new(SATIN_MSG_STATS_REQUEST);
        m->job_id = query;
        m->phase = SATIN_STATS_PHASE_NODE;
        satin_engine_send(e, node, m);
        satin_msg_destroy(&m);
    }
}

int satin_engine_peer_status(const satin_engine *e, int peer, uint64_t query, satin_kvlist *out,
                             int64_t *at)
{
    if (peer < 0 || peer >= e->nnode_status)
        return 0;
    const satin_collected *c = &e->node_status[peer];
    if (c->phase != SATIN_STATS_PHASE_NODE || c->job_id != query)
        return 0;
    if (out)
        satin_kvlist_copy(out, &c->counters);
    if (at)
        *at = c->at;
    return 1;
}

/* The latest status of the sender replaces the one before: one per peer. */
static void keep_node_status(satin_engine *e, const satin_msg *m)
{
    int node = (int)m->sender;
    if (node >= e->nnode_status) {
        int n = node + 1;
        e->node_status = realloc(e->node_status, (size_t)n * sizeof *e->node_status);
        if (!e->node_status)
            abort();
        memset(e->node_status + e->nnode_status, 0,
               (size_t)(n - e->nnode_status) * sizeof *e->node_status);
        e->nnode_status = n;
    }
    satin_collected *c = &e->node_status[node];
    satin_kvlist_free(&c->counters);
    satin_kvlist_init(&c->counters);
    satin_kvlist_copy(&c->counters, &m->stats);
    c->job_id = m->job_id;
    c->phase = m->phase;
    c->node = node;
    c->at = e->now;
}

void satin_engine_on_stats_request(satin_engine *e, const satin_msg *m)
{
    satin_msg *r = satin_msg_new(SATIN_MSG_STATS_REPLY);
    r->request_id = m->request_id;   /* echoed, as PROTOCOL.md 14.12 says */
    r->job_id = m->job_id;
    r->phase = m->phase;
    if (m->phase == SATIN_STATS_PHASE_NODE) {
        if (e->env.node_status)
            e->env.node_status(e->env.ctx, &r->stats);
        else
            satin_engine_counters(e, &r->stats);
    } else {
        satin_engine_counters(e, &r->stats);
        if ((m->phase & SATIN_STATS_PROFILE) && e->env.profile)
            e->env.profile(e->env.ctx, (int)m->sender, m->job_id,
                           m->phase & SATIN_STATS_PHASE_END, &r->stats);
    }
    satin_engine_send(e, (int)m->sender, r);
    satin_msg_destroy(&r);
    /* Phase 0: a job has just started on the sender, so there is work to
     * steal again; an idle node that backs off need not sleep it out.
     * After the reply, so that the job's statistics count it. */
    if (m->phase != SATIN_STATS_PHASE_NODE && !(m->phase & SATIN_STATS_PHASE_END))
        satin_policy_work_started(e->policy);
}

void satin_engine_on_stats_reply(satin_engine *e, const satin_msg *m)
{
    if (m->phase == SATIN_STATS_PHASE_NODE) {
        keep_node_status(e, m);
        return;
    }
    if (e->ncoll == e->capcoll) {
        e->capcoll = e->capcoll ? e->capcoll * 2 : 16;
        e->coll = realloc(e->coll, e->capcoll * sizeof *e->coll);
        if (!e->coll)
            abort();
    }
    satin_collected *c = &e->coll[e->ncoll++];
    c->job_id = m->job_id;
    c->phase = m->phase & SATIN_STATS_PHASE_END;
    c->node = (int)m->sender;
    satin_kvlist_init(&c->counters);
    satin_kvlist_copy(&c->counters, &m->stats);
}

int satin_engine_collected(const satin_engine *e, uint64_t job_id, int phase, satin_kvlist *out)
{
    int n = 0;
    for (size_t i = 0; i < e->ncoll; i++)
        if (e->coll[i].job_id == job_id && e->coll[i].phase == phase) {
            satin_kvlist_free(&out[e->coll[i].node]);
            satin_kvlist_copy(&out[e->coll[i].node], &e->coll[i].counters);
            n++;
        }
    return n;
}

void satin_engine_forget(satin_engine *e, uint64_t job_id)
{
    for (size_t i = 0; i < e->ncoll;) {
        if (e->coll[i].job_id == job_id) {
            satin_kvlist_free(&e->coll[i].counters);
            e->coll[i] = e->coll[--e->ncoll];
        } else {
            i++;
        }
    }
}

void satin_engine_free_collected(satin_engine *e)
{
    for (size_t i = 0; i < e->ncoll; i++)
        satin_kvlist_free(&e->coll[i].counters);
    free(e->coll);
    e->coll = NULL;
    e->ncoll = e->capcoll = 0;
    for (int i = 0; i < e->nnode_status; i++)
        satin_kvlist_free(&e->node_status[i].counters);
    free(e->node_status);
    e->node_status = NULL;
    e->nnode_status = 0;
}
