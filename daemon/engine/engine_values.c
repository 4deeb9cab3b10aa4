/*
 * engine_values.c - a job's grid-wide values between nodes (PROTOCOL.md
 * 14.22): which nodes are the job's neighbours here, VALUES messages out
 * when something grew, and updates in, joined or refused.
 *
 * The neighbours of a job are the nodes the ledger ties to it: holders of
 * its records given away, owners of its records run here.  That graph is
 * connected while the job runs (a record waits for the records it gave
 * away, so a thief's thief is reached through the thief), which is why a
 * flood over it reaches every node that runs the job.  The engine keeps
 * an entry per job only while the ledger ties it to some peer; the
 * driver's own copy (the one its workers read) is the job's state between
 * such times, and seeds an entry when one opens again (env.value_states).
 *
 * A node that gets a record of the job gets the values with it: linking a
 * new neighbour makes every value that holds something pending for it (a
 * known one has them already and hears what grows, so records that follow
 * cost no message of values),
 * and the flush after each engine call sends them right behind the
 * STEAL_REPLY or PUSH that carried the record (one connection keeps its
 * order, so they arrive after the record's stand-in was made).
 */
#include "engine_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* How often entries are checked against the ledger (neighbours gone,
 * jobs no longer tied to any peer). */
#define SATIN_ENGINE_VALUES_SWEEP_NS 1000000000LL

static satin_values_entry *find(const satin_engine *e, uint64_t origin)
{
    for (size_t i = 0; i < e->nvalues; i++)
        if (e->values[i].origin == origin)
            return &e->values[i];
    return NULL;
}

static uint32_t holding(const satin_job_values *v)
{
    uint32_t mask = 0;
    for (size_t i = 0; i < satin_job_values_count(v); i++) {
        const satin_value_state *s = satin_job_values_state(v, i);
        if (s->set || s->n || s->scalar)
            mask |= 1u << i;
    }
    return mask;
}

static void close_entry(satin_engine *e, size_t i)
{
    satin_job_values_destroy(&e->values[i].vals);
    satin_value_spread_destroy(&e->values[i].spread);
    e->values[i] = e->values[--e->nvalues];
}

/* The entry of `origin`, opened from the job's declarations when it has
 * none; NULL when the job declares no values. */
static satin_values_entry *open_entry(satin_engine *e, uint64_t origin, const void *job)
{
    satin_values_entry *x = find(e, origin);
    if (x || !e->env.value_decls)
        return x;
    const satin_value_decl *decls = NULL;
    size_t n = e->env.value_decls(e->env.ctx, job, &decls);
    if (n == 0)
        return NULL;
    char err[160];
    satin_job_values *vals = satin_job_values_new(decls, n, err, sizeof err);
    satin_value_spread *spread = satin_value_spread_new(e->cfg.values_wan_interval_ns);
    if (!vals || !spread) {
        satin_engine_logf(e, SATIN_ENGINE_LOG_WARN, "the grid-wide values of job %016" PRIx64
                          " are not shared: %s", origin, vals ? "out of memory" : err);
        satin_job_values_destroy(&vals);
        satin_value_spread_destroy(&spread);
        return NULL;
    }
    if (e->env.value_states)
        e->env.value_states(e->env.ctx, origin, vals);
    if (e->nvalues == e->capvalues) {
        e->capvalues = e->capvalues ? e->capvalues * 2 : 4;
        e->values = realloc(e->values, e->capvalues * sizeof *e->values);
        if (!e->values)
            abort();
    }
    x = &e->values[e->nvalues++];
    *x = (satin_values_entry){.origin = origin, .vals = vals, .spread = spread};
    if (e->next_values_sweep <= e->now)
        e->next_values_sweep = e->now + SATIN_ENGINE_VALUES_SWEEP_NS;
    return x;
}

void satin_engine_values_link(satin_engine *e, uint64_t origin, const void *job, int peer)
{
    satin_values_entry *x = open_entry(e, origin, job);
    if (x && satin_value_spread_link(x->spread, peer, satin_engine_is_remote(e, peer),
                                     holding(x->vals)) < 0)
        abort();
}

static void send_values(satin_engine *e, const satin_values_entry *x, int peer, uint32_t mask)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_VALUES);
    m->origin = x->origin;
    for (size_t i = 0; i < satin_job_values_count(x->vals); i++) {
        if (!(mask & (1u << i)))
            continue;
        const satin_value_state *s = satin_job_values_state(x->vals, i);
        satin_msg_add_value(m, satin_job_values_decl(x->vals, i)->name, (uint8_t)s->op,
                            (uint8_t)s->set, s->scalar, s->elems, s->n);
    }
    satin_engine_send(e, peer, m);
    satin_msg_destroy(&m);
    e->c.values_sent++;
    if (satin_engine_is_remote(e, peer))
        e->c.values_sent_wan++;
}

void satin_engine_values_flush(satin_engine *e)
{
    for (size_t i = 0; i < e->nvalues; i++) {
        int peer;
        uint32_t mask;
        while (satin_value_spread_next(e->values[i].spread, e->now, &peer, &mask))
            if (!satin_engine_peer_unreachable(e, peer))
                send_values(e, &e->values[i], peer, mask);
    }
}

void satin_engine_values_grew(satin_engine *e, int64_t now, uint64_t origin,
                              const satin_job_values *vals, uint32_t grew)
{
    e->now = now;
    satin_values_entry *x = find(e, origin);
    if (!x)
        return;   /* no neighbour yet: a record that leaves takes the driver's states */
    uint32_t mask = 0;
    for (size_t i = 0; i < satin_job_values_count(x->vals) && i < satin_job_values_count(vals); i++) {
        if (!(grew & (1u << i)))
            continue;
        char err[160];
        int r = satin_job_values_join(x->vals, satin_job_values_decl(x->vals, i)->name,
                                      satin_job_values_state(vals, i), err, sizeof err);
        if (r > 0)
            mask |= 1u << i;
    }
    satin_value_spread_grew(x->spread, mask, -1);
    satin_engine_values_flush(e);
}

void satin_engine_on_values(satin_engine *e, const satin_msg *m)
{
    e->c.values_received++;
    satin_values_entry *x = find(e, m->origin);
    if (!x) {
        e->c.values_late++;   /* the job no longer runs here (or never did) */
        return;
    }
    uint32_t grew = 0;
    for (size_t i = 0; i < m->nvalues; i++) {
        const satin_msg_value *v = &m->values[i];
        satin_value_state u = {.op = (satin_join_op)v->op, .set = v->set, .scalar = v->scalar,
                               .elems = v->elems, .n = v->nelems};
        char err[200];
        int r = satin_job_values_join(x->vals, v->name, &u, err, sizeof err);
        if (r < 0) {
            e->c.values_refused++;
            if (!x->refused_logged) {
                x->refused_logged = 1;
                satin_engine_logf(e, SATIN_ENGINE_LOG_WARN | SATIN_ENGINE_LOG_EVENT,
                                  "refused a value update of job %016" PRIx64 " from node %s: %s "
                                  "(logged once per job; counted as values_refused)",
                                  m->origin, satin_engine_node_name(e, (int)m->sender), err);
            }
            continue;
        }
        if (r > 0)
            grew |= 1u << satin_job_values_find(x->vals, v->name);
    }
    if (!grew)
        return;
    e->c.values_grown++;
    if (e->env.values_grew)
        e->env.values_grew(e->env.ctx, x->origin, x->vals, grew);
    satin_value_spread_grew(x->spread, grew, (int)m->sender);
}

/* Entries against the ledger: a neighbour with no record of the job tied
 * to this node any more is unlinked, a job tied to none is closed.  A
 * neighbour still owed a wide-area message keeps its link until it has
 * had it: its last record's result may have left before the values its
 * run made grew (the owner of a job hears the best bound found). */
static void sweep(satin_engine *e)
{
    for (size_t i = e->nvalues; i-- > 0;) {
        satin_values_entry *x = &e->values[i];
        int tied = 0;
        for (size_t k = satin_value_spread_links(x->spread); k-- > 0;) {
            int peer = satin_value_spread_peer(x->spread, k), still = 0;
            for (size_t g = 0; g < e->ledger.ngiven && !still; g++)
                still = e->ledger.given[g].origin == x->origin && e->ledger.given[g].holder == peer;
            for (size_t s = 0; s < e->ledger.nstandins && !still; s++) {
                const satin_standin *st = &e->ledger.standins[s];
                still = st->rec && st->rec->origin == x->origin && st->owner == peer;
            }
            if (still || satin_value_spread_pending(x->spread, peer))
                tied = 1;
            else
                satin_value_spread_unlink(x->spread, peer);
        }
        if (!tied)
            close_entry(e, i);
    }
}

void satin_engine_values_tick(satin_engine *e)
{
    if (e->nvalues && e->now >= e->next_values_sweep) {
        e->next_values_sweep = e->now + SATIN_ENGINE_VALUES_SWEEP_NS;
        sweep(e);
    }
    satin_engine_values_flush(e);
}

int64_t satin_engine_values_deadline(const satin_engine *e)
{
    if (!e->nvalues)
        return INT64_MAX;
    int64_t next = e->next_values_sweep;
    for (size_t i = 0; i < e->nvalues; i++) {
        int64_t d = satin_value_spread_deadline(e->values[i].spread, e->now);
        if (d < next)
            next = d;
    }
    return next;
}

size_t satin_engine_values_jobs(const satin_engine *e)
{
    return e->nvalues;
}

void satin_engine_values_free(satin_engine *e)
{
    while (e->nvalues)
        close_entry(e, e->nvalues - 1);
    free(e->values);
    e->values = NULL;
    e->capvalues = 0;
}

void satin_engine_values_counters(const satin_engine *e, satin_kvlist *out)
{
    const satin_engine_tally *c = &e->c;
    satin_kvlist_add_i64(out, "values_sent", (int64_t)c->values_sent);
    satin_kvlist_add_i64(out, "values_sent_wan", (int64_t)c->values_sent_wan);
    satin_kvlist_add_i64(out, "values_received", (int64_t)c->values_received);
    satin_kvlist_add_i64(out, "values_grown", (int64_t)c->values_grown);
    satin_kvlist_add_i64(out, "values_refused", (int64_t)c->values_refused);
    satin_kvlist_add_i64(out, "values_late", (int64_t)c->values_late);
}
