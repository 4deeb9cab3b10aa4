/*
 * test_topology.c - the topology loader: the example files in etc/, a file
 * that uses every key, and bad documents with their exact messages.
 * Run from the repository root (the example paths are relative to it).
 */
#include "../tap.h"
#include "policy_config.h"
#include "topology.h"

#include <math.h>

#define NS_PER_MS INT64_C(1000000)

/* Two clusters of one node each: lines 1-10; tests append from line 11. */
#define TWO_CLUSTERS                          \
    "grid: g\n"                               \
    "clusters:\n"                             \
    "  - name: A\n"                           \
    "    nodes:\n"                            \
    "      - id: a0\n"                        \
    "        endpoint: tcp://127.0.0.1:7101\n" \
    "  - name: B\n"                           \
    "    nodes:\n"                            \
    "      - id: b0\n"                        \
    "        endpoint: tcp://127.0.0.1:7102\n"

/* One cluster of one node, on one line. */
#define ONE_NODE "clusters: [{name: A, nodes: [{id: a0, endpoint: 'tcp://h:1'}]}]\n"

/* The last file's policy and tunables, read as satind reads them: the
 * loader keeps the policy keys as written, the registry checks them. */
static satin_policy_config cfg;

static satin_topology *configured(satin_topology *t, char *err, size_t errlen)
{
    if (t && satin_policy_configure(t, NULL, &cfg, NULL, 0, err, errlen) < 0)
        satin_topology_destroy(&t);
    return t;
}

static satin_topology *load(const char *path, char *err, size_t errlen)
{
    return configured(satin_topology_load(path, err, errlen), err, errlen);
}

static satin_topology *parse(const char *text, char *err, size_t errlen)
{
    return configured(satin_topology_parse("bad.yaml", text, strlen(text), err, errlen), err,
                      errlen);
}

/* The document is refused with exactly this message. */
static void bad(const char *label, const char *text, const char *want)
{
    char err[512] = "";
    satin_topology *t = parse(text, err, sizeof err);
    ok(t == NULL, "%s: refused", label);
    is_str(err, want, "%s: message", label);
    satin_topology_destroy(&t);
}

/* Refused with a message that starts with `prefix` and contains `phrase`. */
static void bad_like(const char *label, const char *text, const char *prefix, const char *phrase)
{
    char err[512] = "";
    satin_topology *t = parse(text, err, sizeof err);
    ok(t == NULL, "%s: refused", label);
    if (!ok(strncmp(err, prefix, strlen(prefix)) == 0 && strstr(err, phrase),
            "%s: message starts with '%s' and names '%s'", label, prefix, phrase))
        diag("got: '%s'", err);
    satin_topology_destroy(&t);
}

static int near(double a, double b)
{
    return fabs(a - b) < 1e-9;
}

static void test_local_2x2(void)
{
    char err[512] = "";
    satin_topology *t = load("etc/local-2x2.yaml", err, sizeof err);
    if (!ok(t != NULL, "etc/local-2x2.yaml loads")) {
        diag("%s", err);
        return;
    }
    is_str(t->name, "local-2x2", "local-2x2: name");
    is_str(t->path, "etc/local-2x2.yaml", "local-2x2: path");
    is_str(cfg.ops->name, "crs", "local-2x2: policy");
    is_i64(t->security_none, 1, "local-2x2: security none");
    is_i64(t->emulate, 0, "local-2x2: not emulated");
    is_i64(t->nclusters, 2, "local-2x2: 2 clusters");
    is_i64(t->nnodes, 4, "local-2x2: 4 nodes");
    is_i64(t->nlinks, 0, "local-2x2: no link overrides");
    is_str(t->clusters[0].name, "A", "local-2x2: cluster 0 is A");
    is_str(t->clusters[1].name, "B", "local-2x2: cluster 1 is B");
    is_i64(t->clusters[1].first_node, 2, "local-2x2: B starts at node 2");
    is_i64(t->clusters[1].nnodes, 2, "local-2x2: B has 2 nodes");
    static const char *const ids[] = {"a0", "a1", "b0", "b1"};
    int all = 1;
    for (int i = 0; i < 4; i++) {
        char ep[64];
        snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", 7101 + i);
        all &= strcmp(t->nodes[i].id, ids[i]) == 0 && strcmp(t->nodes[i].endpoint, ep) == 0 &&
               t->nodes[i].index == i && t->nodes[i].cluster == i / 2 &&
               t->nodes[i].workers == 1 && t->nodes[i].client[0] == '\0' &&
               t->nodes[i].public_key[0] == '\0';
    }
    ok(all, "local-2x2: ids, endpoints 7101..7104, clusters, 1 worker, no client, no key");
    const satin_node_def *b1 = satin_topology_node(t, "b1");
    ok(b1 && b1->index == 3 && b1->cluster == 1, "local-2x2: node b1 is node 3 of cluster B");
    ok(satin_topology_node(t, "c0") == NULL, "local-2x2: no node c0");
    satin_link_def l = satin_topology_link(t, 0, 1);
    ok(l.from == 0 && l.to == 1 && near(l.latency_ms, 10) && near(l.jitter_ms, 0) &&
           near(l.bandwidth_kBps, 1000),
       "local-2x2: A -> B is the default 10 ms, 1000 KByte/s");
    l = satin_topology_link(t, 1, 1);
    ok(near(l.latency_ms, 0) && near(l.bandwidth_kBps, 0), "local-2x2: B -> B is not a WAN link");
    satin_topology_destroy(&t);
    ok(t == NULL, "destroy clears the pointer");
    satin_topology_destroy(&t);
}

static void test_single_4(void)
{
    char err[512] = "";
    satin_topology *t = load("etc/single-4.yaml", err, sizeof err);
    if (!ok(t != NULL, "etc/single-4.yaml loads")) {
        diag("%s", err);
        return;
    }
    is_str(t->name, "single-4", "single-4: name");
    is_str(cfg.ops->name, "rs", "single-4: policy rs");
    is_i64(t->security_none, 1, "single-4: security none");
    is_i64(t->nclusters, 1, "single-4: 1 cluster");
    is_i64(t->nnodes, 4, "single-4: 4 nodes");
    is_i64(t->clusters[0].nnodes, 4, "single-4: all in the cluster");
    is_str(t->nodes[0].endpoint, "tcp://127.0.0.1:7111", "single-4: first port 7111");
    is_str(t->nodes[3].endpoint, "tcp://127.0.0.1:7114", "single-4: last port 7114");
    satin_topology_destroy(&t);
}

static void test_das_4x16(void)
{
    char err[512] = "";
    satin_topology *t = load("etc/das-4x16.yaml", err, sizeof err);
    if (!ok(t != NULL, "etc/das-4x16.yaml loads")) {
        diag("%s", err);
        return;
    }
    is_str(t->name, "das-4x16", "das-4x16: name");
    is_str(cfg.ops->name, "crs", "das-4x16: policy crs");
    is_i64(t->emulate, 1, "das-4x16: emulated");
    is_i64(t->security_none, 1, "das-4x16: security none");
    is_i64(t->nclusters, 4, "das-4x16: 4 clusters");
    is_i64(t->nnodes, 64, "das-4x16: 64 nodes");
    int all = 1;
    for (int c = 0; c < 4; c++)
        all &= t->clusters[c].nnodes == 16 && t->clusters[c].first_node == 16 * c;
    ok(all, "das-4x16: 16 nodes in each cluster, in order");
    all = 1;
    for (int i = 0; i < 64; i++) {
        char ep[64];
        snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", 7200 + i);
        all &= strcmp(t->nodes[i].endpoint, ep) == 0 && t->nodes[i].cluster == i / 16 &&
               t->nodes[i].index == i;
    }
    ok(all, "das-4x16: endpoints 7200..7263 in file order");
    const satin_node_def *n = satin_topology_node(t, "c0");
    ok(n && n->index == 32 && n->cluster == 2, "das-4x16: c0 is node 32, in cluster C");
    satin_link_def l = satin_topology_link(t, 3, 0);
    ok(near(l.latency_ms, 10) && near(l.bandwidth_kBps, 1000) && l.from == 3 && l.to == 0,
       "das-4x16: D -> A is 10 ms, 1000 KByte/s");
    satin_topology_destroy(&t);
}

/* Every key, the conversions and the link lookup. */
static void test_full(void)
{
    static const char text[] =
        "grid: full\n"
        "policy: CLS\n"
        "policy_params:\n"
        "  backoff_min_ms: 0.5\n"
        "  backoff_max_ms: 250\n"
        "  steal_max_jobs: 2\n"
        "  rp_threshold: 6\n"
        "  rp_max_in_transit: 3\n"
        "  cls_load_interval_ms: 2.5e1\n"
        "  cls_threshold: 7\n"
        "  lifeline_w: 3\n"
        "  lifeline_z: 4\n"
        "  wan_lifelines: 5\n"
        "  wan_lifeline_jobs: 6\n"
        "security: curve\n"
        "emulate: yes\n"
        "wan:\n"
        "  latency_ms: 20\n"
        "  jitter_ms: 1.5\n"
        "  bandwidth_kBps: 500\n"
        "  links:\n"
        "    - {from: A, to: B, latency_ms: 100, bandwidth_kBps: 100, both: true}\n"
        "    - from: A\n"
        "      to: C\n"
        "      jitter_ms: 3\n"
        "clusters:\n"
        "  - name: A\n"
        "    nodes:\n"
        "      - id: a0\n"
        "        endpoint: tcp://10.0.0.1:7001\n"
        "        client: /tmp/satin-full/a0.sock\n"
        "        workers: 0\n"
        "        public_key: \"rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7\"\n"
        "  - name: B\n"
        "    nodes:\n"
        "      - id: b0\n"
        "        endpoint: tcp://[::1]:7002\n"
        "        client: tcp://127.0.0.1:7602\n"
        "        workers: 16\n"
        "  - name: C\n"
        "    nodes:\n"
        "      - id: c.0_x-y\n"
        "        endpoint: tcp://host-c.example.org:7003\n";
    char err[512] = "";
    satin_topology *t =
        configured(satin_topology_parse("full.yaml", text, strlen(text), err, sizeof err), err,
                   sizeof err);
    if (!ok(t != NULL, "a file with every key parses")) {
        diag("%s", err);
        return;
    }
    is_str(t->path, "full.yaml", "full: the name stands for the path");
    is_str(cfg.ops->name, "cls", "full: policy names are case-insensitive, kept in lower case");
    is_i64(cfg.params.backoff_min_ns, NS_PER_MS / 2, "full: backoff_min_ms 0.5 -> ns");
    is_i64(cfg.params.backoff_max_ns, 250 * NS_PER_MS, "full: backoff_max_ms -> ns");
    is_i64(cfg.params.steal_max_jobs, 2, "full: steal_max_jobs");
    is_i64(cfg.params.rp_threshold, 6, "full: rp_threshold");
    is_i64(cfg.params.rp_max_in_transit, 3, "full: rp_max_in_transit");
    is_i64(cfg.params.cls_load_interval_ns, 25 * NS_PER_MS, "full: cls_load_interval_ms 2.5e1");
    is_i64(cfg.params.cls_threshold, 7, "full: cls_threshold");
    is_i64(cfg.params.lifeline_w, 3, "full: lifeline_w");
    is_i64(cfg.params.lifeline_z, 4, "full: lifeline_z");
    is_i64(cfg.params.wan_lifelines, 5, "full: wan_lifelines");
    is_i64(cfg.params.wan_lifeline_jobs, 6, "full: wan_lifeline_jobs");
    is_i64(t->security_none, 0, "full: security curve");
    is_i64(t->emulate, 1, "full: emulate yes");
    ok(t->wan_default.from == -1 && t->wan_default.to == -1 &&
           near(t->wan_default.latency_ms, 20) && near(t->wan_default.jitter_ms, 1.5) &&
           near(t->wan_default.bandwidth_kBps, 500),
       "full: wan defaults");
    is_i64(t->nlinks, 3, "full: both: true makes two directed links");
    is_i64(t->nnodes, 3, "full: 3 nodes");
    is_str(t->nodes[0].client, "ipc:///tmp/satin-full/a0.sock", "full: a bare path is ipc");
    is_str(t->nodes[1].client, "tcp://127.0.0.1:7602", "full: tcp client endpoint");
    is_str(t->nodes[0].public_key, "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7", "full: public key");
    is_i64(t->nodes[0].workers, 0, "full: workers 0");
    is_i64(t->nodes[1].workers, 16, "full: workers 16");
    is_str(t->nodes[1].endpoint, "tcp://[::1]:7002", "full: IPv6 endpoint");
    is_str(t->nodes[2].id, "c.0_x-y", "full: every character a name may have");
    ok(t->nodes[1].line == 36 && t->nodes[1].column == 9, "full: b0 defined at 36:9");

    satin_link_def l = satin_topology_link(t, 0, 1);
    ok(near(l.latency_ms, 100) && near(l.bandwidth_kBps, 100) && near(l.jitter_ms, 1.5),
       "full: A -> B overridden; its jitter from wan");
    l = satin_topology_link(t, 1, 0);
    ok(l.from == 1 && l.to == 0 && near(l.latency_ms, 100) && near(l.bandwidth_kBps, 100),
       "full: B -> A set by both: true");
    l = satin_topology_link(t, 0, 2);
    ok(near(l.latency_ms, 20) && near(l.jitter_ms, 3) && near(l.bandwidth_kBps, 500),
       "full: A -> C overrides jitter only");
    l = satin_topology_link(t, 2, 0);
    ok(l.from == 2 && l.to == 0 && near(l.latency_ms, 20) && near(l.jitter_ms, 1.5) &&
           near(l.bandwidth_kBps, 500),
       "full: C -> A is the default (links are directed)");
    l = satin_topology_link(t, 0, 7);
    ok(near(l.latency_ms, 0) && near(l.bandwidth_kBps, 0), "full: out of range: no link");
    satin_topology_destroy(&t);
}

/* satind's --policy overrides the file's; a tunable the chosen policy does
 * not read is kept (one file serves every policy) and named in a note. */
static void test_policy_choice(void)
{
    static const char text[] = "grid: g\npolicy: crs\n"
                               "policy_params: {rp_threshold: 9, backoff_min_ms: 2}\n" ONE_NODE;
    char err[512] = "", note[128] = "x";
    satin_policy_config c;
    satin_topology *t = satin_topology_parse("n.yaml", text, strlen(text), err, sizeof err);
    if (!ok(t != NULL, "choice: parses")) {
        diag("%s", err);
        return;
    }
    ok(satin_policy_configure(t, NULL, &c, note, sizeof note, err, sizeof err) == 0 &&
           c.ops == &satin_policy_crs && c.params.rp_threshold == 9 &&
           c.params.backoff_min_ns == 2 * NS_PER_MS,
       "choice: the file's policy crs, both tunables kept");
    is_str(note, "rp_threshold", "choice: crs does not read rp_threshold");
    ok(satin_policy_configure(t, "rp", &c, note, sizeof note, err, sizeof err) == 0 &&
           c.ops == &satin_policy_rp && c.params.rp_threshold == 9,
       "choice: --policy rp overrides the file");
    is_str(note, "backoff_min_ms", "choice: rp does not read backoff_min_ms");
    ok(satin_policy_configure(t, "ws", &c, note, sizeof note, err, sizeof err) < 0,
       "choice: an unknown override is refused");
    is_str(err, "unknown policy 'ws' (expected rs, rp, chs, cls, crs, lifeline, cluster-lifeline)",
           "choice: its message");
    satin_topology_destroy(&t);
    satin_policy_params def;
    satin_policy_params_default(&def);
    ok(satin_policy_configure(NULL, NULL, &c, note, sizeof note, err, sizeof err) == 0 &&
           c.ops == &satin_policy_crs && memcmp(&c.params, &def, sizeof def) == 0 && !note[0],
       "choice: no topology: crs with the defaults");
}

/* Left out or null keys take their defaults. */
static void test_defaults(void)
{
    satin_policy_params def;
    char err[512] = "";
    satin_policy_params_default(&def);
    satin_topology *t = parse("grid: g\n"
                              "policy:\n"
                              "policy_params: ~\n"
                              "wan:\n"
                              "clusters:\n"
                              "  - name: A\n"
                              "    nodes:\n"
                              "      - id: a0\n"
                              "        endpoint: tcp://127.0.0.1:7101\n"
                              "        workers: null\n"
                              "...\n",
                              err, sizeof err);
    if (!ok(t != NULL, "a minimal file parses")) {
        diag("%s", err);
        return;
    }
    is_str(cfg.ops->name, "crs", "defaults: policy crs");
    is_i64(t->security_none, 0, "defaults: security curve");
    is_i64(t->emulate, 0, "defaults: emulate false");
    ok(memcmp(&cfg.params, &def, sizeof def) == 0, "defaults: policy parameters");
    ok(near(t->wan_default.latency_ms, 10) && near(t->wan_default.jitter_ms, 0) &&
           near(t->wan_default.bandwidth_kBps, 1000),
       "defaults: wan 10 ms, jitter 0, 1000 KByte/s");
    is_i64(t->nodes[0].workers, 0, "defaults: workers 0 (online CPUs)");
    satin_topology_destroy(&t);

    /* Only the one parameter given changes. */
    t = parse("grid: g\npolicy_params: {rp_threshold: 9}\n"
              "clusters: [{name: A, nodes: [{id: a0, endpoint: 'tcp://h:1'}]}]\n",
              err, sizeof err);
    ok(t && cfg.params.rp_threshold == 9 && cfg.params.backoff_max_ns == def.backoff_max_ns &&
           cfg.params.steal_max_jobs == def.steal_max_jobs,
       "defaults: one parameter overridden, flow style");
    satin_topology_destroy(&t);
}

static void test_bad(void)
{
    /* The schema's own examples. */
    bad("unknown key in a node",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
        "        endpoint: tcp://127.0.0.1:7101\n        workerz: 2\n",
        "bad.yaml:7:9: unknown key 'workerz' in a node "
        "(expected id, endpoint, client, workers, public_key, kinds_dir)");
    bad("workers not a number",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
        "        endpoint: tcp://127.0.0.1:7101\n        workers: two\n",
        "bad.yaml:7:18: 'workers' must be a whole number from 0 to 1024, not 'two'");
    bad("workers too many",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
        "        endpoint: tcp://127.0.0.1:7101\n        workers: 1025\n",
        "bad.yaml:7:18: 'workers' must be a whole number from 0 to 1024, not '1025'");
    bad("workers negative",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
        "        endpoint: tcp://127.0.0.1:7101\n        workers: -1\n",
        "bad.yaml:7:18: 'workers' must be a whole number from 0 to 1024, not '-1'");
    bad("workers not whole",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
        "        endpoint: tcp://127.0.0.1:7101\n        workers: 2.0\n",
        "bad.yaml:7:18: 'workers' must be a whole number from 0 to 1024, not '2.0'");
    bad("workers in hex",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
        "        endpoint: tcp://127.0.0.1:7101\n        workers: 0x10\n",
        "bad.yaml:7:18: 'workers' must be a whole number from 0 to 1024, not '0x10'");
    bad("workers a mapping",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
        "        endpoint: tcp://127.0.0.1:7101\n        workers: {n: 2}\n",
        "bad.yaml:7:18: 'workers' must be a whole number from 0 to 1024, not a mapping");
    bad("duplicate node id",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
        "        endpoint: tcp://127.0.0.1:7101\n      - id: a0\n"
        "        endpoint: tcp://127.0.0.1:7102\n",
        "bad.yaml:7:13: duplicate node id 'a0' (first defined at 5:9)");
    bad("node id in two clusters",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
        "        endpoint: tcp://127.0.0.1:7101\n  - name: B\n    nodes:\n      - id: a0\n"
        "        endpoint: tcp://127.0.0.1:7102\n",
        "bad.yaml:9:13: duplicate node id 'a0': node 'a0' is already in cluster A "
        "(first defined at 5:9)");
    bad("missing endpoint",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
        "        endpoint: tcp://127.0.0.1:7101\n      - id: a1\n        workers: 1\n",
        "bad.yaml:7:9: missing 'endpoint' in node 'a1' (expected tcp://HOST:PORT)");
    bad("unknown policy",
        "grid: g\npolicy: xyz\n" ONE_NODE,
        "bad.yaml:2:9: unknown policy 'xyz' (expected rs, rp, chs, cls, crs, lifeline, "
        "cluster-lifeline)");
    bad("duplicate endpoint",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
        "        endpoint: tcp://127.0.0.1:7101\n      - id: a1\n"
        "        endpoint: tcp://127.0.0.1:7101\n",
        "bad.yaml:8:19: duplicate endpoint 'tcp://127.0.0.1:7101': node 'a0' binds it already "
        "(at 5:9)");
    bad("duplicate cluster name",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
        "        endpoint: tcp://127.0.0.1:7101\n  - name: A\n    nodes:\n      - id: a1\n"
        "        endpoint: tcp://127.0.0.1:7102\n",
        "bad.yaml:7:11: duplicate cluster name 'A' (first defined at 3:11)");
    bad("link to an unknown cluster",
        TWO_CLUSTERS "wan:\n  links:\n    - {from: A, to: C}\n",
        "bad.yaml:13:21: unknown cluster 'C' in a link (expected one of A, B)");
    bad("link from an unknown cluster",
        TWO_CLUSTERS "wan:\n  links:\n    - from: X\n      to: A\n",
        "bad.yaml:13:13: unknown cluster 'X' in a link (expected one of A, B)");
    bad("link to itself",
        TWO_CLUSTERS "wan:\n  links:\n    - {from: A, to: A}\n",
        "bad.yaml:13:21: a link from cluster A to itself (expected two different clusters)");
    bad("link without to",
        TWO_CLUSTERS "wan:\n  links:\n    - {from: A, latency_ms: 5}\n",
        "bad.yaml:13:7: missing 'to' in a link (expected a cluster's name)");
    bad("duplicate link through both",
        TWO_CLUSTERS "wan:\n  links:\n    - {from: A, to: B, both: true}\n"
                     "    - {from: B, to: A, latency_ms: 50}\n",
        "bad.yaml:14:7: duplicate link B -> A (first defined at 13:7)");
    bad("negative latency",
        TWO_CLUSTERS "wan:\n  latency_ms: -5\n",
        "bad.yaml:12:15: 'latency_ms' must be a number of milliseconds from 0 to 60000, "
        "not '-5'");
    bad("negative latency in a link",
        TWO_CLUSTERS "wan:\n  links:\n    - {from: A, to: B, latency_ms: -0.5}\n",
        "bad.yaml:13:36: 'latency_ms' must be a number of milliseconds from 0 to 60000, "
        "not '-0.5'");
    bad("latency not a number",
        TWO_CLUSTERS "wan:\n  latency_ms: 10ms\n",
        "bad.yaml:12:15: 'latency_ms' must be a number of milliseconds from 0 to 60000, "
        "not '10ms'");
    bad("latency nan",
        TWO_CLUSTERS "wan:\n  jitter_ms: nan\n",
        "bad.yaml:12:14: 'jitter_ms' must be a number of milliseconds from 0 to 60000, "
        "not 'nan'");
    bad("bandwidth zero",
        TWO_CLUSTERS "wan:\n  bandwidth_kBps: 0\n",
        "bad.yaml:12:19: 'bandwidth_kBps' must be a number of KByte/s greater than 0 and at "
        "most 10000000, not '0'");
    bad("unknown key in wan",
        TWO_CLUSTERS "wan:\n  latency: 5\n",
        "bad.yaml:12:3: unknown key 'latency' in wan "
        "(expected latency_ms, jitter_ms, bandwidth_kBps, links, shim_host, shim_base_port)");
    bad("wan a sequence",
        TWO_CLUSTERS "wan: [10, 1000]\n",
        "bad.yaml:11:6: 'wan' must be a mapping with latency_ms, jitter_ms, bandwidth_kBps and "
        "links, not a sequence");
    bad("links a mapping",
        TWO_CLUSTERS "wan:\n  links: {from: A, to: B}\n",
        "bad.yaml:12:10: 'links' must be a sequence of links, not a mapping");
    bad("empty clusters", "grid: g\nclusters: []\n",
        "bad.yaml:2:11: 'clusters' is empty (expected at least one cluster)");
    bad("null clusters", "grid: g\nclusters:\n",
        "bad.yaml:2:10: 'clusters' is empty (expected at least one cluster)");
    bad("cluster without nodes",
        "grid: g\nclusters:\n  - name: A\n    nodes: []\n",
        "bad.yaml:4:12: cluster A has no nodes (expected at least one node in 'nodes')");
    bad("cluster without a nodes key", "grid: g\nclusters:\n  - name: A\n",
        "bad.yaml:3:5: missing 'nodes' in cluster A (expected at least one node)");
    bad("cluster without a name",
        "grid: g\nclusters:\n  - nodes:\n      - {id: a0, endpoint: 'tcp://h:1'}\n",
        "bad.yaml:3:5: missing 'name' in cluster number 1");
    bad("nodes a mapping",
        "grid: g\nclusters:\n  - name: A\n    nodes: {id: a0}\n",
        "bad.yaml:4:12: 'nodes' must be a sequence of nodes, not a mapping");
    bad("clusters a mapping",
        "grid: g\nclusters:\n  A: [a0]\n",
        "bad.yaml:3:3: 'clusters' must be a sequence of clusters, not a mapping");
    bad("a cluster as a scalar", "grid: g\nclusters:\n  - A\n",
        "bad.yaml:3:5: a cluster must be a mapping with name and nodes, not 'A'");
    bad("a node as a scalar", "grid: g\nclusters:\n  - name: A\n    nodes:\n      - a0\n",
        "bad.yaml:5:9: a node must be a mapping with id and endpoint, not 'a0'");
    bad("grid a sequence", "grid: [a, b]\nclusters: []\n",
        "bad.yaml:1:7: 'grid' must be a name of 1 to 63 characters from A-Z a-z 0-9 _ . -, "
        "not a sequence");
    bad("node id with a space",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: \"a 0\"\n"
        "        endpoint: tcp://127.0.0.1:7101\n",
        "bad.yaml:5:13: 'id' must be a name of 1 to 63 characters from A-Z a-z 0-9 _ . -, "
        "not 'a 0'");
    bad("node id too long",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n"
        "      - id: a234567890123456789012345678901234567890123456789012345678901234\n"
        "        endpoint: tcp://127.0.0.1:7101\n",
        "bad.yaml:5:13: 'id' must be a name of 1 to 63 characters from A-Z a-z 0-9 _ . -, "
        "not 'a234567890123456789012345678901234567890123456789012345678901234'");
    bad("missing id",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n      - endpoint: tcp://127.0.0.1:7101\n",
        "bad.yaml:5:9: missing 'id' in node 1 of cluster A");
    bad("missing grid", "clusters:\n  - name: A\n",
        "bad.yaml:1:1: missing 'grid' at the top level (the grid's name)");
    bad("missing clusters", "# comment\ngrid: g\npolicy: rs\n",
        "bad.yaml:2:1: missing 'clusters' at the top level (expected at least one cluster)");
    bad("unknown top-level key", "grid: g\ncluster: []\n",
        "bad.yaml:2:1: unknown key 'cluster' at the top level "
        "(expected grid, policy, policy_params, security, allow_insecure_network, keys, kinds_dir, "
        "clients, emulate, wan, failure_timeout, orphan_saving, clusters)");
    bad("duplicate key", "grid: g\npolicy: rs\ngrid: h\n",
        "bad.yaml:3:1: duplicate key 'grid' at the top level (first given at 1:1)");
    bad("a key that is a sequence", "grid: g\n? [a, b]\n: c\n",
        "bad.yaml:2:3: a key at the top level must be a plain name, not a sequence");
    bad("bad endpoint",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
        "        endpoint: 127.0.0.1:7101\n",
        "bad.yaml:6:19: 'endpoint' must be tcp://HOST:PORT with a host to connect to and a port "
        "from 1 to 65535, not '127.0.0.1:7101'");
    bad("endpoint port out of range",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
        "        endpoint: tcp://127.0.0.1:70000\n",
        "bad.yaml:6:19: 'endpoint' must be tcp://HOST:PORT with a host to connect to and a port "
        "from 1 to 65535, not 'tcp://127.0.0.1:70000'");
    bad("wildcard endpoint",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
        "        endpoint: tcp://*:7101\n",
        "bad.yaml:6:19: 'endpoint' must be tcp://HOST:PORT with a host to connect to and a port "
        "from 1 to 65535, not 'tcp://*:7101'");
    bad("bad client",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
        "        endpoint: tcp://127.0.0.1:7101\n        client: udp://x\n",
        "bad.yaml:7:17: 'client' must be ipc:///PATH, a path, or tcp://HOST:PORT, not 'udp://x'");
    bad("duplicate client",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
        "        endpoint: tcp://127.0.0.1:7101\n        client: /tmp/x.sock\n"
        "      - id: a1\n        endpoint: tcp://127.0.0.1:7102\n"
        "        client: ipc:///tmp/x.sock\n",
        "bad.yaml:10:17: duplicate client endpoint 'ipc:///tmp/x.sock': node 'a0' uses it "
        "already (at 5:9)");
    bad("bad public key",
        "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
        "        endpoint: tcp://127.0.0.1:7101\n        public_key: abc\n",
        "bad.yaml:7:21: 'public_key' must be a 40-character Z85 CURVE public key, not 'abc'");
    bad("unknown security",
        "grid: g\nsecurity: tls\n" ONE_NODE,
        "bad.yaml:2:11: unknown security 'tls' (expected none, curve)");
    bad("emulate not a boolean",
        "grid: g\nemulate: perhaps\n" ONE_NODE,
        "bad.yaml:2:10: 'emulate' must be true or false, not 'perhaps'");
    bad("policy a mapping",
        "grid: g\npolicy: {name: rs}\n" ONE_NODE,
        "bad.yaml:2:9: 'policy' must be one of rs, rp, chs, cls, crs, lifeline, cluster-lifeline, "
        "not a mapping");
    /* The policy keys are the registry's to check, once the file as a whole has loaded:
     * these documents are otherwise complete. */
    bad("unknown policy parameter",
        "grid: g\npolicy_params:\n  steal_max: 2\n" ONE_NODE,
        "bad.yaml:3:3: unknown key 'steal_max' in policy_params (expected backoff_min_ms, "
        "backoff_max_ms, steal_max_jobs, rp_threshold, rp_max_in_transit, "
        "cls_load_interval_ms, cls_threshold, lifeline_w, lifeline_z, wan_lifelines, "
        "wan_lifeline_jobs, wan_lifeline_queue)");
    bad("policy_params a scalar", "grid: g\npolicy_params: fast\n",
        "bad.yaml:2:16: 'policy_params' must be a mapping of policy parameters, not 'fast'");
    bad("backoff not a number", "grid: g\npolicy_params:\n  backoff_min_ms: 1,5\n" ONE_NODE,
        "bad.yaml:3:19: 'backoff_min_ms' must be a number of milliseconds greater than 0 and at "
        "most 60000, not '1,5'");
    bad("backoff max below min",
        "grid: g\npolicy_params:\n  backoff_min_ms: 20\n  backoff_max_ms: 10\n" ONE_NODE,
        "bad.yaml:4:19: 'backoff_max_ms' (10) must not be less than 'backoff_min_ms' (20)");
    bad("steal_max_jobs zero", "grid: g\npolicy_params: {steal_max_jobs: 0}\n" ONE_NODE,
        "bad.yaml:2:33: 'steal_max_jobs' must be a whole number from 1 to 1024, not '0'");
    bad("lifeline_z too many dimensions", "grid: g\npolicy_params:\n  lifeline_z: 31\n" ONE_NODE,
        "bad.yaml:3:15: 'lifeline_z' must be a whole number from 0 to 30, not '31'");
    bad("wan_lifelines zero",
        "grid: g\npolicy: cluster-lifeline\npolicy_params: {wan_lifelines: 0}\n" ONE_NODE,
        "bad.yaml:3:32: 'wan_lifelines' must be a whole number from 1 to 8, not '0'");
    bad("wan_lifeline_jobs too many",
        "grid: g\npolicy_params: {wan_lifeline_jobs: 1025}\n" ONE_NODE,
        "bad.yaml:2:36: 'wan_lifeline_jobs' must be a whole number from 1 to 1024, not '1025'");
    bad("lifeline_w a fraction", "grid: g\npolicy_params:\n  lifeline_w: 1.5\n" ONE_NODE,
        "bad.yaml:3:15: 'lifeline_w' must be a whole number from 0 to 1000000, not '1.5'");
    bad("root a sequence", "- grid\n- clusters\n",
        "bad.yaml:1:1: the document must be a mapping with grid and clusters, not a sequence");
    bad("empty text", "",
        "bad.yaml:1:1: the file is empty (expected a mapping with grid and clusters)");
    bad("only comments", "# nothing here\n",
        "bad.yaml:1:1: the file is empty (expected a mapping with grid and clusters)");
    bad("two documents",
        "grid: g\nclusters: [{name: A, nodes: [{id: a0, endpoint: 'tcp://h:1'}]}]\n---\n"
        "grid: h\n",
        "bad.yaml:3:1: a second YAML document (expected one document only)");
    bad("alias to itself", "grid: g\nclusters: &c [*c]\n",
        "bad.yaml:2:11: a cluster must be a mapping with name and nodes, not a sequence");
    bad_like("YAML syntax error: mapping value", "grid: g: h\n", "bad.yaml:1:8: ",
             "YAML syntax error: mapping values are not allowed in this context");
    bad_like("YAML syntax error: unclosed flow", "grid: g\nclusters: [\n  {name: A\n",
             "bad.yaml:4:1: ",
             "YAML syntax error: did not find expected ',' or '}' (while parsing a flow mapping "
             "at 3:3)");
    bad_like("YAML syntax error: bad indentation",
             "grid: g\nclusters:\n  - name: A\n   nodes: []\n", "bad.yaml:4:4: ",
             "YAML syntax error: ");
    bad_like("YAML syntax error: undefined alias", "grid: *nothing\n", "bad.yaml:1:7: ",
             "YAML syntax error: found undefined alias");
    bad_like("invalid UTF-8", "grid: g\xff\n", "bad.yaml:1:", "YAML syntax error: ");

    /* A file that is not there. */
    char err[512] = "";
    satin_topology *t = load("etc/no-such-file.yaml", err, sizeof err);
    ok(t == NULL, "a missing file is refused");
    is_str(err, "etc/no-such-file.yaml: cannot open: No such file or directory",
           "a missing file: message");
    t = satin_topology_load("etc", err, sizeof err);
    ok(t == NULL && strncmp(err, "etc: cannot read: ", 18) == 0, "a directory is refused");

    /* A short buffer is filled, never overrun; no buffer at all is fine. */
    char small[16];
    memset(small, 'x', sizeof small);
    t = parse("grid: [a]\n", small, 12);
    ok(t == NULL && strlen(small) == 11 && small[12] == 'x' && small[15] == 'x',
       "a short error buffer is truncated, not overrun");
    t = parse("grid: [a]\n", NULL, 0);
    ok(t == NULL, "no error buffer");
}

/* The shim's addressing: wan.shim_host and wan.shim_base_port, the relay
 * ports, the endpoints peers connect to, and the checks made at load time. */
static void test_shim(void)
{
    char err[512] = "", ep[SATIN_ENDPOINT_MAX];
    satin_topology *t = parse(TWO_CLUSTERS, err, sizeof err);
    if (!ok(t != NULL, "shim: two clusters parse")) {
        diag("%s", err);
        return;
    }
    is_str(t->shim_host, "127.0.0.1", "shim: default host 127.0.0.1");
    is_i64(t->shim_base_port, 20000, "shim: default base port 20000");
    is_i64(satin_topology_shim_port(t, 0, 1), 20001, "shim: A -> b0 is base + 0 * 2 + 1");
    is_i64(satin_topology_shim_port(t, 1, 0), 20002, "shim: B -> a0 is base + 1 * 2 + 0");
    is_i64(satin_topology_shim_port(t, 2, 0), -1, "shim: no cluster 2");
    is_i64(satin_topology_shim_port(t, 0, 2), -1, "shim: no node 2");
    satin_topology_peer_endpoint(t, 0, 1, ep, sizeof ep);
    is_str(ep, "tcp://127.0.0.1:7102", "shim: not emulated: the node's own endpoint");
    satin_topology_destroy(&t);

    t = parse(TWO_CLUSTERS "emulate: true\n"
                           "wan: {shim_host: localhost, shim_base_port: 30000}\n",
              err, sizeof err);
    if (!ok(t != NULL, "shim: emulated with shim_host and shim_base_port parses")) {
        diag("%s", err);
        return;
    }
    is_str(t->shim_host, "localhost", "shim: shim_host");
    is_i64(t->shim_base_port, 30000, "shim: shim_base_port");
    satin_topology_peer_endpoint(t, 0, 1, ep, sizeof ep);
    is_str(ep, "tcp://localhost:30001", "shim: a0 -> b0 through the relay");
    satin_topology_peer_endpoint(t, 1, 0, ep, sizeof ep);
    is_str(ep, "tcp://localhost:30002", "shim: b0 -> a0 through the relay");
    satin_topology_peer_endpoint(t, 0, 0, ep, sizeof ep);
    is_str(ep, "tcp://127.0.0.1:7101", "shim: inside a cluster: the node's own endpoint");
    satin_topology_peer_endpoint(t, 0, 5, ep, sizeof ep);
    is_str(ep, "", "shim: no node 5: empty");
    satin_topology_destroy(&t);

    /* Relay slots inside a cluster are unused, so a node may sit on one. */
    t = parse(TWO_CLUSTERS "emulate: true\nwan: {shim_base_port: 7098}\n", err, sizeof err);
    ok(t != NULL, "shim: a node port on an unused relay slot (B -> b0 at 7101) is fine");
    if (!t)
        diag("%s", err);
    satin_topology_destroy(&t);
    t = parse(TWO_CLUSTERS "emulate: false\nwan: {shim_base_port: 7100}\n", err, sizeof err);
    ok(t != NULL, "shim: collisions do not matter when not emulated");
    satin_topology_destroy(&t);
    t = parse(TWO_CLUSTERS "emulate: true\nwan: {shim_host: 10.1.1.1, shim_base_port: 7100}\n",
              err, sizeof err);
    ok(t != NULL, "shim: the same port on another host is fine");
    satin_topology_destroy(&t);

    bad("relay port is a node's port",
        TWO_CLUSTERS "emulate: true\nwan:\n  shim_base_port: 7100\n",
        "bad.yaml:13:19: relay port 7101 (from cluster A to node b0) is also the peer endpoint "
        "of node 'a0' (tcp://127.0.0.1:7101, at 5:9); expected shim_base_port or shim_host to "
        "keep the relay ports clear of the nodes' ports");
    bad("relay port collision reported at emulate when the port is the default",
        "grid: g\nemulate: true\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
        "        endpoint: tcp://127.0.0.1:20002\n  - name: B\n    nodes:\n      - id: b0\n"
        "        endpoint: tcp://127.0.0.1:7102\n",
        "bad.yaml:2:10: relay port 20002 (from cluster B to node a0) is also the peer endpoint "
        "of node 'a0' (tcp://127.0.0.1:20002, at 6:9); expected shim_base_port or shim_host to "
        "keep the relay ports clear of the nodes' ports");
    bad("relay ports past 65535",
        TWO_CLUSTERS "emulate: true\nwan: {shim_base_port: 65534}\n",
        "bad.yaml:12:23: relay ports run past 65535: shim_base_port 65534 with 2 clusters of 2 "
        "nodes in all needs ports up to 65536 (expected a lower shim_base_port)");
    bad("shim_base_port out of range",
        TWO_CLUSTERS "wan: {shim_base_port: 70000}\n",
        "bad.yaml:11:23: 'shim_base_port' must be a whole number from 1 to 65535, not '70000'");
    bad("shim_host a wildcard",
        TWO_CLUSTERS "wan: {shim_host: '*'}\n",
        "bad.yaml:11:18: 'shim_host' must be a host name, an IPv4 address or a bracketed IPv6 "
        "address to connect to, not '*'");
    bad("shim_host with a port",
        TWO_CLUSTERS "wan: {shim_host: 'h:1'}\n",
        "bad.yaml:11:18: 'shim_host' must be a host name, an IPv4 address or a bracketed IPv6 "
        "address to connect to, not 'h:1'");
}

#define KEY_A "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"
#define KEY_B "AAdhnBhQ.A=[r?9bd^4DcYMV/f<3OV-m^tJAQYUA"

/* keys:, clients:, and the CURVE checks of satin_topology_check_keys. */
static void test_security(void)
{
    char err[512] = "";
    static const char text[] =
        "grid: g\n"
        "keys: secrets\n"
        "clients:\n"
        "  - {name: alice, public_key: \"" KEY_B "\"}\n"
        "  - name: bob\n"
        "    public_key: \"" KEY_A "\"\n"
        "    admin: true\n"
        "clusters:\n"
        "  - name: A\n"
        "    nodes:\n"
        "      - {id: a0, endpoint: 'tcp://h:1', public_key: \"" KEY_A "\"}\n"
        "      - {id: a1, endpoint: 'tcp://h:2'}\n";
    satin_topology *t = satin_topology_parse("etc/grid.yaml", text, strlen(text), err, sizeof err);
    if (!ok(t != NULL, "security: keys and clients parse")) {
        diag("%s", err);
        return;
    }
    is_str(t->keys_dir, "etc/secrets", "security: keys is relative to the file's directory");
    is_i64(t->nclients, 2, "security: two clients");
    is_str(t->clients[1].name, "bob", "security: client names in order");
    ok(!t->clients[0].admin && t->clients[1].admin, "security: admin: true makes bob an admin");
    is_i64(satin_topology_client_of_key(t, KEY_B), 0, "security: alice's key is client 0");
    is_i64(satin_topology_node_of_key(t, KEY_A), 0, "security: node a0 has KEY_A");
    is_i64(satin_topology_node_of_key(t, KEY_B), -1, "security: a client key is no node's");
    ok(satin_topology_check_keys(t, err, sizeof err) < 0 &&
           strcmp(err, "etc/grid.yaml:12:9: node a1 has no public_key, and security is curve "
                       "(the default): run 'satin-keygen a1' and add the key it prints, or say "
                       "'security: none' for a plain-text grid") == 0,
       "security: a node without a key under curve, with its line and column");
    snprintf(t->nodes[1].public_key, sizeof t->nodes[1].public_key, "%s", KEY_A);
    ok(satin_topology_check_keys(t, err, sizeof err) < 0 &&
           strstr(err, "node a1 has the same public_key as node a0"),
       "security: two nodes with one key are refused");
    snprintf(t->nodes[1].public_key, sizeof t->nodes[1].public_key, "%s", KEY_B);
    is_i64(satin_topology_check_keys(t, err, sizeof err), 0, "security: every node keyed: ok");
    t->security_none = 1;
    t->nodes[1].public_key[0] = 0;
    is_i64(satin_topology_check_keys(t, err, sizeof err), 0, "security: none needs no keys");
    satin_topology_destroy(&t);

    t = parse("grid: g\nkeys: /var/lib/satin/keys\n" ONE_NODE, err, sizeof err);
    ok(t && strcmp(t->keys_dir, "/var/lib/satin/keys") == 0, "security: an absolute keys path");
    satin_topology_destroy(&t);

    bad("client without a key", "grid: g\nclients: [{name: c}]\n" ONE_NODE,
        "bad.yaml:2:11: missing 'public_key' in client 'c'");
    bad("client with a bad key", "grid: g\nclients: [{name: c, public_key: xyz}]\n" ONE_NODE,
        "bad.yaml:2:33: 'public_key' must be a 40-character Z85 CURVE public key, not 'xyz'");
    bad("duplicate client", "grid: g\nclients: [{name: c, public_key: \"" KEY_A "\"}, "
        "{name: c, public_key: \"" KEY_B "\"}]\n" ONE_NODE,
        "bad.yaml:2:78: duplicate client name 'c'");
    bad("unknown key in a client", "grid: g\nclients: [{name: c, key: 1}]\n" ONE_NODE,
        "bad.yaml:2:21: unknown key 'key' in a client (expected name, public_key, admin)");
    bad("admin not a boolean", "grid: g\nclients: [{name: c, public_key: \"" KEY_A "\", admin: 2}]\n"
        ONE_NODE, "bad.yaml:2:84: 'admin' must be true or false, not '2'");
    bad("clients not a sequence", "grid: g\nclients: alice\n" ONE_NODE,
        "bad.yaml:2:10: 'clients' must be a sequence of {name, public_key}, not 'alice'");
    bad("empty keys", "grid: g\nkeys: ''\n" ONE_NODE,
        "bad.yaml:2:7: 'keys' must be a directory, not an empty string");

    /* kinds_dir: the grid's, and a node's own over it, both relative to
     * the file's directory. */
    static const char kinds[] =
        "grid: g\n"
        "kinds_dir: kinds\n"
        "clusters:\n"
        "  - name: A\n"
        "    nodes:\n"
        "      - {id: a0, endpoint: 'tcp://h:1'}\n"
        "      - {id: a1, endpoint: 'tcp://h:2', kinds_dir: /opt/next/kinds}\n"
        "      - {id: a2, endpoint: 'tcp://h:3', kinds_dir: next}\n";
    t = satin_topology_parse("etc/grid.yaml", kinds, strlen(kinds), err, sizeof err);
    if (ok(t != NULL, "kinds_dir: the grid's and nodes' parse")) {
        is_str(t->kinds_dir, "etc/kinds", "kinds_dir: the grid's, relative to the file");
        is_str(t->nodes[0].kinds_dir, "", "kinds_dir: a node without one has none of its own");
        is_str(t->nodes[1].kinds_dir, "/opt/next/kinds", "kinds_dir: a node's own, absolute");
        is_str(t->nodes[2].kinds_dir, "etc/next", "kinds_dir: a node's own, relative to the file");
    } else {
        diag("%s", err);
    }
    satin_topology_destroy(&t);
    bad("empty node kinds_dir",
        "grid: g\nclusters: [{name: A, nodes: [{id: a0, endpoint: 'tcp://h:1', kinds_dir: ''}]}]\n",
        "bad.yaml:2:73: 'kinds_dir' must be a directory, not an empty string");
}

/* security: none is for loopback, or a network the file declares closed. */
static void test_insecure_network(void)
{
    static const char *const local[] = {"tcp://127.0.0.1:7000", "tcp://127.3.2.1:7000",
                                        "tcp://localhost:7000", "tcp://[::1]:7000"};
    char text[512], err[512];
    for (size_t i = 0; i < sizeof local / sizeof local[0]; i++) {
        snprintf(text, sizeof text,
                 "grid: g\nsecurity: none\nclusters: [{name: A, nodes: [{id: a0, endpoint: '%s'}]}]\n",
                 local[i]);
        satin_topology *t = parse(text, err, sizeof err);
        if (!ok(t != NULL, "security none on loopback %s: accepted", local[i]))
            diag("%s", err);
        satin_topology_destroy(&t);
    }
    const char *why = "is not a loopback address, and security is none: anyone who can reach "
                      "it could steal work and push records to run; use security: curve, or say "
                      "'allow_insecure_network: true' if the network is closed to strangers";
    snprintf(text, sizeof text, "bad.yaml:4:42: endpoint tcp://10.0.0.5:7000 %s", why);
    bad("security none on a LAN address",
        "grid: g\nsecurity: none\nclusters:\n  - {name: A, nodes: [{id: a0, endpoint: 'tcp://10.0.0.5:7000'}]}\n",
        text);
    snprintf(text, sizeof text, "bad.yaml:3:49: endpoint tcp://127.example.org:7000 %s", why);
    bad("security none on a name that only starts like loopback",
        "grid: g\nsecurity: none\nclusters: [{name: A, nodes: [{id: a0, endpoint: 'tcp://127.example.org:7000'}]}]\n",
        text);
    snprintf(text, sizeof text, "bad.yaml:4:18: shim_host 192.168.1.9 %s", why);
    bad("security none with a remote shim",
        "grid: g\nsecurity: none\nemulate: true\nwan: {shim_host: 192.168.1.9}\n"
        "clusters: [{name: A, nodes: [{id: a0, endpoint: 'tcp://127.0.0.1:7000'}]},\n"
        "           {name: B, nodes: [{id: b0, endpoint: 'tcp://127.0.0.1:7001'}]}]\n",
        text);
    const char *lan = "grid: g\nsecurity: none\nallow_insecure_network: true\n"
                      "clusters: [{name: A, nodes: [{id: a0, endpoint: 'tcp://10.0.0.5:7000'}]}]\n";
    satin_topology *t = parse(lan, err, sizeof err);
    if (ok(t != NULL, "allow_insecure_network: true lets security none use a LAN address"))
        is_i64(t->allow_insecure_network, 1, "and is recorded");
    else
        diag("%s", err);
    satin_topology_destroy(&t);
    bad("allow_insecure_network under curve",
        "grid: g\nallow_insecure_network: true\n" ONE_NODE,
        "bad.yaml:2:25: 'allow_insecure_network' applies only to security: none (curve "
        "authenticates every peer)");
    bad("allow_insecure_network not a boolean",
        "grid: g\nsecurity: none\nallow_insecure_network: maybe\n" ONE_NODE,
        "bad.yaml:3:25: 'allow_insecure_network' must be true or false, not 'maybe'");
}

/* The membership digest of `text` in hex (all 32 bytes), "" if it does not parse. */
static void digest_of(const char *text, char hex[65])
{
    char err[512];
    unsigned char d[SATIN_TOPOLOGY_DIGEST_SIZE];
    satin_topology *t = parse(text, err, sizeof err);
    hex[0] = 0;
    if (!t) {
        diag("%s", err);
        return;
    }
    satin_topology_digest(t, d);
    for (int i = 0; i < SATIN_TOPOLOGY_DIGEST_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    satin_topology_destroy(&t);
}

static void test_digest(void)
{
    char base[65], other[65];
    /* Computed apart from the code, from PROTOCOL.md 14.2's layout. */
    digest_of(TWO_CLUSTERS, base);
    is_str(base, "db0cf9980d9c06e5e4146cd2179caa6afb9099225cbeee9d89a83baed2b39841",
           "digest: the documented SHA-256 of the membership");
    digest_of(TWO_CLUSTERS "policy: crs\nsecurity: none\n", other);
    is_str(other, base, "digest: policy and security are not membership");
    digest_of(TWO_CLUSTERS "      - id: b1\n        endpoint: tcp://127.0.0.1:7103\n", other);
    ok(strcmp(other, base) != 0, "digest: one more node changes it");
    digest_of("grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
              "        endpoint: tcp://127.0.0.1:7101\n  - name: B\n    nodes:\n"
              "      - id: b0\n        endpoint: tcp://127.0.0.1:7109\n",
              other);
    ok(strcmp(other, base) != 0, "digest: another endpoint changes it");
    digest_of("grid: g\nclusters:\n  - name: B\n    nodes:\n      - id: b0\n"
              "        endpoint: tcp://127.0.0.1:7102\n  - name: A\n    nodes:\n"
              "      - id: a0\n        endpoint: tcp://127.0.0.1:7101\n",
              other);
    ok(strcmp(other, base) != 0, "digest: the same nodes in another order (other indexes) change it");
    unsigned char d[SATIN_TOPOLOGY_DIGEST_SIZE] = {0xdb, 0x0c, 0xf9, 0x98, 0x0d, 0x9c, 0x06};
    char shortd[16];
    satin_topology_digest_hex(d, shortd, sizeof shortd);
    is_str(shortd, "db0cf9980d9c", "digest: log form is its first 6 bytes in hex");
}

/* The lines satin_topology_membership_diff says for old -> new, joined by
 * "; ", and its count. */
static void join_line(void *ctx, const char *line)
{
    char *buf = ctx;
    if (buf[0])
        strncat(buf, "; ", 1023 - strlen(buf));
    strncat(buf, line, 1023 - strlen(buf));
}

static int diff_of(const char *old_text, const char *new_text, char buf[1024])
{
    char err[512];
    buf[0] = 0;
    satin_topology *a = parse(old_text, err, sizeof err);
    satin_topology *b = parse(new_text, err, sizeof err);
    int n = -1;
    if (a && b)
        n = satin_topology_membership_diff(a, b, join_line, buf);
    else
        diag("%s", err);
    satin_topology_destroy(&a);
    satin_topology_destroy(&b);
    return n;
}

static void test_membership_diff(void)
{
    char got[1024];
    is_i64(diff_of(TWO_CLUSTERS, TWO_CLUSTERS "policy: crs\n", got), 0,
           "diff: policy is not membership");
    is_str(got, "", "diff: nothing said");
    is_i64(diff_of(TWO_CLUSTERS,
                   TWO_CLUSTERS "      - id: b1\n        endpoint: tcp://127.0.0.1:7103\n", got),
           1, "diff: a node added at the end");
    is_str(got, "node b1 added (cluster B, tcp://127.0.0.1:7103)", "diff: named with its place");
    is_i64(diff_of(TWO_CLUSTERS "      - id: b1\n        endpoint: tcp://127.0.0.1:7103\n",
                   TWO_CLUSTERS, got),
           1, "diff: a node removed");
    is_str(got, "node b1 removed (was in cluster B)", "diff: named");
    /* a1 added first in the file: b0 moves from index 1 to 2. */
    is_i64(diff_of(TWO_CLUSTERS,
                   "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
                   "        endpoint: tcp://127.0.0.1:7101\n      - id: a1\n"
                   "        endpoint: tcp://127.0.0.1:7104\n  - name: B\n    nodes:\n"
                   "      - id: b0\n        endpoint: tcp://127.0.0.1:7109\n",
                   got),
           3, "diff: added, endpoint changed, indexes moved");
    is_str(got,
           "node a1 added (cluster A, tcp://127.0.0.1:7104); "
           "node b0: endpoint tcp://127.0.0.1:7102 -> tcp://127.0.0.1:7109; "
           "1 node(s) change their index, the id the wire knows them by (first: b0, 1 -> 2)",
           "diff: each said once, in that order");
    is_i64(diff_of(TWO_CLUSTERS,
                   "grid: h\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
                   "        endpoint: tcp://127.0.0.1:7101\n      - id: b0\n"
                   "        endpoint: tcp://127.0.0.1:7102\n",
                   got),
           2, "diff: another grid name, a node moved to another cluster");
    is_str(got, "grid name 'g' -> 'h'; node b0 moved from cluster B to A",
           "diff: both said (b0 keeps index 1)");
    is_i64(diff_of(TWO_CLUSTERS,
                   "grid: g\nclusters:\n  - name: A\n    nodes:\n      - id: a0\n"
                   "        endpoint: tcp://127.0.0.1:7101\n  - name: C\n    nodes:\n"
                   "      - id: b0\n        endpoint: tcp://127.0.0.1:7102\n",
                   got),
           1, "diff: a cluster renamed");
    is_str(got, "node b0 moved from cluster B to C", "diff: as its node's move");
}

int main(void)
{
    test_digest();
    test_membership_diff();
    test_security();
    test_insecure_network();
    test_local_2x2();
    test_single_4();
    test_policy_choice();
    test_das_4x16();
    test_full();
    test_defaults();
    test_bad();
    test_shim();
    return done_testing();
}
