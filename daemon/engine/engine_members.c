/*
 * engine_members.c - the grid's membership changing under a running node
 * (satind's SIGHUP with an edited topology).
 *
 * Node numbers never change while a node runs: a node that joins gets the
 * next number, and a node that leaves keeps its number, marked as no
 * member, so that nothing the ledger, the orphan table or a pending steal
 * holds has to be renumbered.  A node that leaves is handled as a death
 * (what it held for us runs again here, what we run for it is told as
 * orphans), except that nothing it says is heard any more.  The policy is
 * made again over the new membership: its structure (CHS's trees, CLS's
 * coordinators, CRS's clusters) is derived from the membership, and the
 * nodes that keep running must agree on it.  Our own steal requests still
 * out stay in the ledger: their replies bring their records as always, and
 * the new policy, which never asked, ignores the reply itself.
 */
#include "engine_internal.h"

#include <stdlib.h>
#include <string.h>

static int membership_valid(const satin_engine *e, const satin_policy_topology *t)
{
    if (!t || t->nnodes < e->topo.nnodes || t->self != e->topo.self || t->nclusters < 1 ||
        !t->cluster_of || t->cluster_of[t->self] == SATIN_POLICY_NOT_MEMBER)
        return 0;
    for (int n = 0; n < t->nnodes; n++)
        if (t->cluster_of[n] != SATIN_POLICY_NOT_MEMBER &&
            (t->cluster_of[n] < 0 || t->cluster_of[n] >= t->nclusters))
            return 0;
    return 1;
}

int satin_engine_set_members(satin_engine *e, int64_t now, const satin_policy_topology *topo,
                             const char *const *names)
{
    e->now = now > e->now ? now : e->now;
    if (!membership_valid(e, topo))
        return -1;
    /* Leaving is handled while the old policy still stands: it hears of
     * the death like of any other.  A node back in the membership is dead
     * until heard, its silence counting from now; a node new to this run
     * has nothing heard, nothing owed, and its silence counts from now (a
     * node listed but not started yet is absent after its time-out, as at
     * start). */
    for (int p = 0; p < topo->nnodes; p++) {
        if (p == e->topo.self)
            continue;
        int was = satin_engine_is_member(e, p);
        int is = topo->cluster_of[p] != SATIN_POLICY_NOT_MEMBER;
        if (was && !is) {
            satin_engine_peer_left(e, p);
        } else if (!was && is && p >= e->topo.nnodes) {
            satin_peer_watch fresh = {
                .state = SATIN_PEER_ALIVE, .last_sent = e->now, .joined = e->now, .member = 1};
            satin_peer_book_get(&e->peers, p, &fresh);
        } else if (!was && is) {
            satin_peer_watch *w = satin_engine_peer(e, p);
            w->joined = e->now;
            w->quiet_since = e->now;
            w->member = 1;
        }
    }
    satin_engine_drop_topology(e);
    e->cfg.node_names = names;
    satin_policy_topology copy = *topo;
    if (satin_engine_take_topology(e, &copy) < 0)
        abort();   /* membership_valid checked what take_topology does */
    satin_engine_apply_timeouts(e);

    e->ops->destroy(e->policy);
    for (int id = 0; id < SATIN_ENGINE_MAX_TIMERS; id++)
        e->timer[id] = 0;
    e->policy = e->ops->create(&e->topo, &e->cfg.params, &e->penv);
    if (!e->policy)
        abort();   /* the same policy took a membership membership_valid accepts */
    for (int p = 0; p < e->topo.nnodes; p++)
        if (p != e->topo.self && satin_engine_is_member(e, p) && satin_engine_peer_dead(e, p))
            e->ops->on_peer(e->policy, p, 0);
    e->c.membership_changes++;
    /* A watch soon: new peers are greeted, and the unsettled count is redone. */
    e->next_watch = e->now;
    e->unsettled = 1;
    if (!e->draining && e->env.is_idle(e->env.ctx))
        satin_engine_tell_idle(e);
    return 0;
}

int satin_engine_is_member(const satin_engine *e, int node)
{
    if (node < 0 || node >= e->topo.nnodes)
        return 0;
    satin_peer_watch fresh;
    return satin_engine_peer_peek(e, node, &fresh)->member;
}
