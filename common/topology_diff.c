/* topology_diff.c - how two topologies' memberships differ, in words.
 *
 * satind re-reads its topology on SIGHUP and says what changed before it
 * decides what to do with it; satin-grid and the tests read the same
 * lines.  Only the membership counts (what satin_topology_digest covers):
 * the grid name, the clusters and, per node, its cluster, peer endpoint,
 * public key and its place in the file (the wire index).
 */
#include "topology.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void say(satin_topology_diff_fn fn, void *ctx, int *count, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void say(satin_topology_diff_fn fn, void *ctx, int *count, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    (*count)++;
    if (fn)
        fn(ctx, line);
}

static const char *cluster_of(const satin_topology *t, const satin_node_def *n)
{
    return t->clusters[n->cluster].name;
}

/* A key for messages: its first 8 characters are enough to tell keys apart
 * in a log, and a secret never appears here anyway (these are public). */
static void key_words(const char *z85, char *buf, size_t len)
{
    if (!z85[0])
        snprintf(buf, len, "none");
    else
        snprintf(buf, len, "%.8s...", z85);
}

/* Node `id` of t, looked for at `index` first: most nodes keep their place
 * in an edited file, and this runs on the control thread (SIGHUP) for
 * grids of up to 4096 nodes. */
static const satin_node_def *node_near(const satin_topology *t, int index, const char *id)
{
    if (index < t->nnodes && strcmp(t->nodes[index].id, id) == 0)
        return &t->nodes[index];
    return satin_topology_node(t, id);
}

int satin_topology_membership_diff(const satin_topology *old, const satin_topology *new,
                                   satin_topology_diff_fn fn, void *ctx)
{
    int count = 0;
    if (strcmp(old->name, new->name) != 0)
        say(fn, ctx, &count, "grid name '%s' -> '%s'", old->name, new->name);

    /* Indexes are the wire's node ids: the nodes that kept their name but
     * not their index get one line, after the others (adding one node early
     * in the file moves every node after it). */
    int moved = 0, moved_from = -1, moved_to = -1;
    for (int i = 0; i < new->nnodes; i++) {
        const satin_node_def *n = &new->nodes[i];
        const satin_node_def *o = node_near(old, i, n->id);
        if (!o) {
            say(fn, ctx, &count, "node %s added (cluster %s, %s)", n->id, cluster_of(new, n),
                n->endpoint);
            continue;
        }
        if (o->index != i && moved++ == 0)
            moved_from = o->index, moved_to = i;
        if (strcmp(cluster_of(old, o), cluster_of(new, n)) != 0)
            say(fn, ctx, &count, "node %s moved from cluster %s to %s", n->id, cluster_of(old, o),
                cluster_of(new, n));
        if (strcmp(o->endpoint, n->endpoint) != 0)
            say(fn, ctx, &count, "node %s: endpoint %s -> %s", n->id, o->endpoint, n->endpoint);
        if (strcmp(o->public_key, n->public_key) != 0) {
            char was[16], now[16];
            key_words(o->public_key, was, sizeof was);
            key_words(n->public_key, now, sizeof now);
            say(fn, ctx, &count, "node %s: public key %s -> %s", n->id, was, now);
        }
    }
    for (int i = 0; i < old->nnodes; i++) {
        const satin_node_def *o = &old->nodes[i];
        if (!node_near(new, i, o->id))
            say(fn, ctx, &count, "node %s removed (was in cluster %s)", o->id, cluster_of(old, o));
    }
    if (moved)
        say(fn, ctx, &count, "%d node(s) change their index, the id the wire knows them by "
            "(first: %s, %d -> %d)", moved, new->nodes[moved_to].id, moved_from, moved_to);

    /* Cluster names and order, when the nodes alone do not show it. */
    if (!count) {
        int same = old->nclusters == new->nclusters;
        for (int c = 0; same && c < old->nclusters; c++)
            same = strcmp(old->clusters[c].name, new->clusters[c].name) == 0;
        if (!same)
            say(fn, ctx, &count, "the clusters differ (%d -> %d, or their names or order)",
                old->nclusters, new->nclusters);
    }
    return count;
}
