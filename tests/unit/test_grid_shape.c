/*
 * test_grid_shape.c - the grid's shape shared by engines and policies
 * (daemon/policy/grid_shape.h) and the engine's peer book
 * (daemon/engine/peer_book.h): a shape lists exactly the members, in node
 * order, with each node's index and rank; a candidate list draws as the
 * list without self would; bad topologies are refused; references count;
 * the peer book finds every record it made, through growth, and nothing
 * else.
 */
#include "../tap.h"
#include "grid_shape.h"
#include "engine/peer_book.h"

#include <stdlib.h>

/* Clusters {0, 2, 4}, {} (empty), {1, 3}; node 5 is no member. */
static const int cluster_of[6] = {0, 2, 0, 2, 0, SATIN_POLICY_NOT_MEMBER};
static const int c0[] = {0, 2, 4}, c2[] = {1, 3};
static const int *const members[3] = {c0, NULL, c2};
static const int sizes[3] = {3, 0, 2};

static satin_policy_topology topology(void)
{
    return (satin_policy_topology){.nnodes = 6, .nclusters = 3, .cluster_of = cluster_of,
                                   .cluster_size = sizes, .members = members};
}

static void shape_lists(void)
{
    satin_policy_topology t = topology();
    const char *names[6] = {"a", "b", "c", "d", "e", "f"};
    satin_grid_shape *s = satin_grid_shape_new(&t, names);
    ok(s != NULL, "a topology with an empty cluster and a node that left is a shape");
    is_i64(s->norder, 5, "five members");
    int want_order[5] = {0, 1, 2, 3, 4};
    int same = 1;
    for (int i = 0; i < 5; i++)
        same &= s->order[i] == want_order[i] && s->rank_of[want_order[i]] == i;
    ok(same, "members in node order, each with its rank");
    is_i64(s->rank_of[5], -1, "the node that left has no rank");
    is_i64(s->index_of[4], 2, "node 4 is third in its cluster");
    is_i64(s->index_of[3], 1, "node 3 is second in its cluster");
    is_i64(s->nused, 2, "two clusters have members");
    ok(s->used[0] == 0 && s->used[1] == 2 && s->used_rank[1] == -1 && s->used_rank[2] == 1,
       "the used clusters 0 and 2, the empty one unranked");
    is_str(s->names[3], "d", "names are kept");

    satin_policy_topology seen = satin_grid_shape_topology(s, 2);
    ok(seen.self == 2 && seen.shape == s && seen.cluster_of == s->cluster_of,
       "a node's topology points into the shape");

    /* Node 2's others: 0 1 3 4 (rank 2 skipped). */
    satin_candidates others = {s->order, s->norder, s->rank_of[2]};
    is_i64(satin_candidates_count(&others), 4, "four others for node 2");
    int want[4] = {0, 1, 3, 4};
    same = 1;
    for (int i = 0; i < 4; i++)
        same &= satin_candidates_at(&others, i) == want[i];
    ok(same, "the others are the member list without self, in order");
    satin_candidates all = {s->members[2], s->cluster_size[2], -1};
    ok(satin_candidates_count(&all) == 2 && satin_candidates_at(&all, 1) == 3,
       "a list with nothing skipped is the list");

    ok(satin_grid_shape_ref(s) == s && s->refs == 2, "a reference counts");
    satin_grid_shape *second = s;
    satin_grid_shape_unref(&second);
    ok(second == NULL && s->refs == 1, "dropping one leaves the other");
    satin_grid_shape_unref(&s);
    ok(s == NULL, "the last one frees it");
}

static void shape_refusals(void)
{
    satin_policy_topology t = topology();
    int bad_of[6] = {0, 2, 0, 2, 0, 7};
    t.cluster_of = bad_of;
    ok(satin_grid_shape_new(&t, NULL) == NULL, "a cluster number out of range is refused");
    int lost_of[6] = {0, 2, 0, 2, 0, 0};
    t.cluster_of = lost_of;
    ok(satin_grid_shape_new(&t, NULL) == NULL, "a node in a cluster but not in its list is refused");
    t = topology();
    int wrong_sizes[3] = {3, 0, 1};
    t.cluster_size = wrong_sizes;
    ok(satin_grid_shape_new(&t, NULL) == NULL, "a member left out of every list is refused");
    t = topology();
    t.nnodes = 0;
    ok(satin_grid_shape_new(&t, NULL) == NULL, "no nodes is refused");
    ok(satin_grid_shape_new(NULL, NULL) == NULL, "no topology is refused");
}

static void peer_book(void)
{
    satin_peer_book b;
    satin_peer_book_init(&b);
    ok(satin_peer_book_find(&b, 7) == NULL, "an empty book has no record");
    satin_peer_watch fresh = {.member = 1, .last_sent = 42};
    satin_peer_watch *w7 = satin_peer_book_get(&b, 7, &fresh);
    ok(w7 && w7->member == 1 && w7->last_sent == 42, "a new record is made from the fresh one");
    w7->heard = 5;
    ok(satin_peer_book_get(&b, 7, &fresh) == w7 && w7->heard == 5,
       "getting it again gives the same record, unchanged");
    /* Far more records than the first table: it grows, and every record
     * keeps its address and contents. */
    int made = 0;
    for (int p = 1000; p < 1000 + 5000 * 211; p += 211) {
        satin_peer_watch *w = satin_peer_book_get(&b, p, &fresh);
        w->heard = p;
        made++;
    }
    int found = 0, wrong = 0;
    for (int p = 1000; p < 1000 + 5000 * 211; p += 211) {
        const satin_peer_watch *w = satin_peer_book_find(&b, p);
        found += w != NULL;
        wrong += w && w->heard != p;
    }
    is_i64(found, made, "every record is found after the table grew");
    is_i64(wrong, 0, "each with its own contents");
    ok(satin_peer_book_find(&b, 7) == w7, "the first record kept its address");
    is_i64((int64_t)b.n, made + 1, "one record per peer");
    int strangers = 0;
    for (int p = 1001; p < 1000 + 5000 * 211; p += 211)
        strangers += satin_peer_book_find(&b, p) != NULL;
    is_i64(strangers, 0, "a peer never written has no record");
    satin_peer_book_free(&b);
    ok(b.n == 0 && satin_peer_book_find(&b, 7) == NULL, "a freed book is empty");
}

int main(void)
{
    shape_lists();
    shape_refusals();
    peer_book();
    return done_testing();
}
