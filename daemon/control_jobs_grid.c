/*
 * control_jobs_grid.c - the grid's jobs at once (LIST flag GRID, PROTOCOL.md
 * 6.13, 14.12c): this node asks every other member for its jobs with a
 * JOBS_REQUEST naming the client it asks for (its uid or key, and whether
 * this node takes it for an admin), each answers with what it would answer
 * that client's LIST (control_list_jobs), and the client gets this node's
 * jobs, then every other node's in topology order.  A member that has not
 * answered within GRID_QUERY_WAIT_NS, or that this node already knows to be
 * dead or unresponsive, is listed as one entry with only its `node` and
 * `unanswered`; the owners' rule holds on every node, since each judges
 * the client as its own.
 */
#include "control_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A LIST --grid being gathered. */
struct jobs_query {
    uint64_t id;                  /* echoed by the peers' JOBS_REPLY */
    unsigned char rid[RID_MAX];
    size_t rid_len;
    uint64_t request_id;
    int64_t deadline;
    satin_principal who;
    int all;
    satin_msg **replies;          /* [node] the JOBS_REPLY that came, or NULL */
    int nnodes;
};

static void query_free(jobs_query *q)
{
    for (int i = 0; i < q->nnodes; i++)
        satin_msg_destroy(&q->replies[i]);
    free(q->replies);
    free(q);
}

/* The client a JOBS_REQUEST speaks for, as the node that asks judged it. */
static void asker_of(satin_control *ctl, const satin_msg *m, satin_principal *p)
{
    if (m->asker_kind == SATIN_ASKER_UID)
        satin_principal_of_uid(p, (uid_t)m->asker_uid, (uid_t)-1, &ctl->user_names);
    else if (m->asker_kind == SATIN_ASKER_KEY) {
        satin_principal_anonymous(p);
        p->kind = SATIN_PRINCIPAL_KEY;
        snprintf(p->key, sizeof p->key, "%s", m->asker_key);
        snprintf(p->name, sizeof p->name, "key");
    } else
        satin_principal_anonymous(p);
    p->admin = m->asker_admin;
}

static void answer_peer(satin_control *ctl, int node, const satin_msg *m)
{
    satin_principal who;
    asker_of(ctl, m, &who);
    satin_msg *r = satin_msg_new(SATIN_MSG_JOBS_REPLY);
    r->job_id = m->job_id;
    r->request_id = m->request_id;
    control_list_jobs(ctl, &who, (m->flags & SATIN_LIST_ALL) != 0, r);
    satin_grid_send_jobs(ctl->grid, node, r);
    satin_msg_destroy(&r);
}

static void take_reply(satin_control *ctl, int node, const satin_msg *m)
{
    for (size_t i = 0; i < ctl->njobs_queries; i++) {
        jobs_query *q = ctl->jobs_queries[i];
        if (q->id != m->job_id || node < 0 || node >= q->nnodes || q->replies[node])
            continue;
        /* Keep it: the message is the transport's, destroyed after this call. */
        satin_msg *copy = satin_msg_new(SATIN_MSG_JOBS_REPLY);
        for (size_t k = 0; k < m->njobs; k++) {
            satin_kvlist *l = satin_msg_add_job(copy);
            if (l)
                satin_kvlist_copy(l, &m->jobs[k]);
        }
        q->replies[node] = copy;
    }
    control_complete_collections(ctl);
}

static void on_peer_jobs(void *arg, int node, const satin_msg *m)
{
    satin_control *ctl = arg;
    if (m->type == SATIN_MSG_JOBS_REQUEST)
        answer_peer(ctl, node, m);
    else
        take_reply(ctl, node, m);
}

void control_jobs_grid_init(satin_control *ctl)
{
    if (ctl->grid)
        satin_grid_set_jobs_handler(ctl->grid, on_peer_jobs, ctl);
}

static void add_jobs(satin_msg *r, const satin_msg *from)
{
    for (size_t k = 0; k < from->njobs; k++) {
        satin_kvlist *l = satin_msg_add_job(r);
        if (!l)
            return;
        satin_kvlist_copy(l, &from->jobs[k]);
    }
}

static void answer(satin_control *ctl, const jobs_query *q)
{
    satin_msg *r = satin_msg_new(SATIN_MSG_JOBS);
    r->request_id = q->request_id;
    control_list_jobs(ctl, &q->who, q->all, r);
    const satin_topology *t = satin_grid_topology(ctl->grid);
    int self = satin_grid_self(ctl->grid);
    for (int i = 0; i < t->nnodes; i++) {
        int node = satin_grid_slot(ctl->grid, i);
        if (node < 0 || node == self)
            continue;
        if (node < q->nnodes && q->replies[node]) {
            add_jobs(r, q->replies[node]);
            continue;
        }
        satin_kvlist *l = satin_msg_add_job(r);
        if (!l)
            break;
        satin_kvlist_add_str(l, "node", t->nodes[i].id);
        satin_kvlist_add_i64(l, "unanswered", 1);
    }
    if (q->rid_len)
        control_send_to(ctl, q->rid, q->rid_len, r);
    else
        control_dashboard_jobs(ctl, r);   /* our own list, for the dashboard */
    satin_msg_destroy(&r);
}

/* 1 when every member that may answer has answered (or the wait is over). */
static int ready(satin_control *ctl, const jobs_query *q, int64_t now)
{
    if (now >= q->deadline)
        return 1;
    int self = satin_grid_self(ctl->grid);
    for (int node = 0; node < q->nnodes; node++) {
        if (node == self || !satin_grid_is_member(ctl->grid, node) || q->replies[node])
            continue;
        satin_grid_view v;
        satin_grid_peer_view(ctl->grid, node, &v);
        if (v.dead_s < 0 && !v.leaving &&
            !satin_grid_unresponsive(ctl->grid, node, now, UNRESPONSIVE_NS))
            return 0;
    }
    return 1;
}

void control_list_grid(satin_control *ctl, const satin_principal *who, const unsigned char *rid,
                       size_t rid_len, const satin_msg *m)
{
    int all = (m->flags & SATIN_LIST_ALL) != 0;
    if (!ctl->grid) {   /* a grid of one */
        satin_msg *r = satin_msg_new(SATIN_MSG_JOBS);
        r->request_id = m->request_id;
        control_list_jobs(ctl, who, all, r);
        if (rid_len)
            control_send_to(ctl, rid, rid_len, r);
        else
            control_dashboard_jobs(ctl, r);
        satin_msg_destroy(&r);
        return;
    }
    if (ctl->njobs_queries >= GRID_QUERIES_MAX) {
        if (!rid_len) {
            ctl->dashboard_jobs_query = 0;
            return;
        }
        control_send_error(ctl, rid, rid_len, m->request_id, 0, SATIN_PROTO_LIMIT_REACHED,
                           "%d lists of the grid's jobs are being gathered already; try again "
                           "in a second", GRID_QUERIES_MAX);
        return;
    }
    jobs_query *q = calloc(1, sizeof *q);
    if (!q)
        abort();
    q->id = ++ctl->jobs_query_seq;
    if (rid_len)
        memcpy(q->rid, rid, rid_len);
    q->rid_len = rid_len;
    q->request_id = m->request_id;
    q->deadline = satin_now_ns() + GRID_QUERY_WAIT_NS;
    q->who = *who;
    q->all = all;
    q->nnodes = satin_grid_nnodes(ctl->grid);
    q->replies = calloc((size_t)q->nnodes + 1, sizeof *q->replies);
    if (!q->replies)
        abort();
    jobs_query **qs = realloc(ctl->jobs_queries, (ctl->njobs_queries + 1) * sizeof *qs);
    if (!qs)
        abort();
    ctl->jobs_queries = qs;
    ctl->jobs_queries[ctl->njobs_queries++] = q;
    int self = satin_grid_self(ctl->grid);
    for (int node = 0; node < q->nnodes; node++) {
        if (node == self || !satin_grid_is_member(ctl->grid, node))
            continue;
        satin_msg *ask = satin_msg_new(SATIN_MSG_JOBS_REQUEST);
        ask->job_id = q->id;
        ask->flags = all ? SATIN_LIST_ALL : 0;
        ask->asker_kind = who->kind == SATIN_PRINCIPAL_UID   ? SATIN_ASKER_UID
                          : who->kind == SATIN_PRINCIPAL_KEY ? SATIN_ASKER_KEY
                                                             : SATIN_ASKER_ANONYMOUS;
        ask->asker_uid = who->kind == SATIN_PRINCIPAL_UID ? (uint32_t)who->uid : 0;
        if (who->kind == SATIN_PRINCIPAL_KEY)
            ask->asker_key = strdup(who->key);
        ask->asker_admin = who->admin ? 1 : 0;
        satin_grid_send_jobs(ctl->grid, node, ask);
        satin_msg_destroy(&ask);
    }
    control_complete_collections(ctl);
}

int64_t control_complete_jobs_queries(satin_control *ctl, int stopping)
{
    int64_t now = satin_now_ns(), next = INT64_MAX;
    for (size_t i = 0; i < ctl->njobs_queries;) {
        jobs_query *q = ctl->jobs_queries[i];
        if (stopping || ready(ctl, q, now)) {
            answer(ctl, q);
            query_free(q);
            ctl->jobs_queries[i] = ctl->jobs_queries[--ctl->njobs_queries];
            continue;
        }
        if (q->deadline < next)
            next = q->deadline;
        i++;
    }
    if (!ctl->njobs_queries) {
        free(ctl->jobs_queries);
        ctl->jobs_queries = NULL;
    }
    return next;
}

void control_jobs_grid_free(satin_control *ctl)
{
    for (size_t i = 0; i < ctl->njobs_queries; i++)
        query_free(ctl->jobs_queries[i]);
    free(ctl->jobs_queries);
    ctl->jobs_queries = NULL;
    ctl->njobs_queries = 0;
}
