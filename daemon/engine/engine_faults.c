/*
 * engine_faults.c - peers that die: the silence of peers that work ties us
 * to, watched against their failure time-out, heartbeats on those quiet
 * links, records a dead node held for us run again here, and results for a
 * dead node held until it comes back (engine.h, "Failures").
 *
 * Why silence and not the transport's disconnects: a connection can drop
 * and come back (ZeroMQ reconnects) and a peer can be alive but slow, so
 * only a silence longer than the time-out, or a new run of the peer (its
 * epoch changed), is taken as death.  A node wrongly declared dead costs
 * work done twice, never a wrong result: the first result of a record
 * counts and the other is dropped.
 */
#include "engine_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The watch period and each peer's time-out, from cfg's time-outs. */
void satin_engine_apply_timeouts(satin_engine *e)
{
    /* Heartbeats go out a quarter of a time-out apart, so the watch looks
     * twice as often as that. */
    e->watch_every = SATIN_ENGINE_WATCH_NS;
    int64_t shortest[2] = {e->cfg.failure_timeout_lan_ns, e->cfg.failure_timeout_wan_ns};
    for (int i = 0; i < 2; i++)
        if (shortest[i] > 0 && shortest[i] / 8 < e->watch_every)
            e->watch_every = shortest[i] / 8 > 0 ? shortest[i] / 8 : 1;
}

int satin_engine_watching(const satin_engine *e)
{
    return e->cfg.failure_timeout_lan_ns > 0 || e->cfg.failure_timeout_wan_ns > 0;
}

/* 0: that peer is never taken for dead. */
static int64_t timeout_of(const satin_engine *e, int peer)
{
    return satin_engine_is_remote(e, peer) ? e->cfg.failure_timeout_wan_ns
                                           : e->cfg.failure_timeout_lan_ns;
}

void satin_engine_set_failure_timeouts(satin_engine *e, int64_t now, int64_t lan_ns,
                                       int64_t wan_ns)
{
    e->now = now > e->now ? now : e->now;
    e->cfg.failure_timeout_lan_ns = lan_ns;
    e->cfg.failure_timeout_wan_ns = wan_ns;
    satin_engine_apply_timeouts(e);
    /* A shorter period takes effect at once, not after the old one. */
    if (e->next_watch > e->now + e->watch_every)
        e->next_watch = e->now + e->watch_every;
}

void satin_engine_failure_timeouts(const satin_engine *e, int64_t *lan_ns, int64_t *wan_ns)
{
    *lan_ns = e->cfg.failure_timeout_lan_ns;
    *wan_ns = e->cfg.failure_timeout_wan_ns;
}

void satin_engine_faults_init(satin_engine *e)
{
    satin_peer_book_init(&e->peers);
    satin_engine_apply_timeouts(e);
    e->started = e->now;
    e->last_watch = e->now;
    e->unsettled = e->topo.nnodes - 1;
    e->next_watch = e->now + e->watch_every;
}

/* Every peer at start: alive, unheard, last sent to when we started. */
static void fresh_record(const satin_engine *e, int peer, satin_peer_watch *w)
{
    *w = (satin_peer_watch){
        .state = SATIN_PEER_ALIVE,
        .last_sent = e->started,
        .member = e->topo.cluster_of[peer] != SATIN_POLICY_NOT_MEMBER,
    };
}

satin_peer_watch *satin_engine_peer(satin_engine *e, int peer)
{
    satin_peer_watch *w = satin_peer_book_find(&e->peers, peer);
    if (w)
        return w;
    satin_peer_watch fresh;
    fresh_record(e, peer, &fresh);
    return satin_peer_book_get(&e->peers, peer, &fresh);
}

const satin_peer_watch *satin_engine_peer_peek(const satin_engine *e, int peer,
                                               satin_peer_watch *scratch)
{
    const satin_peer_watch *w = satin_peer_book_find(&e->peers, peer);
    if (w)
        return w;
    fresh_record(e, peer, scratch);
    return scratch;
}

void satin_engine_faults_free(satin_engine *e)
{
    for (size_t i = 0; i < e->nheld; i++)
        satin_msg_destroy(&e->held[i].m);
    free(e->held);
    for (size_t i = 0; i < e->nparked; i++)
        satin_ledger_free_rec(&e->parked[i].rec);
    free(e->parked);
    free(e->related);
    satin_peer_book_free(&e->peers);
}

int satin_engine_peer_dead(const satin_engine *e, int peer)
{
    const satin_peer_watch *w = satin_peer_book_find(&e->peers, peer);
    return w && w->state == SATIN_PEER_DEAD;
}

int satin_engine_peer_unreachable(const satin_engine *e, int peer)
{
    satin_peer_watch fresh;
    const satin_peer_watch *w = satin_engine_peer_peek(e, peer, &fresh);
    return w->state == SATIN_PEER_DEAD || w->left || !w->member;
}

int satin_engine_peer_gone(const satin_engine *e, int peer)
{
    satin_peer_watch fresh;
    const satin_peer_watch *w = satin_engine_peer_peek(e, peer, &fresh);
    return w->state == SATIN_PEER_DEAD || w->leaving || w->left || !w->member;
}

const char *satin_peer_state_name(satin_peer_state s)
{
    return s == SATIN_PEER_ALIVE ? "alive" : s == SATIN_PEER_SUSPECTED ? "suspected" : "dead";
}

static int64_t last_heard(const satin_engine *e, int peer)
{
    satin_peer_watch fresh;
    int64_t t = satin_engine_peer_peek(e, peer, &fresh)->heard;
    if (e->env.last_heard) {
        int64_t u = e->env.last_heard(e->env.ctx, peer);
        if (u > t)
            t = u;
    }
    return t;
}

int satin_engine_status_tie(const satin_engine *e, int peer)
{
    const satin_peer_watch *w = satin_peer_book_find(&e->peers, peer);
    return w && w->status_asked && w->status_asked > last_heard(e, peer);
}

void satin_engine_peer_info(const satin_engine *e, int peer, satin_peer_info *out)
{
    satin_peer_watch fresh;
    const satin_peer_watch *w = satin_engine_peer_peek(e, peer, &fresh);
    *out = (satin_peer_info){
        .state = w->state,
        .heard = last_heard(e, peer),
        .died = w->state == SATIN_PEER_DEAD ? w->died : 0,
        .leaving = w->leaving,
    };
}

satin_peer_state satin_engine_peer_state(const satin_engine *e, int peer, int64_t *heard)
{
    if (heard)
        *heard = last_heard(e, peer);
    satin_peer_watch fresh;
    return satin_engine_peer_peek(e, peer, &fresh)->state;
}

/* ---- a peer dies ------------------------------------------------------------------ */

/* Runs given[i] again here as a stand-in owned by this node; when that
 * cannot be, the record ends with an error (its job fails, cleanly) and
 * leaves the ledger: 0 then, 1 when it stays.  `why`: what became of its
 * holder, for that error. */
static int redo(satin_engine *e, size_t i, const char *holder, const char *why_gone)
{
    satin_given *g = &e->ledger.given[i];
    satin_engine_record rec;
    e->env.describe(e->env.ctx, g->record, &rec);
    satin_msg_jobrec jr = {
        .owner = (uint32_t)e->topo.self,
        .record_id = g->record_id,
        .job_id = (uint64_t)(uintptr_t)g->job,
        .place = rec.place,
        .ancestry = {rec.ancestry[0], rec.ancestry[1]},
        .origin = rec.origin,
        .kind = (char *)rec.kind,
        .result_cap = (uint32_t)rec.result_cap,
        .arg = (unsigned char *)rec.arg,
        .arg_len = rec.arg_len,
    };
    char err[160] = "";
    const void *job = NULL;
    void *standin = e->env.start(e->env.ctx, &jr, &job, err, sizeof err);
    if (!standin) {
        char why[256];
        snprintf(why, sizeof why, "node %s %s holding it, and it could not run again: %s",
                 holder, why_gone, err[0] ? err : "no reason given");
        satin_given done;
        satin_ledger_take_given_any(&e->ledger, g->record_id, &done);
        satin_engine_outcome o = {.ok = 0, .error = why};
        e->env.complete(e->env.ctx, done.record, &o);
        return 0;
    }
    g->redoing = 1;
    satin_ledger_add_standin(&e->ledger, standin, e->topo.self, g->record_id, job, NULL, NULL);
    e->c.records_redone++;
    return 1;
}

/* Records held by `peer` run again; a record whose job stopped here ends
 * instead (nobody waits for its value). */
static void redo_records_of(satin_engine *e, int peer)
{
    const char *name = satin_engine_node_name(e, peer);
    size_t i = 0;
    while (i < e->ledger.ngiven) {
        satin_given *g = &e->ledger.given[i];
        if (g->holder != peer || g->redoing) {
            i++;
            continue;
        }
        if (g->cancel_sent || e->env.job_stopping(e->env.ctx, g->job)) {
            satin_given done;
            satin_ledger_take_given_any(&e->ledger, g->record_id, &done);
            satin_engine_outcome o = {.ok = 0, .error = "its job stopped and its holder died"};
            e->env.complete(e->env.ctx, done.record, &o);
            continue; /* given[i] is now another record */
        }
        i += (size_t)redo(e, i, name, "died");
    }
}

void satin_engine_record_returned(satin_engine *e, int holder, uint64_t record_id)
{
    for (size_t i = 0; i < e->ledger.ngiven; i++) {
        satin_given *g = &e->ledger.given[i];
        if (g->record_id != record_id)
            continue;
        if (g->holder != holder || g->redoing) {
            e->env.note_bad(e->env.ctx, holder, "a record given back that it does not hold");
            return;
        }
        if (g->cancel_sent || e->env.job_stopping(e->env.ctx, g->job)) {
            satin_given done;
            satin_ledger_take_given_any(&e->ledger, g->record_id, &done);
            satin_engine_outcome o = {.ok = 0, .error = "its job stopped and its holder left"};
            e->env.complete(e->env.ctx, done.record, &o);
            return;
        }
        satin_engine_logf(e, SATIN_ENGINE_LOG_INFO, "node %s is leaving and gave back record %"
                          PRIu64 ": it runs again here", satin_engine_node_name(e, holder),
                          record_id);
        if (redo(e, i, satin_engine_node_name(e, holder), "left"))
            e->c.records_taken_back++;
        return;
    }
    e->env.note_bad(e->env.ctx, holder, "a record given back that we never gave away");
}

/* One result held for `peer`, removed (NULL when none is left). */
static satin_msg *take_held(satin_engine *e, int peer)
{
    for (size_t i = 0; i < e->nheld; i++)
        if (e->held[i].owner == peer) {
            satin_msg *m = e->held[i].m;
            e->held[i] = e->held[--e->nheld];
            return m;
        }
    return NULL;
}

static void drop_held_for(satin_engine *e, int peer)
{
    for (satin_msg *m; (m = take_held(e, peer));) {
        satin_msg_destroy(&m);
        e->c.held_results_dropped++;
    }
}

/* Records of a dead owner stop: nobody would take their results, and they
 * would hold up the records run again here.  Each waits, parked, to start
 * again should the owner come back in the same run. */
static void park_standins_of(satin_engine *e, int peer)
{
    for (size_t i = 0; i < e->ledger.nstandins; i++) {
        satin_standin *s = &e->ledger.standins[i];
        if (s->owner != peer || s->parked || !s->rec)
            continue;
        s->parked = 1;
        e->c.standins_parked++;
        e->env.cancel(e->env.ctx, s->handle, "its owner node died");
    }
}

/* One parked record of `peer`, removed (NULL when none is left). */
static satin_msg_jobrec *take_parked(satin_engine *e, int peer)
{
    for (size_t i = 0; i < e->nparked; i++)
        if (e->parked[i].owner == peer) {
            satin_msg_jobrec *rec = e->parked[i].rec;
            e->parked[i] = e->parked[--e->nparked];
            return rec;
        }
    return NULL;
}

static void drop_parked_for(satin_engine *e, int peer)
{
    for (satin_msg_jobrec *rec; (rec = take_parked(e, peer));) {
        satin_ledger_free_rec(&rec);
        e->c.parked_dropped++;
    }
}

static void resume_parked_for(satin_engine *e, int peer)
{
    for (satin_msg_jobrec *rec; (rec = take_parked(e, peer));) {
        if (satin_engine_run_record(e, rec) == 0)
            e->c.parked_resumed++;
        satin_ledger_free_rec(&rec);
    }
}

void satin_engine_park(satin_engine *e, satin_standin *s)
{
    if (!satin_engine_peer_dead(e, s->owner)) {
        /* It came back while this one was stopping. */
        if (satin_engine_run_record(e, s->rec) == 0)
            e->c.parked_resumed++;
        return;
    }
    if (e->nparked == e->capparked) {
        e->capparked = e->capparked ? 2 * e->capparked : 16;
        e->parked = realloc(e->parked, e->capparked * sizeof *e->parked);
        if (!e->parked)
            abort();
    }
    /* It outlives the stand-in, and the driver's bytes with it. */
    satin_ledger_own_arg(s->rec);
    e->parked[e->nparked++] = (satin_parked){s->owner, s->rec};
    s->rec = NULL;
}

static void settle_steals_to(satin_engine *e, int peer)
{
    satin_pending p;
    while (satin_ledger_take_pending_to(&e->ledger, peer, &p) == 0) {
        e->c.steals_to_dead++;
        satin_engine_settle(e, &p, peer, 0, 0);
    }
}

static void peer_died(satin_engine *e, int peer, const char *why)
{
    satin_peer_watch *w = satin_engine_peer(e, peer);
    if (w->state != SATIN_PEER_DEAD) {
        w->state = SATIN_PEER_DEAD;
        w->ever_dead = 1;
        w->died = e->now;
        e->c.peers_dead++;
        satin_engine_logf(e, SATIN_ENGINE_LOG_WARN | SATIN_ENGINE_LOG_EVENT,
                          "node %s is dead (%s): the records it held for us run again here",
                          satin_engine_node_name(e, peer), why);
        satin_engine_orphans_void(e, peer);
        if (e->cfg.orphan_saving)
            satin_engine_orphans_of(e, peer);
        else
            park_standins_of(e, peer);
        redo_records_of(e, peer);
        settle_steals_to(e, peer);
        e->ops->on_peer(e->policy, peer, 0);
        return;
    }
    settle_steals_to(e, peer);
}

void satin_engine_peer_left(satin_engine *e, int peer)
{
    peer_died(e, peer, "it left the grid's membership");
    /* Results held for it, and its parked records, wait for it as for any
     * dead node: should it become a member again in the same run, they go. */
    satin_peer_watch *w = satin_engine_peer(e, peer);
    w->quiet_since = e->now;
    w->member = 0;
}

static void send_held_to(satin_engine *e, int peer)
{
    for (satin_msg *m; (m = take_held(e, peer));) {
        satin_engine_send(e, peer, m);
        satin_msg_destroy(&m);
        e->c.held_results_sent++;
        e->c.results_sent++;
    }
}

/* `heard`: what ended the silence. */
static void peer_back(satin_engine *e, int peer, int64_t heard)
{
    e->c.peers_back++;
    satin_engine_logf(e, SATIN_ENGINE_LOG_WARN | SATIN_ENGINE_LOG_EVENT,
                      "node %s is back after %.1f s of silence", satin_engine_node_name(e, peer),
                      (double)(heard - satin_engine_peer(e, peer)->quiet_since) / 1e9);
    send_held_to(e, peer);
    resume_parked_for(e, peer);
    e->ops->on_peer(e->policy, peer, 1);
}

/* A new run of the peer: the old one is dead, whatever it held is lost,
 * and what we kept for it answers nobody. */
static void check_epoch(satin_engine *e, int peer)
{
    if (!e->env.peer_epoch)
        return;
    uint64_t epoch = e->env.peer_epoch(e->env.ctx, peer);
    satin_peer_watch *w = satin_engine_peer(e, peer);
    if (!epoch || epoch == w->epoch)
        return;
    w->leaving = 0;
    if (w->left) {
        /* It stopped cleanly and starts again: nothing of its old run is
         * owed to it, and it holds nothing of ours. */
        w->left = 0;
        drop_held_for(e, peer);
        drop_parked_for(e, peer);
        e->ops->on_peer(e->policy, peer, 1);
        satin_engine_logf(e, SATIN_ENGINE_LOG_INFO | SATIN_ENGINE_LOG_EVENT,
                          "node %s runs again", satin_engine_node_name(e, peer));
    } else if (w->epoch) {
        peer_died(e, peer, "it restarted");
        satin_engine_orphans_disowned(e, peer);
        drop_held_for(e, peer);
        drop_parked_for(e, peer);
        w->state = SATIN_PEER_ALIVE;
        e->ops->on_peer(e->policy, peer, 1);
        satin_engine_logf(e, SATIN_ENGINE_LOG_WARN | SATIN_ENGINE_LOG_EVENT, "node %s runs again",
                          satin_engine_node_name(e, peer));
    }
    w->epoch = epoch;
}

void satin_engine_heard(satin_engine *e, int peer)
{
    /* Without a watch or a transport that tells runs apart, what was heard
     * when matters to nobody: no record is made for it. */
    satin_peer_watch *w = satin_engine_watching(e) || e->env.peer_epoch
                              ? satin_engine_peer(e, peer)
                              : satin_peer_book_find(&e->peers, peer);
    if (w) {
        w->heard = e->now;
        w->heard_any = 1;
    }
    check_epoch(e, peer);
}

/* ---- watching ------------------------------------------------------------------ */

static satin_peer_state state_after(int64_t timeout_ns, int64_t silent)
{
    if (timeout_ns <= 0 || silent <= timeout_ns / 2)
        return SATIN_PEER_ALIVE;
    return silent > timeout_ns ? SATIN_PEER_DEAD : SATIN_PEER_SUSPECTED;
}

static void peer_ties(const satin_engine *e, int peer, int *given, int *held, int *asked)
{
    const satin_ledger *l = &e->ledger;
    *given = *held = *asked = 0;
    for (size_t i = 0; i < l->ngiven; i++)
        *given += l->given[i].holder == peer && !l->given[i].redoing;
    for (size_t i = 0; i < l->nstandins; i++)
        *held += l->standins[i].owner == peer && !l->standins[i].parked;
    for (size_t i = 0; i < l->npending; i++)
        *asked += l->pending[i].victim == peer;
}

void satin_engine_describe_ties(const satin_engine *e, int peer, char *out, size_t len)
{
    int given, held, asked;
    peer_ties(e, peer, &given, &held, &asked);
    if (given + held + asked)
        snprintf(out, len, "; %d record(s) of ours there, %d of its here, %d steal request(s) out",
                 given, held, asked);
    else if (len)
        *out = 0;
}

static void send_heartbeat(satin_engine *e, int peer, unsigned flags)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_HEARTBEAT);
    m->flags = flags;
    satin_engine_send(e, peer, m);
    satin_msg_destroy(&m);
    e->c.heartbeats_sent++;
    satin_engine_peer(e, peer)->greeted = 1;
}

void satin_engine_answer_greeting(satin_engine *e, int peer)
{
    send_heartbeat(e, peer, 0);
}

void satin_engine_on_late(satin_engine *e, int64_t now, int64_t late_ns)
{
    e->now = now > e->now ? now : e->now;
    if (!satin_engine_watching(e))
        return;
    int64_t shorter = e->cfg.failure_timeout_lan_ns < e->cfg.failure_timeout_wan_ns
                          ? e->cfg.failure_timeout_lan_ns
                          : e->cfg.failure_timeout_wan_ns;
    if (late_ns < shorter / 4)
        return;
    e->resumed = e->now;
    e->c.stalls++;
    satin_engine_logf(e, SATIN_ENGINE_LOG_WARN | SATIN_ENGINE_LOG_EVENT,
                      "this node did not run for %.3f s (stopped or starved): every peer is "
                      "greeted before any is taken for dead", (double)late_ns / 1e9);
    for (int p = 0; p < e->topo.nnodes; p++)
        if (p != e->topo.self && satin_engine_is_member(e, p) &&
            !satin_engine_peer_unreachable(e, p))
            send_heartbeat(e, p, SATIN_HEARTBEAT_GREETING);
}

/* `related`: work ties this node to the peer (records given to it, run for
 * it, a steal request out to it).  Only then does its silence mean death,
 * and only then does our link to it need heartbeats: the peer has the same
 * tie to us, or answers us at once.  A peer never heard since we started
 * is taken for absent after the time-out all the same. */
static void watch_one(satin_engine *e, int peer, int related)
{
    satin_peer_watch *w = satin_engine_peer(e, peer);
    int64_t timeout_ns = timeout_of(e, peer);
    check_epoch(e, peer);
    if (w->left) {   /* stopped, and said so: its silence is no death */
        w->tied = 0;
        return;
    }
    int64_t heard = last_heard(e, peer);
    int ever = heard || w->heard_any;
    /* Silence before the tie (an idle peer we had no reason to hear from)
     * says nothing: a tie gets a whole time-out, from the last watch before
     * it at the latest. */
    if (related && !w->tied)
        w->tied_since = e->last_watch;
    w->tied = related;
    int64_t since = heard > e->started ? heard : e->started;
    if (w->joined > since)
        since = w->joined;
    if (related && ever && w->tied_since > since)
        since = w->tied_since;
    /* After a stall of ours, a peer has one greeting round to answer. */
    if (e->resumed && e->resumed - (timeout_ns - timeout_ns / 4) > since)
        since = e->resumed - (timeout_ns - timeout_ns / 4);
    int64_t silent = e->now - since;
    if (w->state == SATIN_PEER_DEAD) {
        if (ever && heard > w->quiet_since) {
            w->state = SATIN_PEER_ALIVE;
            peer_back(e, peer, heard);
        }
    } else if (related || !ever) {
        satin_peer_state now = state_after(timeout_ns, silent);
        if (now == SATIN_PEER_DEAD) {
            char why[160];
            int n = snprintf(why, sizeof why, ever ? "silent for %.3f s" : "not heard in %.3f s",
                             (double)silent / 1e9);
            satin_engine_describe_ties(e, peer, why + n, sizeof why - (size_t)n);
            w->quiet_since = since;
            peer_died(e, peer, why);
        } else {
            w->state = now;
        }
    } else {
        w->state = SATIN_PEER_ALIVE; /* nothing to lose to it: nothing to suspect */
    }
    if (timeout_ns <= 0)
        return;
    /* A peer not heard yet is greeted (it answers: each then knows the
     * other is there), again each quarter time-out until it is heard; a
     * quiet tied link says "still here" four times per time-out; a dead
     * peer is greeted once per time-out, in case it was only cut off (its
     * answer brings it back even when nothing else would make it speak). */
    int64_t gap = e->now - w->last_sent;
    if (w->state == SATIN_PEER_DEAD) {
        if (gap >= timeout_ns)
            send_heartbeat(e, peer, SATIN_HEARTBEAT_GREETING);
    } else if (!ever) {
        if (!w->greeted || gap >= timeout_ns / 4)
            send_heartbeat(e, peer, SATIN_HEARTBEAT_GREETING);
    } else if (related && gap >= timeout_ns / 4) {
        send_heartbeat(e, peer, 0);
    }
}

/* Marks in rel[] the peers this node has work with. */
static void mark_related(satin_engine *e, unsigned char *rel)
{
    const satin_ledger *l = &e->ledger;
    for (size_t i = 0; i < l->ngiven; i++)
        if (!l->given[i].redoing)
            rel[l->given[i].holder] = 1;
    for (size_t i = 0; i < l->nstandins; i++)
        if (l->standins[i].owner != e->topo.self && !l->standins[i].parked)
            rel[l->standins[i].owner] = 1;
    for (size_t i = 0; i < l->npending; i++)
        rel[l->pending[i].victim] = 1;
    satin_engine_orphan_ties(e, rel);
    if (e->now < e->status_watch_until)
        for (int p = 0; p < e->topo.nnodes; p++)
            rel[p] |= satin_engine_status_tie(e, p);
}

/* A stopping node watches and beats on: it still waits for results, and
 * its peers still wait for its own. */
void satin_engine_watch(satin_engine *e)
{
    /* Nothing is watched without time-outs (a restart still shows on the
     * next message: satin_engine_heard); a simulator of many nodes runs so,
     * and must not walk every peer of every node ten times a second. */
    if (satin_engine_watching(e) && e->now >= e->next_watch) {
        /* After a sleep (nothing to watch) a tie that formed since is new. */
        if (e->now - e->last_watch > 2 * e->watch_every)
            e->last_watch = e->now;
        e->next_watch = e->now + e->watch_every;
        if (e->nrelated < e->topo.nnodes) {
            free(e->related);
            e->nrelated = e->topo.nnodes;
            e->related = malloc((size_t)e->nrelated);
            if (!e->related)
                abort();
        }
        memset(e->related, 0, (size_t)e->topo.nnodes);
        mark_related(e, e->related);
        e->unsettled = 0;
        for (int p = 0; p < e->topo.nnodes; p++) {
            if (p == e->topo.self || !satin_engine_is_member(e, p))
                continue;
            watch_one(e, p, e->related[p]);
            const satin_peer_watch *w = satin_engine_peer(e, p);
            e->unsettled += w->state != SATIN_PEER_ALIVE || !(w->heard_any || last_heard(e, p));
        }
        e->last_watch = e->now;
    }
    if (e->dead_victims) {
        e->dead_victims = 0;
        for (int p = 0; p < e->topo.nnodes; p++)
            if (p != e->topo.self && satin_engine_peer_unreachable(e, p))
                settle_steals_to(e, p);
    }
}

int64_t satin_engine_watch_deadline(const satin_engine *e)
{
    if (e->dead_victims)
        return e->now + 1;
    if (!satin_engine_watching(e))
        return INT64_MAX;
    /* An idle node whose peers are all heard, greeted and alive has nothing
     * to watch: it sleeps until work ties it to someone. */
    const satin_ledger *l = &e->ledger;
    if (!e->unsettled && !l->ngiven && !l->nstandins && !l->npending && !e->npromises &&
        e->now >= e->status_watch_until)
        return INT64_MAX;
    return e->next_watch;
}

/* ---- two runs of one record ------------------------------------------------------ */

void satin_engine_cancel_redo(satin_engine *e, uint64_t record_id, const char *why)
{
    const satin_standin *s = satin_ledger_find_standin(&e->ledger, e->topo.self, record_id);
    if (s)
        e->env.cancel(e->env.ctx, s->handle, why);
}

void satin_engine_redo_done(satin_engine *e, const satin_standin *s,
                            const satin_engine_outcome *o)
{
    satin_given g;
    if (satin_ledger_take_given_any(&e->ledger, s->record_id, &g) < 0)
        return; /* the first run's result came first and counted */
    e->c.redo_results++;
    e->env.complete(e->env.ctx, g.record, o);
    e->ops->on_result(e->policy);
}

void satin_engine_result_came(satin_engine *e, int from, const satin_given *g)
{
    (void)from;
    if (!g->redoing)
        return;
    e->c.late_results_used++;
    satin_engine_cancel_redo(e, g->record_id, "the first run's result came after all");
}

void satin_engine_send_result(satin_engine *e, int owner, satin_msg *m)
{
    if (!satin_engine_peer_dead(e, owner)) {
        satin_engine_send(e, owner, m);
        satin_msg_destroy(&m);
        e->c.results_sent++;
        return;
    }
    if (e->nheld == e->capheld) {
        e->capheld = e->capheld ? 2 * e->capheld : 16;
        e->held = realloc(e->held, e->capheld * sizeof *e->held);
        if (!e->held)
            abort();
    }
    satin_msg_own_bytes(m);   /* kept beyond the result it may point at */
    e->held[e->nheld++] = (satin_held_result){owner, m};
    e->c.results_held++;
}

void satin_engine_fault_counters(const satin_engine *e, satin_kvlist *out)
{
    const satin_engine_tally *c = &e->c;
    satin_kvlist_add_i64(out, "peers_dead", (int64_t)c->peers_dead);
    satin_kvlist_add_i64(out, "peers_back", (int64_t)c->peers_back);
    satin_kvlist_add_i64(out, "membership_changes", (int64_t)c->membership_changes);
    satin_kvlist_add_i64(out, "heartbeats_sent", (int64_t)c->heartbeats_sent);
    satin_kvlist_add_i64(out, "steals_to_dead", (int64_t)c->steals_to_dead);
    satin_kvlist_add_i64(out, "records_redone", (int64_t)c->records_redone);
    satin_kvlist_add_i64(out, "stalls", (int64_t)c->stalls);
    satin_kvlist_add_i64(out, "records_returned", (int64_t)c->records_returned);
    satin_kvlist_add_i64(out, "records_taken_back", (int64_t)c->records_taken_back);
    satin_kvlist_add_i64(out, "records_given_back", (int64_t)c->records_given_back);
    satin_kvlist_add_i64(out, "redo_results", (int64_t)c->redo_results);
    satin_kvlist_add_i64(out, "late_results_used", (int64_t)c->late_results_used);
    satin_kvlist_add_i64(out, "late_results_dropped", (int64_t)c->late_results_dropped);
    satin_kvlist_add_i64(out, "results_held", (int64_t)c->results_held);
    satin_kvlist_add_i64(out, "held_results_sent", (int64_t)c->held_results_sent);
    satin_kvlist_add_i64(out, "held_results_dropped", (int64_t)c->held_results_dropped);
    satin_kvlist_add_i64(out, "standins_parked", (int64_t)c->standins_parked);
    satin_kvlist_add_i64(out, "parked_resumed", (int64_t)c->parked_resumed);
    satin_kvlist_add_i64(out, "parked_dropped", (int64_t)c->parked_dropped);
}

/* ---- leaving ------------------------------------------------------------------------ */

void satin_engine_peer_leaving(satin_engine *e, int peer)
{
    satin_peer_watch *w = satin_engine_peer(e, peer);
    if (w->leaving)
        return;
    w->leaving = 1;
    /* It is given no more work, but still answers steal requests: what it
     * holds queued is taken from it while it finishes what runs. */
    satin_engine_logf(e, SATIN_ENGINE_LOG_INFO | SATIN_ENGINE_LOG_EVENT, "node %s is leaving",
                      satin_engine_node_name(e, peer));
}

void satin_engine_peer_stopped(satin_engine *e, int peer)
{
    satin_peer_watch *w = satin_engine_peer(e, peer);
    if (w->left)
        return;
    w->leaving = 1;
    w->left = 1;
    w->quiet_since = e->now;
    satin_engine_logf(e, SATIN_ENGINE_LOG_INFO | SATIN_ENGINE_LOG_EVENT, "node %s has left",
                      satin_engine_node_name(e, peer));
    /* It gave back whatever it held; should anything be left, it runs here
     * as after a death.  Our requests to it end now, not at their time-out. */
    redo_records_of(e, peer);
    settle_steals_to(e, peer);
    e->ops->on_peer(e->policy, peer, 0);
}

static void say_to_all(satin_engine *e, unsigned flags)
{
    for (int p = 0; p < e->topo.nnodes; p++) {
        if (p == e->topo.self || satin_engine_peer_dead(e, p))
            continue;
        satin_msg *m = satin_msg_new(SATIN_MSG_HEARTBEAT);
        m->flags = flags;
        satin_engine_send(e, p, m);
        satin_msg_destroy(&m);
    }
}

void satin_engine_say_leaving(satin_engine *e)
{
    say_to_all(e, SATIN_HEARTBEAT_LEAVING);
}

void satin_engine_say_left(satin_engine *e)
{
    say_to_all(e, SATIN_HEARTBEAT_LEAVING | SATIN_HEARTBEAT_LEFT);
}
