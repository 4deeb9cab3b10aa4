/*
 * test_sim.c - satin-sim's core (sim/): the event queue's order, the
 * network's arithmetic against values worked out by hand, the models'
 * trees, and whole simulated runs: exact results under every policy, and
 * the same seed giving the same run bit for bit.
 */
#include "../tap.h"
#include "sim.h"
#include "sim_queue.h"

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

/* A traced tree of 7 nodes in pre-order (the root; node 1 with leaves 2
 * and 3; node 4 with leaves 5 and 6), self times 1..7 us, in a temporary
 * file. */
static void write_trace(char *path, size_t len, const int64_t *arg_bytes,
                        const int64_t *result_bytes)
{
    snprintf(path, len, "%s/test_sim_trace.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    int64_t self_us[7] = {1, 2, 3, 4, 5, 6, 7};
    uint32_t kids[7] = {2, 2, 0, 0, 2, 0, 0};
    satin_err e;
    if (!f || replay_tree_write(f, self_us, kids, arg_bytes, result_bytes, 7, NULL, &e) < 0) {
        printf("Bail out! cannot write a trace at %s\n", path);
        exit(1);
    }
    fclose(f);
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
    ok(sim_model_children(&m, &root) == 2 && sim_model_cost(&m, &root, 2) == 2000,
       "its root: 2 children, 1 us traced, 2 us of virtual time");
    sim_model_child(&m, &root, 1, &c);
    uint32_t node;
    memcpy(&node, c.b, sizeof node);
    is_i64(node, 4, "the root's second child is traced node 4 (pre-order)");
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
           strstr(err, "fib, uts and replay"),
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

static void simulate(const char *policy, uint64_t seed, const char *kind, const char *const *params,
                     int workers, sim_outcome *out)
{
    sim_model m;
    sim_state root;
    char err[256];
    if (sim_model_parse(&m, kind, params, 0, &root, err, sizeof err) < 0) {
        printf("Bail out! %s\n", err);
        exit(1);
    }
    satin_policy_topology topo = {.nnodes = 4, .nclusters = 2, .cluster_of = grid_cluster_of,
                                  .cluster_size = grid_size, .members = grid_members};
    sim_config cfg = {.topo = &topo, .names = grid_names, .policy = satin_policy_find(policy),
                      .seed = seed, .workers = workers,
                      .lan = {18500, sim_ns_per_byte(100e6)},
                      .wan = {2000000, sim_ns_per_byte(1e6)}};
    satin_policy_params_default(&cfg.params);
    sim *s = sim_new(&cfg, &m);
    sim_run(s, &root, out);
    sim_destroy(&s);
    sim_model_free(&m);
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

static void runs(void)
{
    const char *policies[] = {"rs", "rp", "chs", "cls", "crs"};
    const char *uts[] = {"tree=seed-T1", NULL};
    const char *fib[] = {"n=22", NULL};
    for (size_t p = 0; p < sizeof policies / sizeof *policies; p++) {
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

int main(void)
{
    char trace[256];
    write_trace(trace, sizeof trace, NULL, NULL);
    queue_order();
    network();
    models();
    replay_model(trace);
    runs();
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
    return done_testing();
}
