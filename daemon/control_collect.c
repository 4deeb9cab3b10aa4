/* control_collect.c - the statistics round's sums: a finished job's result waits
 * for the other nodes' counters, but not for nodes that do not answer (and
 * views of the grid, control_grid.c, wait alike) */
#include "control_internal.h"
#include "kinds.h"
#include "log.h"
#include "satin_endpoint.h"
#include "service.h"
#include "zframes.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <zmq.h>


/* Adds to `sum` the growth of every counter from `start` to `end`. */
static void add_delta(satin_kvlist *sum, const satin_kvlist *start, const satin_kvlist *end)
{
    for (size_t i = 0; i < end->n; i++) {
        const satin_kv *kv = &end->items[i];
        size_t len = strlen(kv->name);
        if (len > 4 && strcmp(kv->name + len - 4, "_max") == 0)
            continue; /* high-water marks do not add up */
        const satin_kv *s0 = satin_kvlist_find(start, kv->name);
        const satin_kv *acc = satin_kvlist_find(sum, kv->name);
        if (kv->type == SATIN_KV_I64)
            satin_kvlist_add_i64(sum, kv->name, (acc ? acc->i64 : 0) + kv->i64 - (s0 ? s0->i64 : 0));
        else if (kv->type == SATIN_KV_F64)
            satin_kvlist_add_f64(sum, kv->name, (acc ? acc->f64 : 0) + kv->f64 - (s0 ? s0->f64 : 0));
    }
}

/* Sums the growth of every reporting node's counters over the job's life
 * (start[] and end[] per node; our own from e->own_start) into its result,
 * and names the nodes whose counters are not in it, and why. */
static void add_grid_stats(satin_control *ctl, job_entry *e, const satin_kvlist *start,
                           const satin_kvlist *end, const char *why_missing)
{
    int n = satin_grid_nnodes(ctl->grid), self = satin_grid_self(ctl->grid);
    satin_kvlist sum, own_end;
    satin_kvlist_init(&sum);
    satin_kvlist_init(&own_end);
    satin_grid_counters(ctl->grid, &own_end);
    add_delta(&sum, &e->own_start, &own_end);
    int reported = 1;
    char missing[512] = "", joined[512] = "";
    for (int node = 0; node < n; node++) {
        if (node == self || !satin_grid_is_member(ctl->grid, node))
            continue;
        if (end[node].n && start[node].n) {
            add_delta(&sum, &start[node], &end[node]);
            reported++;
        } else if (end[node].n) {
            /* It joined the grid after the job began: no counters to start from. */
            size_t off = strlen(joined);
            snprintf(joined + off, sizeof joined - off, "%s%s", off ? "," : "",
                     satin_grid_node_name(ctl->grid, node));
        } else {
            size_t off = strlen(missing);
            snprintf(missing + off, sizeof missing - off, "%s%s", off ? "," : "",
                     satin_grid_node_name(ctl->grid, node));
        }
    }
    satin_grid_summarize_waits(&sum, "grid.", &e->result->stats);
    satin_kvlist_add_i64(&e->result->stats, "grid.nodes", ctl->topo->nnodes);
    satin_kvlist_add_i64(&e->result->stats, "grid.nodes_reporting", reported);
    satin_kvlist_add_str(&e->result->stats, "grid.policy", satin_grid_policy_name(ctl->grid));
    if (missing[0]) {
        satin_kvlist_add_str(&e->result->stats, "grid.nodes_missing", missing);
        satin_kvlist_add_str(&e->result->stats, "grid.missing_why", why_missing);
    }
    if (joined[0])
        satin_kvlist_add_str(&e->result->stats, "grid.nodes_joined", joined);
    if (e->profile)
        control_profile_collect(ctl, e, end);
    satin_kvlist_free(&sum);
    satin_kvlist_free(&own_end);
}

/* A node worth waiting for: a member that answers.  A node that is down,
 * cut off or gone must not hold every result up until the deadline. */
static int expected(satin_control *ctl, int node, int64_t now)
{
    return satin_grid_is_member(ctl->grid, node) &&
           !satin_grid_unresponsive(ctl->grid, node, now, UNRESPONSIVE_NS);
}

/* 1 when the job's counters are all in, or overdue, or `stopping`: then
 * its result goes, with what came. */
static int try_complete_collection(satin_control *ctl, job_entry *e, int64_t now, int stopping)
{
    int n = satin_grid_nnodes(ctl->grid), self = satin_grid_self(ctl->grid);
    satin_kvlist *start = calloc((size_t)n, sizeof *start);
    satin_kvlist *end = calloc((size_t)n, sizeof *end);
    if (!start || !end)
        abort();
    satin_grid_collected(ctl->grid, e->id, 0, start);
    satin_grid_collected(ctl->grid, e->id, 1, end);
    int waiting = 0;
    for (int node = 0; node < n; node++)
        waiting += node != self && !end[node].n && expected(ctl, node, now);
    int overdue = now >= e->collect_deadline;
    int ready = waiting == 0 || overdue || stopping;
    if (ready) {
        const char *why = stopping && waiting ? "satind stopped before they answered"
                          : waiting          ? "no answer within the statistics deadline"
                                             : "it does not answer: not waited for";
        add_grid_stats(ctl, e, start, end, why);
        satin_grid_forget(ctl->grid, e->id);
        control_deliver(ctl, e);
    }
    for (int node = 0; node < n; node++) {
        satin_kvlist_free(&start[node]);
        satin_kvlist_free(&end[node]);
    }
    free(start);
    free(end);
    return ready;
}

/* Finished jobs whose grid counters are all in (or overdue) are delivered;
 * ctl->next_collect says when the next one falls overdue. */
void control_complete_collections(satin_control *ctl)
{
    int64_t now = satin_now_ns();
    ctl->next_collect = INT64_MAX;
    for (size_t i = 0; i < ctl->njobs; i++) {
        job_entry *e = ctl->jobs[i];
        if (e->collecting && !try_complete_collection(ctl, e, now, 0) &&
            e->collect_deadline < ctl->next_collect)
            ctl->next_collect = e->collect_deadline;
    }
    int64_t views = control_complete_grid_queries(ctl, 0);
    if (views < ctl->next_collect)
        ctl->next_collect = views;
    int64_t lists = control_complete_jobs_queries(ctl, 0);
    if (lists < ctl->next_collect)
        ctl->next_collect = lists;
}

void control_flush_collections(satin_control *ctl)
{
    int64_t now = satin_now_ns();
    for (size_t i = 0; i < ctl->njobs; i++)
        if (ctl->jobs[i]->collecting)
            try_complete_collection(ctl, ctl->jobs[i], now, 1);
    control_complete_grid_queries(ctl, 1);
    control_complete_jobs_queries(ctl, 1);
}

