/* sim.c - a simulated grid running one job (see sim.h). */
#include "sim.h"
#include "engine.h"
#include "grid_shape.h"
#include "satin_digest.h"
#include "lifestory.h"
#include "sim_ctl.h"
#include "sim_orphans.h"
#include "sim_queue.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EV_TASK_DONE, EV_MSG, EV_TICK, EV_AFTER_DONE, EV_DECODED, EV_CRASH, EV_ORPHANS };
enum { FRAME_INNER, FRAME_JOB, FRAME_STANDIN };

/* An invocation waiting for its children, or a root: a job submitted here
 * (FRAME_JOB) or another node's record run here (FRAME_STANDIN). */
typedef struct sim_frame {
    int64_t value;
    int64_t pending;
    struct sim_frame *parent;  /* NULL for a root */
    struct sim_frame *root;
    int kind;
    int cancelled;             /* roots: env.cancel */
    int64_t after;             /* inner: the cost once the children's results are in */
    struct sim_frame *next_ready;
    int64_t result_bytes;      /* stand-ins: the data their result carries */
} sim_frame;

/* An invocation not run yet: in a deque, or given to another node. */
typedef struct sim_task {
    sim_state state;
    sim_frame *parent;
    uint64_t place;
    uint32_t nchildren;        /* known once a worker starts it */
    uint32_t no_wait;          /* it waited for a promised orphan and runs now */
} sim_task;

/* Fixed-size objects with a free list: a long run frees as it goes. */
typedef struct sim_alloc {
    size_t size;
    void *free;
    char **chunks;
    size_t nchunks, left;
    char *next;
} sim_alloc;

#define CHUNK_BYTES ((size_t)1 << 20)

/* A ring of tasks: oldest at q[head], newest at q[(head + n - 1) % cap]. */
typedef struct sim_ring {
    sim_task **q;
    size_t head, n, cap;
} sim_ring;

/* As satind's pool (runtime/pool.h): the deque holds the tasks spawned
 * here, the inbox the records other nodes gave us (and the job submitted
 * here) that no worker has started.  Both count in the queue length; a
 * thief gets the inbox's oldest first, then the deque's; a push takes only
 * the deque's; a free worker goes on with the deque's newest, else the
 * inbox's oldest. */
typedef struct sim_node {
    sim *s;
    int id;
    satin_engine *e;
    sim_ring deque, inbox;
    int idle;                  /* workers without a task */
    int told_dry;              /* on_dry was said since work last came */
    int active;                /* roots alive here */
    int64_t tick_at;           /* the engine's next deadline, as an event (-1: none) */
    int64_t idle_changed;      /* when `idle` last changed */
    /* Frames whose children are done and whose `after` cost is due, oldest
     * first: a free worker runs them before any queued task, as satind's
     * worker goes on past its satin_sync.  Not records: no thief sees them. */
    sim_frame *ready, *ready_last;
    int dead;                  /* crashed: no event of it is handled again */
    sim_orphans *orphans;      /* NULL until an orphan is told here */
} sim_node;

/* A message on its way: the codec's two frames, one allocation. */
typedef struct sim_wire {
    size_t hlen, blen;
    unsigned char bytes[];
} sim_wire;

struct sim {
    sim_config cfg;
    sim_model model;
    satin_policy_topology topo;      /* cfg.topo */
    satin_grid_shape *shape;         /* the grid, one for every engine and policy */
    sim_queue q;
    sim_net net;
    sim_ctl ctl;
    sim_node *nodes;
    int nnodes;
    sim_alloc frames, tasks;
    int64_t now;
    int done, failed;
    int64_t result, submitted, ended;
    int64_t work_ns, idle_ns;
    uint64_t tasks_run, bad, tasks_lost, records_lost, msgs_dropped;
    satin_life *life;                /* NULL: no lifestory */
    int64_t result_bytes;      /* the data of the JOB_RESULT being sent, if any */
    /* env.take's and env.describe's argument bytes, alive until the engine
     * has copied them into its message */
    unsigned char scratch[SATIN_ENGINE_MAX_JOBS_PER_MESSAGE][SIM_ARG_MAX];
};

/* ---- memory ----------------------------------------------------------------------- */

static void alloc_init(sim_alloc *a, size_t size)
{
    memset(a, 0, sizeof *a);
    a->size = (size + 15) & ~(size_t)15;
}

static void *alloc_get(sim_alloc *a)
{
    if (a->free) {
        void *p = a->free;
        memcpy(&a->free, p, sizeof a->free);
        return p;
    }
    if (a->left < a->size) {
        a->chunks = realloc(a->chunks, (a->nchunks + 1) * sizeof *a->chunks);
        if (!a->chunks || !(a->chunks[a->nchunks] = malloc(CHUNK_BYTES)))
            abort();
        a->next = a->chunks[a->nchunks++];
        a->left = CHUNK_BYTES;
    }
    void *p = a->next;
    a->next += a->size;
    a->left -= a->size;
    return p;
}

static void alloc_put(sim_alloc *a, void *p)
{
    memcpy(p, &a->free, sizeof a->free);
    a->free = p;
}

static void alloc_free(sim_alloc *a)
{
    for (size_t i = 0; i < a->nchunks; i++)
        free(a->chunks[i]);
    free(a->chunks);
    memset(a, 0, sizeof *a);
}

/* ---- deques and workers -------------------------------------------------------------- */

static void ring_push(sim_ring *r, sim_task *t)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        sim_task **q = malloc(cap * sizeof *q);
        if (!q)
            abort();
        for (size_t i = 0; i < r->n; i++)
            q[i] = r->q[(r->head + i) % r->cap];
        free(r->q);
        r->q = q;
        r->head = 0;
        r->cap = cap;
    }
    r->q[(r->head + r->n++) % r->cap] = t;
}

static sim_task *ring_pop_newest(sim_ring *r)
{
    return r->n ? r->q[(r->head + --r->n) % r->cap] : NULL;
}

static sim_task *ring_pop_oldest(sim_ring *r)
{
    if (!r->n)
        return NULL;
    sim_task *t = r->q[r->head];
    r->head = (r->head + 1) % r->cap;
    r->n--;
    return t;
}

static void push_spawned(sim_node *n, sim_task *t)
{
    ring_push(&n->deque, t);
    n->told_dry = 0;
}

static void push_received(sim_node *n, sim_task *t)
{
    ring_push(&n->inbox, t);
    n->told_dry = 0;
}

/* A worker's next task: the newest spawned here, else the oldest received. */
static sim_task *next_task(sim_node *n)
{
    sim_task *t = ring_pop_newest(&n->deque);
    return t ? t : ring_pop_oldest(&n->inbox);
}

static size_t waiting(const sim_node *n)
{
    return n->deque.n + n->inbox.n;
}

static void set_idle(sim_node *n, int idle)
{
    n->s->idle_ns += (int64_t)n->idle * (n->s->now - n->idle_changed);
    n->idle_changed = n->s->now;
    n->idle = idle;
}

static void push_event(sim *s, int type, int node, int64_t at, int64_t aux, void *data)
{
    sim_queue_push(&s->q, (sim_event){.at = at, .type = type, .node = node, .aux = aux,
                                      .data = data});
}

static int orphan_taken(sim *s, sim_node *n, sim_task *t);

/* Idle workers take a due continuation, else the newest task; a node left
 * with an idle worker and nothing queued tells its engine (once until work
 * comes). */
static void start_tasks(sim_node *n)
{
    sim *s = n->s;
again:
    while (n->idle > 0 && n->ready) {
        sim_frame *f = n->ready;
        n->ready = f->next_ready;
        s->work_ns += f->after;
        set_idle(n, n->idle - 1);
        int worker = s->life ? satin_life_task_start(s->life, n->id, s->now) : 0;
        push_event(s, EV_AFTER_DONE, n->id, s->now + f->after, worker, f);
    }
    while (n->idle > 0 && waiting(n) > 0) {
        sim_task *t = next_task(n);
        if (n->orphans && orphan_taken(s, n, t))
            goto again;   /* its value may have made a continuation due */
        t->nchildren = sim_model_children(&s->model, &t->state);
        int64_t cost = sim_model_cost(&s->model, &t->state, t->nchildren);
        s->work_ns += cost;
        set_idle(n, n->idle - 1);
        int worker = s->life ? satin_life_task_start(s->life, n->id, s->now) : 0;
        push_event(s, EV_TASK_DONE, n->id, s->now + cost, worker, t);
    }
    if (n->idle > 0 && waiting(n) == 0 && !n->told_dry) {
        n->told_dry = 1;
        satin_engine_on_dry(n->e, s->now);
    }
}

/* ---- results going up the tree ------------------------------------------------------- */

static void child_done(sim *s, sim_node *n, sim_frame *f, int64_t v);

static void root_done(sim *s, sim_node *n, sim_frame *r)
{
    n->active--;
    if (r->kind == FRAME_JOB) {
        s->done = 1;
        s->failed = r->cancelled;
        s->result = r->value;
        s->ended = s->now;
        alloc_put(&s->frames, r);
        return;
    }
    satin_engine_outcome o = {
        .ok = !r->cancelled,
        .error = r->cancelled ? "cancelled" : "",
        .data = &r->value,
        .len = sizeof r->value,
    };
    s->result_bytes = r->result_bytes;
    satin_engine_on_standin_done(n->e, s->now, r, &o);
    s->result_bytes = 0;
    alloc_put(&s->frames, r);
}

static void child_done(sim *s, sim_node *n, sim_frame *f, int64_t v)
{
    while (f) {
        f->value += v;
        if (--f->pending > 0)
            return;
        if (f->kind != FRAME_INNER) {
            root_done(s, n, f);
            return;
        }
        if (f->after > 0) {
            f->next_ready = NULL;
            if (n->ready)
                n->ready_last->next_ready = f;
            else
                n->ready = f;
            n->ready_last = f;
            return;
        }
        sim_frame *up = f->parent;
        v = f->value;
        alloc_put(&s->frames, f);
        f = up;
    }
}

/* An inner frame's `after` cost spent: its value goes up. */
static void after_done(sim *s, sim_node *n, sim_frame *f)
{
    set_idle(n, n->idle + 1);
    sim_frame *up = f->parent;
    int64_t v = f->value;
    alloc_put(&s->frames, f);
    child_done(s, n, up, v);
}

static void task_done(sim *s, sim_node *n, sim_task *t)
{
    s->tasks_run++;
    set_idle(n, n->idle + 1);
    uint32_t k = t->nchildren;
    int64_t own = sim_model_value(&s->model, &t->state, k);
    if (k == 0) {
        sim_frame *parent = t->parent;
        alloc_put(&s->tasks, t);
        child_done(s, n, parent, own);
        return;
    }
    sim_frame *f = alloc_get(&s->frames);
    *f = (sim_frame){.value = own, .pending = k, .parent = t->parent, .root = t->parent->root,
                     .kind = FRAME_INNER,
                     .after = sim_model_cost_after(&s->model, &t->state, k)};
    /* Child 0 ends newest: the worker runs it next, thieves take the last. */
    for (uint32_t i = k; i-- > 0;) {
        sim_task *c = alloc_get(&s->tasks);
        sim_model_child(&s->model, &t->state, i, &c->state);
        c->parent = f;
        c->place = satin_place_child(t->place, i + 1);
        c->no_wait = 0;
        push_spawned(n, c);
    }
    alloc_put(&s->tasks, t);
}

/* satind's invoke: a result told as an orphan for this place and these
 * argument bytes is taken instead of running the task again, at no cost.
 * One only promised is waited for by a task its parent spawned here (a
 * root never waits: it may be the promised record itself), without a
 * worker, as satind's worker helps with other work meanwhile. */
static int orphan_taken(sim *s, sim_node *n, sim_task *t)
{
    if (!sim_orphans_at(n->orphans, t->place))
        return 0;
    unsigned char arg[SIM_ARG_MAX];
    size_t len = sim_model_write(&s->model, &t->state, arg, sizeof arg);
    uint64_t digest = satin_digest(s->model.name, arg, len);
    int64_t v;
    if (!sim_orphans_take(n->orphans, t->place, digest, &v)) {
        if (t->parent->kind != FRAME_INNER || t->no_wait ||
            !sim_orphans_promised(n->orphans, t->place, digest))
            return 0;
        sim_orphans_wait(n->orphans, t, t->place, digest, s->now);
        push_event(s, EV_ORPHANS, n->id, s->now + SIM_ORPHAN_WAIT_NS, 0, NULL);
        return 1;
    }
    sim_frame *parent = t->parent;
    alloc_put(&s->tasks, t);
    child_done(s, n, parent, v);
    return 1;
}

/* Tasks waiting for promised orphans go on: with the result, or to run. */
static void orphans_settle(sim *s, sim_node *n)
{
    int got;
    int64_t v;
    for (sim_task *t; n->orphans && (t = sim_orphans_settle(n->orphans, s->now, &got, &v));) {
        if (got) {
            sim_frame *parent = t->parent;
            alloc_put(&s->tasks, t);
            child_done(s, n, parent, v);
        } else {
            t->no_wait = 1;
            push_spawned(n, t);
        }
    }
}

/* The node stops for good: what its workers run, its continuations and
 * its queued tasks vanish; its engine is never called again. */
static void crash(sim *s, sim_node *n)
{
    s->records_lost += (uint64_t)n->active;
    s->tasks_lost += (uint64_t)(s->cfg.workers - n->idle) + waiting(n) +
                     (n->orphans ? n->orphans->nwaiters : 0);
    for (sim_frame *f = n->ready; f; f = f->next_ready)
        s->tasks_lost++;
    set_idle(n, 0);
    n->deque.n = n->inbox.n = 0;
    n->ready = NULL;
    n->dead = 1;
}

/* ---- the engine's environment -------------------------------------------------------- */

/* What a message's records or result carry beyond their bytes
 * (sim_model_data): a record its argument's data, a result its own. */
static size_t data_bytes(sim *s, const satin_msg *m)
{
    int64_t sum = 0, arg, res;
    if (m->type == SATIN_MSG_JOB_RESULT)
        return (size_t)s->result_bytes;
    if (!sim_model_has_data(&s->model))
        return 0;   /* no record to decode again on every steal */
    for (size_t i = 0; (m->type == SATIN_MSG_STEAL_REPLY || m->type == SATIN_MSG_PUSH) &&
                       i < m->njobrecs; i++) {
        sim_state st;
        if (sim_model_read(&s->model, m->jobrecs[i].arg, m->jobrecs[i].arg_len, &st) == 0) {
            sim_model_data(&s->model, &st, &arg, &res);
            sum += arg;
        }
    }
    return (size_t)sum;
}

static void env_send(void *ctx, int to, const satin_msg *m)
{
    sim_node *n = ctx;
    sim *s = n->s;
    unsigned char *hdr = NULL, *body = NULL;
    size_t hlen, blen;
    if (satin_msg_encode(m, &hdr, &hlen, &body, &blen) < 0) {
        s->bad++;
        free(hdr);
        free(body);
        return;
    }
    sim_wire *w = malloc(sizeof *w + hlen + blen);
    if (!w)
        abort();
    w->hlen = hlen;
    w->blen = blen;
    memcpy(w->bytes, hdr, hlen);
    memcpy(w->bytes + hlen, body, blen);
    free(hdr);
    free(body);
    /* On the wire a peer message also carries its 32-byte delivery frame,
     * and the data of the records or the result it carries. */
    int64_t at = sim_net_send(&s->net, sim_ctl_send(&s->ctl, n->id, s->now), n->id, to,
                              32 + hlen + blen + data_bytes(s, m));
    if (s->life && m->type == SATIN_MSG_STEAL && m->thief == (uint32_t)n->id)
        satin_life_steal_sent(s->life, n->id, to, m->request_id, s->now);
    push_event(s, EV_MSG, to, at, n->id, w);
}

static void describe(sim *s, sim_task *t, satin_engine_record *out, unsigned char *arg)
{
    out->record = t;
    out->job = t->parent->root;
    out->kind = s->model.name;
    out->arg = arg;
    out->arg_len = sim_model_write(&s->model, &t->state, arg, SIM_ARG_MAX);
    out->result_cap = sizeof(int64_t);
    out->place = t->place;
    out->ancestry[0] = out->ancestry[1] = 0;
    out->origin = 0;   /* the run's one job */
}

/* satin_pool_take_for_remote and _for_push: a thief gets whole jobs not
 * started yet first (the inbox), then the deque's oldest; a push only the
 * deque's (a record pushed here runs here). */
static int env_take(void *ctx, int peer, satin_engine_record *out, int max, int push)
{
    (void)peer;   /* every simulated node runs every kind */
    sim_node *n = ctx;
    if (max > SATIN_ENGINE_MAX_JOBS_PER_MESSAGE)
        max = SATIN_ENGINE_MAX_JOBS_PER_MESSAGE;
    int k = 0;
    for (sim_task *t; !push && k < max && (t = ring_pop_oldest(&n->inbox));)
        describe(n->s, t, &out[k], n->s->scratch[k]), k++;
    for (sim_task *t; k < max && (t = ring_pop_oldest(&n->deque));)
        describe(n->s, t, &out[k], n->s->scratch[k]), k++;
    return k;
}

static void env_describe(void *ctx, void *record, satin_engine_record *out)
{
    sim_node *n = ctx;
    describe(n->s, record, out, n->s->scratch[0]);
}

static void env_complete(void *ctx, void *record, const satin_engine_outcome *o)
{
    sim_node *n = ctx;
    sim *s = n->s;
    sim_task *t = record;
    int64_t v = 0;
    if (o->ok && o->len == sizeof v)
        memcpy(&v, o->data, sizeof v);
    else
        t->parent->root->cancelled = 1;   /* an error result fails its job */
    sim_frame *parent = t->parent;
    alloc_put(&s->tasks, t);
    child_done(s, n, parent, v);
}

static void *env_start(void *ctx, const satin_msg_jobrec *jr, const void **job, char *err,
                       size_t errlen)
{
    sim_node *n = ctx;
    sim *s = n->s;
    sim_state st;
    if (strcmp(jr->kind, s->model.name) != 0 ||
        sim_model_read(&s->model, jr->arg, jr->arg_len, &st) < 0) {
        snprintf(err, errlen, "satin-sim runs only this job's kind (%s)", s->model.name);
        return NULL;
    }
    sim_frame *r = alloc_get(&s->frames);
    *r = (sim_frame){.pending = 1, .kind = FRAME_STANDIN};
    r->root = r;
    int64_t arg_bytes;
    sim_model_data(&s->model, &st, &arg_bytes, &r->result_bytes);
    sim_task *t = alloc_get(&s->tasks);
    *t = (sim_task){.state = st, .parent = r, .place = jr->place};
    n->active++;
    push_received(n, t);
    *job = r;
    return r;
}

static void env_cancel(void *ctx, void *standin, const char *why)
{
    (void)ctx, (void)why;
    ((sim_frame *)standin)->cancelled = 1;
}

static int env_job_stopping(void *ctx, const void *job)
{
    (void)ctx;
    return ((const sim_frame *)job)->cancelled;
}

static int64_t env_queue_length(void *ctx)
{
    return (int64_t)waiting(ctx);
}

static int env_is_idle(void *ctx)
{
    sim_node *n = ctx;
    return n->idle > 0 && waiting(n) == 0;
}

static int env_active_jobs(void *ctx)
{
    return ((sim_node *)ctx)->active;
}

static void env_note_bad(void *ctx, int node, const char *what)
{
    (void)node, (void)what;
    ((sim_node *)ctx)->s->bad++;
}

/* satind's pool table (daemon/grid.c's env_orphan): results and promises
 * of a dead owner's records, from this node's engine or a peer's. */
static void env_orphan(void *ctx, int status, int holder, uint64_t origin, uint64_t place,
                       uint64_t digest, const void *data, size_t len, uint64_t runs)
{
    sim_node *n = ctx;
    (void)runs;
    (void)origin;   /* one job a run: every orphan is that job's */
    if (!n->orphans && !(n->orphans = calloc(1, sizeof *n->orphans)))
        abort();
    int64_t v;
    if (status == SATIN_ORPHAN_RESULT && len == sizeof v) {
        memcpy(&v, data, sizeof v);
        sim_orphans_add(n->orphans, place, digest, v);
    } else if (status == SATIN_ORPHAN_RUNNING) {
        sim_orphans_promise(n->orphans, holder, place, digest);
    } else if (status == SATIN_ORPHAN_GONE) {
        sim_orphans_abandon(n->orphans, holder, place, digest, 0);
    }
    if (n->orphans->nwaiters)
        push_event(n->s, EV_ORPHANS, n->id, n->s->now, 0, NULL);   /* one may go on */
}

static void env_orphans_void(void *ctx, int holder)
{
    sim_node *n = ctx;
    if (n->orphans)
        sim_orphans_abandon(n->orphans, holder, 0, 0, 1);
    if (n->orphans && n->orphans->nwaiters)
        push_event(n->s, EV_ORPHANS, n->id, n->s->now, 0, NULL);
}

/* The pool's orphan counters, as satind's node reports them. */
static void env_counters(void *ctx, satin_kvlist *out)
{
    const sim_orphans *t = ((sim_node *)ctx)->orphans;
    satin_kvlist_add_i64(out, "orphans_held", t ? (int64_t)t->count : 0);
    satin_kvlist_add_i64(out, "orphans_used", t ? (int64_t)t->used : 0);
    satin_kvlist_add_i64(out, "orphans_waited", t ? (int64_t)t->waited : 0);
    satin_kvlist_add_i64(out, "orphan_waits_given_up", t ? (int64_t)t->gave_up : 0);
    satin_kvlist_add_i64(out, "orphan_promises_void", t ? (int64_t)t->abandoned : 0);
}

/* ---- life ----------------------------------------------------------------------------- */

/* Crashes of nodes of the grid, each once, never of the job's node (the
 * job and its result live there). */
static int sim_crashes_check(const sim_config *cfg)
{
    for (int i = 0; i < cfg->ncrashes; i++) {
        const sim_crash *c = &cfg->crashes[i];
        if (c->node < 0 || c->node >= cfg->topo->nnodes || c->node == cfg->submit_node ||
            c->at_ns < 0)
            return -1;
        for (int j = 0; j < i; j++)
            if (cfg->crashes[j].node == c->node)
                return -1;
    }
    return 0;
}

sim *sim_new(const sim_config *cfg, const sim_model *model)
{
    if (!cfg->policy || !cfg->topo || cfg->topo->nnodes < 1 || cfg->workers < 1 ||
        cfg->submit_node < 0 || cfg->submit_node >= cfg->topo->nnodes ||
        sim_crashes_check(cfg) < 0)
        return NULL;
    /* Grids past the wire's 65536 nodes: the codec must take their indexes,
     * or every message of a node past 65535 would be lost as bad. */
    satin_proto_allow_nodes((uint32_t)cfg->topo->nnodes);
    sim *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    s->cfg = *cfg;
    s->model = *model;
    s->topo = *cfg->topo;
    s->nnodes = cfg->topo->nnodes;
    sim_queue_init(&s->q);
    sim_net_init(&s->net, s->nnodes, s->topo.nclusters, s->topo.cluster_of, cfg->lan, cfg->wan);
    sim_net_set_seed(&s->net, cfg->seed);
    for (int a = 0; a < s->topo.nclusters; a++)
        for (int b = 0; b < s->topo.nclusters; b++)
            sim_net_set_jitter(&s->net, a, b, a == b ? cfg->lan_jitter_ns : cfg->wan_jitter_ns);
    sim_ctl_init(&s->ctl, s->nnodes, cfg->msg_send_ns, cfg->msg_recv_ns);
    alloc_init(&s->frames, sizeof(sim_frame));
    alloc_init(&s->tasks, sizeof(sim_task));
    s->nodes = calloc((size_t)s->nnodes, sizeof *s->nodes);
    if (!s->nodes)
        abort();
    s->shape = satin_grid_shape_new(cfg->topo, cfg->names);
    if (!s->shape) {
        sim_destroy(&s);
        return NULL;
    }
    satin_engine_env env = {
        .send = env_send, .take = env_take, .complete = env_complete, .start = env_start,
        .cancel = env_cancel, .job_stopping = env_job_stopping,
        .queue_length = env_queue_length, .is_idle = env_is_idle,
        .active_jobs = env_active_jobs, .note_bad = env_note_bad, .describe = env_describe};
    int watch = cfg->watch || cfg->ncrashes > 0;
    if (watch) {
        env.orphan = env_orphan;
        env.orphans_void = env_orphans_void;
        env.counters = env_counters;
    }
    for (int i = 0; i < s->nnodes; i++) {
        sim_node *n = &s->nodes[i];
        n->s = s;
        n->id = i;
        n->idle = cfg->workers;
        n->tick_at = -1;
        satin_policy_topology t = satin_grid_shape_topology(s->shape, i);
        satin_engine_config ec;
        satin_engine_config_default(&ec);
        ec.topo = &t;
        ec.node_names = cfg->names;
        ec.policy = cfg->policy;
        ec.params = cfg->params;
        ec.seed = cfg->seed * 0x9E3779B97F4A7C15ull + (uint64_t)i + 1;
        if (cfg->steal_timeout_ns > 0)
            ec.steal_timeout_ns = cfg->steal_timeout_ns;
        /* Without a crash, no node fails: watching peers would greet every
         * node from every other, a million squared messages. */
        if (!watch)
            ec.failure_timeout_lan_ns = ec.failure_timeout_wan_ns = 0;
        if (watch && cfg->failure_timeout_lan_ns > 0)
            ec.failure_timeout_lan_ns = cfg->failure_timeout_lan_ns;
        if (watch && cfg->failure_timeout_wan_ns > 0)
            ec.failure_timeout_wan_ns = cfg->failure_timeout_wan_ns;
        ec.log_level = SATIN_ENGINE_LOG_ERROR;
        env.ctx = n;
        n->e = satin_engine_new(&ec, &env, 0);
        if (!n->e) {
            sim_destroy(&s);
            return NULL;
        }
    }
    return s;
}

void sim_set_wan(sim *s, int from_cluster, int to_cluster, sim_link link)
{
    sim_net_set_wan(&s->net, from_cluster, to_cluster, link);
}

void sim_record_life(sim *s, satin_life *life)
{
    s->life = life;
}

void sim_set_jitter(sim *s, int from_cluster, int to_cluster, int64_t jitter_ns)
{
    sim_net_set_jitter(&s->net, from_cluster, to_cluster, jitter_ns);
}

void sim_destroy(sim **self)
{
    sim *s = *self;
    if (!s)
        return;
    for (int i = 0; s->nodes && i < s->nnodes; i++) {
        satin_engine_destroy(&s->nodes[i].e);
        free(s->nodes[i].deque.q);
        free(s->nodes[i].inbox.q);
        if (s->nodes[i].orphans)
            sim_orphans_free(s->nodes[i].orphans);
        free(s->nodes[i].orphans);
    }
    free(s->nodes);
    satin_grid_shape_unref(&s->shape);
    for (sim_event ev; sim_queue_pop(&s->q, &ev);)
        if (ev.type == EV_MSG || ev.type == EV_DECODED)
            free(ev.data);
    sim_queue_free(&s->q);
    sim_net_free(&s->net);
    sim_ctl_free(&s->ctl, free);
    alloc_free(&s->frames);
    alloc_free(&s->tasks);
    free(s);
    *self = NULL;
}

/* The engine's next deadline as a tick event (a later one replaces it). */
static void after_event(sim_node *n)
{
    int64_t d = satin_engine_next_tick(n->e, n->s->now, &n->tick_at);
    if (d >= 0)
        push_event(n->s, EV_TICK, n->id, d, d, NULL);
}

static void deliver(sim *s, sim_node *n, const sim_event *ev)
{
    sim_wire *w = ev->data;
    satin_proto_error err;
    satin_msg *m = satin_msg_decode(w->bytes, w->hlen, w->bytes + w->hlen, w->blen, 0, &err);
    free(w);
    if (!m) {
        s->bad++;
        return;
    }
    m->sender = (uint32_t)ev->aux;
    if (s->life && m->type == SATIN_MSG_STEAL_REPLY)
        satin_life_steal_answered(s->life, n->id, m->request_id, s->now);
    satin_engine_on_message(n->e, s->now, m);
    satin_msg_destroy(&m);
}

/* A message at its node: to the engine now, or once the node's control
 * thread has decoded it (sim_ctl.h).  0: the engine has not seen it yet. */
static int arrive(sim *s, sim_node *n, const sim_event *ev)
{
    int64_t at = sim_ctl_arrive(&s->ctl, n->id, s->now, ev->data, ev->aux);
    if (at == s->now) {
        deliver(s, n, ev);
        return 1;
    }
    if (at > s->now)
        push_event(s, EV_DECODED, n->id, at, ev->aux, ev->data);
    return 0;
}

/* A decoded message goes to the engine; the control thread starts on the
 * next arrival waiting for it. */
static void decoded(sim *s, sim_node *n, const sim_event *ev)
{
    deliver(s, n, ev);
    sim_ctl_msg m;
    int64_t at;
    while ((at = sim_ctl_next(&s->ctl, n->id, s->now, &m)) == s->now)
        deliver(s, n, &(sim_event){.at = s->now, .node = n->id, .aux = m.aux, .data = m.data});
    if (at > s->now)
        push_event(s, EV_DECODED, n->id, at, m.aux, m.data);
}

static void handle(sim *s, const sim_event *ev)
{
    sim_node *n = &s->nodes[ev->node];
    if (n->dead) {
        /* Dropped on arrival, or while its control thread still held it. */
        if (ev->type == EV_MSG || ev->type == EV_DECODED) {
            free(ev->data);
            s->msgs_dropped++;
        }
        return;
    }
    switch (ev->type) {
    case EV_CRASH:
        crash(s, n);
        return;
    case EV_ORPHANS:
        orphans_settle(s, n);
        break;
    case EV_TASK_DONE:
        if (s->life)
            satin_life_task_end(s->life, n->id, (int)ev->aux, s->now);
        task_done(s, n, ev->data);
        break;
    case EV_MSG:
        if (!arrive(s, n, ev))
            return;
        break;
    case EV_DECODED:
        decoded(s, n, ev);
        break;
    case EV_AFTER_DONE:
        if (s->life)
            satin_life_task_end(s->life, n->id, (int)ev->aux, s->now);
        after_done(s, n, ev->data);
        break;
    case EV_TICK:
        if (ev->aux != n->tick_at)
            return;   /* replaced by another deadline */
        n->tick_at = -1;
        satin_engine_on_tick(n->e, s->now);
        break;
    }
    start_tasks(n);
    after_event(n);
}

/* Every engine lists the same counters in the same order: summed by
 * position (a name out of place is looked up). */
static void sum_counters(sim *s, satin_kvlist *out)
{
    satin_kvlist_init(out);
    for (int i = 0; i < s->nnodes; i++) {
        satin_kvlist l;
        satin_kvlist_init(&l);
        satin_engine_counters(s->nodes[i].e, &l);
        for (size_t k = 0; k < l.n; k++) {
            const satin_kv *kv = &l.items[k];
            satin_kv *acc = k < out->n && strcmp(out->items[k].name, kv->name) == 0
                                ? &out->items[k]
                                : (satin_kv *)satin_kvlist_find(out, kv->name);
            if (!acc && kv->type == SATIN_KV_I64)
                satin_kvlist_add_i64(out, kv->name, kv->i64);
            else if (!acc && kv->type == SATIN_KV_F64)
                satin_kvlist_add_f64(out, kv->name, kv->f64);
            else if (acc && kv->type == SATIN_KV_I64)
                acc->i64 += kv->i64;
            else if (acc && kv->type == SATIN_KV_F64)
                acc->f64 += kv->f64;
        }
        satin_kvlist_free(&l);
    }
}

void sim_run(sim *s, const sim_state *root, sim_outcome *out)
{
    memset(out, 0, sizeof *out);
    sim_node *home = &s->nodes[s->cfg.submit_node];
    sim_frame *job = alloc_get(&s->frames);
    *job = (sim_frame){.pending = 1, .kind = FRAME_JOB};
    job->root = job;
    sim_task *t = alloc_get(&s->tasks);
    *t = (sim_task){.state = *root, .parent = job,
                    .place = satin_place_root((uint32_t)home->id, s->cfg.seed, 1)};
    home->active++;
    push_received(home, t);
    s->submitted = s->now;
    for (int i = 0; i < s->cfg.ncrashes; i++)
        push_event(s, EV_CRASH, s->cfg.crashes[i].node, s->now + s->cfg.crashes[i].at_ns, 0,
                   NULL);
    /* Every node starts: the one with the job runs it, the others go dry. */
    for (int i = 0; i < s->nnodes; i++) {
        start_tasks(&s->nodes[i]);
        after_event(&s->nodes[i]);
    }
    uint64_t events = 0;
    for (sim_event ev; !s->done && sim_queue_pop(&s->q, &ev);) {
        if (s->cfg.time_limit_ns > 0 && ev.at > s->cfg.time_limit_ns) {
            if (ev.type == EV_MSG || ev.type == EV_DECODED)
                free(ev.data);
            break;
        }
        s->now = ev.at;
        handle(s, &ev);
        if (++events % (s->cfg.progress_every ? s->cfg.progress_every : UINT64_MAX) == 0)
            fprintf(stderr, "satin-sim: %" PRIu64 " events, %" PRIu64 " tasks, %.6f s virtual\n",
                    events, s->tasks_run, (double)s->now / 1e9);
    }
    for (int i = 0; i < s->nnodes; i++)
        set_idle(&s->nodes[i], s->nodes[i].idle);
    out->done = s->done;
    out->failed = s->failed;
    out->result = s->result;
    out->makespan_ns = s->done ? s->ended - s->submitted : s->now - s->submitted;
    out->work_ns = s->work_ns;
    out->tasks = s->tasks_run;
    out->tasks_lost = s->tasks_lost;
    out->records_lost = s->records_lost;
    out->msgs_dropped = s->msgs_dropped;
    out->msgs_bad = s->bad;
    out->events = events;
    out->peak_events = s->q.peak;
    out->idle_ns = s->idle_ns;
    out->net = s->net.c;
    sum_counters(s, &out->counters);
}

void sim_outcome_free(sim_outcome *out)
{
    satin_kvlist_free(&out->counters);
}
