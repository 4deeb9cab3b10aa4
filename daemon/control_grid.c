/*
 * control_grid.c - the grid at a glance (GRID_STATUS, PROTOCOL.md 6.15):
 * this node asks every other member for its status (the statistics round's
 * phase 2) and answers the client with one entry per node of its topology,
 * in file order.  A node that has not answered within GRID_QUERY_WAIT_NS
 * is listed all the same, with what this node knows of it: whether it is
 * alive, suspected or dead as the failure watch sees it, how long it has
 * been silent, and whether it said it was leaving.  Nodes this node
 * already knows to be dead or unresponsive are not waited for.
 */
#include "control_internal.h"
#include "satin_endpoint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What one node says of itself, in this order: the figures of the table.
 * A peer's answer is taken only for these names and types, so that what
 * a peer sends can never stand in for what this node says of it. */
static const struct {
    const char *name;
    satin_kv_type type;
} summary_keys[] = {
    {"pid", SATIN_KV_I64},
    {"workers", SATIN_KV_I64},
    {"workers_busy", SATIN_KV_I64},
    {"jobs_running", SATIN_KV_I64},
    {"jobs_pending", SATIN_KV_I64},
    {"queue_length", SATIN_KV_I64},
    {"records_held", SATIN_KV_I64},
    {"steal_attempts", SATIN_KV_I64},
    {"steal_successes", SATIN_KV_I64},
    {"steal_failures", SATIN_KV_I64},
    {"wan_msgs", SATIN_KV_I64},
    {"wan_bytes", SATIN_KV_I64},
    {"uptime_s", SATIN_KV_F64},
    {"modules", SATIN_KV_STR},
    {"kinds_differ", SATIN_KV_STR},
};
#define NSUMMARY (sizeof summary_keys / sizeof summary_keys[0])

static int64_t value_of(const satin_kvlist *l, const char *name)
{
    int64_t v = 0;
    satin_kvlist_i64(l, name, &v);
    return v;
}

/* This node's figures, from the counters its STATUS shows (steals and
 * wide-area traffic summed over both kinds of link, as --status has them
 * apart); not the whole STATUS, which every peer's view would build. */
static void node_summary(void *arg, satin_kvlist *out)
{
    satin_control *ctl = arg;
    satin_kvlist st;
    satin_kvlist_init(&st);
    if (ctl->grid)
        satin_grid_counters(ctl->grid, &st);
    satin_kvlist_add_i64(out, "pid", (int64_t)getpid());
    satin_kvlist_add_i64(out, "workers", satin_pool_workers(ctl->pool));
    satin_kvlist_add_i64(out, "workers_busy", satin_pool_workers_busy(ctl->pool));
    satin_kvlist_add_i64(out, "jobs_running", ctl->running_jobs);
    satin_kvlist_add_i64(out, "jobs_pending", ctl->pending_jobs);
    satin_kvlist_add_i64(out, "queue_length", satin_pool_queue_length(ctl->pool));
    satin_kvlist_add_i64(out, "records_held", ctl->grid ? satin_grid_running(ctl->grid) : 0);
    satin_kvlist_add_i64(out, "steal_attempts",
                         value_of(&st, "steal_attempts_lan") + value_of(&st, "steal_attempts_wan"));
    satin_kvlist_add_i64(out, "steal_successes", value_of(&st, "steal_successes_lan") +
                                                     value_of(&st, "steal_successes_wan"));
    satin_kvlist_add_i64(out, "steal_failures", value_of(&st, "steal_failures"));
    satin_kvlist_add_i64(out, "wan_msgs", value_of(&st, "msgs_wan"));
    satin_kvlist_add_i64(out, "wan_bytes", value_of(&st, "bytes_wan"));
    satin_kvlist_add_f64(out, "uptime_s", (double)(satin_now_ns() - ctl->started_ns) / 1e9);
    char modules[512] = "", differ[1024] = "";
    if (ctl->grid)
        satin_grid_kinds_status(ctl->grid, modules, sizeof modules, differ, sizeof differ);
    satin_kvlist_add_str(out, "modules", modules);
    satin_kvlist_add_str(out, "kinds_differ", differ);
    satin_kvlist_free(&st);
}

void control_grid_init(satin_control *ctl)
{
    if (ctl->grid)
        satin_grid_set_status_source(ctl->grid, node_summary, ctl);
}

static void add_summary(satin_kvlist *entry, const satin_kvlist *from)
{
    for (size_t k = 0; k < NSUMMARY; k++) {
        const satin_kv *kv = satin_kvlist_find(from, summary_keys[k].name);
        if (!kv || kv->type != summary_keys[k].type)
            continue;
        if (kv->type == SATIN_KV_I64)
            satin_kvlist_add_i64(entry, kv->name, kv->i64);
        else if (kv->type == SATIN_KV_F64)
            satin_kvlist_add_f64(entry, kv->name, kv->f64);
        else
            satin_kvlist_add_str(entry, kv->name, kv->str);
    }
}

/* The entry of the topology's node `index`, as this node sees it. */
static void add_node(satin_control *ctl, satin_msg *r, int index, uint64_t query)
{
    const satin_topology *t = satin_grid_topology(ctl->grid);
    satin_kvlist *entry = satin_msg_add_job(r);
    if (!entry)
        return;
    int node = satin_grid_slot(ctl->grid, index);
    int self = node == satin_grid_self(ctl->grid);
    satin_kvlist_add_str(entry, "node", t->nodes[index].id);
    satin_kvlist_add_str(entry, "cluster", t->clusters[t->nodes[index].cluster].name);
    satin_kvlist_add_i64(entry, "index", index);
    satin_kvlist_add_i64(entry, "asked", self);
    satin_kvlist list;
    satin_kvlist_init(&list);
    if (self) {
        satin_kvlist_add_str(entry, "state", ctl->stopping ? "leaving" : "alive");
        satin_kvlist_add_i64(entry, "answered", 1);
        node_summary(ctl, &list);
        add_summary(entry, &list);
    } else {
        int answered = node >= 0 && satin_grid_peer_status(ctl->grid, node, query, &list);
        satin_grid_view v = {.state = "alive", .silent_s = -1, .dead_s = -1};
        if (node >= 0)
            satin_grid_peer_view(ctl->grid, node, &v);
        /* A node that said it leaves has left once it no longer answers. */
        satin_kvlist_add_str(entry, "state", v.leaving ? (answered ? "leaving" : "left") : v.state);
        satin_kvlist_add_i64(entry, "answered", answered);
        if (v.silent_s >= 0)
            satin_kvlist_add_f64(entry, "silent_s", v.silent_s);
        if (v.dead_s >= 0)
            satin_kvlist_add_f64(entry, "dead_s", v.dead_s);
        if (answered)
            add_summary(entry, &list);
    }
    satin_kvlist_free(&list);
}

static void answer(satin_control *ctl, const grid_query *q)
{
    satin_msg *r = satin_msg_new(SATIN_MSG_GRID);
    r->request_id = q->request_id;
    if (ctl->grid) {
        const satin_topology *t = satin_grid_topology(ctl->grid);
        for (int i = 0; i < t->nnodes; i++)
            add_node(ctl, r, i, q->id);
    } else {
        /* A daemon on its own is a grid of one, named after its host. */
        satin_kvlist *entry = satin_msg_add_job(r);
        satin_kvlist list;
        satin_kvlist_init(&list);
        char host[64] = "";
        if (gethostname(host, sizeof host - 1) < 0 || !host[0])
            snprintf(host, sizeof host, "localhost");
        satin_kvlist_add_str(entry, "node", control_node_id(ctl)[0] ? control_node_id(ctl) : host);
        satin_kvlist_add_str(entry, "cluster", "");
        satin_kvlist_add_i64(entry, "index", 0);
        satin_kvlist_add_i64(entry, "asked", 1);
        satin_kvlist_add_str(entry, "state", ctl->stopping ? "leaving" : "alive");
        satin_kvlist_add_i64(entry, "answered", 1);
        node_summary(ctl, &list);
        add_summary(entry, &list);
        satin_kvlist_free(&list);
    }
    if (q->rid_len)
        control_send_to(ctl, q->rid, q->rid_len, r);
    else
        control_dashboard_grid(ctl, r);   /* our own view, for the dashboard */
    satin_msg_destroy(&r);
}

void control_on_grid_status(satin_control *ctl, const unsigned char *rid, size_t rid_len,
                            const satin_msg *m)
{
    grid_query q = {.id = ++ctl->grid_query_seq, .request_id = m->request_id, .rid_len = rid_len};
    if (rid_len)
        memcpy(q.rid, rid, rid_len);
    if (!ctl->grid) {
        answer(ctl, &q);
        return;
    }
    /* One query at a time per client is plenty; a flood of them costs each
     * peer one small reply per query, and this node one entry each. */
    if (ctl->ngrid_queries >= GRID_QUERIES_MAX) {
        if (!rid_len) {
            ctl->dashboard_query = 0;   /* the dashboard's: asked again in a second */
            return;
        }
        control_send_error(ctl, rid, rid_len, m->request_id, 0, SATIN_PROTO_LIMIT_REACHED,
                           "%d views of the grid are being gathered already; try again in a "
                           "second", GRID_QUERIES_MAX);
        return;
    }
    q.deadline = satin_now_ns() + GRID_QUERY_WAIT_NS;
    grid_query *qs = realloc(ctl->grid_queries, (ctl->ngrid_queries + 1) * sizeof *qs);
    if (!qs)
        abort();
    ctl->grid_queries = qs;
    qs[ctl->ngrid_queries++] = q;
    satin_grid_request_status(ctl->grid, q.id);
    control_complete_collections(ctl);
}

/* 1 when every member that may answer has answered query q (or `now` is
 * past its deadline). */
static int query_ready(satin_control *ctl, const grid_query *q, int64_t now)
{
    if (now >= q->deadline)
        return 1;
    int n = satin_grid_nnodes(ctl->grid), self = satin_grid_self(ctl->grid);
    for (int node = 0; node < n; node++) {
        if (node == self || !satin_grid_is_member(ctl->grid, node))
            continue;
        if (satin_grid_peer_status(ctl->grid, node, q->id, NULL))
            continue;
        satin_grid_view v;
        satin_grid_peer_view(ctl->grid, node, &v);
        /* Known down: its silence will not end within the wait. */
        if (v.dead_s < 0 && !satin_grid_unresponsive(ctl->grid, node, now, UNRESPONSIVE_NS))
            return 0;
    }
    return 1;
}

int64_t control_complete_grid_queries(satin_control *ctl, int stopping)
{
    int64_t now = satin_now_ns(), next = INT64_MAX;
    for (size_t i = 0; i < ctl->ngrid_queries;) {
        grid_query *q = &ctl->grid_queries[i];
        if (stopping || query_ready(ctl, q, now)) {
            answer(ctl, q);
            ctl->grid_queries[i] = ctl->grid_queries[--ctl->ngrid_queries];
            continue;
        }
        if (q->deadline < next)
            next = q->deadline;
        i++;
    }
    return next;
}
