/*
 * test_engine_grid.c - four node engines against each other in virtual
 * time, through whole jobs, under every policy.
 *
 * Nothing here is satind: each node is a satin_engine with a simulated
 * one-worker pool (fib's tree run as continuations: a task either returns
 * its value or spawns two children), messages go through the real codec
 * and arrive after a link's latency (20 us inside a cluster, 2 ms between
 * the two clusters, FIFO per link), and time only moves from one event to
 * the next.  The same seed must give the same run bit for bit: the exact
 * result, the exact number of tasks run, the same messages and the same
 * end time.  This is the core that satin-sim grows from.
 *
 * Then the same with node b1 crashing mid-job (while it runs work of
 * others): its events vanish, the others find it dead by its silence and
 * run again what it held, and the job still ends with the exact result.
 * Last, b1 crashes while records it gave away are out: with orphan saving
 * their results reach the re-run (every task has its place in the spawn
 * tree, and each node an orphan table, as satind's pool does), without it
 * they are stopped; both runs are exact, and the first does less work.
 *
 * And the membership changing mid-job: b1 joins a running grid (it is no
 * member of the others' topology until then) and takes work at once; or
 * the others drop b1 from their membership while it runs their records.
 */
#include "../tap.h"
#include "engine_kit.h"
#include "satin_digest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NNODES 4
#define STEP_NS 1000LL          /* one task on a simulated worker */
#define LAN_NS 20000LL
#define WAN_NS 2000000LL
#define NS_PER_BYTE 10LL        /* 100 MB/s */
#define TIME_LIMIT_NS 60000000000LL
#define MAX_EVENTS 50000000L
#define FIB_N 20
#define CRASHED 3               /* b1 */
/* Failure time-outs for the crash runs, a few round trips of each link. */
#define CRASH_LAN_TIMEOUT_NS 5000000LL
#define CRASH_WAN_TIMEOUT_NS 20000000LL

/* ---- the simulated pool ------------------------------------------------------ */

typedef struct frame {
    int64_t value;
    int pending;
    struct frame *parent;      /* NULL: the root of a job */
    int node;
    int standin;               /* a root run for another node */
    uint64_t run;              /* tasks run for this job on this node (roots only) */
    int cancelled;             /* roots: stopped (env.cancel); its tasks are dropped */
    int finished;              /* roots: EV_DONE is posted */
} frame;

typedef struct task {
    int64_t n;
    frame *parent;
    frame *root;               /* the job it belongs to, on this node */
    uint64_t place;            /* in the job's spawn tree */
} task;

/* An orphan told to a node (env.orphan), until a task takes it: a result,
 * or a promise of `holder` (a task that meets it waits, parked, for the
 * result, and runs when the promise is withdrawn or void). */
typedef struct orphan {
    uint64_t place, digest, runs;
    int64_t value;
    int ready, holder;
} orphan;

enum { EV_STEP, EV_MSG, EV_TICK, EV_DONE };

typedef struct event {
    int64_t at;
    uint64_t seq;
    int type, node, from;
    unsigned char *hdr, *body;
    size_t hlen, blen;
    frame *root;
} event;

typedef struct sim sim;

typedef struct simnode {
    sim *s;
    int id;
    satin_engine *e;
    task **q;                  /* deque: tail (oldest) at q[head], head (newest) at q[n-1] */
    size_t qhead, qn, qcap;
    int stepping;              /* a worker step is scheduled */
    int told_dry;
    int active;                /* jobs with a root here that have not ended */
    int64_t tick_at;
    uint64_t run;
    orphan *orphans;
    size_t norphans;
    task **waiting;            /* tasks parked on a promise */
    size_t nwaiting;
    uint64_t orphans_used, runs_saved, orphans_waited;
} simnode;

struct sim {
    simnode node[NNODES];
    /* Frames and tasks come from here and go all at once at the end: a
     * crashed node's are never freed one by one. */
    char **chunks;
    size_t nchunks, used;
    int crash_node;            /* -1: nobody crashes */
    int64_t crash_after;       /* b1 crashes at the first moment after this that it runs
                                * work of another node */
    int crash_in_chain;        /* ... and has given records of its own that are still out */
    int crashed;
    int64_t crash_at;
    event *heap;
    size_t nheap, capheap;
    uint64_t seq;
    int64_t now;
    int64_t last_arrival[NNODES][NNODES];
    long msgs[64];             /* per message type */
    long bytes;
    int done;
    int64_t result;
    int64_t end;
    int changed;               /* the membership change (member_change) was made */
};

/* What run_grid does to the membership at MEMBER_CHANGE_AT: nothing, b1
 * joins (the others start without it, and its engine starts then), or
 * the others drop b1 (at the first moment after it that b1 runs their
 * work) while it runs on. */
enum { NO_CHANGE, B1_JOINS, B1_LEAVES };
static int member_change = NO_CHANGE;
#define MEMBER_CHANGE_AT 2000000LL


#define CHUNK (1 << 20)

static void *sim_alloc(sim *s, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    if (!s->nchunks || s->used + size > CHUNK) {
        s->chunks = realloc(s->chunks, (s->nchunks + 1) * sizeof *s->chunks);
        s->chunks[s->nchunks++] = malloc(CHUNK);
        s->used = 0;
    }
    void *p = s->chunks[s->nchunks - 1] + s->used;
    s->used += size;
    memset(p, 0, size);
    return p;
}

static void push_event(sim *s, event ev)
{
    if (s->nheap == s->capheap) {
        s->capheap = s->capheap ? s->capheap * 2 : 1024;
        s->heap = realloc(s->heap, s->capheap * sizeof *s->heap);
    }
    ev.seq = s->seq++;
    size_t i = s->nheap++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        event *pe = &s->heap[p];
        if (pe->at < ev.at || (pe->at == ev.at && pe->seq < ev.seq))
            break;
        s->heap[i] = *pe;
        i = p;
    }
    s->heap[i] = ev;
}

static int earlier(const event *a, const event *b)
{
    return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static event pop_event(sim *s)
{
    event top = s->heap[0], last = s->heap[--s->nheap];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= s->nheap)
            break;
        if (c + 1 < s->nheap && earlier(&s->heap[c + 1], &s->heap[c]))
            c++;
        if (!earlier(&s->heap[c], &last))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (s->nheap)
        s->heap[i] = last;
    return top;
}

static void wake_worker(simnode *n)
{
    if (n->stepping)
        return;
    n->stepping = 1;
    push_event(n->s, (event){.at = n->s->now, .type = EV_STEP, .node = n->id});
}

static void push_task(simnode *n, int64_t value, frame *parent, frame *root, uint64_t place)
{
    if (n->qhead + n->qn == n->qcap) {
        n->qcap = n->qcap ? n->qcap * 2 : 64;
        n->q = realloc(n->q, n->qcap * sizeof *n->q);
    }
    task *t = sim_alloc(n->s, sizeof *t);
    *t = (task){value, parent, root, place};
    n->q[n->qhead + n->qn++] = t;
}

static void child_done(simnode *n, frame *f, int64_t value);

static void job_done(simnode *n, frame *root)
{
    if (root->finished)
        return;
    root->finished = 1;
    n->active--;
    /* Told later, as satind's mailbox does: never from inside an engine call. */
    push_event(n->s, (event){.at = n->s->now, .type = EV_DONE, .node = n->id, .root = root});
}

static void child_done(simnode *n, frame *f, int64_t value)
{
    while (f) {
        f->value += value;
        if (--f->pending > 0)
            return;
        if (!f->parent) {
            job_done(n, f);
            return;
        }
        frame *up = f->parent;
        value = f->value;
        f = up;
    }
}

static uint64_t task_digest(const task *t)
{
    return satin_digest("fib", &t->n, sizeof t->n);
}

static orphan *find_orphan(simnode *n, uint64_t place, uint64_t digest)
{
    for (size_t i = 0; i < n->norphans; i++)
        if (n->orphans[i].place == place && n->orphans[i].digest == digest)
            return &n->orphans[i];
    return NULL;
}

static void drop_orphan(simnode *n, orphan *o)
{
    *o = n->orphans[--n->norphans];
}

/* A result for the task, taken (as satin_orphans_take does): 1; a
 * promise: the task waits, parked (2), unless it is a job's root (it may
 * be the promised record itself: as in the runtime, it runs). */
static int take_orphan(simnode *n, task *t, int64_t *value)
{
    orphan *o = find_orphan(n, t->place, task_digest(t));
    if (!o)
        return 0;
    if (!o->ready) {
        if (t->parent == t->root)
            return 0;
        n->waiting = realloc(n->waiting, (n->nwaiting + 1) * sizeof *n->waiting);
        n->waiting[n->nwaiting++] = t;
        n->orphans_waited++;
        return 2;
    }
    *value = o->value;
    n->orphans_used++;
    n->runs_saved += o->runs;
    drop_orphan(n, o);
    return 1;
}

/* Parked tasks at (place, digest) get `value`, or run (value NULL). */
static void release_waiting(simnode *n, uint64_t place, uint64_t digest, const orphan *result)
{
    size_t i = 0;
    while (i < n->nwaiting) {
        task *t = n->waiting[i];
        if (t->place != place || task_digest(t) != digest) {
            i++;
            continue;
        }
        n->waiting[i] = n->waiting[--n->nwaiting];
        if (result) {
            n->orphans_used++;
            n->runs_saved += result->runs;
            child_done(n, t->parent, result->value);
        } else {
            push_task(n, t->n, t->parent, t->root, t->place);
            wake_worker(n);
        }
    }
}

static void run_task(simnode *n, task *t)
{
    int64_t v;
    if (t->root->cancelled)
        return;
    if (n->norphans) {
        int r = take_orphan(n, t, &v);
        if (r == 1)
            child_done(n, t->parent, v);
        if (r)
            return;
    }
    n->run++;
    t->root->run++;
    if (t->n < 2) {
        child_done(n, t->parent, t->n);
    } else {
        frame *f = sim_alloc(n->s, sizeof *f);
        f->pending = 2;
        f->parent = t->parent;
        f->node = n->id;
        push_task(n, t->n - 1, f, t->root, satin_place_child(t->place, 1));
        push_task(n, t->n - 2, f, t->root, satin_place_child(t->place, 2));
    }
}

static frame *new_root(simnode *n, int64_t value, int standin, uint64_t place)
{
    frame *root = sim_alloc(n->s, sizeof *root);
    root->pending = 1;
    root->node = n->id;
    root->standin = standin;
    n->active++;
    push_task(n, value, root, root, place);
    wake_worker(n);
    return root;
}

/* ---- the engine's environment --------------------------------------------------- */

static void env_send(void *ctx, int to, const satin_msg *m)
{
    simnode *n = ctx;
    sim *s = n->s;
    event ev = {.type = EV_MSG, .node = to, .from = n->id};
    if (satin_msg_encode(m, &ev.hdr, &ev.hlen, &ev.body, &ev.blen) < 0) {
        ok(0, "node %d sent a message the codec refuses (type %d)", n->id, m->type);
        return;
    }
    s->msgs[m->type & 63]++;
    s->bytes += (long)(ev.hlen + ev.blen);
    int64_t latency = kit_cluster_of[n->id] == kit_cluster_of[to] ? LAN_NS : WAN_NS;
    ev.at = s->now + latency + (int64_t)(ev.hlen + ev.blen) * NS_PER_BYTE;
    /* Links are FIFO, as the delivery layer makes them. */
    if (ev.at <= s->last_arrival[n->id][to])
        ev.at = s->last_arrival[n->id][to] + 1;
    s->last_arrival[n->id][to] = ev.at;
    push_event(s, ev);
}

static void env_describe(void *ctx, void *record, satin_engine_record *out)
{
    (void)ctx;
    task *t = record;
    *out = (satin_engine_record){.record = t, .job = t->root, .kind = "fib", .arg = &t->n,
                                 .arg_len = sizeof t->n, .result_cap = sizeof(int64_t),
                                 .place = t->place};
}

static int env_take(void *ctx, int peer, satin_engine_record *out, int max, int push)
{
    (void)peer;
    (void)push; /* the simulated pool has no started queue: tails either way */
    simnode *n = ctx;
    int k = 0;
    while (k < max && n->qn > 0) {
        task *t = n->q[n->qhead++];
        n->qn--;
        env_describe(n, t, &out[k++]);
    }
    if (n->qn == 0)
        n->qhead = 0;
    return k;
}

static void env_complete(void *ctx, void *record, const satin_engine_outcome *o)
{
    simnode *n = ctx;
    task *t = record;
    int64_t v = 0;
    if (o->ok && o->len == sizeof v)
        memcpy(&v, o->data, sizeof v);
    else if (!t->root->cancelled)
        ok(0, "a record given away by node %d came back without a value: %s", n->id, o->error);
    t->root->run += o->run;
    child_done(n, t->parent, v);
}

static void *env_start(void *ctx, const satin_msg_jobrec *jr, const void **job, char *err,
                       size_t errlen)
{
    simnode *n = ctx;
    int64_t v;
    if (strcmp(jr->kind, "fib") != 0 || jr->arg_len != sizeof v) {
        snprintf(err, errlen, "no such kind '%s'", jr->kind);
        return NULL;
    }
    memcpy(&v, jr->arg, sizeof v);
    frame *root = new_root(n, v, 1, jr->place);
    *job = root;
    return root;
}

static void env_orphan(void *ctx, int status, int holder, uint64_t origin, uint64_t place,
                       uint64_t digest, const void *data, size_t len, uint64_t runs)
{
    (void)origin;   /* one job at a time */
    simnode *n = ctx;
    orphan o = {place, digest, runs, 0, status == SATIN_ORPHAN_RESULT, holder};
    orphan *had = find_orphan(n, place, digest);
    if (status == SATIN_ORPHAN_GONE) {
        if (had && !had->ready && had->holder == holder) {
            drop_orphan(n, had);
            release_waiting(n, place, digest, NULL);
        }
        return;
    }
    if (had && (had->ready || status == SATIN_ORPHAN_RUNNING))
        return;   /* kept once; a result replaces its promise */
    if (had)
        drop_orphan(n, had);
    if (status == SATIN_ORPHAN_RESULT) {
        if (len != sizeof o.value) {
            ok(0, "node %d was told an orphan of %zu bytes", n->id, len);
            return;
        }
        memcpy(&o.value, data, len);
        size_t waiting = n->nwaiting;
        release_waiting(n, place, digest, &o);
        if (n->nwaiting < waiting)
            return;   /* taken by the tasks that waited for it */
    }
    n->orphans = realloc(n->orphans, (n->norphans + 1) * sizeof *n->orphans);
    n->orphans[n->norphans++] = o;
}

static void env_orphans_void(void *ctx, int holder)
{
    simnode *n = ctx;
    size_t i = 0;
    while (i < n->norphans) {
        orphan o = n->orphans[i];
        if (o.ready || o.holder != holder) {
            i++;
            continue;
        }
        drop_orphan(n, &n->orphans[i]);
        release_waiting(n, o.place, o.digest, NULL);
    }
}

/* Only stand-ins of a dead owner are stopped here (without orphan
 * saving): the job ends at once, its tasks are dropped when their turn
 * comes, and the records it gave away are withdrawn (job_stopping). */
static void env_cancel(void *ctx, void *standin, const char *why)
{
    (void)why;
    simnode *n = ctx;
    frame *root = standin;
    root->cancelled = 1;
    job_done(n, root);
}

static int env_job_stopping(void *ctx, const void *job)
{
    (void)ctx;
    return ((const frame *)job)->cancelled;
}

static int64_t env_queue_length(void *ctx)
{
    simnode *n = ctx;
    return (int64_t)n->qn;
}

static int env_is_idle(void *ctx)
{
    simnode *n = ctx;
    return !n->stepping && n->qn == 0;
}

static int env_active_jobs(void *ctx)
{
    simnode *n = ctx;
    return n->active;
}

static void env_note_bad(void *ctx, int node, const char *what)
{
    simnode *n = ctx;
    ok(0, "node %d found a message from node %d senseless: %s", n->id, node, what);
}

/* ---- the run ---------------------------------------------------------------------- */

static void after_event(simnode *n)
{
    if (!n->e)
        return;   /* b1 before it joins */
    int64_t d = satin_engine_next_tick(n->e, n->s->now, &n->tick_at);
    if (d >= 0)
        push_event(n->s, (event){.at = d, .type = EV_TICK, .node = n->id});
}

static void step(simnode *n)
{
    if (n->qn == 0) {
        n->stepping = 0;
        if (!n->told_dry) {
            n->told_dry = 1;
            satin_engine_on_dry(n->e, n->s->now);
        }
        return;
    }
    n->told_dry = 0;
    task *t = n->q[n->qhead + --n->qn];
    if (n->qn == 0)
        n->qhead = 0;
    run_task(n, t);
    /* The worker is busy for STEP_NS; its next step comes after that. */
    push_event(n->s, (event){.at = n->s->now + STEP_NS, .type = EV_STEP, .node = n->id});
}

/* b1 stops dead: nothing it was sent arrives, nothing it would do happens. */
static void maybe_crash(sim *s)
{
    if (s->crash_node < 0 || s->crashed || s->now < s->crash_after)
        return;
    simnode *n = &s->node[s->crash_node];
    if (satin_engine_running(n->e) == 0)
        return;
    if (s->crash_in_chain &&
        kit_counter(n->e, "jobs_given") <= kit_counter(n->e, "results_received"))
        return;
    s->crashed = 1;
    s->crash_at = s->now;
}

static void handle(sim *s, event *ev)
{
    simnode *n = &s->node[ev->node];
    if ((s->crashed && ev->node == s->crash_node) || !n->e) {
        free(ev->hdr);
        free(ev->body);
        return;
    }
    switch (ev->type) {
    case EV_STEP:
        step(n);
        break;
    case EV_MSG: {
        satin_proto_error err;
        satin_msg *m = satin_msg_decode(ev->hdr, ev->hlen, ev->body, ev->blen, 0, &err);
        if (!m)
            ok(0, "a message from node %d does not decode", ev->from);
        if (m) {
            m->sender = (uint32_t)ev->from;
            satin_engine_on_message(n->e, s->now, m);
            satin_msg_destroy(&m);
        }
        free(ev->hdr);
        free(ev->body);
        break;
    }
    case EV_TICK:
        if (ev->at != n->tick_at)
            break; /* replaced by a later deadline */
        n->tick_at = -1;
        satin_engine_on_tick(n->e, s->now);
        break;
    case EV_DONE: {
        frame *root = ev->root;
        if (root->standin) {
            satin_engine_outcome o = {.ok = !root->cancelled,
                                      .error = root->cancelled ? "its owner node died" : "",
                                      .data = &root->value, .len = sizeof root->value,
                                      .run = root->run};
            satin_engine_on_standin_done(n->e, s->now, root, &o);
        } else {
            s->done = 1;
            s->result = root->value;
            s->end = s->now;
        }
        break;
    }
    }
    after_event(n);
}

static satin_engine *start_node(sim *s, int i, const char *policy, uint64_t seed,
                                int64_t crash_after, int orphan_saving,
                                const satin_policy_topology *topo);

/* The membership change of member_change, once its time has come. */
static void maybe_change(sim *s, const char *policy, uint64_t seed)
{
    if (member_change == NO_CHANGE || s->changed || s->now < MEMBER_CHANGE_AT)
        return;
    /* b1 leaves while it runs work of the others: what the change costs. */
    if (member_change == B1_LEAVES && satin_engine_running(s->node[3].e) == 0)
        return;
    s->changed = 1;
    for (int i = 0; i < NNODES - 1; i++) {
        satin_policy_topology t =
            member_change == B1_JOINS ? kit_topology(i) : kit_topology_without_b1(i);
        ok(satin_engine_set_members(s->node[i].e, s->now, &t, kit_names) == 0,
           "node %d takes the new membership", i);
    }
    if (member_change == B1_JOINS) {
        satin_policy_topology t = kit_topology(3);
        simnode *n = &s->node[3];
        n->e = start_node(s, 3, policy, seed, -1, 1, &t);
        n->told_dry = 1;
        satin_engine_on_dry(n->e, s->now);
        after_event(n);
    }
}

typedef struct outcome {
    int64_t result, end;
    uint64_t run[NNODES];
    uint64_t run_crash[NNODES];  /* each node's tasks when the crash came */
    int64_t dead_by[NNODES], wan_steals[NNODES];   /* peers_dead, steal_attempts_wan */
    int64_t wan_crash[NNODES];   /* steal_attempts_wan when the crash came */
    long msgs[64], bytes;
    int64_t received, given, running, busy_ledger;
    int64_t redone, dead_seen, crash_at, false_dead;
    int64_t orphans_told, orphans_used, runs_saved, run_after_crash, waited, still_waiting;
    int64_t run_after_end;      /* tasks run by records of the dead after the job's result */
    long events;
    int64_t jobs_received[NNODES];
    int64_t member_changes, b1_member_at;   /* over a0, a1, b0 */
} outcome;

/* The node run_grid crashes (b1 unless a test says otherwise). */
static int crash_victim = CRASHED;

/* crash_after < 0: nobody crashes; chain: b1 crashes only while records
 * it gave away are out (what orphan saving saves). */
static outcome run_grid(const char *policy, uint64_t seed, int64_t crash_after, int chain,
                        int orphan_saving)
{
    static sim s;
    memset(&s, 0, sizeof s);
    s.crash_in_chain = chain;
    s.crash_node = crash_after >= 0 ? crash_victim : -1;
    s.crash_after = crash_after;
    for (int i = 0; i < NNODES; i++) {
        simnode *n = &s.node[i];
        n->s = &s;
        n->id = i;
        n->tick_at = -1;
        satin_policy_topology topo =
            member_change == B1_JOINS ? kit_topology_without_b1(i) : kit_topology(i);
        if (!(member_change == B1_JOINS && i == 3))
            n->e = start_node(&s, i, policy, seed, crash_after, orphan_saving, &topo);
    }
    /* Every node but the first starts dry; the job starts on the first. */
    for (int i = 1; i < NNODES; i++) {
        if (!s.node[i].e)
            continue;
        s.node[i].told_dry = 1;
        satin_engine_on_dry(s.node[i].e, 0);
        after_event(&s.node[i]);
    }
    new_root(&s.node[0], FIB_N, 0, satin_place_root(0, 1, 1));
    outcome o = {0};
    uint64_t run_at_crash = 0;
    while (!s.done && s.nheap && o.events < MAX_EVENTS) {
        event ev = pop_event(&s);
        if (ev.at > TIME_LIMIT_NS)
            break;
        s.now = ev.at;
        int crashed = s.crashed;
        maybe_crash(&s);
        maybe_change(&s, policy, seed);
        if (s.crashed && !crashed)
            for (int i = 0; i < NNODES; i++) {
                run_at_crash += i == s.crash_node ? 0 : s.node[i].run;
                o.run_crash[i] = s.node[i].run;
                o.wan_crash[i] = kit_counter(s.node[i].e, "steal_attempts_wan");
            }
        handle(&s, &ev);
        o.events++;
    }
    o.result = s.done ? s.result : -1;
    o.end = s.end;
    /* Records of a dead owner may still run after the job's result (no one
     * tells their holder the job is over): let them end, and count them. */
    uint64_t run_at_end = 0;
    for (int i = 0; i < NNODES; i++)
        run_at_end += i == s.crash_node && s.crashed ? 0 : s.node[i].run;
    while (s.done && s.nheap && o.events < MAX_EVENTS) {
        int busy = 0;
        for (int i = 0; i < NNODES; i++)
            busy += !(s.crashed && i == s.crash_node) && s.node[i].e &&
                    satin_engine_running(s.node[i].e) > 0;
        if (!busy)
            break;
        event ev = pop_event(&s);
        if (ev.at > TIME_LIMIT_NS)
            break;
        s.now = ev.at;
        handle(&s, &ev);
        o.events++;
    }
    o.bytes = s.bytes;
    memcpy(o.msgs, s.msgs, sizeof o.msgs);
    o.crash_at = s.crashed ? s.crash_at : -1;
    for (int i = 0; i < NNODES; i++) {
        o.run[i] = s.node[i].run;
        if (!s.node[i].e)
            continue;
        o.jobs_received[i] = kit_counter(s.node[i].e, "jobs_received");
        if (i < 3) {
            o.member_changes += kit_counter(s.node[i].e, "membership_changes");
            o.b1_member_at += satin_engine_is_member(s.node[i].e, 3);
        }
        o.received += kit_counter(s.node[i].e, "jobs_received");
        o.dead_by[i] = kit_counter(s.node[i].e, "peers_dead");
        o.wan_steals[i] = kit_counter(s.node[i].e, "steal_attempts_wan");
        o.given += kit_counter(s.node[i].e, "jobs_given");
        if (s.crashed && i == s.crash_node)
            continue;
        o.running += satin_engine_running(s.node[i].e);
        o.busy_ledger += (int64_t)s.node[i].qn;
        o.redone += kit_counter(s.node[i].e, "records_redone");
        o.orphans_told += kit_counter(s.node[i].e, "orphans_told");
        o.orphans_used += (int64_t)s.node[i].orphans_used;
        o.waited += (int64_t)s.node[i].orphans_waited;
        o.still_waiting += (int64_t)s.node[i].nwaiting;
        o.runs_saved += (int64_t)s.node[i].runs_saved;
        o.run_after_crash += (int64_t)s.node[i].run;
        o.dead_seen += kit_counter(s.node[i].e, "peers_dead");
        /* b1 dropped by the others hears nothing from them: it is the one
         * that takes them for dead, rightly. */
        for (int j = 0; j < NNODES && !(member_change == B1_LEAVES && i == 3); j++)
            if (j != i && j != s.crash_node && !(member_change == B1_LEAVES && j == 3) &&
                (satin_engine_peer_state(s.node[i].e, j, NULL) == SATIN_PEER_DEAD ||
                 kit_counter(s.node[i].e, "peers_back") > 0))
            {
                o.false_dead++;
                diag("node %d: peer %d %s, peers_back %lld", i, j,
                     satin_peer_state_name(satin_engine_peer_state(s.node[i].e, j, NULL)),
                     (long long)kit_counter(s.node[i].e, "peers_back"));
            }
    }
    /* What is still in flight when the job ends (steals of idle nodes). */
    while (s.nheap) {
        event ev = pop_event(&s);
        free(ev.hdr);
        free(ev.body);
    }
    o.run_after_end = o.run_after_crash - (int64_t)run_at_end;
    o.run_after_crash -= (int64_t)run_at_crash;
    for (int i = 0; i < NNODES; i++) {
        satin_engine_destroy(&s.node[i].e);
        free(s.node[i].q);
        free(s.node[i].orphans);
        free(s.node[i].waiting);
    }
    free(s.heap);
    for (size_t i = 0; i < s.nchunks; i++)
        free(s.chunks[i]);
    free(s.chunks);
    return o;
}

static satin_engine *start_node(sim *s, int i, const char *policy, uint64_t seed,
                                int64_t crash_after, int orphan_saving,
                                const satin_policy_topology *topo)
{
    satin_engine_env env = {
        .ctx = &s->node[i], .send = env_send, .take = env_take, .complete = env_complete,
        .start = env_start, .cancel = env_cancel, .job_stopping = env_job_stopping,
        .queue_length = env_queue_length, .is_idle = env_is_idle,
        .active_jobs = env_active_jobs, .note_bad = env_note_bad, .describe = env_describe,
        .orphan = env_orphan, .orphans_void = env_orphans_void};
    satin_engine_config cfg;
    satin_engine_config_default(&cfg);
    cfg.topo = topo;
    cfg.node_names = kit_names;
    cfg.policy = satin_policy_find(policy);
    cfg.seed = seed * 0x9E3779B97F4A7C15ull + (uint64_t)i + 1;
    if (crash_after >= 0 || member_change != NO_CHANGE) {
        cfg.failure_timeout_lan_ns = CRASH_LAN_TIMEOUT_NS;
        cfg.failure_timeout_wan_ns = CRASH_WAN_TIMEOUT_NS;
    }
    cfg.orphan_saving = orphan_saving;
    return satin_engine_new(&cfg, &env, s->now);
}

static int64_t fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static uint64_t tree_size(int n)
{
    return n < 2 ? 1 : tree_size(n - 1) + tree_size(n - 2) + 1;
}

int main(void)
{
    /* Every policy of the registry, so that a new one is run here too. */
    const char *policies[16];
    size_t npolicies = 0;
    for (; satin_policy_registry[npolicies] && npolicies < 16; npolicies++)
        policies[npolicies] = satin_policy_registry[npolicies]->name;
    is_i64((int64_t)npolicies, 7, "the registry's 7 policies are run");
    for (size_t p = 0; p < npolicies; p++) {
        const char *pol = policies[p];
        outcome a = run_grid(pol, 42, -1, 0, 1), b = run_grid(pol, 42, -1, 0, 1);
        is_i64(a.result, fib(FIB_N), "%s: fib(%d) on 4 engines is exact", pol, FIB_N);
        uint64_t total = 0;
        for (int i = 0; i < NNODES; i++)
            total += a.run[i];
        is_i64((int64_t)total, (int64_t)tree_size(FIB_N), "%s: every task ran exactly once", pol);
        ok(a.received > 0 && a.received == a.given,
           "%s: work crossed nodes (%" PRId64 " records given, as many received)", pol, a.given);
        int helpers = 0;
        for (int i = 1; i < NNODES; i++)
            helpers += a.run[i] > 0;
        ok(helpers >= 1, "%s: %d other node(s) ran tasks", pol, helpers);
        is_i64(a.running, 0, "%s: no stand-in is left running", pol);
        ok(a.end == b.end && a.bytes == b.bytes && a.events == b.events &&
               memcmp(a.msgs, b.msgs, sizeof a.msgs) == 0 && memcmp(a.run, b.run, sizeof a.run) == 0,
           "%s: the same seed gives the same run (end %.3f ms, %ld events, %ld bytes)", pol,
           (double)a.end / 1e6, a.events, a.bytes);
        diag("%s: steals %ld, replies %ld, pushes %ld, results %ld, loads %ld, cancels %ld; "
             "tasks per node %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64, pol,
             a.msgs[SATIN_MSG_STEAL], a.msgs[SATIN_MSG_STEAL_REPLY], a.msgs[SATIN_MSG_PUSH],
             a.msgs[SATIN_MSG_JOB_RESULT], a.msgs[SATIN_MSG_LOAD], a.msgs[SATIN_MSG_STEAL_CANCEL],
             a.run[0], a.run[1], a.run[2], a.run[3]);
    }
    for (size_t p = 0; p < npolicies; p++) {
        const char *pol = policies[p];
        outcome a = run_grid(pol, 42, 3000000, 0, 1), b = run_grid(pol, 42, 3000000, 0, 1);
        ok(a.crash_at >= 0, "%s crash: b1 crashed at %.3f ms while running others' work", pol,
           (double)a.crash_at / 1e6);
        is_i64(a.result, fib(FIB_N), "%s crash: fib(%d) is still exact", pol, FIB_N);
        ok(a.dead_seen >= 1 && a.dead_seen <= 3, "%s crash: b1 found dead (by %" PRId64 " nodes)",
           pol, a.dead_seen);
        is_i64(a.false_dead, 0, "%s crash: no living node was ever taken for dead", pol);
        ok(a.redone >= 1, "%s crash: %" PRId64 " record(s) it held ran again", pol, a.redone);
        is_i64(a.running, 0, "%s crash: no stand-in left running on the others", pol);
        ok(a.end == b.end && a.events == b.events && memcmp(a.msgs, b.msgs, sizeof a.msgs) == 0,
           "%s crash: the same seed gives the same run (end %.3f ms, %ld events)", pol,
           (double)a.end / 1e6, a.events);
        diag("%s crash: %" PRId64 " orphans told, %" PRId64 " used, saving %" PRId64
             " runs; %" PRId64 " tasks run by the others after the crash",
             pol, a.orphans_told, a.orphans_used, a.runs_saved, a.run_after_crash);
    }
    /* b1 joins the running grid 2 ms into the job: the others take the
     * new membership, b1's engine starts then, and it takes work at once.
     * Nothing is lost or done twice: exact, and every task ran once. */
    member_change = B1_JOINS;
    for (size_t p = 0; p < npolicies; p++) {
        const char *pol = policies[p];
        outcome a = run_grid(pol, 42, -1, 0, 1);
        uint64_t total = 0;
        for (int i = 0; i < NNODES; i++)
            total += a.run[i];
        is_i64(a.result, fib(FIB_N), "%s join: fib(%d) is exact", pol, FIB_N);
        is_i64((int64_t)total, (int64_t)tree_size(FIB_N), "%s join: every task ran exactly once",
               pol);
        ok(a.run[3] > 0 && a.jobs_received[3] > 0,
           "%s join: b1 took work after joining (%" PRId64 " records, %" PRIu64 " tasks)", pol,
           a.jobs_received[3], a.run[3]);
        ok(a.member_changes == 3 && a.b1_member_at == 3 && a.dead_seen == 0 && a.false_dead == 0,
           "%s join: the 3 others took the change, b1 is a member there, nobody taken for dead",
           pol);
        is_i64(a.running, 0, "%s join: no stand-in left running", pol);
    }
    /* The others drop b1 from the membership 2 ms in (at the first moment
     * after that it runs their work), and b1 runs on: the operator removed
     * it from the file before stopping it.  What it held for them runs
     * again, and nothing it sends counts any more. */
    member_change = B1_LEAVES;
    for (size_t p = 0; p < npolicies; p++) {
        const char *pol = policies[p];
        outcome a = run_grid(pol, 42, -1, 0, 1);
        uint64_t before = 0;
        for (int i = 0; i < NNODES - 1; i++)
            before += a.run[i];
        is_i64(a.result, fib(FIB_N), "%s leave: fib(%d) is exact", pol, FIB_N);
        ok(a.member_changes == 3 && a.b1_member_at == 0,
           "%s leave: the 3 others took the change; b1 is a member nowhere", pol);
        ok(a.false_dead == 0, "%s leave: no other node was taken for dead", pol);
        ok(a.redone >= 1, "%s leave: the records b1 held ran again (%" PRId64 ")", pol, a.redone);
        is_i64(a.running, 0, "%s leave: no stand-in left running on the others", pol);
        diag("%s leave: %" PRId64 " record(s) b1 held ran again; a0 a1 b0 ran %" PRIu64
             " tasks of %" PRIu64, pol, a.redone, before, tree_size(FIB_N));
    }
    member_change = NO_CHANGE;
    /* CHS with b0, cluster B's root, dead: b1 steps over it, acts as its
     * cluster's root and steals across the WAN, instead of asking its dead
     * parent for ever. */
    {
        crash_victim = 2;
        outcome a = run_grid("chs", 42, 3000000, 0, 1);
        crash_victim = CRASHED;
        ok(a.crash_at >= 0, "chs root crash: b0 crashed at %.3f ms", (double)a.crash_at / 1e6);
        is_i64(a.result, fib(FIB_N), "chs root crash: fib(%d) is still exact", FIB_N);
        is_i64(a.false_dead, 0, "chs root crash: no living node was ever taken for dead");
        is_i64(a.dead_by[3], 1, "chs root crash: b1 found its parent dead");
        ok(a.wan_steals[3] > a.wan_crash[3],
           "chs root crash: b1 then stole across the WAN (%lld wide-area request(s))",
           (long long)(a.wan_steals[3] - a.wan_crash[3]));
        is_i64(a.running, 0, "chs root crash: no stand-in left running");
        diag("chs root crash: job ends at %.3f ms; tasks per node after the crash %" PRIu64
             " %" PRIu64 " - %" PRIu64, (double)a.end / 1e6, a.run[0] - a.run_crash[0],
             a.run[1] - a.run_crash[1], a.run[3] - a.run_crash[3]);
    }
    /* b1 dies while records it gave away are out (a chain): with orphan
     * saving their results are told and the re-run takes them; without,
     * they are stopped.  Exact either way; the work after the crash is
     * what orphan saving saves. */
    int64_t with = 0, without = 0, saved = 0;
    for (size_t p = 0; p < npolicies; p++) {
        const char *pol = policies[p];
        outcome a = run_grid(pol, 42, 3000000, 1, 1), b = run_grid(pol, 42, 3000000, 1, 0);
        outcome a2 = run_grid(pol, 42, 3000000, 1, 1);
        ok(a.crash_at >= 0 && a.crash_at == b.crash_at,
           "%s chain crash: b1 crashed at %.3f ms with records of its own out", pol,
           (double)a.crash_at / 1e6);
        ok(a.result == fib(FIB_N) && b.result == fib(FIB_N),
           "%s chain crash: exact with and without orphan saving", pol);
        ok(a.orphans_told >= 1, "%s chain crash: %" PRId64 " orphan(s) told", pol, a.orphans_told);
        ok(a.false_dead == 0 && b.false_dead == 0 && a.running == 0 && b.running == 0 &&
               a.still_waiting == 0,
           "%s chain crash: no living node taken for dead, nothing left running or waiting", pol);
        ok(a.end == a2.end && a.events == a2.events && a.orphans_used == a2.orphans_used,
           "%s chain crash: the same seed gives the same run", pol);
        diag("%s chain crash: tasks run after it %" PRId64 " with orphan saving (%" PRId64
             " orphans used, %" PRId64 " waited for, standing for %" PRId64 " tasks), %" PRId64
             " without; job ends at %.3f ms, %.3f ms without",
             pol, a.run_after_crash, a.orphans_used, a.waited, a.runs_saved, b.run_after_crash,
             (double)a.end / 1e6, (double)b.end / 1e6);
        with += a.run_after_crash;
        without += b.run_after_crash;
        saved += a.runs_saved;
    }
    ok(saved > 0 && with < without,
       "chain crashes: orphan saving saved work (%" PRId64 " tasks run after the crashes with it, "
       "%" PRId64 " without; orphans stood for %" PRId64 ")",
       with, without, saved);

    /* A sweep of seeds and crash moments: every run exact, nothing left
     * running or waiting, and some re-runs met a promise and waited for
     * its result (a root never waits: it may be the promised record). */
    int bad = 0;
    int64_t waited = 0, used = 0, runs = 0, after_end = 0;
    for (size_t p = 0; p < npolicies; p++)
        for (uint64_t seed = 1; seed <= 8; seed++)
            for (int64_t t = 1000000; t <= 9000000; t += 4000000) {
                outcome a = run_grid(policies[p], seed, t, 1, 1);
                runs++;
                if (a.result != fib(FIB_N) || a.running || a.still_waiting || a.false_dead) {
                    bad++;
                    diag("%s seed %" PRIu64 " crash after %" PRId64 " ns: result %" PRId64
                         ", %" PRId64 " running, %" PRId64 " waiting, %" PRId64 " taken for dead",
                         policies[p], seed, t, a.result, a.running, a.still_waiting,
                         a.false_dead);
                }
                waited += a.waited;
                used += a.orphans_used;
                after_end += a.run_after_end;
            }
    is_i64(bad, 0, "sweep: %" PRId64 " chain crashes, all exact, nothing left over", runs);
    ok(waited > 0 && used > waited,
       "sweep: %" PRId64 " orphan results used, %" PRId64 " of them promised and waited for",
       used, waited);
    diag("sweep: %" PRId64 " tasks run for dead owners after their jobs had ended", after_end);
    return done_testing();
}
