/*
 * engine_orphans.c - orphan saving: results of records whose owner died
 * are not thrown away but told to every live node, so that the re-run of
 * the dead owner's record (engine_faults.c, "redo"), wherever its parts
 * run, takes them instead of computing them again (PROTOCOL.md 14.12b).
 *
 * Two kinds of result are orphans: one that is ready while its owner is
 * dead (its stand-in ran on: engine_faults.c no longer stops it), and one
 * sent to the owner shortly before it died (the owner may never have used
 * it, and whatever it built from it died with it).  For the second, the
 * engine keeps a short log of the results it sent.
 *
 * A record still running when its owner dies is promised at once (ORPHAN
 * with status RUNNING): a re-run that reaches it waits for its result
 * instead of computing it a second time.  If it ends without a result the
 * promise is withdrawn (GONE), and when this node dies its promises are
 * void by that alone.
 */
#include "engine_internal.h"
#include "satin_digest.h"

#include <stdlib.h>
#include <string.h>

/* A promise not kept nor withdrawn in this long is forgotten (the pool's
 * table forgets it at the same age: SATIN_ORPHAN_TTL_NS). */
#define PROMISE_AGE_NS (600LL * 1000000000LL)

/* Results sent, kept this long (at least) in case their owner turns out
 * dead: a few failure time-outs; and at most this many bytes of them (the
 * oldest go first), whatever the records' result sizes. */
#define SENT_LOG_MIN_AGE_NS (60LL * 1000000000LL)
#define SENT_LOG_MAX_BYTES ((size_t)16 << 20)

static void entry_free(satin_engine *e, satin_sent_result *r)
{
    e->sentlog_bytes -= r->kind ? r->len : 0;
    free(r->kind);
    free(r->data);
    memset(r, 0, sizeof *r);
}

void satin_engine_orphans_free(satin_engine *e)
{
    for (size_t i = 0; i < e->nsentlog; i++)
        entry_free(e, &e->sentlog[(e->sentlog_head + i) % SATIN_ENGINE_SENT_LOG]);
    free(e->sentlog);
    e->sentlog = NULL;
    e->nsentlog = 0;
    free(e->promises);
    e->promises = NULL;
    e->npromises = 0;
}

/* Forgets the promises of `holder` for (place, digest), or all of its
 * promises (all), or every promise older than PROMISE_AGE_NS (holder -1). */
static void forget_promises(satin_engine *e, int holder, uint64_t place, uint64_t digest, int all)
{
    size_t i = 0;
    while (i < e->npromises) {
        const satin_promise *p = &e->promises[i];
        int gone = holder < 0 ? e->now - p->since > PROMISE_AGE_NS
                              : p->holder == holder &&
                                    (all || (p->place == place && p->digest == digest));
        if (gone)
            e->promises[i] = e->promises[--e->npromises];
        else
            i++;
    }
}

static void remember_promise(satin_engine *e, int holder, uint64_t place, uint64_t digest)
{
    for (size_t i = 0; i < e->npromises; i++)
        if (e->promises[i].holder == holder && e->promises[i].place == place &&
            e->promises[i].digest == digest)
            return;
    if (e->npromises == e->cappromises) {
        e->cappromises = e->cappromises ? 2 * e->cappromises : 16;
        e->promises = realloc(e->promises, e->cappromises * sizeof *e->promises);
        if (!e->promises)
            abort();
    }
    e->promises[e->npromises++] = (satin_promise){holder, place, digest, e->now};
}

void satin_engine_orphan_ties(satin_engine *e, unsigned char *rel)
{
    forget_promises(e, -1, 0, 0, 0);
    for (size_t i = 0; i < e->npromises; i++)
        rel[e->promises[i].holder] = 1;
    for (size_t i = 0; i < e->ledger.nstandins; i++)
        if (e->ledger.standins[i].orphan == 1) {
            for (int p = 0; p < e->topo.nnodes; p++)
                if (p != e->topo.self && !satin_engine_peer_gone(e, p))
                    rel[p] = 1;
            return;
        }
}

static int64_t sent_log_age(const satin_engine *e)
{
    int64_t t = e->cfg.failure_timeout_wan_ns > e->cfg.failure_timeout_lan_ns
                    ? e->cfg.failure_timeout_wan_ns
                    : e->cfg.failure_timeout_lan_ns;
    return 4 * t > SENT_LOG_MIN_AGE_NS ? 4 * t : SENT_LOG_MIN_AGE_NS;
}

static void tell_peers(satin_engine *e, int status, uint64_t origin, uint64_t place,
                       uint64_t digest, const char *kind, const void *data, size_t len,
                       uint64_t runs)
{
    if (e->env.orphan)
        e->env.orphan(e->env.ctx, status, e->topo.self, origin, place, digest, data, len, runs);
    satin_msg *m = satin_msg_new(SATIN_MSG_ORPHAN);
    m->status = (uint8_t)status;
    m->origin = origin;
    m->place = place;
    m->arg_digest = digest;
    m->jobs_run = runs;
    satin_msg_set_kind(m, kind);
    satin_msg_set_data(m, data, len);
    for (int p = 0; p < e->topo.nnodes; p++) {
        if (p == e->topo.self || satin_engine_peer_gone(e, p))
            continue;
        satin_engine_send(e, p, m);
        e->c.orphan_messages++;
    }
    satin_msg_destroy(&m);
    if (status == SATIN_ORPHAN_RESULT)
        e->c.orphans_told++;
    else if (status == SATIN_ORPHAN_RUNNING)
        e->c.orphans_promised++;
}

static uint64_t digest_of(const satin_msg_jobrec *rec)
{
    return satin_digest(rec->kind, rec->arg, rec->arg_len);
}

void satin_engine_orphan_result(satin_engine *e, const satin_msg_jobrec *rec,
                                const satin_engine_outcome *o)
{
    if (!e->cfg.orphan_saving || !rec)
        return;
    if (o->ok)
        tell_peers(e, SATIN_ORPHAN_RESULT, rec->origin, rec->place, digest_of(rec), rec->kind,
                   o->data, o->len, o->run);
    else
        tell_peers(e, SATIN_ORPHAN_GONE, rec->origin, rec->place, digest_of(rec), rec->kind,
                   NULL, 0, 0);
}

void satin_engine_remember_sent(satin_engine *e, int owner, const satin_msg_jobrec *rec,
                                const satin_engine_outcome *o)
{
    if (!e->cfg.orphan_saving || !rec || !o->ok || o->len > SENT_LOG_MAX_BYTES)
        return;
    /* An owner that can never be found dead (no watch, no runs told apart:
     * a simulator without failures) needs no log; each would cost a node
     * of a large simulated grid a ring of SATIN_ENGINE_SENT_LOG entries. */
    if (!satin_engine_watching(e) && !e->env.peer_epoch)
        return;
    if (!e->sentlog) {
        e->sentlog = calloc(SATIN_ENGINE_SENT_LOG, sizeof *e->sentlog);
        if (!e->sentlog)
            abort();
    }
    int64_t age = sent_log_age(e);
    while (e->nsentlog &&
           (e->nsentlog == SATIN_ENGINE_SENT_LOG ||
            e->sentlog_bytes + o->len > SENT_LOG_MAX_BYTES ||
            e->now - e->sentlog[e->sentlog_head].at > age)) {
        entry_free(e, &e->sentlog[e->sentlog_head]);
        e->sentlog_head = (e->sentlog_head + 1) % SATIN_ENGINE_SENT_LOG;
        e->nsentlog--;
    }
    satin_sent_result *r = &e->sentlog[(e->sentlog_head + e->nsentlog++) % SATIN_ENGINE_SENT_LOG];
    r->to = owner;
    r->at = e->now;
    r->origin = rec->origin;
    r->place = rec->place;
    r->digest = digest_of(rec);
    r->runs = o->run;
    r->kind = strdup(rec->kind);
    r->data = malloc(o->len ? o->len : 1);
    if (!r->kind || !r->data)
        abort();
    if (o->len)
        memcpy(r->data, o->data, o->len);
    r->len = o->len;
    e->sentlog_bytes += r->len;
}

void satin_engine_orphans_of(satin_engine *e, int peer)
{
    if (!e->cfg.orphan_saving)
        return;
    /* What we sent it may have died with it. */
    for (size_t i = 0; i < e->nsentlog; i++) {
        satin_sent_result *r = &e->sentlog[(e->sentlog_head + i) % SATIN_ENGINE_SENT_LOG];
        if (r->to != peer || !r->kind)
            continue;
        tell_peers(e, SATIN_ORPHAN_RESULT, r->origin, r->place, r->digest, r->kind, r->data,
                   r->len, r->runs);
        entry_free(e, r);   /* told once; the slot ages out with the others */
    }
    /* What we run for it runs on: its result is an orphan when it is
     * ready, promised now. */
    for (size_t i = 0; i < e->ledger.nstandins; i++) {
        satin_standin *s = &e->ledger.standins[i];
        if (s->owner == peer && s->rec && !s->orphan) {
            s->orphan = 1;
            e->c.standins_orphaned++;
            if (e->env.promised)
                e->env.promised(e->env.ctx, s->handle);
            tell_peers(e, SATIN_ORPHAN_RUNNING, s->rec->origin, s->rec->place,
                       digest_of(s->rec), s->rec->kind, NULL, 0, 0);
        }
    }
}

void satin_engine_orphans_void(satin_engine *e, int peer)
{
    forget_promises(e, peer, 0, 0, 1);
    if (e->cfg.orphan_saving && e->env.orphans_void)
        e->env.orphans_void(e->env.ctx, peer);
}

void satin_engine_orphans_disowned(satin_engine *e, int peer)
{
    for (size_t i = 0; i < e->ledger.nstandins; i++)
        if (e->ledger.standins[i].owner == peer && e->ledger.standins[i].orphan)
            e->ledger.standins[i].orphan = 2;
}

void satin_engine_orphan_done(satin_engine *e, const satin_standin *s,
                              const satin_engine_outcome *o)
{
    if (s->orphan || satin_engine_peer_dead(e, s->owner))
        satin_engine_orphan_result(e, s->rec, o);
    else
        satin_engine_remember_sent(e, s->owner, s->rec, o);
}

void satin_engine_on_orphan(satin_engine *e, const satin_msg *m)
{
    e->c.orphans_received++;
    if (!e->cfg.orphan_saving)
        return;
    if (m->status == SATIN_ORPHAN_RUNNING)
        remember_promise(e, (int)m->sender, m->place, m->arg_digest);
    else
        forget_promises(e, (int)m->sender, m->place, m->arg_digest, 0);
    if (e->env.orphan)
        e->env.orphan(e->env.ctx, m->status, (int)m->sender, m->origin, m->place,
                      m->arg_digest, m->data, m->data_len, m->jobs_run);
}

void satin_engine_orphan_counters(const satin_engine *e, satin_kvlist *out)
{
    satin_kvlist_add_i64(out, "standins_orphaned", (int64_t)e->c.standins_orphaned);
    satin_kvlist_add_i64(out, "orphans_told", (int64_t)e->c.orphans_told);
    satin_kvlist_add_i64(out, "orphans_promised", (int64_t)e->c.orphans_promised);
    satin_kvlist_add_i64(out, "orphan_messages", (int64_t)e->c.orphan_messages);
    satin_kvlist_add_i64(out, "orphans_received", (int64_t)e->c.orphans_received);
}
