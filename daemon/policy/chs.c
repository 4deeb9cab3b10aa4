/*
 * chs.c - Cluster-aware Hierarchical Stealing (paper 3.3).
 *
 * Tree: in each cluster, the node at index i of the cluster's member list
 * has parent (i-1)/2 and children 2i+1, 2i+2; index 0 is the cluster root.
 *
 * Protocol (one synchronous request in flight per thief; every request is
 * answered or forwarded the moment it arrives):
 *   1. Children: an idle node T sends a request to its first child.  A node
 *      that cannot give a job passes it on (forward, keeping T as the thief)
 *      to the next node of T's subtree in preorder; the last one replies
 *      empty.  So one request searches T's whole subtree, depth first.
 *   2. Parent: if that found nothing, T (not a root) asks its parent.  An
 *      ancestor that cannot give a job forwards it to its own parent; the
 *      cluster root replies empty.
 *   2'. Remote root: a cluster root whose subtree had nothing (its whole
 *      cluster is idle) asks the root of a random other cluster instead
 *      (synchronous, wide-area).  That root gives a job or searches its own
 *      tree in preorder as in 1; the holder replies across the WAN.
 *   A receiver tells which case it is in from the thief alone: T is its
 *   ancestor (1), its descendant (2), or in another cluster (2').
 *   The holder of a job always replies directly to T.
 * A failed cycle is one round of the idle back-off.  A result that makes
 * the node busy while its request is out cancels the request; a reply to a
 * cancelled request is ignored (its jobs, already queued, are simply used).
 * The cancel follows the request's walk: a node that forwarded the request
 * passes the cancel on to where it sent it, and a node the cancel reaches
 * first ends the request when it comes, with an empty reply to the thief.
 *
 * Dead nodes (on_peer) are stepped over, not cut out with their subtrees:
 * a walk goes on to the next living node in preorder (a dead node's
 * children are still searched), a request up goes to the nearest living
 * ancestor, and a node with no living ancestor acts as its cluster's root
 * (it steals across the WAN).  A wide-area request goes to the first living
 * node of the other cluster in preorder, which searches the rest as a root
 * would.  Each node steps over the nodes it knows are dead; one that does
 * not know yet sends to the dead node, and the thief's steal time-out ends
 * that request.
 */
#include "policy_internal.h"

#include <stdlib.h>

enum { CHS_NONE, CHS_CHILDREN, CHS_UP, CHS_WAN };  /* cycle order */

/* Requests this node passed on or answered lately, and cancels that came
 * before their request.  A cancel comes from the node that sent us the
 * request (the thief, or the node that forwarded it here), and request ids
 * are the thief's, so (from, id) names the request on every hop.  Rings:
 * the oldest entry gives way; losing one costs at worst one needless
 * message along a walk, or one empty reply to a thief that wanted a job. */
#define CHS_SEEN 64
#define CHS_EARLY 16

enum { SEEN_FREE, SEEN_FORWARDED, SEEN_ANSWERED, SEEN_CANCELLED };

typedef struct chs_seen {
    int state;
    int from, to;     /* the sender; where we forwarded it */
    int thief;        /* whose request it is (a cancel we pass on names it) */
    uint64_t id;
} chs_seen;

typedef struct chs_early {
    int used;
    int from;
    uint64_t id;
} chs_early;

typedef struct chs_state {
    int phase;        /* what the outstanding request (p->sync_*) is */
    chs_seen seen[CHS_SEEN];
    int seen_next;
    chs_early early[CHS_EARLY];
    int early_next;
    int *dead;        /* the nodes on_peer said are dead (few: a list, not a map) */
    int ndead, capdead;
} chs_state;

/* The node counts the steals, replies, forwards and cancels, and the late
 * replies (it sees which requests were cancelled); why a reply was empty
 * only the policy knows. */
static const int chs_counters[] = {SATIN_PC_BACKOFFS, SATIN_PC_WALKS_STOPPED, SATIN_PC_WOKEN};

static int cluster_n(const satin_policy *p)
{
    return p->cluster_size[p->cluster];
}

static int node_at(const satin_policy *p, int index)
{
    return p->members[p->cluster][index];
}

static int chs_dead(const satin_policy *p, int node)
{
    const chs_state *st = p->priv;
    for (int i = 0; i < st->ndead; i++)
        if (st->dead[i] == node)
            return 1;
    return 0;
}

/* Whether the node at tree index `index` of cluster `c` is dead. */
static int dead_at(const satin_policy *p, int c, int index)
{
    return chs_dead(p, p->members[c][index]);
}

/* 1 if tree index a is a proper ancestor of index b. */
static int is_ancestor(int a, int b)
{
    while (b > 0) {
        b = (b - 1) / 2;
        if (b == a)
            return 1;
    }
    return 0;
}

/* The index after `cur` in a preorder walk of the subtree rooted at `scope`
 * (cur inside it), or -1 when the walk is over. */
static int preorder_next(int cur, int scope, int n)
{
    if (2 * cur + 1 < n)
        return 2 * cur + 1;
    while (cur != scope && cur > 0) {
        int parent = (cur - 1) / 2;
        if (cur == 2 * parent + 1 && 2 * parent + 2 < n)
            return 2 * parent + 2;
        cur = parent;
    }
    return -1;
}

/* From tree index `from` of cluster c on, in preorder within `scope`'s
 * subtree: the first living node's index, or -1. */
static int living_from(const satin_policy *p, int c, int from, int scope)
{
    int n = p->cluster_size[c];
    while (from >= 0 && dead_at(p, c, from))
        from = preorder_next(from, scope, n);
    return from;
}

/* The nearest living proper ancestor of our tree index, or -1. */
static int living_ancestor(const satin_policy *p)
{
    for (int a = p->position; a > 0;) {
        a = (a - 1) / 2;
        if (!dead_at(p, p->cluster, a))
            return a;
    }
    return -1;
}

/* Where a request from `thief` we cannot satisfy goes next; -1: reply empty. */
static int next_hop(const satin_policy *p, int thief)
{
    if (thief < 0 || thief >= p->nnodes || thief == p->self)
        return -1;
    int n = cluster_n(p), me = p->position, next, c = p->cluster;
    if (satin_policy_is_remote(p, thief)) {
        next = living_from(p, c, preorder_next(me, 0, n), 0);      /* 2': our whole tree */
    } else {
        int t = p->index_of[thief];
        if (is_ancestor(t, me))
            next = living_from(p, c, preorder_next(me, t, n), t);  /* 1: rest of T's subtree */
        else if (is_ancestor(me, t))
            next = living_ancestor(p);                            /* 2: up to the root */
        else
            next = -1;                                            /* not a CHS path: answer */
    }
    return next < 0 ? -1 : node_at(p, next);
}

static void chs_send(satin_policy *p, int phase, int victim)
{
    chs_state *st = p->priv;
    st->phase = phase;
    satin_policy_sync_steal_from(p, victim, 0);
}

static void chs_cycle_from(satin_policy *p, int done);

static void chs_start(satin_policy *p)
{
    chs_cycle_from(p, CHS_NONE);
}

/* Sends the next request of the cycle after phase `done` failed. */
static void chs_cycle_from(satin_policy *p, int done)
{
    chs_state *st = p->priv;
    int me = p->position;
    int child = 2 * me + 1 < cluster_n(p) ? living_from(p, p->cluster, 2 * me + 1, me) : -1;
    if (done < CHS_CHILDREN && child >= 0) {
        chs_send(p, CHS_CHILDREN, node_at(p, child));
        return;
    }
    int up = living_ancestor(p);
    if (done < CHS_UP && up >= 0) {
        chs_send(p, CHS_UP, node_at(p, up));
        return;
    }
    if (done < CHS_UP && up < 0 && satin_candidates_count(&p->remotes) > 0) {
        int c = satin_policy_pick(p, &p->remotes);
        int first = living_from(p, c, 0, 0);
        if (first >= 0) {
            chs_send(p, CHS_WAN, p->members[c][first]);
            return;
        }
    }
    st->phase = CHS_NONE;
    satin_policy_idle_failed(p, 1, chs_start);
}

static satin_policy *chs_create(const satin_policy_topology *topo,
                                const satin_policy_params *params, const satin_policy_env *env)
{
    return satin_policy_base_create(&satin_policy_chs, topo, params, env, sizeof(chs_state));
}

static void chs_destroy(satin_policy *p)
{
    if (p)
        free(((chs_state *)p->priv)->dead);
    satin_policy_base_destroy(p);
}

static void chs_on_peer(satin_policy *p, int peer, int alive)
{
    chs_state *st = p->priv;
    if (peer < 0 || peer >= p->nnodes || peer == p->self)
        return;
    for (int i = 0; i < st->ndead; i++)
        if (st->dead[i] == peer) {
            if (alive)
                st->dead[i] = st->dead[--st->ndead];
            return;
        }
    if (alive)
        return;
    if (st->ndead == st->capdead) {
        int cap = st->capdead ? 2 * st->capdead : 8;
        int *grown = realloc(st->dead, (size_t)cap * sizeof *grown);
        if (!grown)
            return;   /* stepped onto, then: the steal time-out ends those requests */
        st->dead = grown;
        st->capdead = cap;
    }
    st->dead[st->ndead++] = peer;
}

static void chs_on_idle(satin_policy *p)
{
    if (p->sync_busy || p->nnodes < 2)
        return;
    satin_policy_backoff_disarm(p);
    chs_start(p);
}

static void chs_remember(satin_policy *p, int state, int from, int to, int thief, uint64_t id)
{
    chs_state *st = p->priv;
    st->seen[st->seen_next] = (chs_seen){state, from, to, thief, id};
    st->seen_next = (st->seen_next + 1) % CHS_SEEN;
}

static chs_seen *chs_find_seen(satin_policy *p, int from, uint64_t id)
{
    chs_state *st = p->priv;
    for (int i = 0; i < CHS_SEEN; i++)
        if (st->seen[i].state != SEEN_FREE && st->seen[i].from == from && st->seen[i].id == id)
            return &st->seen[i];
    return NULL;
}

/* 1 (and forgets the cancel) if request (from, id) was cancelled before it came. */
static int chs_take_early(satin_policy *p, int from, uint64_t id)
{
    chs_state *st = p->priv;
    for (int i = 0; i < CHS_EARLY; i++)
        if (st->early[i].used && st->early[i].from == from && st->early[i].id == id) {
            st->early[i].used = 0;
            return 1;
        }
    return 0;
}

static void chs_on_steal_request(satin_policy *p, int from, int thief, uint64_t id,
                                 unsigned flags)
{
    if (chs_take_early(p, from, id)) {
        /* The thief withdrew it already: the walk ends here.  Still a reply,
         * an empty one: the thief's node waits for one (up to its steal
         * timeout) before it counts the request as over. */
        p->env.reply(p->env.ctx, thief, id, flags, 0);
        p->count[SATIN_PC_WALKS_STOPPED]++;
        chs_remember(p, SEEN_ANSWERED, from, -1, thief, id);
        return;
    }
    int next = p->env.queue_length(p->env.ctx) > 0 ? -1 : next_hop(p, thief);
    if (next < 0) {
        p->env.reply(p->env.ctx, thief, id, flags, p->params.steal_max_jobs);
        chs_remember(p, SEEN_ANSWERED, from, -1, thief, id);
        return;
    }
    p->env.forward(p->env.ctx, next, thief, id, flags | SATIN_STEAL_FORWARDED);
    chs_remember(p, SEEN_FORWARDED, from, next, thief, id);
}

/* `from` withdrew request `id`: the thief, or the node that forwarded the
 * request here.  Where we forwarded it, the cancel goes after it; if it has
 * not come yet, it is ended when it does. */
static void chs_on_cancel(satin_policy *p, int from, uint64_t id)
{
    chs_state *st = p->priv;
    chs_seen *s = chs_find_seen(p, from, id);
    if (s) {
        if (s->state == SEEN_FORWARDED) {
            p->env.cancel(p->env.ctx, s->to, s->thief, id);
            s->state = SEEN_CANCELLED;
        }
        return; /* answered here (the walk ended here), or cancelled twice */
    }
    st->early[st->early_next] = (chs_early){1, from, id};
    st->early_next = (st->early_next + 1) % CHS_EARLY;
}

static void chs_on_steal_reply(satin_policy *p, int victim, uint64_t id, int njobs,
                               unsigned flags)
{
    p->reply_flags = flags;
    (void)victim, (void)flags;
    chs_state *st = p->priv;
    if (!satin_policy_sync_reply(p, id, njobs))
        return; /* cancelled: ignored (the node counts it as late, not as a steal) */
    int done = st->phase;
    st->phase = CHS_NONE;
    if (njobs > 0 || !p->env.is_idle(p->env.ctx))
        return; /* work found, or work came another way: the next on_idle starts over */
    chs_cycle_from(p, done);
}

/* The result may let the node spawn again; a request that may be travelling
 * through a whole tree, perhaps across the WAN, is not worth keeping then.
 * If the node is still idle the request is still wanted and stays. */
static void chs_on_result(satin_policy *p)
{
    chs_state *st = p->priv;
    if (!p->sync_busy || p->env.is_idle(p->env.ctx))
        return;
    p->env.cancel(p->env.ctx, p->sync_victim, p->self, p->sync_id);
    p->sync_busy = 0;
    st->phase = CHS_NONE;
}

static void chs_on_timer(satin_policy *p, int timer_id)
{
    if (timer_id == SATIN_TIMER_BACKOFF && satin_policy_backoff_fired(p) && !p->sync_busy)
        chs_start(p);
}

static int chs_stats(const satin_policy *p, const char **names, int64_t *values, int max)
{
    return satin_policy_report(p, chs_counters,
                               (int)(sizeof chs_counters / sizeof chs_counters[0]), names,
                               values, max);
}

static const satin_policy_tunable *const chs_tunables[] = {
    &satin_tunable_backoff_min, &satin_tunable_backoff_max, &satin_tunable_steal_max_jobs, NULL};

const satin_policy_ops satin_policy_chs = {
    .name = "chs",
    .tunables = chs_tunables,
    .create = chs_create,
    .destroy = chs_destroy,
    .on_idle = chs_on_idle,
    .on_steal_request = chs_on_steal_request,
    .on_steal_reply = chs_on_steal_reply,
    .on_cancel = chs_on_cancel,
    .on_queue_length = satin_policy_ignore_queue_length,
    .on_push = satin_policy_ignore_push,
    .on_push_ack = satin_policy_ignore_push_ack,
    .on_load = satin_policy_ignore_load,
    .on_result = chs_on_result,
    .on_timer = chs_on_timer,
    .on_peer = chs_on_peer,
    .stats = chs_stats,
};
