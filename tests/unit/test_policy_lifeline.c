/* test_policy_lifeline.c - lifeline-based balancing (X10 GLB) against the
 * scripted fake, and the cyclic hypercube it builds its lifelines on. */
#include "test_policy_fake.h"
#include "policy/lifeline_graph.h"

#define MS 1000000LL

static const satin_policy_ops *const ops = &satin_policy_lifeline;

#define SL (SATIN_STEAL_SYNC | SATIN_STEAL_LIFELINE)

/* Hand-worked edges of the paper's construction. */
static void hypercube_edges(void)
{
    int e[SATIN_LIFELINE_MAX_Z], n;
    is_i64(satin_lifeline_auto_z(1), 1, "auto z: 1 node, 1");
    is_i64(satin_lifeline_auto_z(8), 3, "auto z: 8 nodes, 3");
    is_i64(satin_lifeline_auto_z(9), 4, "auto z: 9 nodes, 4");
    is_i64(satin_lifeline_auto_z(4096), 12, "auto z: 4096 nodes, 12");
    is_i64(satin_lifeline_auto_z(1000000), 20, "auto z: a million nodes, 20");
    is_i64(satin_lifeline_base(10, 2), 4, "10 nodes in 2 dimensions: base 4 (3^2 = 9 < 10)");
    is_i64(satin_lifeline_base(1000000, 3), 100, "a million in 3 dimensions: base 100");

    n = satin_lifeline_edges(8, 0, 5, 0, e);
    ok(n == 3 && e[0] == 4 && e[1] == 7 && e[2] == 1, "8 nodes: 5 = 101b has 4, 7, 1");
    n = satin_lifeline_edges(5, 0, 4, 0, e);
    ok(n == 1 && e[0] == 0, "5 nodes: 4 = 100b has only 0 (101b and 110b are no nodes)");
    n = satin_lifeline_edges(5, 0, 3, 0, e);
    ok(n == 2 && e[0] == 2 && e[1] == 1, "5 nodes: 3 = 011b has 2 and 1 (111b is no node)");
    n = satin_lifeline_edges(10, 2, 9, 0, e);
    ok(n == 2 && e[0] == 8 && e[1] == 1,
       "10 nodes, z 2 (base 4): 9 = (2,1) skips 10 and 11 to 8, and 13 to 1");
    n = satin_lifeline_edges(5, 0, 4, 1, e);
    ok(n == 3 && e[0] == -1 && e[1] == -1 && e[2] == 0, "per dimension: -1 where there is none");

    /* The paper's properties, checked on every vertex of a few sizes:
     * at least one edge, at most z in and out, and every vertex reaches
     * every other (work can flow to any quiesced node). */
    static const int sizes[][2] = {{2, 0}, {7, 0}, {100, 0}, {100, 2}, {1000, 3}, {999, 5}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int N = sizes[k][0], z = sizes[k][1], zz = z ? z : satin_lifeline_auto_z(N);
        int *in = calloc((size_t)N, sizeof *in), *seen = calloc((size_t)N, sizeof *seen);
        int *queue = calloc((size_t)N, sizeof *queue);
        int good = 1;
        for (int v = 0; v < N; v++) {
            n = satin_lifeline_edges(N, z, v, 0, e);
            good &= n >= 1 && n <= zz;
            for (int i = 0; i < n; i++) {
                good &= e[i] >= 0 && e[i] < N && e[i] != v;
                in[e[i]]++;
            }
        }
        for (int v = 0; v < N; v++)
            good &= in[v] <= zz;
        /* Reachability from 0 along the edges, and (edges reversed) to 0. */
        int reached = 0;
        for (int dir = 0; dir < 2; dir++) {
            memset(seen, 0, (size_t)N * sizeof *seen);
            int head = 0, tail = 0;
            queue[tail++] = 0;
            seen[0] = 1;
            while (head < tail) {
                int u = queue[head++];
                for (int v = 0; v < N; v++) {
                    int from = dir ? v : u, to = dir ? u : v;
                    if (seen[v])
                        continue;
                    n = satin_lifeline_edges(N, z, from, 0, e);
                    for (int i = 0; i < n; i++)
                        if (e[i] == to) {
                            seen[v] = 1;
                            queue[tail++] = v;
                            break;
                        }
                }
            }
            reached += tail;
        }
        ok(good && reached == 2 * N,
           "%d nodes, z %d: 1 to %d edges each, in-degree at most %d, strongly connected", N,
           zz, zz, zz);
        free(in);
        free(seen);
        free(queue);
    }
}

/* One cluster of 8; node 0's lifelines are 1, 2, 4.  w = 2. */
static void w_steals_then_z_lifelines(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 0, 1, (const int[]){8});
    fake_env *fe = fake_new();
    satin_policy_params pp;
    satin_policy_params_default(&pp);
    pp.lifeline_w = 2;
    satin_policy *p = fake_create(ops, &ft, fe, &pp);

    FAKE_DRAWS(fe, 0, 4);
    ops->on_idle(p);
    uint64_t id = expect_steal(fe, 1, SATIN_STEAL_SYNC, "idle: random steal 1 (node 1)");
    expect_none(fe, "one at a time");
    ops->on_idle(p);
    expect_none(fe, "idle again while it is out: nothing");
    fake_on_steal_reply(fe, ops, p, 1, id, 0, SATIN_STEAL_SYNC);
    id = expect_steal(fe, 5, SATIN_STEAL_SYNC, "empty: random steal 2 (node 5)");
    fake_on_steal_reply(fe, ops, p, 5, id, 0, SATIN_STEAL_SYNC | SATIN_STEAL_VICTIM_BUSY);
    id = expect_steal(fe, 1, SL, "w = 2 spent (a busy victim too): lifeline 1 (dimension 0)");
    fake_on_steal_reply(fe, ops, p, 1, id, 0, SL);
    id = expect_steal(fe, 2, SL, "lifeline 2");
    fake_on_steal_reply(fe, ops, p, 2, id, 0, SL);
    id = expect_steal(fe, 4, SL, "lifeline 4");
    fake_on_steal_reply(fe, ops, p, 4, id, 0, SL);
    expect_none(fe, "z = 3 lifelines asked: quiesced, no timer, no message");
    is_i64(fake_advance(fe, ops, p, 10000 * MS), 0, "10 s later: no timer fired");
    ops->on_result(p);
    ops->on_queue_length(p, 0);
    expect_none(fe, "a quiesced node sends nothing, whatever it hears but work");
    is_i64(fake_stat(ops, p, "quiesces"), 1, "1 quiescence");
    is_i64(fake_node_stat(fe, "steal_failures"), 5, "5 failed requests (2 random, 3 lifelines)");

    /* Work comes along lifeline 2; the node runs it and is idle again: w
     * random steals, then only lifeline 2 (1 and 4 still remember it). */
    fe->idle = 0;
    fake_on_push(fe, ops, p, 2);
    expect_none(fe, "a push: nothing sent (the node queued the record)");
    fe->idle = 1;
    FAKE_DRAWS(fe, 2, 6);
    ops->on_idle(p);
    id = expect_steal(fe, 3, SATIN_STEAL_SYNC, "idle again: random steal (node 3)");
    fake_on_steal_reply(fe, ops, p, 3, id, 0, SATIN_STEAL_SYNC);
    id = expect_steal(fe, 7, SATIN_STEAL_SYNC, "random steal (node 7)");
    fake_on_steal_reply(fe, ops, p, 7, id, 0, SATIN_STEAL_SYNC);
    id = expect_steal(fe, 2, SL, "then only lifeline 2, the one that delivered");
    fake_on_steal_reply(fe, ops, p, 2, id, 1, SL);
    expect_none(fe, "it gave a record at once: busy, nothing more");

    /* Lifeline 2 gave instead of remembering: it is free again. */
    FAKE_DRAWS(fe, 0, 0);
    ops->on_idle(p);
    id = expect_steal(fe, 1, SATIN_STEAL_SYNC, "next idle period: random");
    fake_on_steal_reply(fe, ops, p, 1, id, 0, SATIN_STEAL_SYNC);
    id = expect_steal(fe, 1, SATIN_STEAL_SYNC, "random");
    fake_on_steal_reply(fe, ops, p, 1, id, 0, SATIN_STEAL_SYNC);
    id = expect_steal(fe, 2, SL, "lifeline 2 again");
    fake_on_steal_reply(fe, ops, p, 2, id, 0, SL);
    expect_none(fe, "quiesced again");

    /* A random steal that brings work ends the period; busy again stops it. */
    FAKE_DRAWS(fe, 3);
    ops->on_idle(p);
    id = expect_steal(fe, 4, SATIN_STEAL_SYNC, "idle: random steal (node 4)");
    fe->idle = 0;
    fake_on_steal_reply(fe, ops, p, 4, id, 0, SATIN_STEAL_SYNC);
    expect_none(fe, "empty, but the node is busy again (work came meanwhile): nothing");
    is_i64(fake_stat(ops, p, "quiesces"), 2, "2 quiescences");
    is_i64(fe->unscripted, 0, "every draw was scripted");
    ops->destroy(p);
    free(fe);
}

/* Default w = 1: one random steal, then the lifelines. */
static void default_w_is_one(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 5, 1, (const int[]){8});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    FAKE_DRAWS(fe, 6);
    ops->on_idle(p);
    uint64_t id = expect_steal(fe, 7, SATIN_STEAL_SYNC, "node 5: random steal (others 0-4,6,7)");
    fake_on_steal_reply(fe, ops, p, 7, id, 0, SATIN_STEAL_SYNC);
    static const int want[] = {4, 7, 1};
    for (int i = 0; i < 3; i++) {
        id = expect_steal(fe, want[i], SL, "then its lifeline to node 4, 7, 1 in dimension order");
        fake_on_steal_reply(fe, ops, p, want[i], id, 0, SL);
    }
    expect_none(fe, "quiesced");
    ops->destroy(p);
    free(fe);
}

/* Victim side: lifeline requests without work are remembered; records are
 * pushed to the thieves when the queue holds more than two. */
static void buddies_push(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 0, 1, (const int[]){8});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);

    ops->on_steal_request(p, 3, 3, 701, SL);
    expect_reply(fe, 3, 701, SL, 1, "lifeline request, empty queue: an empty reply");
    ops->on_steal_request(p, 5, 5, 702, SL);
    expect_reply(fe, 5, 702, SL, 1, "another from node 5");
    ops->on_steal_request(p, 3, 3, 703, SL);
    expect_reply(fe, 3, 703, SL, 1, "node 3 again");
    ops->on_steal_request(p, 6, 6, 704, SATIN_STEAL_SYNC);
    expect_reply(fe, 6, 704, SATIN_STEAL_SYNC, 1, "a random steal: answered, not remembered");
    is_i64(fake_stat(ops, p, "lifelines_noted"), 2, "2 thieves remembered (3 once)");

    fe->queue = 2;
    ops->on_queue_length(p, 2);
    expect_none(fe, "2 queued: not enough to share (X10: more than 2)");
    fe->queue = 5;
    ops->on_queue_length(p, 5);
    expect_push(fe, 5, "5 queued: a push to the last thief remembered (node 5)");
    expect_push(fe, 3, "and one to node 3");
    expect_none(fe, "one record each (steal_max_jobs 1)");
    is_i64(fe->queue, 3, "3 left");
    fe->queue = 9;
    ops->on_queue_length(p, 9);
    expect_none(fe, "no thief left: nothing");

    ops->on_steal_request(p, 3, 3, 705, SL);
    expect_reply(fe, 3, 705, SL, 1, "with work queued, a lifeline request gets it at once");
    is_i64(fake_stat(ops, p, "lifelines_noted"), 2, "and is not remembered");
    ops->destroy(p);
    free(fe);

    /* steal_max_jobs 4: records/(thieves+1) each, at most 4; more thieves
     * than records - 2: only that many. */
    fe = fake_new();
    satin_policy_params pp;
    satin_policy_params_default(&pp);
    pp.steal_max_jobs = 4;
    p = fake_create(ops, &ft, fe, &pp);
    for (int t = 1; t <= 4; t++)
        ops->on_steal_request(p, t, t, 800 + (uint64_t)t, SL);
    fake_skip(fe);
    fe->queue = 4;
    ops->on_queue_length(p, 4);
    expect_push(fe, 4, "4 thieves, 4 queued: 2 thieves served, 4/3 = 1 record each: node 4");
    expect_push(fe, 3, "node 3");
    expect_none(fe, "nodes 2 and 1 wait");
    fe->queue = 20;
    ops->on_queue_length(p, 20);
    for (int i = 0; i < 4; i++)
        expect_push(fe, 2, "20 queued, 2 thieves: 20/3 = 6, capped at 4, to node 2");
    for (int i = 0; i < 4; i++)
        expect_push(fe, 1, "4 to node 1");
    expect_none(fe, "8 pushes in all");

    /* The queue can stay long without a new on_queue_length: an ack looks again. */
    is_i64(fe->queue, 12, "12 left");
    fe->queue = 0;
    ops->on_steal_request(p, 6, 6, 900, SL);
    expect_reply(fe, 6, 900, SL, 4, "node 6 asks while the queue is empty: remembered");
    fe->queue = 12;
    fake_on_push_ack(fe, ops, p, 1);
    for (int i = 0; i < 4; i++)
        expect_push(fe, 6, "a push ack: the queue (12) is shared with the new thief, node 6");
    expect_none(fe, "4 records");
    is_i64(fake_node_stat(fe, "pushes"), 14, "14 records pushed");
    ops->destroy(p);
    free(fe);
}

/* Dead peers: a dead thief gets nothing; a dead buddy is asked again. */
static void dead_peers(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 0, 1, (const int[]){4});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    /* Node 0 of 4: lifelines 1, 2. */
    FAKE_DRAWS(fe, 2);
    ops->on_idle(p);
    uint64_t id = expect_steal(fe, 3, SATIN_STEAL_SYNC, "random steal");
    fake_on_steal_reply(fe, ops, p, 3, id, 0, SATIN_STEAL_SYNC);
    id = expect_steal(fe, 1, SL, "lifeline 1");
    fake_on_steal_reply(fe, ops, p, 1, id, 0, SL);
    id = expect_steal(fe, 2, SL, "lifeline 2");
    fake_on_steal_reply(fe, ops, p, 2, id, 0, SL);
    ops->on_steal_request(p, 3, 3, 1, SL);
    expect_reply(fe, 3, 1, SL, 1, "node 3's lifeline request remembered");
    ops->on_peer(p, 3, 0);
    ops->on_peer(p, 2, 0);
    fe->queue = 5;
    ops->on_queue_length(p, 5);
    expect_none(fe, "node 3 died: no push to it");
    fe->queue = 0;
    FAKE_DRAWS(fe, 0);
    ops->on_idle(p);
    id = expect_steal(fe, 1, SATIN_STEAL_SYNC, "random steal");
    fake_on_steal_reply(fe, ops, p, 1, id, 0, SATIN_STEAL_SYNC);
    id = expect_steal(fe, 2, SL, "lifeline 2 asked again: the dead buddy forgot us");
    fake_on_steal_reply(fe, ops, p, 2, id, 0, SL);
    expect_none(fe, "lifeline 1 still remembers us");
    ops->destroy(p);
    free(fe);
}

static void victim_answers_once(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 0, 1, (const int[]){4});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    fe->queue = 2;
    fake_check_answers_once(fe, ops, p, 1, SL, 4, "lifeline requests");
    fake_check_answers_once(fe, ops, p, 2, SATIN_STEAL_SYNC, 3, "random steals");
    is_i64(fake_node_stat(fe, "jobs_given"), 2, "2 jobs given");
    ops->destroy(p);
    free(fe);
}

/* A node alone: nobody to ask; it quiesces at once. */
static void alone(void)
{
    fake_topo ft;
    fake_topo_init(&ft, 0, 1, (const int[]){1});
    fake_env *fe = fake_new();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    ops->on_idle(p);
    expect_none(fe, "one node: no steal, no lifeline");
    is_i64(fake_stat(ops, p, "quiesces"), 1, "quiesced");
    ops->destroy(p);
    free(fe);
}

int main(void)
{
    hypercube_edges();
    w_steals_then_z_lifelines();
    default_w_is_one();
    buddies_push();
    dead_peers();
    victim_answers_once();
    alone();
    return done_testing();
}
