/* sim_lifestory.c - a run's lifestory (see sim_lifestory.h). */
#include "sim_lifestory.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A worker's interval going on, and the one before it, held back one
 * change: when the worker goes idle and starts another task at the same
 * nanosecond, the empty interval between is dropped and the two computing
 * ones are written as one. */
typedef struct life_worker {
    int state;
    int64_t start;
    int has_prev, prev_state;
    int64_t prev_start, prev_end;
    int busy;
} life_worker;

/* A steal request of the node's own, out. */
typedef struct life_request {
    uint64_t id;
    int wan;
} life_request;

typedef struct life_node {
    int node;
    life_worker *w;
    life_request *req;
    size_t nreq, capreq;
    int nlan, nwan;
} life_node;

struct sim_life {
    const int *cluster_of;     /* the topology's: it outlives the run */
    int nnodes, nrec, workers;
    life_node *rec;
    FILE *out;
    int error;
};

static const char *const state_names[SIM_LIFE_STATES] = {"computing", "steal-lan", "steal-wan",
                                                         "idle"};

const char *sim_life_state_name(int state)
{
    return state >= 0 && state < SIM_LIFE_STATES ? state_names[state] : "?";
}

/* Recorded node k is node floor(k * nnodes / nrec): k rises with the node,
 * so a node is recorded when the smallest k that reaches it lands on it. */
static life_node *recorded(const sim_life *l, int node)
{
    int64_t n = l->nnodes, k = ((int64_t)node * l->nrec + n - 1) / n;
    return k < l->nrec && k * n / l->nrec == node ? &l->rec[k] : NULL;
}

int sim_life_recorded(const sim_life *l, int node)
{
    return recorded(l, node) != NULL;
}

sim_life *sim_life_new(const satin_policy_topology *topo, int workers, int max_nodes, FILE *out)
{
    sim_life *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->cluster_of = topo->cluster_of;
    l->nnodes = topo->nnodes;
    l->nrec = max_nodes < topo->nnodes ? max_nodes : topo->nnodes;
    l->workers = workers;
    l->out = out;
    l->rec = calloc((size_t)l->nrec, sizeof *l->rec);
    if (!l->rec) {
        sim_life_destroy(&l);
        return NULL;
    }
    for (int k = 0; k < l->nrec; k++) {
        life_node *r = &l->rec[k];
        r->node = (int)((int64_t)k * l->nnodes / l->nrec);
        if (!(r->w = calloc((size_t)workers, sizeof *r->w))) {
            sim_life_destroy(&l);
            return NULL;
        }
        for (int i = 0; i < workers; i++)
            r->w[i].state = SIM_LIFE_IDLE;
    }
    if (fputs("node,worker,state,start_ns,end_ns\n", out) == EOF)
        l->error = 1;
    return l;
}

void sim_life_destroy(sim_life **self)
{
    sim_life *l = *self;
    if (!l)
        return;
    for (int k = 0; l->rec && k < l->nrec; k++) {
        free(l->rec[k].w);
        free(l->rec[k].req);
    }
    free(l->rec);
    free(l);
    *self = NULL;
}

static void emit(sim_life *l, const life_node *r, int worker, int state, int64_t start,
                 int64_t end)
{
    if (fprintf(l->out, "%d,%d,%s,%" PRId64 ",%" PRId64 "\n", r->node, worker, state_names[state],
                start, end) < 0)
        l->error = 1;
}

static void set_state(sim_life *l, const life_node *r, int worker, int state, int64_t now)
{
    life_worker *w = &r->w[worker];
    if (state == w->state)
        return;
    if (now == w->start) {
        /* The interval going on is empty: it goes, and the one before
         * goes on again if it was in this state. */
        if (w->has_prev && w->prev_state == state && w->prev_end == now) {
            w->state = state;
            w->start = w->prev_start;
            w->has_prev = 0;
        } else {
            w->state = state;
        }
        return;
    }
    if (w->has_prev)
        emit(l, r, worker, w->prev_state, w->prev_start, w->prev_end);
    w->has_prev = 1;
    w->prev_state = w->state;
    w->prev_start = w->start;
    w->prev_end = now;
    w->state = state;
    w->start = now;
}

/* A worker without a task waits while its node has a steal request out:
 * for a local one first, since a wide-area one may be out while the node
 * steals in its cluster (CRS's prefetch). */
static int waiting_state(const life_node *r)
{
    return r->nlan ? SIM_LIFE_STEAL_LAN : r->nwan ? SIM_LIFE_STEAL_WAN : SIM_LIFE_IDLE;
}

static void requests_changed(sim_life *l, life_node *r, int64_t now)
{
    int state = waiting_state(r);
    for (int i = 0; i < l->workers; i++)
        if (!r->w[i].busy)
            set_state(l, r, i, state, now);
}

int sim_life_task_start(sim_life *l, int node, int64_t now)
{
    life_node *r = recorded(l, node);
    if (!r)
        return 0;
    for (int i = 0; i < l->workers; i++)
        if (!r->w[i].busy) {
            r->w[i].busy = 1;
            set_state(l, r, i, SIM_LIFE_COMPUTING, now);
            return i;
        }
    abort();   /* sim.c starts a task only when a worker is idle */
}

void sim_life_task_end(sim_life *l, int node, int worker, int64_t now)
{
    life_node *r = recorded(l, node);
    if (!r)
        return;
    r->w[worker].busy = 0;
    set_state(l, r, worker, waiting_state(r), now);
}

void sim_life_steal_sent(sim_life *l, int node, int victim, uint64_t request, int64_t now)
{
    life_node *r = recorded(l, node);
    if (!r)
        return;
    if (r->nreq == r->capreq) {
        r->capreq = r->capreq ? 2 * r->capreq : 4;
        r->req = realloc(r->req, r->capreq * sizeof *r->req);
        if (!r->req)
            abort();
    }
    int wan = l->cluster_of[victim] != l->cluster_of[node];
    r->req[r->nreq++] = (life_request){request, wan};
    if (wan)
        r->nwan++;
    else
        r->nlan++;
    requests_changed(l, r, now);
}

void sim_life_steal_answered(sim_life *l, int node, uint64_t request, int64_t now)
{
    life_node *r = recorded(l, node);
    if (!r)
        return;
    for (size_t i = 0; i < r->nreq; i++)
        if (r->req[i].id == request) {
            if (r->req[i].wan)
                r->nwan--;
            else
                r->nlan--;
            r->req[i] = r->req[--r->nreq];
            requests_changed(l, r, now);
            return;
        }
}

int sim_life_finish(sim_life *l, int64_t end)
{
    for (int k = 0; k < l->nrec; k++)
        for (int i = 0; i < l->workers; i++) {
            life_worker *w = &l->rec[k].w[i];
            if (w->has_prev)
                emit(l, &l->rec[k], i, w->prev_state, w->prev_start, w->prev_end);
            if (end > w->start)
                emit(l, &l->rec[k], i, w->state, w->start, end);
            w->has_prev = 0;
            w->start = end;
        }
    if (fflush(l->out) == EOF)
        l->error = 1;
    return l->error ? -1 : 0;
}
