/*
 * engine_policy.c - the policy's environment: each action the policy asks
 * for becomes a message to a peer, a timer of the engine's or a question
 * to the pool, and is counted once, here (the events the policy is fed are
 * counted where the engine feeds them, engine.c).
 */
#include "engine_internal.h"

static void send_and_free(satin_engine *e, int to, satin_msg *m)
{
    satin_engine_send(e, to, m);
    satin_msg_destroy(&m);
}

static void count_steal(satin_engine *e, int victim, unsigned flags)
{
    if (satin_engine_is_remote(e, victim))
        e->c.steal_wan++;
    else
        e->c.steal_lan++;
    if (flags & SATIN_STEAL_SYNC)
        e->c.steal_sync++;
    else
        e->c.steal_async++;
    if (flags & SATIN_STEAL_PREFETCH)
        e->c.prefetches++;
    uint64_t wan = 0;
    for (size_t i = 0; i < e->ledger.npending; i++)
        wan += (uint64_t)satin_engine_is_remote(e, e->ledger.pending[i].victim);
    if (wan > e->c.wan_in_flight_max)
        e->c.wan_in_flight_max = wan;
}

static uint64_t env_steal(void *ctx, int victim, unsigned flags)
{
    satin_engine *e = ctx;
    uint64_t id = e->next_request++;
    /* A stopping node asks for nothing more; the policy waits for a reply
     * that never comes, which is all it needs to do until the node exits. */
    if (e->draining)
        return id;
    /* A dead node answers nothing: the request ends empty at once (on the
     * next tick, not inside the policy's own call).  A leaving one still
     * answers: what waits there is taken before it goes. */
    if (satin_engine_peer_unreachable(e, victim)) {
        satin_ledger_add_pending(&e->ledger, id, victim, flags, e->now);
        e->ledger.pending[e->ledger.npending - 1].unsent = 1;
        e->dead_victims = 1;
        return id;
    }
    satin_msg *m = satin_msg_new(SATIN_MSG_STEAL);
    m->request_id = id;
    m->thief = (uint32_t)e->topo.self;
    m->flags = flags;
    m->max_jobs = (uint16_t)e->cfg.params.steal_max_jobs;
    send_and_free(e, victim, m);
    satin_ledger_add_pending(&e->ledger, id, victim, flags, e->now);
    count_steal(e, victim, flags);
    return id;
}

int satin_engine_attach_jobs(satin_engine *e, satin_msg *m, int thief, int max, int push)
{
    satin_engine_record recs[SATIN_ENGINE_MAX_JOBS_PER_MESSAGE];
    if (max > SATIN_ENGINE_MAX_JOBS_PER_MESSAGE)
        max = SATIN_ENGINE_MAX_JOBS_PER_MESSAGE;
    int n = max > 0 ? e->env.take(e->env.ctx, thief, recs, max, push) : 0;
    for (int i = 0; i < n; i++) {
        uint64_t id = satin_ledger_give(&e->ledger, recs[i].record, recs[i].job, recs[i].origin,
                                        thief);
        satin_engine_values_link(e, recs[i].origin, recs[i].job, thief);
        /* The job field is the owner's opaque tag; thieves only echo it.
         * The argument is not copied: the record stays ours, unchanged,
         * until its result comes back, and m is encoded before it is
         * destroyed, within the caller's call. */
        satin_msg_add_jobrec_ref(m, (uint32_t)e->topo.self, id,
                                 (uint64_t)(uintptr_t)recs[i].job, recs[i].kind,
                                 (uint32_t)recs[i].result_cap, recs[i].arg, recs[i].arg_len);
        m->jobrecs[m->njobrecs - 1].place = recs[i].place;
        m->jobrecs[m->njobrecs - 1].ancestry[0] = recs[i].ancestry[0];
        m->jobrecs[m->njobrecs - 1].ancestry[1] = recs[i].ancestry[1];
        m->jobrecs[m->njobrecs - 1].origin = recs[i].origin;
        e->c.jobs_given++;
        e->c.bytes_jobs_out += recs[i].arg_len;
    }
    return n;
}

static int env_reply(void *ctx, int thief, uint64_t request_id, unsigned flags, int max_jobs)
{
    satin_engine *e = ctx;
    satin_msg *m = satin_msg_new(SATIN_MSG_STEAL_REPLY);
    m->request_id = request_id;
    m->victim = (uint32_t)e->topo.self;
    int n = satin_engine_attach_jobs(e, m, thief, max_jobs, 0);
    /* An empty reply from a node that runs jobs tells the thief that work
     * may appear (a child's result comes back, a sync returns), so it polls
     * again soon; the policies bound how long (SATIN_BUSY_POLLS_MAX), for a
     * job may be waiting for a node that is gone. */
    int busy = n == 0 && e->env.active_jobs(e->env.ctx) > 0;
    m->flags = flags | (busy ? SATIN_STEAL_VICTIM_BUSY : 0);
    send_and_free(e, thief, m);
    e->c.requests_served++;
    return n;
}

static void env_forward(void *ctx, int to, int thief, uint64_t request_id, unsigned flags)
{
    satin_engine *e = ctx;
    if (satin_engine_peer_unreachable(e, to)) {
        env_reply(e, thief, request_id, flags, 0); /* nobody there would answer it */
        return;
    }
    satin_msg *m = satin_msg_new(SATIN_MSG_STEAL);
    m->request_id = request_id;
    m->thief = (uint32_t)thief;
    m->flags = flags | SATIN_STEAL_FORWARDED;
    m->max_jobs = (uint16_t)e->cfg.params.steal_max_jobs;
    send_and_free(e, to, m);
    e->c.requests_forwarded++;
}

static void env_cancel(void *ctx, int victim, int thief, uint64_t request_id)
{
    satin_engine *e = ctx;
    if (thief == e->topo.self) {
        /* Our own request: its reply, which still comes, is no steal.  One
         * that is not out (a stopping node sent none) needs no cancel. */
        if (satin_ledger_withdraw_pending(&e->ledger, request_id) < 0)
            return;
        e->c.cancels_sent++;
    } else {
        e->c.cancels_forwarded++;
    }
    if (satin_engine_peer_unreachable(e, victim))
        return; /* nobody there to tell */
    satin_msg *m = satin_msg_new(SATIN_MSG_STEAL_CANCEL);
    m->steal_id = request_id;
    m->thief = (uint32_t)e->topo.self;
    send_and_free(e, victim, m);
}

static int env_push(void *ctx, int target)
{
    satin_engine *e = ctx;
    if (satin_engine_peer_gone(e, target))
        return 0;
    satin_msg *m = satin_msg_new(SATIN_MSG_PUSH);
    int n = satin_engine_attach_jobs(e, m, target, 1, 1);
    if (n)
        satin_engine_send(e, target, m);
    satin_msg_destroy(&m);
    e->c.pushes_sent += (uint64_t)n;
    return n;
}

static void env_send_load(void *ctx, int coordinator, int64_t load)
{
    satin_engine *e = ctx;
    if (satin_engine_peer_gone(e, coordinator))
        return;
    satin_msg *m = satin_msg_new(SATIN_MSG_LOAD);
    m->load = load;
    send_and_free(e, coordinator, m);
    e->c.load_reports++;
}

static void env_set_timer(void *ctx, int id, int64_t delay_ns)
{
    satin_engine *e = ctx;
    /* +1: a deadline of 0 means "off". */
    if (id >= 0 && id < SATIN_ENGINE_MAX_TIMERS)
        e->timer[id] = e->now + (delay_ns > 0 ? delay_ns : 0) + 1;
}

static void env_clear_timer(void *ctx, int id)
{
    satin_engine *e = ctx;
    if (id >= 0 && id < SATIN_ENGINE_MAX_TIMERS)
        e->timer[id] = 0;
}

/* xorshift64: cheap, and the same seed gives the same draws everywhere. */
static uint64_t env_random(void *ctx)
{
    satin_engine *e = ctx;
    uint64_t x = e->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return e->rng = x;
}

static int64_t env_now(void *ctx)
{
    const satin_engine *e = ctx;
    return e->now;
}

static int64_t env_queue_length(void *ctx)
{
    satin_engine *e = ctx;
    return e->env.queue_length(e->env.ctx);
}

static int env_is_idle(void *ctx)
{
    satin_engine *e = ctx;
    return e->env.is_idle(e->env.ctx);
}

void satin_engine_policy_env(satin_engine *e)
{
    e->penv = (satin_policy_env){
        .ctx = e,
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
}
