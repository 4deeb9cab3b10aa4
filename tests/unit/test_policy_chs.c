/* test_policy_chs.c - Cluster-aware Hierarchical Stealing against the fake:
 * one node at a time, then a small grid of fakes wired together. */
#include "test_policy_fake.h"

#define MS 1000000LL
#define SYNC SATIN_STEAL_SYNC
#define WAN SATIN_STEAL_WAN
#define FWD SATIN_STEAL_FORWARDED

static const satin_policy_ops *const ops = &satin_policy_chs;

/* Cluster 0 = nodes 0..6:      0         cluster 1 = 7..9:   7     cluster 2 = 10, 11
 *                            1   2                          8 9
 *                           3 4 5 6                                                     */
static const int sizes[] = {7, 3, 2};

static void thief_cycle(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 1, 3, sizes);
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    ops->on_idle(p);
    uint64_t id = expect_steal(fe, 3, SYNC, "node 1 idle: ask the first child (3) for its subtree");
    ops->on_idle(p);
    expect_none(fe, "one request at a time");
    fake_on_steal_reply(fe, ops, p, 4, id, 0, SYNC | FWD);
    id = expect_steal(fe, 0, SYNC, "subtree empty: then the parent (0)");
    fake_on_steal_reply(fe, ops, p, 0, id, 0, SYNC);
    expect_timer(fe, SATIN_TIMER_BACKOFF, 1 * MS, "whole cycle failed: back off 1 ms");
    fake_fire_next(fe, ops, p);
    id = expect_steal(fe, 3, SYNC, "after 1 ms: children first again");
    fake_on_steal_reply(fe, ops, p, 4, id, 0, SYNC | FWD);
    id = expect_steal(fe, 0, SYNC, "then the parent");
    fake_on_steal_reply(fe, ops, p, 0, id, 0, SYNC);
    expect_timer(fe, SATIN_TIMER_BACKOFF, 2 * MS, "second failed cycle: 2 ms");
    fake_fire_next(fe, ops, p);
    id = expect_steal(fe, 3, SYNC, "children");
    fake_on_steal_reply(fe, ops, p, 5, id, 1, SYNC | FWD);
    expect_none(fe, "a job from deep in the subtree: done");
    ops->on_idle(p);
    id = expect_steal(fe, 3, SYNC, "next idle period");
    fake_on_steal_reply(fe, ops, p, 3, id, 0, SYNC);
    expect_steal(fe, 0, SYNC, "parent");
    ops->destroy(p);
    free(fe);

    /* A leaf has no children: parent only. */
    fake_topo_init(&ft, 5, 3, sizes);
    fe = fake_new();
    p = fake_create(ops, &ft, fe, NULL);
    ops->on_idle(p);
    id = expect_steal(fe, 2, SYNC, "leaf 5: straight to its parent (2)");
    fe->idle = 0;
    fake_on_steal_reply(fe, ops, p, 2, id, 0, SYNC);
    expect_none(fe, "busy again when the empty reply comes: stop");
    ops->destroy(p);
    free(fe);
}

static void root_goes_wide_area(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 0, 3, sizes);
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    ops->on_idle(p);
    uint64_t id = expect_steal(fe, 1, SYNC, "root idle: its subtree first (child 1)");
    FAKE_DRAWS(fe, 1);
    fake_on_steal_reply(fe, ops, p, 6, id, 0, SYNC | FWD);
    id = expect_steal(fe, 10, SYNC | WAN,
                      "whole cluster idle: synchronous wide-area steal from a random root (10)");
    fake_on_steal_reply(fe, ops, p, 11, id, 0, SYNC | WAN | FWD);
    expect_timer(fe, SATIN_TIMER_BACKOFF, 1 * MS, "nothing anywhere: back off");
    FAKE_DRAWS(fe, 0);
    fake_fire_next(fe, ops, p);
    id = expect_steal(fe, 1, SYNC, "retry: subtree");
    fake_on_steal_reply(fe, ops, p, 6, id, 0, SYNC | FWD);
    id = expect_steal(fe, 7, SYNC | WAN, "then the root of cluster 1 (draw 0)");
    fake_on_steal_reply(fe, ops, p, 9, id, 1, SYNC | WAN | FWD);
    is_i64(fake_node_stat(fe, "steal_successes_wan"), 1, "a wide-area success");
    is_i64(fake_node_stat(fe, "steal_attempts_wan"), 2, "2 wide-area requests");
    ops->destroy(p);
    free(fe);

    /* One cluster: the root never leaves it. */
    fake_topo_init(&ft, 0, 1, (const int[]){3});
    fe = fake_new();
    p = fake_create(ops, &ft, fe, NULL);
    ops->on_idle(p);
    id = expect_steal(fe, 1, SYNC, "single cluster root: child 1");
    fake_on_steal_reply(fe, ops, p, 2, id, 0, SYNC | FWD);
    expect_timer(fe, SATIN_TIMER_BACKOFF, 1 * MS, "then back-off, no wide-area steal");
    ops->destroy(p);
    free(fe);
}

/* What node `self` does with a request it cannot satisfy (queue empty),
 * once on_peer said the `ndead` nodes in `dead` are dead. */
static void check_hop_dead(int self, const int *dead, int ndead, int from, int thief,
                           unsigned flags, int want_to, const char *what)
{
    fake_topo ft;
    fake_topo_init(&ft, self, 3, sizes);
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    for (int i = 0; i < ndead; i++)
        ops->on_peer(p, dead[i], 0);
    ops->on_steal_request(p, from, thief, 42, flags);
    if (want_to >= 0)
        expect_forward(fe, want_to, thief, 42, flags | FWD, what);
    else
        expect_reply(fe, thief, 42, flags, 1, what);
    expect_none(fe, "(only that)");
    ops->destroy(p);
    free(fe);
}

static void check_hop(int self, int from, int thief, unsigned flags, int want_to,
                      const char *what)
{
    check_hop_dead(self, NULL, 0, from, thief, flags, want_to, what);
}

static void forwarding(void)
{
    check_hop(3, 1, 1, SYNC, 4, "leaf 3, search of 1's subtree: forward to its sibling 4");
    check_hop(4, 3, 1, SYNC | FWD, -1, "leaf 4, end of 1's subtree: empty reply to thief 1");
    check_hop(1, 0, 0, SYNC, 3, "node 1, search of 0's subtree: down to 3");
    check_hop(4, 3, 0, SYNC | FWD, 2, "leaf 4, search of 0's subtree: on to 2");
    check_hop(6, 5, 0, SYNC | FWD, -1, "leaf 6, end of the whole tree: empty reply to 0");
    check_hop(2, 5, 5, SYNC, 0, "node 2 asked by its child 5: up to 0");
    check_hop(2, 0, 2, SYNC | FWD, -1, "its own request coming back: empty reply, no loop");
    check_hop(1, 3, 3, SYNC, 0, "node 1 asked by its child 3: up to 0");
    check_hop(0, 1, 3, SYNC | FWD, -1, "root asked on behalf of 3: empty reply to 3");
    check_hop(0, 7, 7, SYNC | WAN, 1, "root asked by root 7 of cluster 1: search down (1)");
    check_hop(4, 3, 7, SYNC | WAN | FWD, 2, "leaf 4 on behalf of remote 7: on to 2");
    check_hop(6, 5, 10, SYNC | WAN | FWD, -1, "leaf 6 on behalf of remote 10: empty reply");
    check_hop(5, 3, 4, SYNC, -1, "5 asked by 4, not on a tree path: just reply");

    /* With a job: reply to the thief, not to whoever passed the request on. */
    fake_topo ft;
    fake_topo_init(&ft, 5, 3, sizes);
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    fe->queue = 2;
    ops->on_steal_request(p, 4, 0, 77, SYNC | FWD);
    expect_reply(fe, 0, 77, SYNC | FWD, 1, "5 has work: replies with 1 job to thief 0 directly");
    ok(fe->act[0].result == 1, "one job went");
    ops->destroy(p);
    free(fe);

    fake_topo_init(&ft, 0, 3, sizes);
    fe = fake_new();
    p = fake_create(ops, &ft, fe, NULL);
    fe->queue = 1;
    ops->on_steal_request(p, 10, 10, 5, SYNC | WAN);
    expect_reply(fe, 10, 5, SYNC | WAN, 1, "a root with work answers another cluster's root");
    fake_check_answers_once(fe, ops, p, 10, SYNC | WAN, 3, "chs root, remote thief (forwards)");
    fake_check_answers_once(fe, ops, p, 4, SYNC, 3, "chs root, local thief (replies)");
    ops->destroy(p);
    free(fe);
}

static void cancel_on_result(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 1, 3, sizes);
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    ops->on_idle(p);
    uint64_t id = expect_steal(fe, 3, SYNC, "steal from child 3");
    ops->on_result(p);
    expect_none(fe, "a result that leaves the node idle: keep the request");
    fe->idle = 0;
    ops->on_result(p);
    expect_cancel(fe, 3, 1, id, "a result made it busy: cancel the request sent to 3");
    fake_on_steal_reply(fe, ops, p, 4, id, 1, SYNC | FWD);
    expect_none(fe, "the reply to the cancelled request is ignored");
    is_i64(fake_node_successes(fe), 0, "and not counted as a success");
    is_i64(fake_node_stat(fe, "late_replies"), 1, "but as a late reply");
    is_i64(fake_node_stat(fe, "steal_cancels"), 1, "one cancel");

    fe->idle = 1;
    ops->on_idle(p);
    id = expect_steal(fe, 3, SYNC, "idle again: a new cycle");
    fake_on_steal_reply(fe, ops, p, 4, id, 0, SYNC | FWD);
    uint64_t up = expect_steal(fe, 0, SYNC, "parent");
    fe->idle = 0;
    ops->on_result(p);
    expect_cancel(fe, 0, 1, up, "result while asking the parent: cancel the request sent to 0");
    ops->on_result(p);
    expect_none(fe, "nothing outstanding: no second cancel");
    fake_on_steal_reply(fe, ops, p, 0, up, 0, SYNC);
    expect_none(fe, "late empty reply: ignored, no retry");
    fe->idle = 1;
    ops->on_idle(p);
    id = expect_steal(fe, 3, SYNC, "next idle period starts with the children");
    fake_on_steal_reply(fe, ops, p, 0, up, 0, SYNC);
    expect_none(fe, "an old reply does not disturb the new request");
    fake_on_steal_reply(fe, ops, p, 3, id, 1, SYNC);
    is_i64(fake_node_successes(fe), 1, "the current request succeeds");
    fake_on_cancel(fe, ops, p, 3, 9);
    is_i64(fake_node_stat(fe, "steal_cancels_received"), 1, "a cancel received is counted");
    expect_none(fe, "one for a request not seen yet sends nothing");
    ops->destroy(p);
    free(fe);
}

/* The thief's cancel follows its request's walk: exact messages per hop. */
static void cancel_follows_walk(void)
{
    /* Node 3 passed thief 1's request on to 4: the cancel goes after it. */
    fake_topo ft;
    fake_topo_init(&ft, 3, 3, sizes);
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    ops->on_steal_request(p, 1, 1, 7, SYNC);
    expect_forward(fe, 4, 1, 7, SYNC | FWD, "3 has nothing: thief 1's request on to 4");
    fake_on_cancel(fe, ops, p, 1, 7);
    expect_cancel(fe, 4, 1, 7, "1 cancels it: 3 passes the cancel on to 4 (thief 1's request)");
    expect_none(fe, "(only that)");
    fake_on_cancel(fe, ops, p, 1, 7);
    expect_none(fe, "a second cancel for it goes nowhere");
    fe->queue = 1;
    ops->on_steal_request(p, 1, 1, 8, SYNC);
    expect_reply(fe, 1, 8, SYNC, 1, "3 has a job now: the next request is answered here");
    fake_on_cancel(fe, ops, p, 1, 8);
    expect_none(fe, "its cancel ends here: the walk ended here");
    is_i64(fake_node_stat(fe, "steal_cancels_received"), 3, "three cancels received");
    is_i64(fake_node_stat(fe, "steal_cancels_forwarded"), 1, "one passed on");
    ops->destroy(p);
    free(fe);

    /* Leaf 4: the cancel from 3 comes first, then the request. */
    fake_topo_init(&ft, 4, 3, sizes);
    fe = fake_new();
    p = fake_create(ops, &ft, fe, NULL);
    fe->queue = 1;
    fake_on_cancel(fe, ops, p, 3, 7);
    expect_none(fe, "a cancel ahead of its request: nothing to send yet");
    ops->on_steal_request(p, 3, 1, 7, SYNC | FWD);
    expect_reply(fe, 1, 7, SYNC | FWD, 0, "the request comes: an empty reply to thief 1");
    expect_none(fe, "no forward, and no job although 4 has one");
    ok(fe->act[0].result == 0 && fe->queue == 1, "the job stays on 4");
    is_i64(fake_stat(ops, p, "walks_stopped"), 1, "counted as a stopped walk");
    ops->on_steal_request(p, 3, 5, 7, SYNC | FWD);
    expect_reply(fe, 5, 7, SYNC | FWD, 1, "the cancel is used up: the next request gets the job");
    ops->destroy(p);
    free(fe);

    /* Node 1 in the middle of root 0's walk stops it before its subtree. */
    fake_topo_init(&ft, 1, 3, sizes);
    fe = fake_new();
    p = fake_create(ops, &ft, fe, NULL);
    fake_on_cancel(fe, ops, p, 0, 5);
    ops->on_steal_request(p, 0, 0, 5, SYNC);
    expect_reply(fe, 0, 5, SYNC, 0, "1 does not search its subtree for a withdrawn request");
    expect_none(fe, "nothing goes to 3");
    ops->on_steal_request(p, 0, 0, 6, SYNC);
    expect_forward(fe, 3, 0, 6, SYNC | FWD, "root 0's next request walks on as usual");
    ops->destroy(p);
    free(fe);
}

/* ---- a grid of fakes: actions become events at their destination --------- */

#define NET_MAX 32

typedef struct net {
    int n;
    fake_topo topo[NET_MAX];
    fake_env *fe[NET_MAX];
    satin_policy *p[NET_MAX];
    char sent[NET_MAX][FAKE_MAX_ACTIONS];   /* delivered already */
    char trace[1024];
} net;

static void net_init(net *w, int nclusters, const int *csizes)
{
    memset(w, 0, sizeof *w);
    for (int c = 0; c < nclusters; c++)
        w->n += csizes[c];
    for (int i = 0; i < w->n; i++) {
        fake_topo_init(&w->topo[i], i, nclusters, csizes);
        w->fe[i] = fake_new();
        w->p[i] = fake_create(ops, &w->topo[i], w->fe[i], NULL);
    }
}

static void net_free(net *w)
{
    for (int i = 0; i < w->n; i++) {
        ops->destroy(w->p[i]);
        free(w->fe[i]);
    }
}

static void net_note(net *w, const char *fmt, int a, int b)
{
    size_t len = strlen(w->trace);
    snprintf(w->trace + len, sizeof w->trace - len, fmt, a, b);
}

/* Delivers action k of node i (a message; other actions are dropped). */
static void net_deliver(net *w, int i, int k)
{
    fake_action a = w->fe[i]->act[k];
    w->sent[i][k] = 1;
    switch (a.kind) {
    case FAKE_STEAL:
        net_note(w, "%d>%d ", i, a.node);
        ops->on_steal_request(w->p[a.node], i, i, a.id, a.flags);
        break;
    case FAKE_FORWARD:
        net_note(w, "%d~%d ", i, a.node);
        ops->on_steal_request(w->p[a.node], i, a.thief, a.id, a.flags);
        break;
    case FAKE_REPLY:
        net_note(w, a.result ? "%d=%d " : "%d.%d ", i, a.node);
        w->fe[a.node]->queue += a.result;
        if (a.result)
            w->fe[a.node]->idle = 0;
        fake_on_steal_reply(w->fe[a.node], ops, w->p[a.node], i, a.id, a.result, a.flags);
        break;
    case FAKE_CANCEL:
        net_note(w, "%dx%d ", i, a.node);
        fake_on_cancel(w->fe[a.node], ops, w->p[a.node], i, a.id);
        break;
    default:
        break;
    }
}

/* Delivers every message until none is left, each link in order; timers
 * are not fired. */
static void net_run(net *w)
{
    for (int moved = 1; moved;) {
        moved = 0;
        for (int i = 0; i < w->n; i++)
            for (int k = 0; k < w->fe[i]->nact; k++)
                if (!w->sent[i][k]) {
                    net_deliver(w, i, k);
                    moved = 1;
                }
    }
}

/* Delivers node i's oldest undelivered message of `kind` only: a message
 * that overtakes others (a simulator's per-message delays). */
static void net_send_first(net *w, int i, int kind)
{
    for (int k = 0; k < w->fe[i]->nact; k++)
        if (!w->sent[i][k] && w->fe[i]->act[k].kind == kind) {
            net_deliver(w, i, k);
            return;
        }
}

static void grid(void)
{
    net *w = calloc(1, sizeof *w);
    net_init(w, 3, sizes);
    for (int i = 0; i < w->n; i++)
        w->fe[i]->idle = 0;
    w->fe[6]->queue = 1;

    w->fe[1]->idle = 1;
    ops->on_idle(w->p[1]);
    net_run(w);
    is_str(w->trace, "1>3 3~4 4.1 1>0 0.1 ",
           "node 1: its subtree (3, forwarded to 4), then its parent; the job at 6 is not its");
    w->trace[0] = 0;
    w->fe[1]->idle = 0;

    w->fe[0]->idle = 1;
    ops->on_idle(w->p[0]);
    net_run(w);
    is_str(w->trace, "0>1 1~3 3~4 4~2 2~5 5~6 6=0 ",
           "root: one request walks its tree in preorder; 6 replies to 0 directly");
    ok(w->fe[0]->queue == 1 && w->fe[6]->queue == 0, "the job moved from 6 to 0");
    w->trace[0] = 0;

    /* Cluster 1 runs dry; its root asks cluster 0's root, which has the job. */
    w->fe[7]->idle = 1;
    FAKE_DRAWS(w->fe[7], 0);
    ops->on_idle(w->p[7]);
    net_run(w);
    is_str(w->trace, "7>8 8~9 9.7 7>0 0=7 ",
           "root 7: its cluster first, then root 0 across the WAN, which answers");
    w->trace[0] = 0;

    /* Nothing anywhere: cluster 2's root searches cluster 0's whole tree. */
    w->fe[10]->idle = 1;
    FAKE_DRAWS(w->fe[10], 0);
    ops->on_idle(w->p[10]);
    net_run(w);
    is_str(w->trace, "10>11 11.10 10>0 0~1 1~3 3~4 4~2 2~5 5~6 6.10 ",
           "remote search covers each node of cluster 0 once, the last replies across the WAN");
    const fake_action *last = &w->fe[10]->act[w->fe[10]->nact - 1];
    ok(last->kind == FAKE_SET_TIMER && last->value == 1 * MS, "and root 10 backs off");
    net_free(w);
    free(w);

    /* A bigger tree: a subtree search visits every descendant exactly once. */
    w = calloc(1, sizeof *w);
    net_init(w, 1, (const int[]){20});
    for (int i = 0; i < w->n; i++)
        w->fe[i]->idle = 0;
    w->fe[0]->idle = 1;
    ops->on_idle(w->p[0]);
    net_run(w);
    int seen[20] = {0}, good = 1;
    for (int i = 0; i < w->n; i++)
        for (int k = 0; k < w->fe[i]->nact; k++) {
            const fake_action *a = &w->fe[i]->act[k];
            if (a->kind == FAKE_STEAL || a->kind == FAKE_FORWARD)
                seen[a->node]++;
        }
    for (int i = 1; i < 20; i++)
        good &= seen[i] == 1;
    ok(good && seen[0] == 0, "20-node tree: nodes 1..19 each receive the root's request once");
    is_i64(fake_node_stat(w->fe[0], "steal_failures"), 1, "one empty reply reaches the root");
    net_free(w);
    free(w);

    /* Root 0 cancels its walk.  Links in order: the cancel follows the
     * request to where it ended.  A cancel that overtakes it stops it. */
    for (int overtake = 0; overtake < 2; overtake++) {
        w = calloc(1, sizeof *w);
        net_init(w, 3, sizes);
        for (int i = 0; i < w->n; i++)
            w->fe[i]->idle = 0;
        w->fe[0]->idle = 1;
        ops->on_idle(w->p[0]);
        net_send_first(w, 0, FAKE_STEAL);
        net_send_first(w, 1, FAKE_FORWARD);
        w->fe[0]->idle = 0;
        ops->on_result(w->p[0]);
        net_send_first(w, 0, FAKE_CANCEL);
        net_send_first(w, 1, FAKE_CANCEL);
        if (overtake)
            net_send_first(w, 3, FAKE_CANCEL);
        net_run(w);
        is_str(w->trace,
               overtake ? "0>1 1~3 0x1 1x3 3x4 3~4 4.0 "
                        : "0>1 1~3 0x1 1x3 3~4 3x4 4~2 4x2 2~5 2x5 5~6 5x6 6.0 ",
               overtake ? "a cancel that reaches 4 first: 4 ends the walk, 2, 5, 6 see nothing"
                        : "in order: the cancel follows the walk hop by hop to 6, which answered");
        is_i64(fake_node_stat(w->fe[0], "late_replies"), 1, "the thief ignores the empty reply");
        net_free(w);
        free(w);
    }
}

/* Dead nodes are stepped over, their subtrees still searched. */
static void dead_peers(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 1, 3, sizes);
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    ops->on_peer(p, 3, 0);
    ops->on_idle(p);
    uint64_t id = expect_steal(fe, 4, SYNC, "node 1, first child 3 dead: the next of its subtree (4)");
    fake_on_steal_reply(fe, ops, p, 4, id, 0, SYNC);
    id = expect_steal(fe, 0, SYNC, "then its parent, alive");
    fake_on_steal_reply(fe, ops, p, 0, id, 0, SYNC);
    expect_timer(fe, SATIN_TIMER_BACKOFF, 1 * MS, "cycle failed: back off");
    ops->on_peer(p, 0, 0);
    fake_fire_next(fe, ops, p);
    id = expect_steal(fe, 4, SYNC, "root 0 dead too: children first (4)");
    FAKE_DRAWS(fe, 0);
    fake_on_steal_reply(fe, ops, p, 4, id, 0, SYNC);
    id = expect_steal(fe, 7, SYNC | WAN, "no living ancestor: node 1 acts as root, wide-area (7)");
    fake_on_steal_reply(fe, ops, p, 8, id, 0, SYNC | WAN | FWD);
    expect_timer(fe, SATIN_TIMER_BACKOFF, 2 * MS, "nothing: back off");
    ops->on_peer(p, 7, 0);
    ops->on_peer(p, 4, 0);
    FAKE_DRAWS(fe, 0);
    fake_fire_next(fe, ops, p);
    id = expect_steal(fe, 8, SYNC | WAN,
                      "children all dead; cluster 1's root dead: its first living node (8)");
    fake_on_steal_reply(fe, ops, p, 8, id, 0, SYNC | WAN);
    expect_timer(fe, SATIN_TIMER_BACKOFF, 4 * MS, "back off");
    ops->on_peer(p, 0, 1);
    ops->on_peer(p, 3, 1);
    fake_fire_next(fe, ops, p);
    id = expect_steal(fe, 3, SYNC, "3 and 0 back: the tree as it was (3)");
    fake_on_steal_reply(fe, ops, p, 4, id, 0, SYNC | FWD);
    expect_steal(fe, 0, SYNC, "then 0");
    ops->destroy(p);
    free(fe);

    check_hop_dead(1, (const int[]){3}, 1, 0, 0, SYNC, 4,
                   "node 1 searching 0's subtree, 3 dead: on to 4");
    check_hop_dead(0, (const int[]){1}, 1, 7, 7, SYNC | WAN, 3,
                   "root asked from cluster 1, its child 1 dead: down to 1's child 3");
    check_hop_dead(4, (const int[]){2, 5}, 2, 3, 0, SYNC | FWD, 6,
                   "leaf 4 searching 0's subtree, 2 and 5 dead: on to 6");
    check_hop_dead(4, (const int[]){2, 5, 6}, 3, 3, 0, SYNC | FWD, -1,
                   "leaf 4, the rest of the tree dead: empty reply");
    check_hop_dead(1, (const int[]){0}, 1, 3, 3, SYNC, -1,
                   "node 1 asked by its child 3, root 0 dead: no living ancestor, empty reply");
    check_hop_dead(2, (const int[]){0}, 1, 5, 5, SYNC, -1,
                   "node 2 asked by its child 5, 0 dead: empty reply");
}

int main(void)
{
    thief_cycle();
    root_goes_wide_area();
    forwarding();
    cancel_on_result();
    cancel_follows_walk();
    grid();
    dead_peers();
    return done_testing();
}
