/*
 * test_sim.c - satin-sim's core (sim/): the event queue's order, the
 * network's arithmetic against values worked out by hand (jitter and the
 * control threads' cost per message too), the models'
 * trees (synthetic's against the kind itself), and whole simulated runs:
 * exact results under every policy, the same seed giving the same run bit
 * for bit, and replay's self times spent after the children (makespans
 * worked out by hand); and runs where a node crashes half-way, under every
 * policy, still exact, the lost work run again, and repeatable.
 */
#include "../tap.h"
#include "fib.h"
#include "kinds.h"
#include "policy.h"
#include "sim.h"
#include "sim_ctl.h"
#include "sim_measure.h"
#include "lifestory.h"
#include "sim_queue.h"
#include "synthetic_draw.h"
#include "uts_tree.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void queue_order(void)
{
    sim_queue q;
    sim_queue_init(&q);
    int64_t at[] = {50, 10, 30, 10, 20, 10, 40};
    for (int i = 0; i < 7; i++)
        sim_queue_push(&q, (sim_event){.at = at[i], .node = i});
    is_i64(sim_queue_next_time(&q), 10, "the earliest time is next");
    int order[7], k = 0;
    sim_event ev;
    while (sim_queue_pop(&q, &ev))
        order[k++] = ev.node;
    int want[7] = {1, 3, 5, 4, 2, 6, 0};
    ok(k == 7 && memcmp(order, want, sizeof want) == 0,
       "events come by time, and at one time in the order they were pushed");
    ok(sim_queue_pop(&q, &ev) == 0 && sim_queue_next_time(&q) == INT64_MAX, "then none");
    /* Many, interleaved: never out of order. */
    uint64_t x = 88172645463325252ull;
    int64_t last = -1;
    int sorted = 1;
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 10000; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            sim_queue_push(&q, (sim_event){.at = last + 1 + (int64_t)(x % 1000)});
        }
        for (int i = 0; i < 5000 && sim_queue_pop(&q, &ev); i++) {
            sorted &= ev.at >= last;
            last = ev.at;
        }
    }
    while (sim_queue_pop(&q, &ev)) {
        sorted &= ev.at >= last;
        last = ev.at;
    }
    ok(sorted && q.peak == 20000, "30000 events pushed and popped in rounds: in order (peak %zu)",
       q.peak);
    sim_queue_free(&q);
}

static void network(void)
{
    int cluster_of[3] = {0, 0, 1};
    sim_net n;
    /* LAN: 10 us, 100 MB/s (10 ns a byte); WAN: 5 ms, 1 MB/s (1000 ns a byte). */
    sim_net_init(&n, 3, 2, cluster_of, (sim_link){10000, sim_ns_per_byte(100e6)},
                 (sim_link){5000000, sim_ns_per_byte(1e6)});
    is_i64(sim_net_send(&n, 0, 0, 1, 100), 1000 + 10000, "LAN: 100 bytes take 1 us, plus 10 us");
    is_i64(sim_net_send(&n, 0, 0, 1, 100), 2000 + 10000,
           "a second message waits for the interface: FIFO");
    is_i64(sim_net_send(&n, 5000, 1, 0, 1), 5000 + 10 + 10000, "another node's interface is free");
    /* WAN: the interface first (1 us for 100 bytes), then the link (100 us). */
    is_i64(sim_net_send(&n, 100000, 0, 2, 100), 100000 + 1000 + 100000 + 5000000,
           "WAN: interface, link at its bandwidth, latency");
    is_i64(sim_net_send(&n, 100000, 1, 2, 100), 100000 + 1000 + 200000 + 5000000,
           "a message from another node of the cluster waits for the link");
    is_i64(n.c.wan_queued_ns, 100000, "and the wait is counted");
    is_i64(sim_net_send(&n, 0, 2, 0, 1), 10 + 1000 + 5000000,
           "the other direction is a link of its own");
    sim_net_set_wan(&n, 1, 0, (sim_link){1, 0});
    /* Node 2's interface is free at 10 and sends 7 bytes by 80; the link
     * carried the byte above until 1010: at 1010 it takes no time more. */
    is_i64(sim_net_send(&n, 0, 2, 1, 7), 1010 + 1, "a link set alone: unlimited bandwidth");
    ok(n.c.msgs[0] == 3 && n.c.msgs[1] == 4 && n.c.bytes[0] == 201 && n.c.bytes[1] == 208,
       "messages and bytes per link class");
    sim_net_free(&n);
}

static void jitter(void)
{
    int cluster_of[3] = {0, 0, 1};
    const int64_t J = 1000000, LJ = 3000;   /* WAN 0 -> 1: up to 1 ms; LAN: up to 3 us */
    sim_net n, m;
    sim_net_init(&n, 3, 2, cluster_of, (sim_link){10000, sim_ns_per_byte(100e6)},
                 (sim_link){5000000, sim_ns_per_byte(1e6)});
    sim_net_init(&m, 3, 2, cluster_of, (sim_link){10000, sim_ns_per_byte(100e6)},
                 (sim_link){5000000, sim_ns_per_byte(1e6)});
    sim_net_set_seed(&n, 42);
    sim_net_set_seed(&m, 42);
    sim_net_set_jitter(&n, 0, 1, J);
    sim_net_set_jitter(&n, 0, 0, LJ);
    int in_range = 1, same = 1, other_seed = 0, other_pair = 0;
    sim_net o = m;
    o.seed = 43;
    for (uint64_t k = 0; k < 64; k++) {
        int64_t d = sim_net_jitter(&n, 0, 2, k, J);
        in_range &= d >= 0 && d <= J;
        same &= d == sim_net_jitter(&m, 0, 2, k, J);
        other_seed += d != sim_net_jitter(&o, 0, 2, k, J);
        other_pair += d != sim_net_jitter(&n, 1, 2, k, J);
    }
    ok(in_range && same, "a draw is in [0, jitter] and the same for the same seed, pair and count");
    ok(other_seed == 64 && other_pair == 64, "another seed, another pair: other draws");
    is_i64(sim_net_jitter(&n, 0, 2, 5, 0), 0, "no jitter, no draw");

    /* 32 one-byte messages 0 -> 2 at time 0: the interface sends one every
     * 10 ns, the link carries one every 1000 ns, so message k leaves the
     * link at 10 + 1000 (k + 1), arrives 5 ms later plus its draw, but never
     * before message k - 1. */
    int64_t prev = 0, want_ok = 1, held = 0;
    for (uint64_t k = 0; k < 32; k++) {
        int64_t base = 10 + 1000 * (int64_t)(k + 1) + 5000000;
        int64_t want = base + sim_net_jitter(&m, 0, 2, k, J);
        if (want < prev)
            want = prev, held++;
        int64_t at = sim_net_send(&n, 0, 0, 2, 1);
        want_ok &= at == want;
        prev = want;
    }
    ok(want_ok, "WAN: link time, latency and the pair's k-th draw, exactly");
    ok(held > 0, "a message whose draw would overtake waits for the one ahead (%" PRId64
       " of 32): FIFO per pair", held);
    /* The other direction has no jitter set: as without. */
    is_i64(sim_net_send(&n, 0, 2, 0, 1), 10 + 1000 + 5000000, "a link without jitter: none");
    is_i64(sim_net_send(&n, 1000000, 0, 1, 100), 1000000 + 1000 + 10000 + sim_net_jitter(&m, 0, 1, 0, LJ),
           "LAN: the cluster's own jitter");
    ok(n.npairs == 2, "only pairs on links with jitter are tracked (%zu)", n.npairs);
    /* Same seed, same sends: the same arrivals. */
    int same_runs = 1;
    sim_net a, b;
    for (int r = 0; r < 2; r++) {
        sim_net *x = r ? &b : &a;
        sim_net_init(x, 3, 2, cluster_of, (sim_link){10000, 0}, (sim_link){5000000, 0});
        sim_net_set_seed(x, 9);
        sim_net_set_jitter(x, 0, 1, J);
        sim_net_set_jitter(x, 1, 0, J);
    }
    for (int k = 0; k < 100; k++) {
        int from = k % 3, to = (k + 1 + k / 3) % 3;
        if (from == to)
            continue;
        same_runs &= sim_net_send(&a, 100 * k, from, to, 50) == sim_net_send(&b, 100 * k, from, to, 50);
    }
    ok(same_runs, "the same seed and sends: the same arrivals");
    sim_net_free(&a);
    sim_net_free(&b);
    sim_net_free(&n);
    sim_net_free(&m);
}

static int dropped;
static void count_drop(void *p)
{
    (void)p;
    dropped++;
}

static void control_threads(void)
{
    sim_ctl c;
    char A, B, C, D;
    sim_ctl_init(&c, 3, 5000, 3000);   /* 5 us a message sent, 3 us received */
    is_i64(sim_ctl_send(&c, 0, 100), 5100, "a send takes the sender's thread 5 us");
    is_i64(sim_ctl_send(&c, 0, 100), 10100, "a second one waits for the first");
    is_i64(sim_ctl_send(&c, 1, 0), 5000, "another node's thread is its own");
    is_i64(sim_ctl_arrive(&c, 2, 1000, &A, 7), 4000, "an arrival at an idle thread: decoded 3 us later");
    is_i64(sim_ctl_arrive(&c, 2, 2000, &B, 8), -1, "one arriving meanwhile waits");
    is_i64(sim_ctl_arrive(&c, 2, 2500, &C, 9), -1, "and another behind it");
    /* At 4000 the engine has A and answers it: the reply is sent first. */
    is_i64(sim_ctl_send(&c, 2, 4000), 9000, "the engine's reply to A: sent by 9000");
    sim_ctl_msg m = {0};
    int64_t at = sim_ctl_next(&c, 2, 4000, &m);
    ok(at == 12000 && m.data == &B && m.aux == 8, "then B, decoded after the reply: 12000 (%" PRId64 ")", at);
    at = sim_ctl_next(&c, 2, 12000, &m);
    ok(at == 15000 && m.data == &C && m.aux == 9, "then C: 15000 (%" PRId64 ")", at);
    is_i64(sim_ctl_next(&c, 2, 15000, &m), -1, "then none waits");
    is_i64(sim_ctl_arrive(&c, 2, 20000, &D, 0), 23000, "an idle thread again: 3 us");
    /* Waits: the second send 5000; B 2000 queued + 5000 behind the reply; C 9500. */
    is_i64(c.waited_ns, 21500, "the time messages waited for a busy thread");
    is_i64(sim_ctl_arrive(&c, 2, 21000, &A, 0), -1, "one more waits behind D");
    dropped = 0;
    sim_ctl_free(&c, count_drop);
    is_i64(dropped, 1, "freeing drops what still waits");

    sim_ctl_init(&c, 2, 0, 0);
    ok(sim_ctl_send(&c, 0, 50) == 50 && sim_ctl_arrive(&c, 1, 60, &A, 0) == 60 &&
       sim_ctl_arrive(&c, 1, 60, &B, 0) == 60 && c.waited_ns == 0,
       "no cost: everything at once, nothing waits");
    sim_ctl_free(&c, count_drop);
    sim_ctl_init(&c, 1, 0, 2000);
    ok(sim_ctl_send(&c, 0, 0) == 0 && sim_ctl_arrive(&c, 0, 0, &A, 0) == 2000 &&
       sim_ctl_send(&c, 0, 1000) == 2000, "a send without cost still waits for a decode under way");
    sim_ctl_free(&c, NULL);
}

/* A traced tree in pre-order (self times and child counts) in a temporary
 * file. */
static void write_tree(char *path, size_t len, const int64_t *self_us, const uint32_t *kids,
                       const int64_t *arg_bytes, const int64_t *result_bytes, int64_t n)
{
    snprintf(path, len, "%s/test_sim_trace.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    satin_err e;
    if (!f || replay_tree_write(f, self_us, kids, arg_bytes, result_bytes, n, NULL, &e) < 0) {
        printf("Bail out! cannot write a trace at %s\n", path);
        exit(1);
    }
    fclose(f);
}

/* 7 nodes: the root; node 1 with leaves 2 and 3; node 4 with leaves 5 and
 * 6; self times 1..7 us; data sizes per node, or none (NULL). */
static void write_trace(char *path, size_t len, const int64_t *arg_bytes,
                        const int64_t *result_bytes)
{
    static const int64_t self_us[7] = {1, 2, 3, 4, 5, 6, 7};
    static const uint32_t kids[7] = {2, 2, 0, 0, 2, 0, 0};
    write_tree(path, len, self_us, kids, arg_bytes, result_bytes, 7);
}

/* A task written in its kind's argument bytes and read back: the length,
 * and whether it came back the same. */
static size_t round_trip(const sim_model *m, const sim_state *c, int *same)
{
    unsigned char arg[SIM_ARG_MAX];
    size_t len = sim_model_write(m, c, arg, sizeof arg);
    sim_state back;
    *same = len > 0 && sim_model_read(m, arg, len, &back) == 0 && memcmp(&back, c, sizeof *c) == 0;
    return len;
}

static void replay_model(const char *trace)
{
    sim_model m;
    sim_state root, c;
    char err[512], tree[600];
    snprintf(tree, sizeof tree, "tree=%s", trace);
    const char *params[] = {tree, "scale=2", NULL};
    ok(sim_model_parse(&m, "replay", params, 0, &root, err, sizeof err) == 0,
       "replay of a traced tree, scale 2");
    ok(sim_model_children(&m, &root) == 2 && sim_model_cost(&m, &root, 2) == 0 &&
           sim_model_cost_after(&m, &root, 2) == 2000,
       "its root: 2 children, 1 us traced, 2 us of virtual time after them");
    sim_model_child(&m, &root, 1, &c);
    uint32_t node;
    memcpy(&node, c.b, sizeof node);
    is_i64(node, 4, "the root's second child is traced node 4 (pre-order)");
    sim_state leaf;
    sim_model_child(&m, &c, 0, &leaf);
    ok(sim_model_children(&m, &leaf) == 0 && sim_model_cost(&m, &leaf, 0) == 12000 &&
           sim_model_cost_after(&m, &leaf, 0) == 0,
       "its leaf 5 (6 us traced) costs 12 us at once: nothing to wait for");
    int same;
    size_t len = round_trip(&m, &c, &same);
    ok(len > strlen(trace) && same, "a traced node in replay's argument bytes and back");
    sim_model_free(&m);
}

static void models(void)
{
    sim_model m;
    sim_state root, c;
    char err[256];
    const char *fib[] = {"n=10", "threshold=3", NULL};
    ok(sim_model_parse(&m, "fib", fib, 0, &root, err, sizeof err) == 0, "fib n=10 threshold=3");
    ok(sim_model_children(&m, &root) == 2, "fib(10) spawns two");
    sim_model_child(&m, &root, 1, &c);
    int64_t n;
    memcpy(&n, c.b, sizeof n);
    is_i64(n, 8, "its second child is fib(8)");
    int same;
    size_t len = round_trip(&m, &c, &same);
    ok(len == 16 && same, "a task in fib's argument bytes (16) and back");
    int64_t two = 2;
    memcpy(c.b, &two, sizeof two);
    ok(sim_model_children(&m, &c) == 0 && sim_model_value(&m, &c, 0) == 1 &&
           sim_model_cost(&m, &c, 0) == 3 * m.task_ns,
       "fib(2) below the threshold: a leaf worth 1 that costs its 3 calls");
    const char *bad[] = {"n=93", NULL};
    ok(sim_model_parse(&m, "fib", bad, 0, &root, err, sizeof err) < 0 && strstr(err, "n"),
       "fib n=93 is refused by fib's own parser (%s)", err);
    ok(sim_model_parse(&m, "nqueens", bad, 0, &root, err, sizeof err) < 0 &&
           strstr(err, "fib, uts, replay and synthetic"),
       "a kind the simulator has no model of is refused (%s)", err);
    const char *uts[] = {"tree=seed-T1", NULL};
    ok(sim_model_parse(&m, "uts", uts, 0, &root, err, sizeof err) == 0 &&
           sim_model_children(&m, &root) == 3200,
       "uts seed-T1: its root has 3200 children");
    sim_model_child(&m, &root, 0, &c);
    len = round_trip(&m, &c, &same);
    ok(len > 24 && same, "a uts node in uts's argument bytes (%zu) and back", len);
}

static const int grid_cluster_of[4] = {0, 0, 1, 1};
static const int grid_size[2] = {2, 2};
static const int grid_m0[2] = {0, 1}, grid_m1[2] = {2, 3};
static const int *const grid_members[2] = {grid_m0, grid_m1};
static const char *const grid_names[4] = {"a0", "a1", "b0", "b1"};

static const int one_cluster_of[1] = {0}, one_size[1] = {1}, one_m0[1] = {0};
static const int *const one_members[1] = {one_m0};

/* A run, with its lifestory of at most `life_nodes` nodes in *story
 * (life_nodes 0: none). */
/* The network's extras of a run: jitter and the cost per message. */
typedef struct extras {
    int64_t lan_jitter_ns, wan_jitter_ns, send_ns, recv_ns;
} extras;

static void simulate_on(const satin_policy_topology *topo, const char *policy, uint64_t seed,
                        const char *kind, const char *const *params, int workers, extras x,
                        int life_nodes, char **story, sim_outcome *out)
{
    sim_model m;
    sim_state root;
    char err[256];
    if (sim_model_parse(&m, kind, params, 0, &root, err, sizeof err) < 0) {
        printf("Bail out! %s\n", err);
        exit(1);
    }
    sim_config cfg = {.topo = topo, .names = grid_names, .policy = satin_policy_find(policy),
                      .seed = seed, .workers = workers,
                      .lan = {18500, sim_ns_per_byte(100e6)},
                      .wan = {2000000, sim_ns_per_byte(1e6)},
                      .lan_jitter_ns = x.lan_jitter_ns, .wan_jitter_ns = x.wan_jitter_ns,
                      .msg_send_ns = x.send_ns, .msg_recv_ns = x.recv_ns};
    satin_policy_params_default(&cfg.params);
    sim *s = sim_new(&cfg, &m);
    size_t len;
    FILE *f = life_nodes ? open_memstream(story, &len) : NULL;
    satin_life *life = f ? satin_life_new(topo->nnodes, topo->cluster_of, workers, life_nodes, f) : NULL;
    sim_record_life(s, life);
    sim_run(s, &root, out);
    if (life && satin_life_finish(life, out->makespan_ns) < 0)
        printf("# the lifestory could not be written\n");
    satin_life_destroy(&life);
    if (f)
        fclose(f);
    sim_destroy(&s);
    sim_model_free(&m);
}

/* On the 2x2 grid: clusters a and b, 2 ms and 1 MB/s between them. */
static void simulate_life(const char *policy, uint64_t seed, const char *kind,
                          const char *const *params, int workers, int life_nodes, char **story,
                          sim_outcome *out)
{
    satin_policy_topology topo = {.nnodes = 4, .nclusters = 2, .cluster_of = grid_cluster_of,
                                  .cluster_size = grid_size, .members = grid_members};
    simulate_on(&topo, policy, seed, kind, params, workers, (extras){0, 0, 0, 0}, life_nodes,
                story, out);
}

static void simulate_with(const char *policy, uint64_t seed, const char *kind,
                          const char *const *params, int workers, extras x, sim_outcome *out)
{
    satin_policy_topology topo = {.nnodes = 4, .nclusters = 2, .cluster_of = grid_cluster_of,
                                  .cluster_size = grid_size, .members = grid_members};
    simulate_on(&topo, policy, seed, kind, params, workers, x, 0, NULL, out);
}

static void simulate(const char *policy, uint64_t seed, const char *kind, const char *const *params,
                     int workers, sim_outcome *out)
{
    simulate_life(policy, seed, kind, params, workers, 0, NULL, out);
}

/* On one node. */
static void simulate_one(const char *kind, const char *const *params, int workers,
                         sim_outcome *out)
{
    satin_policy_topology topo = {.nnodes = 1, .nclusters = 1, .cluster_of = one_cluster_of,
                                  .cluster_size = one_size, .members = one_members};
    simulate_on(&topo, "crs", 1, kind, params, workers, (extras){0, 0, 0, 0}, 0, NULL, out);
}

static int same_run(const sim_outcome *a, const sim_outcome *b)
{
    if (a->makespan_ns != b->makespan_ns || a->events != b->events || a->tasks != b->tasks ||
        a->idle_ns != b->idle_ns || memcmp(&a->net, &b->net, sizeof a->net) != 0 ||
        a->counters.n != b->counters.n)
        return 0;
    for (size_t i = 0; i < a->counters.n; i++)
        if (a->counters.items[i].i64 != b->counters.items[i].i64 ||
            a->counters.items[i].f64 != b->counters.items[i].f64)
            return 0;
    return 1;
}

/* Every policy of the registry, so that a new one is run here too. */
static size_t registry_names(const char **names, size_t max)
{
    size_t n = 0;
    for (; satin_policy_registry[n] && n < max; n++)
        names[n] = satin_policy_registry[n]->name;
    return n;
}

static void runs(void)
{
    const char *policies[16];
    size_t npolicies = registry_names(policies, 16);
    const char *uts[] = {"tree=seed-T1", NULL};
    const char *fib[] = {"n=22", NULL};
    for (size_t p = 0; p < npolicies; p++) {
        sim_outcome a, b, c;
        simulate(policies[p], 7, "uts", uts, 1, &a);
        simulate(policies[p], 7, "uts", uts, 1, &b);
        ok(a.done && !a.failed && a.result == 50045 && a.tasks == 50045,
           "%s: uts seed-T1 on a simulated 2x2 grid counts 50045 nodes, each run once", policies[p]);
        ok(same_run(&a, &b), "%s: the same seed gives the same run (makespan %.6f s, %" PRIu64
           " events)", policies[p], (double)a.makespan_ns / 1e9, a.events);
        int64_t given = 0, received = 0;
        satin_kvlist_i64(&a.counters, "jobs_given", &given);
        satin_kvlist_i64(&a.counters, "jobs_received", &received);
        ok(given > 0 && given == received, "%s: %" PRId64 " records crossed nodes, as many arrived",
           policies[p], given);
        simulate(policies[p], 7, "fib", fib, 2, &c);
        ok(c.done && c.result == 17711, "%s: fib(22) with two workers a node is exact",
           policies[p]);
        sim_outcome_free(&a);
        sim_outcome_free(&b);
        sim_outcome_free(&c);
    }
    sim_outcome x, y;
    simulate("crs", 1, "uts", uts, 1, &x);
    simulate("crs", 2, "uts", uts, 1, &y);
    ok(x.result == y.result && !same_run(&x, &y), "another seed: the same result, another run");
    sim_outcome_free(&y);
    /* Jitter and a cost per message: exact, reproducible, and another run. */
    extras ex = {20000, 500000, 15000, 25000};
    for (size_t p = 0; p < npolicies; p++) {
        sim_outcome a, b;
        simulate_with(policies[p], 1, "uts", uts, 1, ex, &a);
        simulate_with(policies[p], 1, "uts", uts, 1, ex, &b);
        ok(a.done && !a.failed && a.result == 50045 && a.tasks == 50045 && same_run(&a, &b),
           "%s: with jitter and 15/25 us a message, uts seed-T1 counts 50045 nodes, and the "
           "same seed gives the same run (makespan %.6f s)", policies[p],
           (double)a.makespan_ns / 1e9);
        if (strcmp(policies[p], "crs") == 0)
            ok(!same_run(&a, &x), "crs: not the run without them");
        sim_outcome_free(&a);
        sim_outcome_free(&b);
    }
    sim_outcome_free(&x);
}

/* The model's whole tree, unfolded here: the sum of the values, the leaves
 * and tasks, and the costs. */
typedef struct unfolded {
    int64_t value, leaves, tasks, cost, after;
} unfolded;

static void unfold(const sim_model *m, const sim_state *s, unfolded *u)
{
    uint32_t k = sim_model_children(m, s);
    u->value += sim_model_value(m, s, k);
    u->cost += sim_model_cost(m, s, k);
    u->after += sim_model_cost_after(m, s, k);
    u->tasks++;
    u->leaves += k == 0;
    for (uint32_t i = 0; i < k; i++) {
        sim_state c;
        sim_model_child(m, s, i, &c);
        unfold(m, &c, u);
    }
}

/* The kinds linked into this test (libsatinkinds.a, whole). */
static const satin_registry *linked_kinds(void)
{
    static satin_registry *reg;
    if (!reg)
        reg = satin_registry_linked(satin_module_entry());
    return reg;
}

/* A kind satin-sim does not model (nqueens), traced here and replayed:
 * the kind's own answer comes with the trace, the replay runs every traced
 * node once, exactly the traced work, on one node as on a grid of four. */
static void traced_kind(void)
{
    sim_model m;
    sim_state root;
    char err[256];
    ok(!sim_model_knows("nqueens") && sim_model_knows("fib"), "nqueens is not modelled, fib is");
    const char *const params[] = {"n=9", NULL};
    if (sim_model_trace(&m, linked_kinds(), "nqueens", params, 0, 0, &root, err,
                        sizeof err) < 0) {
        ok(0, "nqueens n=9 is traced: %s", err);
        return;
    }
    is_str(m.name, "nqueens", "traced: the model has the kind's name");
    is_str(m.traced_result, "solutions=352", "traced: the kind's own result (9 queens: 352)");
    ok(m.trace && m.trace->nnodes > 1 && m.traced_invocations >= (uint64_t)m.trace->nnodes,
       "traced: a tree of %" PRId64 " nodes from %" PRIu64 " invocations",
       m.trace ? m.trace->nnodes : 0, m.traced_invocations);
    unfolded u = {0, 0, 0, 0, 0};
    unfold(&m, &root, &u);
    is_i64(u.value, m.trace->nnodes, "traced: unfolding the model visits every traced node");
    sim_model_free(&m);
    ok(sim_model_trace(&m, linked_kinds(), "nqueens", (const char *const[]){"n=99", NULL}, 0, 0,
                       &root, err, sizeof err) < 0 && strstr(err, "n") != NULL,
       "traced: the kind's own parser refuses n=99 (%s)", err);
    sim_model_free(&m);
    ok(sim_model_trace(&m, linked_kinds(), "langford", params, 0, 0, &root, err, sizeof err) < 0 &&
           strstr(err, "no kind 'langford'") != NULL,
       "traced: a kind no module brings is named (%s)", err);
    sim_model_free(&m);
}

/* The synthetic kind itself, run on a pool (its leaves really wait: small
 * trees only): its leaves and total_us. */
static void kind_synthetic(satin_pool *pool, const char *const *params, int64_t *leaves,
                           int64_t *total_us)
{
    satin_outcome o;
    satin_run_record(pool, linked_kinds(), "synthetic", params, &o);
    *leaves = *total_us = -1;
    if (o.failed || satin_kvlist_i64(&o.result, "leaves", leaves) < 0 ||
        satin_kvlist_i64(&o.result, "total_us", total_us) < 0)
        diag("the synthetic kind gave no result: %s", o.error);
    satin_outcome_free(&o);
}

static void synthetic_model(void)
{
    static const char *const cases[][7] = {
        {"depth=3", "fanout=4", "dist=gamma", "shape=0.5", "mean_us=100", "seed=7", NULL},
        {"depth=2", "fanout=5", "dist=uniform", "mean_us=150", "seed=3", NULL},
        {"depth=0", "fanout=3", "mean_us=40", NULL},
        {"depth=4", "fanout=2", "dist=gamma", "shape=3", "mean_us=90", "seed=11", NULL},
    };
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = 2});
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *const *params = cases[i];
        sim_model m;
        sim_state root;
        char err[256];
        if (sim_model_parse(&m, "synthetic", params, 0, &root, err, sizeof err) < 0) {
            ok(0, "synthetic case %zu: %s", i, err);
            continue;
        }
        /* The root's argument bytes are the kind's parser's. */
        const satin_kind *k;
        satin_bytes arg;
        satin_outcome po;
        memset(&arg, 0, sizeof arg);
        unsigned char mine[SIM_ARG_MAX];
        size_t len = sim_model_write(&m, &root, mine, sizeof mine);
        ok(satin_record_prepare(linked_kinds(), "synthetic", params, (size_t)1 << 20, &k,
                                &arg, &po) == 0 &&
               arg.len == len && memcmp(arg.data, mine, len) == 0,
           "synthetic case %zu (%s %s): the root is the kind's argument, byte for byte (%zu)", i,
           params[0], params[1], len);
        satin_bytes_free(&arg);
        satin_outcome_free(&po);
        unfolded u = {0, 0, 0, 0, 0};
        unfold(&m, &root, &u);
        int64_t leaves, total_us;
        kind_synthetic(pool, params, &leaves, &total_us);
        ok(u.leaves == leaves && u.value == total_us && total_us > 0,
           "case %zu: the model's %" PRId64 " leaves and total_us %" PRId64
           " are the kind's (%" PRId64 ", %" PRId64 ")",
           i, u.leaves, u.value, leaves, total_us);
        ok(u.cost == total_us * 1000 && u.after == 0,
           "case %zu: its leaves cost their draws in virtual time, the rest nothing", i);
        sim_model_free(&m);
    }
    satin_pool_destroy(&pool);

    sim_model m;
    sim_state root, c, inner, leaf;
    char err[256];
    const char *tree[] = {"depth=3", "fanout=4", "dist=uniform", "mean_us=100", "seed=5", NULL};
    sim_model_parse(&m, "synthetic", tree, 0, &root, err, sizeof err);
    sim_model_child(&m, &root, 2, &c);
    sim_model_child(&m, &c, 1, &inner);
    sim_model_child(&m, &inner, 3, &leaf);
    int same;
    ok(round_trip(&m, &leaf, &same) == 48 && same && sim_model_children(&m, &leaf) == 0 &&
           sim_model_value(&m, &leaf, 0) ==
               syn_draw_us(SYN_DIST_UNIFORM, 100, 1, 5, 2 * 16 + 1 * 4 + 3),
       "synthetic: leaf 2.1.3 is leaf 39, its draw; 48 bytes on the wire and back");
    sim_model_free(&m);
    const char *bad[] = {"depth=2", "fanout=2", "shape=2", NULL};
    ok(sim_model_parse(&m, "synthetic", bad, 0, &root, err, sizeof err) < 0 &&
           strstr(err, "shape= only applies to dist=gamma"),
       "a synthetic job the kind refuses, with its message (%s)", err);
    sim_model_free(&m);
}

/* Synthetic runs under every policy: reproducible, the exact total_us,
 * every task once.  1296 leaves: the oracle is bench/syn_exact's sum of
 * the draws. */
static void synthetic_runs(void)
{
    const char *policies[16];
    size_t npolicies = registry_names(policies, 16);
    const char *tree[] = {"depth=4", "fanout=6", "dist=gamma", "shape=0.5", "mean_us=500",
                          "seed=42", NULL};
    int64_t total = 0;
    for (uint64_t l = 0; l < 1296; l++)
        total += syn_draw_us(SYN_DIST_GAMMA, 500, 0.5, 42, l);
    for (size_t p = 0; p < npolicies; p++) {
        sim_outcome a, b;
        simulate(policies[p], 3, "synthetic", tree, 2, &a);
        simulate(policies[p], 3, "synthetic", tree, 2, &b);
        ok(same_run(&a, &b), "%s: synthetic, the same seed: the same run (makespan %.6f s)",
           policies[p], (double)a.makespan_ns / 1e9);
        sim_outcome_free(&b);
        int64_t given = 0;
        satin_kvlist_i64(&a.counters, "jobs_given", &given);
        ok(a.done && !a.failed && a.result == total && a.tasks == 1 + 6 + 36 + 216 + 1296 &&
               a.work_ns == total * 1000 && given > 0,
           "%s: synthetic depth=4 fanout=6 gamma: total_us %" PRId64 " (want %" PRId64
           "), %" PRIu64 " tasks, %" PRId64 " records crossed nodes",
           policies[p], a.result, total, a.tasks, given);
        sim_outcome_free(&a);
    }
}

/* Replay waits a node's self time after its children, as the kind does.
 * Pre-order: R (1 us) with A (10 us; leaves a1, a2 of 10 us) and leaf B
 * (10 us).  One worker: 41 us, the sum.  Two (by hand): at 0 R and A only
 * spawn; a1 and B run 0-10, a2 10-20, A's self 20-30, R's 30-31: 31 us.
 * (Spent before the children it would be 21 us: R 0-1, A and B 1-11, a1
 * and a2 11-21.) */
static void replay_after(void)
{
    static const int64_t self_us[5] = {1, 10, 10, 10, 10};
    static const uint32_t kids[5] = {2, 2, 0, 0, 0};
    char path[256], tree[300];
    write_tree(path, sizeof path, self_us, kids, NULL, NULL, 5);
    snprintf(tree, sizeof tree, "tree=%s", path);
    const char *params[] = {tree, NULL};
    sim_outcome one, two;
    simulate_one("replay", params, 1, &one);
    simulate_one("replay", params, 2, &two);
    ok(one.done && one.result == 5 && one.makespan_ns == 41000 && one.work_ns == 41000,
       "replay on 1 node, 1 worker: 41 us (%" PRId64 " ns)", one.makespan_ns);
    ok(two.done && two.result == 5 && two.makespan_ns == 31000 && two.work_ns == 41000 &&
           two.idle_ns == 2 * 31000 - 41000,
       "replay on 1 node, 2 workers: the self times after the children, 31 us (%" PRId64
       " ns, idle %" PRId64 " ns)",
       two.makespan_ns, two.idle_ns);
    sim_outcome_free(&one);
    sim_outcome_free(&two);
    unlink(path);
}

/* --task-ns measure's timing: it walks the real tree (how fast is this
 * machine's business, not the test's); a root without children has
 * nothing to time. */
static void measure(void)
{
    sim_model m;
    sim_state root;
    char err[256];
    sim_measured r;
    const char *t1[] = {"tree=seed-T1", NULL};
    sim_model_parse(&m, "uts", t1, 0, &root, err, sizeof err);
    int rc = sim_measure_uts(&m.tree, 0.01, &r);
    ok(rc == 0 && r.nodes > 0 && r.seconds >= 0.01 && r.ns_per_node > 0 &&
           r.ns_per_node <= r.seconds * 1e9 / (double)r.nodes,
       "uts seed-T1: %" PRIu64 " nodes generated in %.3f s; the fastest round %.1f ns each, "
       "no slower than the average", r.nodes, r.seconds, r.ns_per_node);
    sim_model_free(&m);
    const char *none[] = {"tree=seed-T1", "children=0", NULL};
    sim_model_parse(&m, "uts", none, 0, &root, err, sizeof err);
    rc = sim_measure_uts(&m.tree, 0.01, &r);
    ok(rc < 0 && r.nodes == 0, "a uts root without children: nothing to time");
    sim_model_free(&m);
}

/* A lifestory's rows, read back: every (node, worker) seen, its intervals
 * in order, each starting where the last ended, from 0 to the makespan. */
typedef struct story_check {
    int rows, bad_rows, gaps, seen[4][2];
    int64_t last_end[4][2], computing_ns, state_ns[SATIN_LIFE_STATES];
} story_check;

static void read_story(const char *story, int workers, story_check *c)
{
    memset(c, 0, sizeof *c);
    const char *line = strchr(story, '\n');
    if (!line || strncmp(story, "node,worker,state,start_ns,end_ns\n", 34) != 0) {
        c->bad_rows = 1;
        return;
    }
    /* Rows come in the order intervals end; per worker that is time order. */
    for (line++; *line; line = strchr(line, '\n') + 1) {
        int node, worker, used = 0;
        char state[16];
        int64_t a, b;
        if (sscanf(line, "%d,%d,%15[a-z-],%" SCNd64 ",%" SCNd64 "%n", &node, &worker, state, &a,
                   &b, &used) != 5 || line[used] != '\n' || node < 0 || node > 3 || worker < 0 ||
            worker >= workers || b <= a) {
            c->bad_rows++;
            break;
        }
        int st = -1;
        for (int k = 0; k < SATIN_LIFE_STATES; k++)
            if (strcmp(state, satin_life_state_name(k)) == 0)
                st = k;
        if (st < 0) {
            c->bad_rows++;
            break;
        }
        c->rows++;
        c->gaps += a != c->last_end[node][worker];
        c->last_end[node][worker] = b;
        c->seen[node][worker] = 1;
        c->state_ns[st] += b - a;
    }
    c->computing_ns = c->state_ns[SATIN_LIFE_COMPUTING];
}

static void lifestory(void)
{
    const char *uts[] = {"tree=seed-T1", NULL};
    const char *policies[] = {"rs", "crs"};
    for (int p = 0; p < 2; p++) {
        char *a = NULL, *b = NULL, *part = NULL;
        sim_outcome ra, rb, rpart, plain;
        simulate_life(policies[p], 5, "uts", uts, 2, 64, &a, &ra);
        simulate_life(policies[p], 5, "uts", uts, 2, 64, &b, &rb);
        simulate(policies[p], 5, "uts", uts, 2, &plain);
        story_check c;
        read_story(a, 2, &c);
        int tiled = c.bad_rows == 0 && c.gaps == 0;
        for (int n = 0; n < 4; n++)
            for (int w = 0; w < 2; w++)
                tiled &= c.seen[n][w] && c.last_end[n][w] == ra.makespan_ns;
        ok(tiled, "%s: every worker's intervals tile [0, makespan] (%d rows)", policies[p], c.rows);
        is_i64(c.computing_ns, ra.work_ns, "%s: computing time summed over workers is the work",
               policies[p]);
        is_i64(c.state_ns[SATIN_LIFE_STEAL_LAN] + c.state_ns[SATIN_LIFE_STEAL_WAN] +
                   c.state_ns[SATIN_LIFE_IDLE],
               ra.idle_ns, "%s: the other states' time is the idle time", policies[p]);
        ok(c.state_ns[SATIN_LIFE_STEAL_LAN] > 0 && c.state_ns[SATIN_LIFE_STEAL_WAN] > 0,
           "%s: workers waited for local (%" PRId64 " ns) and wide-area (%" PRId64 " ns) steals",
           policies[p], c.state_ns[SATIN_LIFE_STEAL_LAN], c.state_ns[SATIN_LIFE_STEAL_WAN]);
        ok(strcmp(a, b) == 0, "%s: the same seed, the same lifestory byte for byte", policies[p]);
        ok(same_run(&ra, &plain), "%s: recording it changes nothing in the run", policies[p]);
        /* Two nodes of four, spread: nodes 0 and 2, their rows as before. */
        simulate_life(policies[p], 5, "uts", uts, 2, 2, &part, &rpart);
        size_t want = 0, got = strlen(part);
        int same_rows = 1;
        const char *q = part;
        for (const char *line = a; *line; line = strchr(line, '\n') + 1) {
            if (line != a && line[0] != '0' && line[0] != '2')
                continue;
            size_t n = (size_t)(strchr(line, '\n') + 1 - line);
            same_rows &= strncmp(q, line, n) == 0;
            q += n, want += n;
        }
        ok(same_rows && want == got,
           "%s: --lifestory-nodes 2 of 4 records nodes 0 and 2, the same rows", policies[p]);
        free(a);
        free(b);
        free(part);
        sim_outcome_free(&ra);
        sim_outcome_free(&rb);
        sim_outcome_free(&rpart);
        sim_outcome_free(&plain);
    }
}

/* Every traced node's argument carries 2^32 bytes of data and its result
 * 2^36: the bytes sent, in units of 2^32, count exactly the records that
 * crossed nodes and 16 times the results sent back (a run's own messages
 * are far below 2^32 bytes). */
static void replay_data(const char **params)
{
    char trace[256], tree[300];
    int64_t argb[7], resb[7];
    for (int i = 0; i < 7; i++) {
        argb[i] = (int64_t)1 << 32;
        resb[i] = (int64_t)1 << 36;
    }
    write_trace(trace, sizeof trace, argb, resb);
    snprintf(tree, sizeof tree, "tree=%s", trace);
    params[0] = tree;
    params[1] = "scale=100000";   /* 0.1 to 0.7 s a node: worth stealing */
    const char *policies[] = {"rs", "chs", "cls", "crs"};
    for (size_t p = 0; p < sizeof policies / sizeof *policies; p++) {
        sim_outcome r;
        simulate(policies[p], 1, "replay", params, 1, &r);
        int64_t given = -1, results = -1;
        satin_kvlist_i64(&r.counters, "jobs_given", &given);
        satin_kvlist_i64(&r.counters, "results_sent", &results);
        uint64_t units = (r.net.bytes[0] + r.net.bytes[1]) >> 32;
        ok(r.done && r.result == 7 && given > 0 && results == given &&
               units == (uint64_t)(given + 16 * results),
           "%s: replayed with data sizes, %" PRId64 " records crossed nodes with 2^32 bytes "
           "each and %" PRId64 " results came back with 2^36 (%" PRIu64 " x 2^32 bytes sent)",
           policies[p], given, results, units);
        sim_outcome_free(&r);
    }
    unlink(trace);
}

/* Two clusters of one node, 10 ms one way and 1000 ns a byte between
 * them, interfaces free: a root of two leaves of 1 s, each carrying
 * `argb` bytes in and `resb` out.  b0 steals one leaf, runs it and sends
 * its result back; a0 runs the other. */
static int64_t one_steal_makespan(int64_t argb, int64_t resb, sim_outcome *r)
{
    static const int cluster_of[2] = {0, 1}, size[2] = {1, 1}, m0[1] = {0}, m1[1] = {1};
    static const int *const members[2] = {m0, m1};
    static const char *const names[2] = {"a0", "b0"};
    static const int64_t self_us[3] = {0, 1000000, 1000000};
    static const uint32_t kids[3] = {2, 0, 0};
    const int64_t args[3] = {0, argb, argb}, results[3] = {0, resb, resb};
    char trace[256], tree[300], err[256];
    write_tree(trace, sizeof trace, self_us, kids, args, results, 3);
    snprintf(tree, sizeof tree, "tree=%s", trace);
    const char *params[] = {tree, "scale=1", NULL};
    sim_model m;
    sim_state root;
    if (sim_model_parse(&m, "replay", params, 0, &root, err, sizeof err) < 0) {
        printf("Bail out! %s\n", err);
        exit(1);
    }
    satin_policy_topology topo = {.nnodes = 2, .nclusters = 2, .cluster_of = cluster_of,
                                  .cluster_size = size, .members = members};
    sim_config cfg = {.topo = &topo, .names = names, .policy = satin_policy_find("crs"),
                      .seed = 1, .workers = 1, .lan = {10000, 0},
                      .wan = {10000000, sim_ns_per_byte(1e6)}};
    satin_policy_params_default(&cfg.params);
    sim *s = sim_new(&cfg, &m);
    sim_run(s, &root, r);
    sim_destroy(&s);
    sim_model_free(&m);
    unlink(trace);
    return r->done && r->result == 3 ? r->makespan_ns : -1;
}

/* The data a stolen record carries crosses the link with it, and its
 * result's comes back: each costs its bytes at the link's rate in virtual
 * time, on top of the same steal without data (whose latencies, three
 * crossings of 10 ms, and small messages are the same).  The byte counts
 * are bounds: a0, idle once its leaf is done, asks b0 for work the longer
 * b0 runs, on the other direction's link. */
static void steal_data_time(void)
{
    sim_outcome r;
    int64_t plain = one_steal_makespan(0, 0, &r);
    uint64_t plain_bytes = r.net.bytes[1];
    int64_t given = -1;
    satin_kvlist_i64(&r.counters, "jobs_given", &given);
    sim_outcome_free(&r);
    ok(given == 1 && plain >= 1030000000 && plain < 1031000000,
       "one steal across 10 ms: 1 s of leaf and three crossings, no data (%" PRId64 " ns)",
       plain);
    int64_t in = one_steal_makespan(200000, 0, &r);
    ok(in - plain == 200000 * 1000LL && r.net.bytes[1] >= plain_bytes + 200000,
       "a record of 200000 bytes more takes 200000 x 1000 ns more to cross (%" PRId64 " ns)",
       in - plain);
    sim_outcome_free(&r);
    int64_t out = one_steal_makespan(0, 100000, &r);
    ok(out - plain == 100000 * 1000LL && r.net.bytes[1] >= plain_bytes + 100000,
       "its result of 100000 bytes more, 100000 x 1000 ns more back (%" PRId64 " ns)",
       out - plain);
    sim_outcome_free(&r);
    int64_t both = one_steal_makespan(200000, 100000, &r);
    ok(both - plain == 300000 * 1000LL, "both: the sum (%" PRId64 " ns)", both - plain);
    sim_outcome_free(&r);
}

/* ---- crashes ------------------------------------------------------------------------ */

/* 2 clusters of 3 nodes: a0 a1 a2 | b0 b1 b2; the job starts on a0. */
static const int six_cluster_of[6] = {0, 0, 0, 1, 1, 1};
static const int six_size[2] = {3, 3};
static const int six_m0[3] = {0, 1, 2}, six_m1[3] = {3, 4, 5};
static const int *const six_members[2] = {six_m0, six_m1};
static const char *const six_names[6] = {"a0", "a1", "a2", "b0", "b1", "b2"};

/* Well above a round trip on either link (2 ms one way between the
 * clusters), so that only the crashed node is ever taken for dead. */
#define LAN_TIMEOUT_NS 50000000LL
#define WAN_TIMEOUT_NS 200000000LL

static uint64_t six_seed = 5;

static sim_config six_config(const satin_policy_topology *topo, const char *policy,
                             const sim_crash *crash, int watch)
{
    sim_config cfg = {.topo = topo, .names = six_names, .policy = satin_policy_find(policy),
                      .seed = six_seed, .workers = 1,
                      .lan = {18500, sim_ns_per_byte(100e6)},
                      .wan = {2000000, sim_ns_per_byte(1e6)},
                      .crashes = crash, .ncrashes = crash ? 1 : 0, .watch = watch,
                      .failure_timeout_lan_ns = LAN_TIMEOUT_NS,
                      .failure_timeout_wan_ns = WAN_TIMEOUT_NS,
                      .time_limit_ns = 100000000000LL};
    satin_policy_params_default(&cfg.params);
    return cfg;
}

static void six_run(const char *policy, const sim_model *m, const sim_state *root,
                    const sim_crash *crash, int watch, sim_outcome *out)
{
    satin_policy_topology topo = {.nnodes = 6, .nclusters = 2, .cluster_of = six_cluster_of,
                                  .cluster_size = six_size, .members = six_members};
    sim_config cfg = six_config(&topo, policy, crash, watch);
    sim *s = sim_new(&cfg, m);
    if (!s) {
        printf("Bail out! the 2x3 grid was refused\n");
        exit(1);
    }
    sim_run(s, root, out);
    sim_destroy(&s);
}

static int64_t count(const sim_outcome *o, const char *name)
{
    int64_t v = -1;
    satin_kvlist_i64(&o->counters, name, &v);
    return v;
}


/* A crash of the job's node, of no node, twice of one node, or before the
 * job: refused. */
static void crash_refused(void)
{
    satin_policy_topology topo = {.nnodes = 6, .nclusters = 2, .cluster_of = six_cluster_of,
                                  .cluster_size = six_size, .members = six_members};
    const char *fib[] = {"n=10", NULL};
    sim_model m;
    sim_state root;
    char err[256];
    sim_model_parse(&m, "fib", fib, 0, &root, err, sizeof err);
    const sim_crash bad[][2] = {{{0, 1000}}, {{6, 1000}}, {{-1, 1000}}, {{2, -1}},
                                {{2, 1000}, {2, 2000}}};
    const char *what[] = {"the job's node", "a node past the grid", "a negative node",
                          "a time before the job", "one node twice"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        sim_config cfg = six_config(&topo, "crs", bad[i], 0);
        cfg.ncrashes = i == 4 ? 2 : 1;
        sim *s = sim_new(&cfg, &m);
        ok(!s, "a crash of %s is refused", what[i]);
        sim_destroy(&s);
    }
    sim_crash fine[2] = {{2, 1000}, {5, 2000}};
    sim_config cfg = six_config(&topo, "crs", fine, 0);
    cfg.ncrashes = 2;
    sim *s = sim_new(&cfg, &m);
    ok(s != NULL, "two crashes of two other nodes are taken");
    sim_destroy(&s);
    sim_model_free(&m);
}

/* The job under `policy` on the 2x3 grid, with a node crashing at half, or
 * else a quarter, of the crash-free run's makespan: the first of a1..b2
 * that holds another node's record when it dies (so that something is
 * lost).  The result must be `want` all the same. */
static void crash_one(const char *policy, const char *kind, const char *const *params,
                      int64_t want, int *orphans_used_runs)
{
    sim_model m;
    sim_state root;
    char err[256];
    if (sim_model_parse(&m, kind, params, 0, &root, err, sizeof err) < 0) {
        printf("Bail out! %s\n", err);
        exit(1);
    }
    sim_outcome plain, watched, a, b;
    six_run(policy, &m, &root, NULL, 0, &plain);
    six_run(policy, &m, &root, NULL, 1, &watched);
    ok(plain.done && plain.result == want && count(&plain, "orphans_used") == -1,
       "%s %s: without a crash %" PRId64 ", and no failure detection (no pool orphan "
       "counters)", policy, kind, plain.result);
    ok(watched.done && watched.result == want && count(&watched, "peers_dead") == 0 &&
           count(&watched, "records_redone") == 0 && count(&watched, "orphans_used") == 0,
       "%s %s: failure detection without a crash: the same result, no peer taken for dead, "
       "nothing redone (%" PRId64 " heartbeats)", policy, kind,
       count(&watched, "heartbeats_sent"));
    sim_crash crash = {-1, 0};
    const int64_t at[2] = {plain.makespan_ns / 2, plain.makespan_ns / 4};
    for (int f = 0; f < 2 && crash.node < 0; f++)
        for (int node = 1; node < 6 && crash.node < 0; node++) {
            sim_crash c = {node, at[f]};
            six_run(policy, &m, &root, &c, 0, &a);
            if (a.records_lost > 0)
                crash = c;
            sim_outcome_free(&a);
        }
    if (crash.node < 0) {
        ok(0, "%s %s: some node holds another's record at half or a quarter of the run",
             policy, kind);
        sim_outcome_free(&plain);
        sim_outcome_free(&watched);
        sim_model_free(&m);
        return;
    }
    six_run(policy, &m, &root, &crash, 0, &a);
    six_run(policy, &m, &root, &crash, 0, &b);
    const char *who = six_names[crash.node];
    ok(a.done && !a.failed && a.result == want,
       "%s %s: %s crashing at %.6f s (of %.6f s) with %" PRIu64 " record(s) of others and %"
       PRIu64 " task(s): the result is still %" PRId64, policy, kind, who,
       (double)crash.at_ns / 1e9, (double)plain.makespan_ns / 1e9, a.records_lost, a.tasks_lost,
       want);
    int64_t dead = count(&a, "peers_dead");
    ok(dead >= 1 && dead <= 5 && count(&a, "peers_back") == 0,
       "%s %s: %" PRId64 " of the 5 survivors took %s for dead (those whose work tied them "
       "to it), none was wrong", policy, kind, dead, who);
    ok(count(&a, "records_redone") > 0,
       "%s %s: the records it held ran again (%" PRId64 " redone, %" PRId64 " orphan result(s) "
       "used)", policy, kind, count(&a, "records_redone"), count(&a, "orphans_used"));
    ok(a.makespan_ns > watched.makespan_ns,
       "%s %s: the crash costs time (%.6f s against %.6f s without it)", policy, kind,
       (double)a.makespan_ns / 1e9, (double)watched.makespan_ns / 1e9);
    ok(same_run(&a, &b) && a.result == b.result && a.tasks_lost == b.tasks_lost &&
           a.msgs_dropped == b.msgs_dropped,
       "%s %s: the same crash and seed give the same run", policy, kind);
    *orphans_used_runs += count(&a, "orphans_used") > 0;
    sim_outcome_free(&plain);
    sim_outcome_free(&watched);
    sim_outcome_free(&a);
    sim_outcome_free(&b);
    sim_model_free(&m);
}

/* A uts job's model (kept in *m for the caller to free) and its tree's
 * size, counted by the uts kind's sequential walk. */
static uint64_t uts_model_size(const char *const *params, sim_model *m, sim_state *root)
{
    char err[256];
    if (sim_model_parse(m, "uts", params, 0, root, err, sizeof err) < 0) {
        printf("Bail out! %s\n", err);
        exit(1);
    }
    uint64_t nodes = 0, leaves, depth;
    uts_count_sequential(&m->uts, &nodes, &leaves, &depth);
    return nodes;
}

/* A record of the dead node still running elsewhere is promised to every
 * node, and a task of the re-run that meets the promise waits for its
 * result rather than computing it again.  A case where that happens (found
 * by trying crashes): the job's result is exact all the same. */
static void orphan_wait(void)
{
    const char *uts[] = {"gen=std", "t=1", "a=3", "d=7", "b=4", "r=19", NULL};
    sim_model m;
    sim_state root;
    uint64_t nodes = uts_model_size(uts, &m, &root);
    sim_crash crash = {2, 5000000};
    sim_outcome a;
    six_seed = 1;
    six_run("rp", &m, &root, &crash, 0, &a);
    six_seed = 5;
    ok(a.done && a.result == (int64_t)nodes && count(&a, "orphans_promised") > 0 &&
           count(&a, "orphans_waited") > 0 && count(&a, "orphan_waits_given_up") == 0,
       "rp uts d=7, a2 crashing at 5 ms: %" PRId64 " promised orphan(s), %" PRId64 " task(s) "
       "waited for one, none for the longest wait; %" PRIu64 " nodes, exact",
       count(&a, "orphans_promised"), count(&a, "orphans_waited"), nodes);
    sim_outcome_free(&a);
    sim_model_free(&m);
}

static void crashes(void)
{
    crash_refused();
    const char *policies[] = {"rs", "rp", "chs", "cls", "crs"};
    const char *fib[] = {"n=25", NULL};
    /* T1's shape (geometric, fixed), 6 levels: 16000 nodes. */
    const char *uts[] = {"gen=std", "t=1", "a=3", "d=6", "b=4", "r=19", NULL};
    sim_model m;
    sim_state root;
    uint64_t nodes = uts_model_size(uts, &m, &root);
    sim_model_free(&m);
    int orphans = 0;
    for (size_t p = 0; p < sizeof policies / sizeof *policies; p++) {
        crash_one(policies[p], "fib", fib, satin_fib_value(25), &orphans);
        crash_one(policies[p], "uts", uts, (int64_t)nodes, &orphans);
    }
    ok(orphans > 0, "in %d of those runs a record was not run again but taken from an orphan "
       "result", orphans);
    orphan_wait();
}

int main(void)
{
    char trace[256];
    write_trace(trace, sizeof trace, NULL, NULL);
    queue_order();
    network();
    jitter();
    control_threads();
    models();
    replay_model(trace);
    synthetic_model();
    traced_kind();
    runs();
    synthetic_runs();
    replay_after();
    measure();
    lifestory();
    crashes();
    /* The traced tree on the simulated grid: 7 nodes, 28 us x 3 of work. */
    char tree[300];
    snprintf(tree, sizeof tree, "tree=%s", trace);
    const char *params[] = {tree, "scale=3", NULL};
    sim_outcome r;
    simulate("crs", 1, "replay", params, 1, &r);
    ok(r.done && r.result == 7 && r.work_ns == 84000,
       "replay: the 7 traced nodes run, 84 us of work (%" PRId64 " ns)", r.work_ns);
    uint64_t plain = r.net.bytes[0] + r.net.bytes[1];
    sim_outcome_free(&r);
    ok(plain > 0 && plain < (uint64_t)1 << 32, "without data sizes: %" PRIu64 " bytes sent",
       plain);
    unlink(trace);
    replay_data(params);
    steal_data_time();
    return done_testing();
}
