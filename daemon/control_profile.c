/*
 * control_profile.c - a job's profile on the node it was submitted to
 * (SUBMIT flag 0x2, PROTOCOL.md 6.1 and 14.12): this node records its own
 * part, the statistics round asks every other node for theirs, and the
 * result carries them all with times from the job's start, one stats item
 * per node, for satin-submit --profile to draw.
 */
#include "control_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the profiles of one result may take together (the client's message
 * limit is 1 MiB): a node gets its share, at most one str. */
#define PROFILE_RESULT_BUDGET ((size_t)768 << 10)
#define PROFILE_NODE_MIN 1024

static int self_slot(const satin_control *ctl)
{
    return ctl->grid ? satin_grid_self(ctl->grid) : 0;
}

void control_profile_begin(satin_control *ctl, job_entry *e)
{
    satin_pool_profile_begin(ctl->pool, self_slot(ctl), e->id);
}

void control_profile_job_done(satin_control *ctl, job_entry *e)
{
    int64_t t0, t1;
    satin_job_times(e->job, &t0, &t1);
    int64_t off = satin_realtime_offset_ns();
    e->profile_origin = t0 + off;
    e->profile_wall = t1 - t0;
    satin_profile_init(&e->own_profile);
    if (satin_pool_profile_end(ctl->pool, self_slot(ctl), e->id, t1, off, &e->own_profile) < 0)
        e->own_profile.workers = 0;   /* cannot happen: it was opened at the start */
}

/* A node's profile in the job's time, clipped to [0, wall], named, as the
 * stats item "profile.SLOT". */
static void add_node(satin_control *ctl, job_entry *e, int slot, satin_profile *p, size_t cap,
                     char *text)
{
    int64_t o = e->profile_origin, wall = e->profile_wall;
    satin_profile q;
    satin_profile_init(&q);
    const char *name = ctl->grid ? satin_grid_node_name(ctl->grid, slot) : control_node_id(ctl);
    snprintf(q.node, sizeof q.node, "%s", name && *name ? name : "local");
    q.cluster = ctl->grid ? satin_grid_node_cluster(ctl->grid, slot) : 0;
    q.workers = p->workers;
    /* A node's recording starts when the job's phase 0 reaches it; on
     * other hosts, clocks that disagree move it (PROTOCOL.md 14.12). */
    q.start = p->start - o < 0 ? 0 : p->start - o > wall ? wall : p->start - o;
    q.end = p->end - o < q.start ? q.start : p->end - o > wall ? wall : p->end - o;
    if (p->truncated != SATIN_PROFILE_WHOLE && p->truncated - o < q.end)
        q.truncated = p->truncated - o < q.start ? q.start : p->truncated - o;
    for (size_t i = 0; i < p->n; i++) {
        int64_t t = p->ev[i].t - o;
        if (t > q.end)
            break;
        satin_profile_add(&q, t < q.start ? q.start : t, p->ev[i].what, p->ev[i].n);
    }
    if (satin_profile_encode(&q, text, cap) >= 0) {
        char key[SATIN_KV_NAME_MAX + 1];
        snprintf(key, sizeof key, "profile.%d", slot);
        satin_kvlist_add_str(&e->result->stats, key, text);
    }
    satin_profile_free(&q);
}

void control_profile_collect(satin_control *ctl, job_entry *e, const satin_kvlist *end)
{
    int n = ctl->grid ? satin_grid_nnodes(ctl->grid) : 1, self = self_slot(ctl);
    size_t cap = PROFILE_RESULT_BUDGET / (size_t)n;
    if (cap > SATIN_PROFILE_MAX_TEXT + 1)
        cap = SATIN_PROFILE_MAX_TEXT + 1;
    if (cap < PROFILE_NODE_MIN)
        cap = PROFILE_NODE_MIN;
    char *text = malloc(cap);
    if (!text)
        abort();
    char missing[512] = "";
    int have = 0, left_out = 0;
    /* One kvlist holds at most SATIN_PROTO_MAX_KV items: nodes past that
     * are left out, and counted. */
    long room = (long)SATIN_PROTO_MAX_KV - (long)e->result->stats.n - 4;
    satin_profile p;
    satin_profile_init(&p);
    for (int node = 0; node < n; node++) {
        if (node == self) {
            if (e->own_profile.workers && have < room) {
                add_node(ctl, e, node, &e->own_profile, cap, text);
                have++;
            } else if (e->own_profile.workers) {
                left_out++;
            } else {
                /* Its session was ended by newer ones (runtime/profile.c). */
                size_t off = strlen(missing);
                snprintf(missing + off, sizeof missing - off, "%s%s", off ? "," : "",
                         ctl->grid ? satin_grid_node_name(ctl->grid, node) : "local");
            }
            continue;
        }
        if (!satin_grid_is_member(ctl->grid, node))
            continue;
        /* A peer's text is checked whole before any of it is used. */
        const char *t = satin_kvlist_str(&end[node], "profile");
        char err[128];
        if (t && satin_profile_decode(t, &p, err, sizeof err) == 0) {
            if (have < room) {
                add_node(ctl, e, node, &p, cap, text);
                have++;
            } else {
                left_out++;
            }
        } else {
            if (t)
                log_warn("job %" PRIu64 ": node %s sent an unreadable profile: %s", e->id,
                         satin_grid_node_name(ctl->grid, node), err);
            size_t off = strlen(missing);
            snprintf(missing + off, sizeof missing - off, "%s%s", off ? "," : "",
                     satin_grid_node_name(ctl->grid, node));
        }
    }
    satin_profile_free(&p);
    satin_profile_free(&e->own_profile);
    free(text);
    satin_kvlist_add_i64(&e->result->stats, "profile.wall_ns", e->profile_wall);
    satin_kvlist_add_i64(&e->result->stats, "profile.nodes", have);
    if (missing[0])
        satin_kvlist_add_str(&e->result->stats, "profile.missing", missing);
    if (left_out)
        satin_kvlist_add_i64(&e->result->stats, "profile.left_out", left_out);
}
