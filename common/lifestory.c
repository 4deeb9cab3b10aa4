/* lifestory.c - a run's lifestory (see lifestory.h). */
#include "lifestory.h"

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
    int ended;                 /* satin_life_end_node: no more events */
    int nw;                    /* its workers (satin_life_node_workers; else all) */
} life_node;

struct satin_life {
    const int *cluster_of;     /* the topology's: it outlives the run */
    const char *const *names;  /* NULL: no node_id column */
    int nnodes, nrec, workers;
    life_node *rec;
    FILE *out;
    int error;
};

static const char *const state_names[SATIN_LIFE_STATES] = {"computing", "steal-lan", "steal-wan",
                                                         "idle"};

const char *satin_life_state_name(int state)
{
    return state >= 0 && state < SATIN_LIFE_STATES ? state_names[state] : "?";
}

/* Recorded node k is node floor(k * nnodes / nrec): k rises with the node,
 * so a node is recorded when the smallest k that reaches it lands on it. */
static life_node *recorded(const satin_life *l, int node)
{
    int64_t n = l->nnodes, k = ((int64_t)node * l->nrec + n - 1) / n;
    if (node < 0 || node >= l->nnodes)
        return NULL;
    life_node *r = k < l->nrec && k * n / l->nrec == node ? &l->rec[k] : NULL;
    return r && !r->ended ? r : NULL;
}

int satin_life_recorded(const satin_life *l, int node)
{
    return recorded(l, node) != NULL;
}

satin_life *satin_life_new(int nnodes, const int *cluster_of, int workers, int max_nodes,
                           FILE *out)
{
    return satin_life_new_named(nnodes, cluster_of, NULL, workers, max_nodes, out);
}

satin_life *satin_life_new_named(int nnodes, const int *cluster_of, const char *const *names,
                                 int workers, int max_nodes, FILE *out)
{
    satin_life *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->cluster_of = cluster_of;
    l->names = names;
    l->nnodes = nnodes;
    l->nrec = max_nodes < nnodes ? max_nodes : nnodes;
    l->workers = workers;
    l->out = out;
    l->rec = calloc((size_t)l->nrec, sizeof *l->rec);
    if (!l->rec) {
        satin_life_destroy(&l);
        return NULL;
    }
    for (int k = 0; k < l->nrec; k++) {
        life_node *r = &l->rec[k];
        r->node = (int)((int64_t)k * l->nnodes / l->nrec);
        r->nw = workers;
        if (!(r->w = calloc((size_t)workers, sizeof *r->w))) {
            satin_life_destroy(&l);
            return NULL;
        }
        for (int i = 0; i < workers; i++)
            r->w[i].state = SATIN_LIFE_IDLE;
    }
    if (fputs(names ? "node,worker,state,start_ns,end_ns,node_id\n"
                    : "node,worker,state,start_ns,end_ns\n", out) == EOF)
        l->error = 1;
    return l;
}

void satin_life_destroy(satin_life **self)
{
    satin_life *l = *self;
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

/* A name as a CSV field (RFC 4180): quoted when it holds a comma, a quote
 * or a line break, a quote doubled. */
static void csv_field(satin_life *l, const char *s)
{
    int quote = strpbrk(s, ",\"\r\n") != NULL;
    if (fputc(',', l->out) == EOF || (quote && fputc('"', l->out) == EOF))
        l->error = 1;
    for (; *s; s++)
        if ((*s == '"' && quote && fputc('"', l->out) == EOF) || fputc(*s, l->out) == EOF)
            l->error = 1;
    if (quote && fputc('"', l->out) == EOF)
        l->error = 1;
}

static void emit(satin_life *l, const life_node *r, int worker, int state, int64_t start,
                 int64_t end)
{
    if (fprintf(l->out, "%d,%d,%s,%" PRId64 ",%" PRId64, r->node, worker, state_names[state],
                start, end) < 0)
        l->error = 1;
    if (l->names)
        csv_field(l, l->names[r->node]);
    if (fputc('\n', l->out) == EOF)
        l->error = 1;
}

static void set_state(satin_life *l, const life_node *r, int worker, int state, int64_t now)
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
    return r->nlan ? SATIN_LIFE_STEAL_LAN : r->nwan ? SATIN_LIFE_STEAL_WAN : SATIN_LIFE_IDLE;
}

static void requests_changed(satin_life *l, life_node *r, int64_t now)
{
    int state = waiting_state(r);
    for (int i = 0; i < r->nw; i++)
        if (!r->w[i].busy)
            set_state(l, r, i, state, now);
}

int satin_life_task_start(satin_life *l, int node, int64_t now)
{
    life_node *r = recorded(l, node);
    if (!r)
        return 0;
    for (int i = 0; i < r->nw; i++)
        if (!r->w[i].busy) {
            r->w[i].busy = 1;
            set_state(l, r, i, SATIN_LIFE_COMPUTING, now);
            return i;
        }
    abort();   /* sim.c starts a task only when a worker is idle */
}

void satin_life_worker_start(satin_life *l, int node, int worker, int64_t now)
{
    life_node *r = recorded(l, node);
    if (!r || worker < 0 || worker >= r->nw)
        return;
    r->w[worker].busy = 1;
    set_state(l, r, worker, SATIN_LIFE_COMPUTING, now);
}

void satin_life_task_end(satin_life *l, int node, int worker, int64_t now)
{
    life_node *r = recorded(l, node);
    if (!r || worker < 0 || worker >= r->nw)
        return;
    r->w[worker].busy = 0;
    set_state(l, r, worker, waiting_state(r), now);
}

void satin_life_steal_sent(satin_life *l, int node, int victim, uint64_t request, int64_t now)
{
    if (recorded(l, node))
        satin_life_steal_out(l, node, request, l->cluster_of[victim] != l->cluster_of[node], now);
}

void satin_life_steal_out(satin_life *l, int node, uint64_t request, int wan, int64_t now)
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
    r->req[r->nreq++] = (life_request){request, wan};
    if (wan)
        r->nwan++;
    else
        r->nlan++;
    requests_changed(l, r, now);
}

void satin_life_steal_answered(satin_life *l, int node, uint64_t request, int64_t now)
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

void satin_life_node_workers(satin_life *l, int node, int workers)
{
    life_node *r = recorded(l, node);
    if (r && workers >= 1 && workers <= l->workers)
        r->nw = workers;
}

void satin_life_begin_node(satin_life *l, int node, int64_t start)
{
    life_node *r = recorded(l, node);
    for (int i = 0; r && i < r->nw; i++)
        r->w[i].start = start;
}

static void end_node(satin_life *l, life_node *r, int64_t end)
{
    for (int i = 0; i < r->nw; i++) {
        life_worker *w = &r->w[i];
        if (w->has_prev)
            emit(l, r, i, w->prev_state, w->prev_start, w->prev_end);
        if (end > w->start)
            emit(l, r, i, w->state, w->start, end);
        w->has_prev = 0;
        w->start = end;
    }
}

void satin_life_end_node(satin_life *l, int node, int64_t end)
{
    life_node *r = recorded(l, node);
    if (r) {
        end_node(l, r, end);
        r->ended = 1;
    }
}

int satin_life_finish(satin_life *l, int64_t end)
{
    for (int k = 0; k < l->nrec; k++)
        if (!l->rec[k].ended)
            end_node(l, &l->rec[k], end);
    if (fflush(l->out) == EOF)
        l->error = 1;
    return l->error ? -1 : 0;
}
