/*
 * lifeline_core.c - the lifeline scheme shared by lifeline.c and
 * cluster_lifeline.c (lifeline_core.h; README.md, "Lifelines").
 *
 * Thief: in an idle period, up to w synchronous steals from random victims,
 * then a synchronous LIFELINE request on each outgoing lifeline not already
 * activated, one after the other (X10's attemptSteal), stopping at the
 * first reply with work or when the node is busy again; then it quiesces:
 * no timer, no message, until work comes.  Victim: an empty reply to a
 * LIFELINE request remembers the thief (X10's thieves stack), and whenever
 * the queue holds more than two records the remembered thieves get pushes
 * (X10's distribute).
 */
#include "lifeline_core.h"

void satin_ll_init(satin_ll *ll, const satin_candidates *victims, const int *nodes, int n, int v,
                   int z)
{
    int vertex[SATIN_LIFELINE_MAX_Z];
    ll->victims = victims;
    ll->nedges = n > 1 ? satin_lifeline_edges(n, z, v, 0, vertex) : 0;
    for (int i = 0; i < ll->nedges; i++)
        ll->edges[i] = nodes[vertex[i]];
}

static int edge_of(const satin_ll *ll, int node)
{
    for (int i = 0; i < ll->nedges; i++)
        if (ll->edges[i] == node)
            return i;
    return -1;
}

/* The next step of the idle period: a random steal, a lifeline, or quiescence. */
static void ll_next(satin_policy *p, satin_ll *ll)
{
    if (!p->env.is_idle(p->env.ctx))
        return; /* busy again: the next on_idle starts over */
    if (ll->tries < p->params.lifeline_w && satin_candidates_count(ll->victims) > 0) {
        ll->tries++;
        satin_policy_sync_steal(p, ll->victims);
        return;
    }
    while (ll->next_edge < ll->nedges) {
        int i = ll->next_edge++;
        if (ll->activated & (1u << i))
            continue; /* asked before, and it has not delivered yet */
        ll->activated |= 1u << i;
        satin_policy_sync_steal_from(p, ll->edges[i], SATIN_STEAL_LIFELINE);
        return;
    }
    p->count[SATIN_PC_QUIESCES]++;
    if (ll->quiesced)
        ll->quiesced(p);
}

void satin_ll_on_idle(satin_policy *p, satin_ll *ll)
{
    if (p->sync_busy)
        return; /* the idle period's steal is still out */
    ll->tries = 0;
    ll->next_edge = 0;
    ll_next(p, ll);
}

int satin_ll_on_steal_reply(satin_policy *p, satin_ll *ll, int victim, uint64_t id, int njobs,
                            unsigned flags)
{
    if (!satin_policy_sync_reply(p, id, njobs))
        return 0;
    if (njobs > 0) {
        int i = (flags & SATIN_STEAL_LIFELINE) ? edge_of(ll, victim) : -1;
        if (i >= 0)
            ll->activated &= ~(1u << i); /* it gave instead of remembering us */
        return 1;
    }
    ll_next(p, ll);
    return 1;
}

static void note_thief(satin_policy *p, satin_ll *ll, int thief)
{
    for (int i = 0; i < ll->nthieves; i++)
        if (ll->thieves[i] == thief)
            return;
    if (ll->nthieves == SATIN_LL_MAX_THIEVES)
        return;
    ll->thieves[ll->nthieves++] = thief;
    p->count[SATIN_PC_LIFELINES_NOTED]++;
}

/* The most records `thief` gets in one delivery. */
static int64_t loot_cap(const satin_policy *p, const satin_ll *ll, int thief)
{
    if (ll->wan_jobs > 0 && satin_policy_is_remote(p, thief))
        return ll->wan_jobs;
    return p->params.steal_max_jobs;
}

/* 1 if `thief` is in another cluster and the queue is too short to give it
 * anything yet. */
static int wan_holds(satin_policy *p, const satin_ll *ll, int thief, int64_t len)
{
    return ll->wan_min_queue > 0 && satin_policy_is_remote(p, thief) && len < ll->wan_min_queue;
}

void satin_ll_on_steal_request(satin_policy *p, satin_ll *ll, int thief, uint64_t id,
                               unsigned flags)
{
    int max = (int)p->params.steal_max_jobs;
    if ((flags & SATIN_STEAL_LIFELINE) &&
        wan_holds(p, ll, thief, p->env.queue_length(p->env.ctx)))
        max = 0;
    int n = p->env.reply(p->env.ctx, thief, id, flags, max);
    if (n == 0 && (flags & SATIN_STEAL_LIFELINE)) {
        note_thief(p, ll, thief);
        return;
    }
    /* A wide-area lifeline answered with work: the reply carries what the
     * request allows (steal_max_jobs); pushes bring the rest of the loot,
     * half of what is left at most (X10's steal-half), up to the cap. */
    if (n > 0 && (flags & SATIN_STEAL_LIFELINE)) {
        int64_t len = p->env.queue_length(p->env.ctx);
        int64_t more = loot_cap(p, ll, thief) - n;
        if (more > len / 2)
            more = len / 2;
        for (int64_t j = 0; j < more; j++)
            if (!p->env.push(p->env.ctx, thief))
                break;
    }
}

/* X10's distribute: with more than two records queued, up to (records - 2)
 * thieves, the most recent first, get records/(thieves + 1) records each
 * (at most steal_max_jobs, its k; wan_jobs for a thief in another
 * cluster), one push per record. */
void satin_ll_distribute(satin_policy *p, satin_ll *ll)
{
    if (ll->nthieves == 0)
        return;
    int64_t len = p->env.queue_length(p->env.ctx);
    if (len <= 2)
        return;
    int64_t n = ll->nthieves < len - 2 ? ll->nthieves : len - 2;
    int64_t share = len / (n + 1);
    /* From the top of the stack.  Thieves held back (wan_holds), those past
     * n and those the queue ran out before stay, in their order: each is
     * written at the top of what is kept, which is never above where the
     * walk is. */
    int kept = 0, top = ll->nthieves, dry = 0;
    for (int i = top - 1; i >= 0; i--) {
        int thief = ll->thieves[i];
        if (n == 0 || dry || wan_holds(p, ll, thief, len)) {
            ll->thieves[top - 1 - kept++] = thief;
            continue;
        }
        n--;
        int64_t each = share < loot_cap(p, ll, thief) ? share : loot_cap(p, ll, thief), j = 0;
        while (j < each && p->env.push(p->env.ctx, thief))
            j++;
        if (j < each)
            dry = 1; /* a worker took the rest meanwhile */
        if (j == 0)
            ll->thieves[top - 1 - kept++] = thief;
    }
    for (int i = 0; i < kept; i++)
        ll->thieves[i] = ll->thieves[top - kept + i];
    ll->nthieves = kept;
}

void satin_ll_on_push(satin_policy *p, satin_ll *ll, int from)
{
    (void)p;
    int i = edge_of(ll, from);
    if (i >= 0)
        ll->activated &= ~(1u << i);
}

void satin_ll_on_peer(satin_policy *p, satin_ll *ll, int peer, int alive)
{
    (void)p;
    /* A dead buddy forgot our request, and one sent to it meanwhile ended
     * empty at once: ask it again at the next idle period after it is
     * back.  A dead thief wants nothing. */
    int i = edge_of(ll, peer);
    if (i >= 0)
        ll->activated &= ~(1u << i);
    if (alive)
        return;
    for (int k = 0; k < ll->nthieves; k++)
        if (ll->thieves[k] == peer) {
            ll->thieves[k] = ll->thieves[--ll->nthieves];
            k--;
        }
}

/* Why these defaults: README.md, "Tunables". */
const satin_policy_tunable satin_tunable_lifeline_w = {
    "lifeline_w", SATIN_TUNABLE_COUNT, 0, 1000000, 1,
    offsetof(satin_policy_params, lifeline_w), NULL};
const satin_policy_tunable satin_tunable_lifeline_z = {
    "lifeline_z", SATIN_TUNABLE_COUNT, 0, SATIN_LIFELINE_MAX_Z, 0,
    offsetof(satin_policy_params, lifeline_z), NULL};
