/*
 * policy.c - defaults, lookup by name, and the pieces the policies
 * share: the grid's shape, victim choice, the idle back-off, random
 * stealing and the counters.  No I/O, no clock, no thread: everything the
 * policies do goes through env (see README.md).
 */
#include "policy_internal.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

const satin_policy_ops *const satin_policy_registry[] = {
    &satin_policy_rs, &satin_policy_rp, &satin_policy_chs, &satin_policy_cls, &satin_policy_crs,
    &satin_policy_lifeline, &satin_policy_cluster_lifeline, NULL,
};

const satin_policy_ops *satin_policy_find(const char *name)
{
    for (int i = 0; name && satin_policy_registry[i]; i++)
        if (strcasecmp(satin_policy_registry[i]->name, name) == 0)
            return satin_policy_registry[i];
    return NULL;
}

void satin_policy_list_names(char *buf, size_t len)
{
    size_t o = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; satin_policy_registry[i] && o < len; i++) {
        int n = snprintf(buf + o, len - o, "%s%s", i ? ", " : "", satin_policy_registry[i]->name);
        if (n < 0)
            break;
        o += (size_t)n;
    }
}

int satin_policy_reads(const satin_policy_ops *ops, const satin_policy_tunable *t)
{
    for (int i = 0; ops->tunables && ops->tunables[i]; i++)
        if (ops->tunables[i] == t)
            return 1;
    return 0;
}

/* A tunable counts where it is first listed: the shared ones by rs. */
static int listed_before(int policy, const satin_policy_tunable *t)
{
    for (int i = 0; i < policy; i++)
        if (satin_policy_reads(satin_policy_registry[i], t))
            return 1;
    return 0;
}

const satin_policy_tunable *satin_policy_tunable_at(int want)
{
    int seen = 0;
    for (int p = 0; satin_policy_registry[p]; p++) {
        const satin_policy_tunable *const *ts = satin_policy_registry[p]->tunables;
        for (int i = 0; ts && ts[i]; i++)
            if (!listed_before(p, ts[i]) && seen++ == want)
                return ts[i];
    }
    return NULL;
}

void satin_policy_params_default(satin_policy_params *p)
{
    memset(p, 0, sizeof *p);
    const satin_policy_tunable *t;
    for (int i = 0; (t = satin_policy_tunable_at(i)); i++)
        memcpy((char *)p + t->offset, &t->default_value, sizeof t->default_value);
}

/* ---- the tunables several policies read ------------------------------------------ */

/* Why these defaults: README.md, "Tunables". */
const satin_policy_tunable satin_tunable_backoff_min = {
    "backoff_min_ms", SATIN_TUNABLE_MS, 0, 60000, 1000000,
    offsetof(satin_policy_params, backoff_min_ns), NULL};
const satin_policy_tunable satin_tunable_backoff_max = {
    "backoff_max_ms", SATIN_TUNABLE_MS, 0, 60000, 100000000,
    offsetof(satin_policy_params, backoff_max_ns), "backoff_min_ms"};
const satin_policy_tunable satin_tunable_steal_max_jobs = {
    "steal_max_jobs", SATIN_TUNABLE_COUNT, 1, 1024, 1,
    offsetof(satin_policy_params, steal_max_jobs), NULL};

/* ---- creation ------------------------------------------------------------ */

satin_policy *satin_policy_base_create(const satin_policy_ops *ops,
                                       const satin_policy_topology *topo,
                                       const satin_policy_params *params,
                                       const satin_policy_env *env, size_t priv_size)
{
    if (!topo || !env)
        return NULL;
    /* A shape given is shared as it is; else this policy builds its own. */
    satin_grid_shape *shape = topo->shape ? satin_grid_shape_ref(topo->shape)
                                          : satin_grid_shape_new(topo, NULL);
    if (!shape || topo->self < 0 || topo->self >= shape->nnodes ||
        shape->cluster_of[topo->self] == SATIN_POLICY_NOT_MEMBER) {
        satin_grid_shape_unref(&shape);
        return NULL;
    }
    satin_policy *p = calloc(1, sizeof *p);
    if (!p) {
        satin_grid_shape_unref(&shape);
        return NULL;
    }
    p->ops = ops;
    if (params)
        p->params = *params;
    else
        satin_policy_params_default(&p->params);
    p->env = *env;
    p->shape = shape;
    p->nnodes = shape->nnodes;
    p->self = topo->self;
    p->nclusters = shape->nclusters;
    p->cluster = shape->cluster_of[p->self];
    p->position = shape->index_of[p->self];
    p->cluster_of = shape->cluster_of;
    p->index_of = shape->index_of;
    p->cluster_size = shape->cluster_size;
    p->members = shape->members;
    p->others = (satin_candidates){shape->order, shape->norder, shape->rank_of[p->self]};
    p->locals = (satin_candidates){shape->members[p->cluster], shape->cluster_size[p->cluster],
                                   p->position};
    p->remotes = (satin_candidates){shape->used, shape->nused, shape->used_rank[p->cluster]};
    p->nremote_nodes = shape->norder - shape->cluster_size[p->cluster];
    p->priv = calloc(1, priv_size ? priv_size : 1);
    if (!p->priv) {
        satin_policy_base_destroy(p);
        return NULL;
    }
    return p;
}

void satin_policy_base_destroy(satin_policy *p)
{
    if (!p)
        return;
    satin_grid_shape_unref(&p->shape);
    free(p->priv);
    free(p);
}

/* ---- victims ------------------------------------------------------------- */

int satin_policy_pick(satin_policy *p, const satin_candidates *c)
{
    int n = satin_candidates_count(c);
    if (n <= 0)
        return -1;
    /* Modulo bias is negligible for 64-bit draws and node counts; the plain
     * formula lets a test script the victim it wants. */
    return satin_candidates_at(c, (int)(p->env.random(p->env.ctx) % (uint64_t)n));
}

int satin_policy_pick_remote(satin_policy *p)
{
    int c = satin_policy_pick(p, &p->remotes);
    if (c < 0)
        return -1;
    satin_candidates all = {p->members[c], p->cluster_size[c], -1};
    return satin_policy_pick(p, &all);
}

/* ---- messages -------------------------------------------------------------- */

uint64_t satin_policy_send_steal(satin_policy *p, int victim, unsigned flags)
{
    if (satin_policy_is_remote(p, victim))
        flags |= SATIN_STEAL_WAN;
    return p->env.steal(p->env.ctx, victim, flags);
}

/* ---- random stealing ----------------------------------------------------- */

void satin_policy_sync_steal_from(satin_policy *p, int victim, unsigned flags)
{
    p->sync_victim = victim;
    p->sync_busy = 1;
    p->sync_id = satin_policy_send_steal(p, victim, SATIN_STEAL_SYNC | flags);
}

int satin_policy_sync_steal(satin_policy *p, const satin_candidates *c)
{
    if (p->sync_busy || satin_candidates_count(c) <= 0)
        return 0;
    satin_policy_sync_steal_from(p, satin_policy_pick(p, c), 0);
    return 1;
}

int satin_policy_sync_reply(satin_policy *p, uint64_t id, int njobs)
{
    if (!p->sync_busy || id != p->sync_id)
        return 0;
    p->sync_busy = 0;
    if (njobs > 0)
        satin_backoff_reset(&p->backoff);
    return 1;
}

/* ---- back-off -------------------------------------------------------------- */

/* Failures 1..round-1 retry at once (one try per candidate, as a SimMatrix
 * node asks each neighbour before it waits); from then on every failure
 * waits, backoff_min during the first full round, doubled per further round,
 * capped at backoff_max.  So a grid with no work at all settles at one
 * request per node per backoff_max. */
int64_t satin_backoff_fail(satin_backoff *b, const satin_policy_params *pp, int round)
{
    if (round < 1)
        round = 1;
    b->failures++;
    int64_t rounds = b->failures / round;
    if (rounds == 0)
        return 0;
    int64_t d = pp->backoff_min_ns > 0 ? pp->backoff_min_ns : 1;
    int64_t cap = pp->backoff_max_ns > d ? pp->backoff_max_ns : d;
    for (int64_t r = 1; r < rounds && d < cap; r++)
        d *= 2;
    return d < cap ? d : cap;
}

void satin_backoff_reset(satin_backoff *b)
{
    b->failures = 0;
    b->busy_polls = 0;
}

void satin_policy_idle_failed(satin_policy *p, int round, void (*retry)(satin_policy *))
{
    /* A victim that was busy but had nothing to give says work exists
     * somewhere: poll again at the shortest interval instead of backing off
     * further (an idle grid still backs off: its victims are not busy), for
     * SATIN_BUSY_POLLS_MAX replies in a row at most. */
    int64_t delay;
    if ((p->reply_flags & SATIN_STEAL_VICTIM_BUSY) &&
        p->backoff.busy_polls < SATIN_BUSY_POLLS_MAX) {
        p->backoff.busy_polls++;
        delay = p->params.backoff_min_ns > 0 ? p->params.backoff_min_ns : 1;
    } else {
        delay = satin_backoff_fail(&p->backoff, &p->params, round);
    }
    p->reply_flags = 0;
    if (!p->env.is_idle(p->env.ctx))
        return; /* busy again: the next on_idle starts over */
    if (delay == 0) {
        retry(p);
        return;
    }
    p->env.set_timer(p->env.ctx, SATIN_TIMER_BACKOFF, delay);
    p->backoff_armed = 1;
    p->count[SATIN_PC_BACKOFFS]++;
}

void satin_policy_work_started(satin_policy *p)
{
    if (!p->backoff_armed)
        return;
    satin_backoff_reset(&p->backoff);
    satin_policy_backoff_disarm(p);
    p->count[SATIN_PC_WOKEN]++;
    /* As if the interval were over: the policy's own retry, if still idle. */
    p->ops->on_timer(p, SATIN_TIMER_BACKOFF);
}

void satin_policy_backoff_disarm(satin_policy *p)
{
    if (!p->backoff_armed)
        return;
    p->env.clear_timer(p->env.ctx, SATIN_TIMER_BACKOFF);
    p->backoff_armed = 0;
}

int satin_policy_backoff_fired(satin_policy *p)
{
    p->backoff_armed = 0;
    return p->env.is_idle(p->env.ctx);
}

/* ---- handlers several policies share ---------------------------------------- */

void satin_policy_give(satin_policy *p, int from, int thief, uint64_t id, unsigned flags)
{
    (void)from; /* the reply goes to the thief, whoever passed the request on */
    p->env.reply(p->env.ctx, thief, id, flags, p->params.steal_max_jobs);
}

void satin_policy_ignore_cancel(satin_policy *p, int from, uint64_t id)
{
    (void)p, (void)from, (void)id; /* requests are answered at once: nothing is held to withdraw */
}

void satin_policy_ignore_queue_length(satin_policy *p, int64_t length)
{
    (void)p, (void)length;
}

void satin_policy_ignore_idle(satin_policy *p)
{
    (void)p;
}

void satin_policy_ignore_push(satin_policy *p, int from)
{
    (void)p, (void)from; /* the node queued the job already */
}

void satin_policy_ignore_push_ack(satin_policy *p, int target)
{
    (void)p, (void)target;
}

void satin_policy_ignore_load(satin_policy *p, int from, int64_t load)
{
    (void)p, (void)from, (void)load;
}

void satin_policy_ignore_peer(satin_policy *p, int peer, int alive)
{
    (void)p, (void)peer, (void)alive;
}

void satin_policy_ignore_result(satin_policy *p)
{
    (void)p;
}

/* ---- statistics -------------------------------------------------------------- */

static const char *const counter_names[SATIN_PC_COUNT] = {
    [SATIN_PC_BACKOFFS] = "backoffs",
    [SATIN_PC_WAN_BACKOFFS] = "wan_backoffs",
    [SATIN_PC_LOADS_RECEIVED] = "loads_received",
    [SATIN_PC_WALKS_STOPPED] = "walks_stopped",
    [SATIN_PC_QUIESCES] = "quiesces",
    [SATIN_PC_LIFELINES_NOTED] = "lifelines_noted",
    [SATIN_PC_WOKEN] = "backoffs_cut",
};

int satin_policy_report(const satin_policy *p, const int *which, int nwhich,
                        const char **names, int64_t *values, int max)
{
    int n = 0;
    for (int i = 0; i < nwhich && n < max; i++, n++) {
        names[n] = counter_names[which[i]];
        values[n] = p->count[which[i]];
    }
    return n;
}
