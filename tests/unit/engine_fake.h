/*
 * engine_fake.h - the node engine's scripted environment for its unit
 * tests: every message the engine sends is recorded (through the codec),
 * every call on the pool is counted, and the test plays the other nodes by
 * hand.  Node 0 of the kit's two clusters {0,1} {2,3}.
 */
#ifndef ENGINE_FAKE_H
#define ENGINE_FAKE_H

#include "../tap.h"
#include "engine_kit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000LL
#define S 1000000000LL
#define MAX_SENT 256

typedef struct sent {
    int to;
    satin_msg *m;        /* a copy, through the codec */
} sent;

/* A record of the fake pool: an int64 argument. */
typedef struct rec {
    int64_t arg;
    uint64_t place;      /* in its job's spawn tree */
    const void *job;     /* NULL: the fake pool's one local job, 0x1 */
    int completed, ok;
    int64_t value;
    char error[128];
} rec;

typedef struct fake {
    sent out[MAX_SENT];
    int nout;
    rec *queue[16];      /* records the pool may give away, oldest first */
    int nqueue;
    int idle, active;
    int starts, cancels, refuse_start;
    const void *stopped_job;   /* job_stopping() says 1 for this one */
    void *standin_handles[16];
    /* keep_args: the stand-ins' argument bytes are the fake's (a copy per
     * stand-in, given to the engine by env.standin_arg) until the test
     * drops them with fake_drop_kept, as satind's job keeps them. */
    int keep_args;
    unsigned char *kept[16];
    size_t kept_len[16];
    char last_log[256];
    int warns, bad;
    char last_bad[128];
    uint64_t epoch[4];   /* each peer's run, as a transport would report it */
    satin_msg_jobrec started;   /* the last record started (kind and arg not kept) */
    int64_t started_arg;
    int orphans;         /* env.orphan calls, and the last one's fields */
    int orphan_status, orphan_holder;
    uint64_t orphan_origin, orphan_place, orphan_digest, orphan_runs;
    int64_t orphan_value;
    int voided[4];       /* env.orphans_void calls per holder */
    int promised;        /* env.promised calls */
    int waits, last_wait_wan;   /* env.steal_waited calls, and the last one's */
    int64_t last_wait_ns, waited_ns;   /* (and the sum of their waits) */
    int take_peer[16];   /* the peer of each env.take call */
    int ntakes;
    int give_back_from;  /* env.gives_back says 1 for this peer's records (-1: none) */
} fake;

static satin_msg *copy(const satin_msg *m)
{
    unsigned char *h, *b;
    size_t hl, bl;
    if (satin_msg_encode(m, &h, &hl, &b, &bl) < 0)
        return NULL;
    satin_msg *c = satin_msg_decode(h, hl, b, bl, 0, NULL);
    free(h);
    free(b);
    return c;
}

static void f_send(void *ctx, int to, const satin_msg *m)
{
    fake *f = ctx;
    if (f->nout < MAX_SENT)
        f->out[f->nout++] = (sent){to, copy(m)};
}

static void f_steal_waited(void *ctx, int wan, int64_t ns)
{
    fake *f = ctx;
    f->waits++;
    f->last_wait_wan = wan;
    f->last_wait_ns = ns;
    f->waited_ns += ns;
}

static void f_describe(void *ctx, void *record, satin_engine_record *out)
{
    (void)ctx;
    rec *r = record;
    *out = (satin_engine_record){.record = r, .job = r->job ? r->job : (void *)0x1,
                                 .kind = "fib", .arg = &r->arg, .arg_len = sizeof r->arg,
                                 .result_cap = 8, .place = r->place};
}

static int f_take(void *ctx, int peer, satin_engine_record *out, int max, int push)
{
    (void)push;
    fake *f = ctx;
    if (f->ntakes < 16)
        f->take_peer[f->ntakes] = peer;
    f->ntakes++;
    int n = 0;
    while (n < max && f->nqueue > 0) {
        rec *r = f->queue[0];
        memmove(f->queue, f->queue + 1, (size_t)--f->nqueue * sizeof *f->queue);
        f_describe(f, r, &out[n++]);
    }
    return n;
}

static int f_gives_back(void *ctx, int from, const char *kind, char *why, size_t whylen)
{
    fake *f = ctx;
    if (from != f->give_back_from)
        return 0;
    snprintf(why, whylen, "this node has another build of %s", kind);
    return 1;
}

static void f_complete(void *ctx, void *record, const satin_engine_outcome *o)
{
    (void)ctx;
    rec *r = record;
    r->completed++;
    r->ok = o->ok;
    if (o->ok && o->len == sizeof r->value)
        memcpy(&r->value, o->data, sizeof r->value);
    snprintf(r->error, sizeof r->error, "%s", o->error ? o->error : "");
}

static void *f_start(void *ctx, const satin_msg_jobrec *jr, const void **job, char *err,
                     size_t errlen)
{
    fake *f = ctx;
    *job = (void *)0x51;   /* every stand-in here runs as job 0x51 */
    f->started = (satin_msg_jobrec){.owner = jr->owner, .record_id = jr->record_id,
                                    .job_id = jr->job_id, .place = jr->place,
                                    .result_cap = jr->result_cap};
    if (jr->arg_len == sizeof f->started_arg)
        memcpy(&f->started_arg, jr->arg, sizeof f->started_arg);
    if (f->refuse_start) {
        snprintf(err, errlen, "node a0 has no job kind '%s'", jr->kind);
        return NULL;
    }
    f->active++;
    if (f->keep_args) {
        f->kept[f->starts] = malloc(jr->arg_len ? jr->arg_len : 1);
        f->kept_len[f->starts] = jr->arg_len;
        if (jr->arg_len)
            memcpy(f->kept[f->starts], jr->arg, jr->arg_len);
    }
    return f->standin_handles[f->starts++] = malloc(1);
}

static const void *f_standin_arg(void *ctx, void *standin)
{
    fake *f = ctx;
    for (int i = 0; i < f->starts; i++)
        if (f->standin_handles[i] == standin)
            return f->kept[i];
    return NULL;
}

/* Stand-in i's kept bytes go, scribbled over first: whatever still reads
 * them reads garbage (and AddressSanitizer sees it). */
static inline void fake_drop_kept(fake *f, int i)
{
    if (f->kept[i]) {
        memset(f->kept[i], 0xEE, f->kept_len[i]);
        free(f->kept[i]);
        f->kept[i] = NULL;
    }
}

static void f_cancel(void *ctx, void *standin, const char *why)
{
    (void)standin, (void)why;
    ((fake *)ctx)->cancels++;
}

static int f_job_stopping(void *ctx, const void *job)
{
    return job == ((fake *)ctx)->stopped_job;
}

static void f_release(void *ctx, void *standin)
{
    (void)ctx;
    free(standin);
}

static int64_t f_queue_length(void *ctx)
{
    return ((fake *)ctx)->nqueue;
}

static int f_is_idle(void *ctx)
{
    return ((fake *)ctx)->idle;
}

static int f_active(void *ctx)
{
    return ((fake *)ctx)->active;
}

static void f_note_bad(void *ctx, int node, const char *what)
{
    fake *f = ctx;
    (void)node;
    f->bad++;
    snprintf(f->last_bad, sizeof f->last_bad, "%s", what);
}

static uint64_t f_peer_epoch(void *ctx, int peer)
{
    return ((fake *)ctx)->epoch[peer];
}

static void f_orphan(void *ctx, int status, int holder, uint64_t origin, uint64_t place,
                     uint64_t digest, const void *data, size_t len, uint64_t runs)
{
    fake *f = ctx;
    f->orphans++;
    f->orphan_origin = origin;
    f->orphan_status = status;
    f->orphan_holder = holder;
    f->orphan_place = place;
    f->orphan_digest = digest;
    f->orphan_runs = runs;
    f->orphan_value = -1;
    if (len == sizeof f->orphan_value)
        memcpy(&f->orphan_value, data, len);
}

static void f_promised(void *ctx, void *standin)
{
    (void)standin;
    ((fake *)ctx)->promised++;
}

static void f_orphans_void(void *ctx, int holder)
{
    ((fake *)ctx)->voided[holder]++;
}

static void f_log(void *ctx, int level, const char *text)
{
    fake *f = ctx;
    if (SATIN_ENGINE_LOG_LEVEL(level) != SATIN_ENGINE_LOG_WARN)
        return;
    f->warns++;
    snprintf(f->last_log, sizeof f->last_log, "%s", text);
}


/* Node 0 of the kit's grid under `policy`; peers silent `failure_timeout`
 * (ns, both LAN and WAN) are dead, 0: never; orphan saving on or off. */
static satin_engine *make_watching_orphans(fake *f, const char *policy, int64_t failure_timeout,
                                           int orphan_saving)
{
    memset(f, 0, sizeof *f);
    f->give_back_from = -1;
    satin_policy_topology topo = kit_topology(0);
    satin_engine_config cfg;
    satin_engine_config_default(&cfg);
    cfg.topo = &topo;
    cfg.node_names = kit_names;
    cfg.policy = satin_policy_find(policy);
    cfg.max_record = 64;
    cfg.failure_timeout_lan_ns = cfg.failure_timeout_wan_ns = failure_timeout;
    cfg.orphan_saving = orphan_saving;
    satin_engine_env env = {
        .ctx = f, .send = f_send, .take = f_take, .complete = f_complete, .start = f_start,
        .standin_arg = f_standin_arg, .cancel = f_cancel, .release = f_release, .job_stopping = f_job_stopping, .queue_length = f_queue_length,
        .is_idle = f_is_idle, .active_jobs = f_active, .note_bad = f_note_bad, .log = f_log,
        .describe = f_describe, .peer_epoch = f_peer_epoch, .orphan = f_orphan,
        .orphans_void = f_orphans_void, .promised = f_promised, .steal_waited = f_steal_waited,
        .gives_back = f_gives_back};
    return satin_engine_new(&cfg, &env, 0);
}

static inline satin_engine *make_watching(fake *f, const char *policy, int64_t failure_timeout)
{
    return make_watching_orphans(f, policy, failure_timeout, 1);
}

/* The rules one at a time: peers never die here (test_engine_faults.c
 * covers failures). */
static inline satin_engine *make(fake *f, const char *policy)
{
    return make_watching(f, policy, 0);
}

static void forget_sent(fake *f)
{
    for (int i = 0; i < f->nout; i++)
        satin_msg_destroy(&f->out[i].m);
    f->nout = 0;
}

static satin_msg *from(int sender, int type)
{
    satin_msg *m = satin_msg_new(type);
    m->sender = (uint32_t)sender;
    return m;
}

/* A STEAL from `thief` for itself, for one job. */
static satin_msg *steal_from(int thief, uint64_t id, unsigned flags)
{
    satin_msg *m = from(thief, SATIN_MSG_STEAL);
    m->thief = (uint32_t)thief;
    m->request_id = id;
    m->flags = flags;
    m->max_jobs = 1;
    return m;
}

static void deliver(satin_engine *e, int64_t now, satin_msg *m)
{
    satin_engine_on_message(e, now, m);
    satin_msg_destroy(&m);
}

#endif
