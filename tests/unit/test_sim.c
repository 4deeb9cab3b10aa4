/*
 * test_sim.c - satin-sim's core (sim/): the event queue's order, the
 * network's arithmetic against values worked out by hand, the models'
 * trees (synthetic's against the kind itself), and whole simulated runs:
 * exact results under every policy, the same seed giving the same run bit
 * for bit, and replay's self times spent after the children (makespans
 * worked out by hand).
 */
#include "../tap.h"
#include "kinds.h"
#include "policy.h"
#include "sim.h"
#include "sim_measure.h"
#include "sim_queue.h"
#include "synthetic_draw.h"

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

/* A traced tree in pre-order (self times and child counts) in a temporary
 * file. */
static void write_tree(char *path, size_t len, const int64_t *self_us, const uint32_t *kids,
                       int64_t n)
{
    snprintf(path, len, "%s/test_sim_trace.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    satin_err e;
    if (!f || replay_tree_write(f, self_us, kids, n, NULL, &e) < 0) {
        printf("Bail out! cannot write a trace at %s\n", path);
        exit(1);
    }
    fclose(f);
}

/* 7 nodes: the root; node 1 with leaves 2 and 3; node 4 with leaves 5 and
 * 6; self times 1..7 us. */
static void write_trace(char *path, size_t len)
{
    static const int64_t self_us[7] = {1, 2, 3, 4, 5, 6, 7};
    static const uint32_t kids[7] = {2, 2, 0, 0, 2, 0, 0};
    write_tree(path, len, self_us, kids, 7);
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

static void simulate_on(const satin_policy_topology *topo, const char *policy, uint64_t seed,
                        const char *kind, const char *const *params, int workers,
                        sim_outcome *out)
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
                      .wan = {2000000, sim_ns_per_byte(1e6)}};
    satin_policy_params_default(&cfg.params);
    sim *s = sim_new(&cfg, &m);
    sim_run(s, &root, out);
    sim_destroy(&s);
    sim_model_free(&m);
}

/* On the 2x2 grid: clusters a and b, 2 ms and 1 MB/s between them. */
static void simulate(const char *policy, uint64_t seed, const char *kind, const char *const *params,
                     int workers, sim_outcome *out)
{
    satin_policy_topology topo = {.nnodes = 4, .nclusters = 2, .cluster_of = grid_cluster_of,
                                  .cluster_size = grid_size, .members = grid_members};
    simulate_on(&topo, policy, seed, kind, params, workers, out);
}

/* On one node. */
static void simulate_one(const char *kind, const char *const *params, int workers,
                         sim_outcome *out)
{
    satin_policy_topology topo = {.nnodes = 1, .nclusters = 1, .cluster_of = one_cluster_of,
                                  .cluster_size = one_size, .members = one_members};
    simulate_on(&topo, "crs", 1, kind, params, workers, out);
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
    sim_outcome_free(&x);
    sim_outcome_free(&y);
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

/* The synthetic kind itself, run on a pool (its leaves really wait: small
 * trees only): its leaves and total_us. */
static void kind_synthetic(satin_pool *pool, const char *const *params, int64_t *leaves,
                           int64_t *total_us)
{
    satin_outcome o;
    satin_run_record(pool, satin_builtin_kinds, "synthetic", params, &o);
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
        ok(satin_record_prepare(satin_builtin_kinds, "synthetic", params, (size_t)1 << 20, &k,
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
    write_tree(path, sizeof path, self_us, kids, 5);
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

int main(void)
{
    char trace[256];
    write_trace(trace, sizeof trace);
    queue_order();
    network();
    models();
    replay_model(trace);
    synthetic_model();
    runs();
    synthetic_runs();
    replay_after();
    measure();
    /* The traced tree on the simulated grid: 7 nodes, 28 us x 3 of work. */
    char tree[300];
    snprintf(tree, sizeof tree, "tree=%s", trace);
    const char *params[] = {tree, "scale=3", NULL};
    sim_outcome r;
    simulate("crs", 1, "replay", params, 1, &r);
    ok(r.done && r.result == 7 && r.work_ns == 84000,
       "replay: the 7 traced nodes run, 84 us of work (%" PRId64 " ns)", r.work_ns);
    sim_outcome_free(&r);
    unlink(trace);
    return done_testing();
}
