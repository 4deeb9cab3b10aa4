/*
 * test_replay.c - tracing job trees and replaying them.
 *
 *   - the recorder on a tree built with scripted times: exact nodes, self
 *     times and coarsening (online and offline alike), the cut-off for a
 *     number of leaves, the microsecond rounding, its limits;
 *   - traced runs of real kinds: fib (every call a node: the tree of the
 *     recursion, with and without a threshold) and nqueens (the backtracking
 *     tree, counted here independently), and coarsening a real tree;
 *   - the replay kind on those trees and on hand-written files, on one and
 *     two workers: exact node and leaf counts and sums of self times and of
 *     scaled waits; leaves that really wait;
 *   - malformed files rejected with the file and line named; bad parameters;
 *     a node whose file differs from the one submitted.
 */
#include "apps.h"
#include "kinds.h"
#include "replay_cache.h"
#include "replay_tree.h"
#include "trace.h"
#include "../tap.h"

#define KIND_UNDER_TEST "replay"
#include "kind_kit.h"

#include <dirent.h>
#include <stdint.h>
#include <unistd.h>

static char dir[256];

static const char *tmp_path(const char *name)
{
    static char path[8][320];
    static int next;
    char *p = path[next++ % 8];
    snprintf(p, sizeof path[0], "%s/%s", dir, name);
    return p;
}

static const char *write_file(const char *name, const char *text)
{
    const char *p = tmp_path(name);
    FILE *f = fopen(p, "w");
    if (!f) {
        ok(0, "cannot write %s", p);
        return p;
    }
    fputs(text, f);
    fclose(f);
    return p;
}

/* ---- the recorder on a constructed tree ------------------------------------ */

/* Times in ns.  Pre-order, uncoarsened (total, self):
 *   R [0, 1000]        1000, 35
 *     A [10, 400]       390, 30
 *       A1 [20, 120]    100, 100
 *       A2 [130, 390]   260, 30
 *         A2a [140, 200] 60, 60
 *         A2b [210, 380] 170, 170
 *     B [410, 415]        5, 2
 *       B1 [411, 414]     3, 3
 *     C [420, 990]      570, 570 */
static void record_example(satin_trace_tree *t, int64_t cut)
{
    static const struct {
        int begin;
        int64_t at;
    } ev[] = {
        {1, 0},   {1, 10},  {1, 20},  {0, 120}, {1, 130}, {1, 140}, {0, 200}, {1, 210},
        {0, 380}, {0, 390}, {0, 400}, {1, 410}, {1, 411}, {0, 414}, {0, 415}, {1, 420},
        {0, 990}, {0, 1000},
    };
    satin_trace_tree_init(t, cut, 0);
    for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++) {
        if (ev[i].begin)
            satin_trace_tree_begin(t, ev[i].at);
        else
            satin_trace_tree_end(t, ev[i].at);
    }
}

typedef struct want_node {
    int32_t parent;
    uint32_t nchildren;
    int64_t self_ns;
} want_node;

static void is_tree(const satin_trace_tree *t, const want_node *w, size_t n, const char *what)
{
    int same = t->n == n;
    for (size_t i = 0; same && i < n; i++)
        same = t->node[i].parent == w[i].parent && t->node[i].nchildren == w[i].nchildren &&
               t->node[i].self_ns == w[i].self_ns;
    if (!ok(same, "%s: %zu nodes, parents, child counts and self times exact", what, n))
        for (size_t i = 0; i < t->n; i++)
            diag("  node %zu: parent %d, %u children, self %lld", i, (int)t->node[i].parent,
                 (unsigned)t->node[i].nchildren, (long long)t->node[i].self_ns);
}

static void check_recorder(void)
{
    static const want_node full[] = {
        {-1, 3, 35}, {0, 2, 30}, {1, 0, 100}, {1, 2, 30}, {3, 0, 60},
        {3, 0, 170}, {0, 1, 2},  {6, 0, 3},   {0, 0, 570},
    };
    static const want_node at300[] = {
        {-1, 3, 35}, {0, 2, 30}, {1, 0, 100}, {1, 0, 260}, {0, 0, 5}, {0, 0, 570},
    };
    satin_trace_tree t, c;
    record_example(&t, 0);
    is_str(t.error, "", "no error");
    is_tree(&t, full, 9, "cut-off 0: every invocation is a node");
    is_i64(t.jobs, 9, "9 invocations seen");
    satin_trace_stats s;
    satin_trace_tree_stats(&t, &s);
    ok(s.nodes == 9 && s.leaves == 5 && s.depth == 3 && s.total_ns == 1000 && s.max_leaf_ns == 570,
       "stats: 9 nodes, 5 leaves, depth 3, total 1000 ns (the root's wall time), longest leaf 570");

    satin_trace_tree_free(&t);
    record_example(&t, 300);
    is_tree(&t, at300, 6,
            "cut-off 300 ns while recording: A2 (260) and B (5) become leaves carrying their "
            "totals, A (390) keeps its children");
    satin_trace_tree_stats(&t, &s);
    ok(s.leaves == 4 && s.depth == 2 && s.total_ns == 1000, "coarsened: 4 leaves, depth 2, total kept");
    is_i64(t.peak, 6, "at most 6 nodes were held at once (R, A, A1, A2 and its two children, before A2 folded)");

    satin_trace_tree full_t;
    record_example(&full_t, 0);
    satin_trace_tree_coarsen(&full_t, 300, &c);
    is_tree(&c, at300, 6, "coarsening the full tree afterwards at 300 gives the same tree");
    satin_trace_tree_free(&c);
    satin_trace_tree_coarsen(&full_t, 6, &c);
    static const want_node at6[] = {
        {-1, 3, 35}, {0, 2, 30}, {1, 0, 100}, {1, 2, 30}, {3, 0, 60},
        {3, 0, 170}, {0, 0, 5},  {0, 0, 570},
    };
    is_tree(&c, at6, 8, "cut-off 6: only B (5) folds its child");
    satin_trace_tree_free(&c);
    satin_trace_tree_coarsen(&full_t, 1001, &c);
    static const want_node all[] = {{-1, 0, 1000}};
    is_tree(&c, all, 1, "cut-off above the total: one leaf of 1000");
    satin_trace_tree_free(&c);

    is_i64(satin_trace_tree_cutoff_for(&full_t, 5), 0, "5 leaves wanted, 5 there: no cut-off");
    is_i64(satin_trace_tree_cutoff_for(&full_t, 4), 390,
           "4 leaves: the largest cut-off keeping 4 is 390 (A, total 390, stays inner)");
    is_i64(satin_trace_tree_cutoff_for(&full_t, 3), 1000, "3 leaves: up to the root's 1000");
    is_i64(satin_trace_tree_cutoff_for(&full_t, 1), 1001, "1 leaf: the whole tree");
    satin_trace_tree_free(&full_t);
    satin_trace_tree_free(&t);

    /* Rounding: prefix sums rounded, so the microseconds add up. */
    satin_trace_tree r;
    satin_trace_tree_init(&r, 0, 0);
    satin_trace_tree_begin(&r, 0);
    satin_trace_tree_begin(&r, 1400);
    satin_trace_tree_end(&r, 2800);
    satin_trace_tree_begin(&r, 2800);
    satin_trace_tree_end(&r, 4200);
    satin_trace_tree_end(&r, 4200);
    int64_t us[3];
    satin_trace_tree_self_us(&r, us);
    ok(us[0] == 1 && us[1] == 2 && us[2] == 1,
       "self times of 1.4 us each become 1, 2, 1 us: sums 1, 3, 4 = round(1.4, 2.8, 4.2) "
       "(got %lld %lld %lld)", (long long)us[0], (long long)us[1], (long long)us[2]);
    satin_trace_tree_free(&r);

    /* A clock that goes backwards cannot make time negative. */
    satin_trace_tree_init(&r, 0, 0);
    satin_trace_tree_begin(&r, 100);
    satin_trace_tree_begin(&r, 110);
    satin_trace_tree_end(&r, 150);
    satin_trace_tree_end(&r, 120);
    ok(r.node[0].self_ns == 0 && r.node[1].self_ns == 40,
       "a parent that 'ends' inside its child's time gets self time 0, total kept (40)");
    satin_trace_tree_free(&r);

    /* Limits. */
    satin_trace_tree_init(&r, 0, 3);
    int rc = 0;
    for (int i = 0; i < 4 && rc == 0; i++)
        rc = satin_trace_tree_begin(&r, i);
    ok(rc < 0 && strstr(r.error, "more than 3 nodes held at once"),
       "a fourth node over a limit of 3 fails: '%s'", r.error);
    ok(satin_trace_tree_begin(&r, 9) < 0, "and every later begin fails");
    satin_trace_tree_free(&r);
    satin_trace_tree_init(&r, 0, 0);
    satin_trace_tree_begin(&r, 0);
    satin_trace_tree_end(&r, 1);
    ok(satin_trace_tree_begin(&r, 2) < 0 && strstr(r.error, "second root"),
       "a second root is refused: '%s'", r.error);
    satin_trace_tree_free(&r);
}

/* ---- traced runs of real kinds ---------------------------------------------- */

static int64_t fib_calls(int n, int threshold)
{
    if (n < 2 || n < threshold)
        return 1;
    return 1 + fib_calls(n - 1, threshold) + fib_calls(n - 2, threshold);
}

/* Walks a recorded fib tree in pre-order against the recursion: node with
 * argument n has children n-1 and n-2 exactly when the kind spawns. */
static size_t fib_shape_ok(const satin_trace_tree *t, size_t i, int n, int threshold, int *good)
{
    if (i >= t->n) {
        *good = 0;
        return i;
    }
    int spawns = !(n < 2 || n < threshold);
    if (t->node[i].nchildren != (spawns ? 2u : 0u))
        *good = 0;
    size_t next = i + 1;
    if (spawns && *good) {
        if (t->node[next].parent != (int32_t)i)
            *good = 0;
        next = fib_shape_ok(t, next, n - 1, threshold, good);
        if (next < t->n && t->node[next].parent != (int32_t)i)
            *good = 0;
        next = fib_shape_ok(t, next, n - 2, threshold, good);
    }
    return next;
}

/* The full backtracking tree of n queens: nodes, leaves. */
static void nq_tree(int n, int row, uint32_t cols, uint32_t ld, uint32_t rd, int64_t *nodes,
                    int64_t *leaves, int64_t *solutions)
{
    (*nodes)++;
    uint32_t all = (uint32_t)((1u << n) - 1), free_sq = all & ~(cols | ld | rd);
    if (row == n)
        (*solutions)++;
    if (row == n || !free_sq) {
        (*leaves)++;
        return;
    }
    while (free_sq) {
        uint32_t bit = free_sq & (~free_sq + 1);
        free_sq &= free_sq - 1;
        nq_tree(n, row + 1, cols | bit, ((ld | bit) << 1) & all, (rd | bit) >> 1, nodes, leaves,
                solutions);
    }
}

/* Writes a recorded tree as satin-trace does. */
static void write_trace(const satin_trace_tree *t, const char *path)
{
    int64_t *us = malloc(sizeof *us * t->n), *argb = malloc(sizeof *argb * t->n),
            *resb = malloc(sizeof *resb * t->n);
    uint32_t *kids = malloc(sizeof *kids * t->n);
    satin_trace_tree_self_us(t, us);
    for (size_t i = 0; i < t->n; i++) {
        kids[i] = t->node[i].nchildren;
        argb[i] = (int64_t)t->node[i].arg_bytes;
        resb[i] = (int64_t)t->node[i].result_bytes;
    }
    FILE *f = fopen(path, "w");
    satin_err err = {""};
    const char *comments[] = {"written by test_replay", NULL};
    if (!ok(f && replay_tree_write(f, us, kids, argb, resb, (int64_t)t->n, comments, &err) == 0,
            "the tree writes to its file"))
        diag("%s: %s", path, err.msg);
    if (f)
        fclose(f);
    free(us);
    free(kids);
    free(argb);
    free(resb);
}

typedef struct rp_out {
    int64_t nodes, leaves, total_us, trace_us;
    double wall_s;
    int failed;
    char error[256];
} rp_out;

static void run_replay(satin_pool *pool, const char *path, const char *scale, rp_out *r)
{
    char pt[400], ps[64];
    snprintf(pt, sizeof pt, "tree=%s", path);
    snprintf(ps, sizeof ps, "scale=%s", scale ? scale : "1");
    const char *params[] = {pt, ps, NULL};
    satin_outcome o;
    memset(r, 0, sizeof *r);
    r->nodes = r->leaves = r->total_us = r->trace_us = -1;
    satin_run_record(pool, kit_kinds(), "replay", params, &o);
    r->failed = o.failed;
    snprintf(r->error, sizeof r->error, "%s", o.error);
    if (!o.failed) {
        satin_kvlist_i64(&o.result, "nodes", &r->nodes);
        satin_kvlist_i64(&o.result, "leaves", &r->leaves);
        satin_kvlist_i64(&o.result, "total_us", &r->total_us);
        satin_kvlist_i64(&o.result, "trace_us", &r->trace_us);
    } else {
        diag("replay %s failed: %s", path, o.error);
    }
    r->wall_s = o.wall_s;
    satin_outcome_free(&o);
}

/* Replays `path` and compares with the file's own figures and `scale`'s waits
 * summed here line by line. */
static void check_replay_of(satin_pool *pool, int workers, const char *path, const char *scale,
                            const char *what)
{
    replay_tree *t = NULL;
    satin_err err = {""};
    if (replay_tree_load(path, &t, &err) < 0) {
        ok(0, "%s: the file reads back: %s", what, err.msg);
        return;
    }
    double sc = scale ? strtod(scale, NULL) : 1;
    int64_t waits = 0;
    for (int64_t i = 0; i < t->nnodes; i++)
        waits += llround((double)t->self_us[i] * sc);
    rp_out r;
    run_replay(pool, path, scale, &r);
    ok(!r.failed && r.nodes == t->nnodes && r.leaves == t->leaves && r.trace_us == t->total_us &&
           r.total_us == waits,
       "%s, scale %s, %d worker(s): nodes %lld/%lld, leaves %lld/%lld, trace_us %lld/%lld, "
       "waits %lld/%lld",
       what, scale ? scale : "1", workers, (long long)r.nodes, (long long)t->nnodes,
       (long long)r.leaves, (long long)t->leaves, (long long)r.trace_us, (long long)t->total_us,
       (long long)r.total_us, (long long)waits);
    replay_tree_free(&t);
}

/* matmul and the raytracer record the data a job of theirs would carry
 * (satin_task.data_size); the file keeps it, and coarsening keeps a
 * subtree's root's. */
static void check_traced_data(void)
{
    satin_trace_tree t, c;
    satin_outcome o;
    /* 96 = 2 x 48: the root splits all three ranges, 8 block products of 48^3. */
    satin_trace_record(kit_kinds(), "matmul", (const char *[]){"n=96", NULL}, 0, 0, 0, &t,
                       &o);
    ok(!o.failed && t.n == 9 && t.node[0].nchildren == 8, "traced matmul n=96: a root, 8 leaves");
    ok(t.node[0].arg_bytes == 40 + 8 * 2 * 96 * 96 && t.node[0].result_bytes == 8 * 96 * 96,
       "its root carries A and B (40 + 2 x 96^2 x 8 bytes) and returns C (96^2 x 8) (got %llu, "
       "%llu)",
       (unsigned long long)t.node[0].arg_bytes, (unsigned long long)t.node[0].result_bytes);
    int blocks = 1;
    for (size_t i = 1; i < t.n; i++)
        blocks &= t.node[i].arg_bytes == 40 + 8 * 2 * 48 * 48 &&
                  t.node[i].result_bytes == 8 * 48 * 48;
    ok(blocks, "each leaf: two 48 x 48 blocks in, one out");
    const char *mm_path = tmp_path("mm96.trace");
    write_trace(&t, mm_path);
    replay_tree *rt = NULL;
    satin_err err = {""};
    ok(replay_tree_load(mm_path, &rt, &err) == 0 && rt->version == 2 &&
           rt->arg_bytes[0] == 40 + 8 * 2 * 96 * 96 && rt->result_bytes[0] == 8 * 96 * 96 &&
           rt->arg_bytes[8] == 40 + 8 * 2 * 48 * 48 && rt->result_bytes[8] == 8 * 48 * 48,
       "the file written is version 2 and reads back with the same data sizes");
    replay_tree_free(&rt);
    satin_trace_tree_coarsen(&t, INT64_MAX, &c);
    ok(c.n == 1 && c.node[0].arg_bytes == t.node[0].arg_bytes &&
           c.node[0].result_bytes == t.node[0].result_bytes,
       "coarsened to one leaf, the root keeps its own data sizes");
    satin_trace_tree_free(&c);
    satin_outcome_free(&o);
    satin_trace_tree_free(&t);

    /* As passed: what a grid sends when matmul makes its blocks where it
     * runs (carry=0), its 40-byte argument and 8-byte checksum. */
    satin_trace_record(kit_kinds(), "matmul", (const char *[]){"n=96", NULL}, 0, 0, 1, &t,
                       &o);
    int passed = !o.failed && t.n == 9;
    for (size_t i = 0; passed && i < t.n; i++)
        passed = t.node[i].arg_bytes == 40 && t.node[i].result_bytes == 8;
    ok(passed, "traced as passed: every invocation 40 bytes in, 8 out");
    satin_outcome_free(&o);
    satin_trace_tree_free(&t);

    /* 8 x 4 pixels in tiles of at most 8: the halves 4 x 4, then 4 x 2. */
    satin_trace_record(kit_kinds(), "raytracer",
                       (const char *[]){"width=8", "height=4", "tile=8", NULL}, 0, 0, 0, &t, &o);
    ok(!o.failed && t.n == 7 && t.node[0].arg_bytes == 32 &&
           t.node[0].result_bytes == 16 + 3 * 32 && t.node[1].result_bytes == 16 + 3 * 16 &&
           t.node[2].nchildren == 0 && t.node[2].result_bytes == 16 + 3 * 8,
       "traced raytracer 8 x 4: the argument as passed, each result its pixels x 3 bytes "
       "(root %llu, half %llu, tile %llu)",
       (unsigned long long)t.node[0].result_bytes, (unsigned long long)t.node[1].result_bytes,
       (unsigned long long)t.node[2].result_bytes);
    satin_outcome_free(&o);
    satin_trace_tree_free(&t);
}

static void check_traced_kinds(satin_pool *pool1, satin_pool *pool2)
{
    satin_trace_tree t;
    satin_outcome o;

    /* fib 10, every call a node: 2 fib(11) - 1 = 177 nodes, fib(11) = 89 leaves. */
    satin_trace_record(kit_kinds(), "fib", (const char *[]){"n=10", NULL}, 0, 0, 0, &t, &o);
    int64_t v = -1;
    satin_kvlist_i64(&o.result, "value", &v);
    if (!ok(!o.failed && v == 55, "traced fib n=10 still computes 55"))
        diag("error: %s", o.error);
    satin_trace_stats s;
    satin_trace_tree_stats(&t, &s);
    ok(t.jobs == 177 && s.nodes == 177 && s.leaves == 89 && s.depth == 9,
       "fib n=10: 177 jobs and nodes, 89 leaves, depth 9 (got %llu, %zu, %zu, %zu)",
       (unsigned long long)t.jobs, s.nodes, s.leaves, s.depth);
    int good = 1;
    ok(fib_shape_ok(&t, 0, 10, 0, &good) == t.n && good,
       "fib n=10: the tree is the recursion's, children n-1 then n-2 in spawn order");
    int64_t sum = 0;
    for (size_t i = 0; i < t.n; i++)
        sum += t.node[i].self_ns;
    is_i64(s.total_ns, sum, "the total is the sum of the self times");
    int as_passed = 1;
    for (size_t i = 0; i < t.n; i++)
        as_passed &= t.node[i].arg_bytes == 16 && t.node[i].result_bytes == 8;
    ok(as_passed, "fib n=10: every node's data is the bytes passed (16 in, 8 out)");
    const char *fib_path = tmp_path("fib10.trace");
    write_trace(&t, fib_path);
    satin_outcome_free(&o);
    satin_trace_tree_free(&t);
    check_replay_of(pool1, 1, fib_path, NULL, "replayed fib n=10");
    check_replay_of(pool2, 2, fib_path, NULL, "replayed fib n=10");
    check_replay_of(pool2, 2, fib_path, "1000.5", "replayed fib n=10");

    /* fib 20 threshold 12: the same with sequential leaves. */
    satin_trace_record(kit_kinds(), "fib", (const char *[]){"n=20", "threshold=12", NULL},
                       0, 0, 0, &t, &o);
    satin_trace_tree_stats(&t, &s);
    good = 1;
    ok(!o.failed && (int64_t)s.nodes == fib_calls(20, 12) && fib_shape_ok(&t, 0, 20, 12, &good) == t.n &&
           good,
       "fib n=20 threshold=12: %lld nodes shaped as the recursion down to the threshold",
       (long long)fib_calls(20, 12));
    satin_outcome_free(&o);
    satin_trace_tree_free(&t);

    /* nqueens 6, spawning down to complete placements: the backtracking tree. */
    int64_t nodes = 0, leaves = 0, sols = 0;
    nq_tree(6, 0, 0, 0, 0, &nodes, &leaves, &sols);
    satin_trace_record(kit_kinds(), "nqueens", (const char *[]){"n=6", "threshold=6", NULL},
                       0, 0, 0, &t, &o);
    v = -1;
    satin_kvlist_i64(&o.result, "solutions", &v);
    satin_trace_tree_stats(&t, &s);
    ok(!o.failed && v == 4 && sols == 4, "traced nqueens n=6: 4 solutions");
    ok((int64_t)s.nodes == nodes && (int64_t)s.leaves == leaves && s.depth == 6,
       "nqueens n=6: %lld nodes, %lld leaves (dead ends and solutions), depth 6, as counted "
       "here (got %zu, %zu, %zu)",
       (long long)nodes, (long long)leaves, s.nodes, s.leaves, s.depth);
    is_i64(t.n ? (int64_t)t.node[0].nchildren : -1, 6, "the root has one child per column");
    const char *nq_path = tmp_path("nq6.trace");
    write_trace(&t, nq_path);
    satin_outcome_free(&o);
    satin_trace_tree_free(&t);
    check_replay_of(pool1, 1, nq_path, NULL, "replayed nqueens n=6");
    check_replay_of(pool2, 2, nq_path, "7", "replayed nqueens n=6");

    /* Coarsening a real tree: every inner node is at least the cut-off in
     * total, the leaves below it are whole subtrees, the total is kept. */
    satin_trace_tree full, coarse;
    satin_trace_record(kit_kinds(), "fib", (const char *[]){"n=22", NULL}, 0, 0, 0, &full,
                       &o);
    satin_outcome_free(&o);
    satin_trace_stats fs, cs;
    satin_trace_tree_stats(&full, &fs);
    int64_t cut = satin_trace_tree_cutoff_for(&full, 50);
    satin_trace_tree_coarsen(&full, cut, &coarse);
    satin_trace_tree_stats(&coarse, &cs);
    int64_t *tot = calloc(coarse.n, sizeof *tot);
    for (size_t i = coarse.n; i-- > 0;) {
        tot[i] += coarse.node[i].self_ns;
        if (coarse.node[i].parent >= 0)
            tot[coarse.node[i].parent] += tot[i];
    }
    int inner_big = 1;
    for (size_t i = 0; i < coarse.n; i++)
        if (coarse.node[i].nchildren > 0 && tot[i] < cut)
            inner_big = 0;
    free(tot);
    ok(cs.total_ns == fs.total_ns, "fib n=22 coarsened for 50 leaves: total kept exactly (%lld ns)",
       (long long)fs.total_ns);
    ok(cs.leaves >= 50 && cs.leaves < fs.leaves && inner_big,
       "%zu leaves (>= 50) of %zu; no inner node below the cut-off", cs.leaves, fs.leaves);
    int64_t *us_full = malloc(sizeof *us_full * full.n), *us_coarse = malloc(sizeof *us_coarse * coarse.n);
    satin_trace_tree_self_us(&full, us_full);
    satin_trace_tree_self_us(&coarse, us_coarse);
    int64_t a = 0, b = 0;
    for (size_t i = 0; i < full.n; i++)
        a += us_full[i];
    for (size_t i = 0; i < coarse.n; i++)
        b += us_coarse[i];
    ok(a == b && a == (fs.total_ns + 500) / 1000,
       "in microseconds both sum to the total rounded once (%lld, %lld)", (long long)a, (long long)b);
    free(us_full);
    free(us_coarse);
    satin_trace_tree_free(&full);
    satin_trace_tree_free(&coarse);

    check_traced_data();

    satin_trace_record(kit_kinds(), "fib", (const char *[]){"n=15", NULL}, 0, 100, 0, &t,
                       &o);
    ok(o.failed && strstr(o.error, "trace: more than 100 nodes held at once"),
       "a traced run over the node limit fails: '%s'", o.error);
    satin_outcome_free(&o);
    satin_trace_tree_free(&t);
    satin_trace_record(kit_kinds(), "nosuchkind", NULL, 0, 0, 0, &t, &o);
    ok(o.failed && strstr(o.error, "unknown job kind 'nosuchkind'"), "unknown kind: '%s'",
       o.error);
    satin_outcome_free(&o);
    satin_trace_tree_free(&t);
}

/* ---- hand-written files ------------------------------------------------------ */

/*      0 (5)
 *    1 (3)    4 (0)   5 (11)
 *  2 (1) 3 (4)            6 (0) */
static const char *const small_tree = "# a comment\n"
                                      "satin-trace 1 nodes=7 total_us=24\n"
                                      "0 -1 5 3\n"
                                      "1 0 3 2\n"
                                      "\n"
                                      "2 1 1 0\n"
                                      "3\t1\t4\t0\n"
                                      "   # an indented comment\n"
                                      "4 0 0 0\n"
                                      "5 0 11 1\n"
                                      "6 5 0 0\n";

static void check_small_file(satin_pool *pool1, satin_pool *pool2)
{
    const char *p = write_file("small.trace", small_tree);
    rp_out r;
    run_replay(pool2, p, NULL, &r);
    ok(!r.failed && r.nodes == 7 && r.leaves == 4 && r.total_us == 24 && r.trace_us == 24,
       "small tree: 7 nodes, 4 leaves, 24 us");
    /* 5*0.5=2.5->3, 3*0.5=1.5->2, 1*0.5->1, 4*0.5=2, 11*0.5=5.5->6: 14 */
    run_replay(pool2, p, "0.5", &r);
    ok(!r.failed && r.total_us == 14 && r.trace_us == 24,
       "scale 0.5: each wait rounded half away from zero, 14 us in all (got %lld)",
       (long long)r.total_us);
    replay_tree *t;
    satin_err err = {""};
    replay_tree_load(p, &t, &err);
    int64_t waits = 0, span = 0;
    replay_tree_scaled(t, 2, &waits, &span, &err);
    ok(t->depth == 2 && t->max_leaf_us == 4 && waits == 48 && span == 32,
       "depth 2, longest leaf 4 us; at scale 2: waits 48, critical path 0-5-6 = 32");
    replay_tree_free(&t);

    /* Really waiting: 8 leaves of 25 ms under a root, on one worker. */
    const char *w = write_file("wait.trace", "satin-trace 1 nodes=9 total_us=80\n"
                                             "0 -1 0 8\n1 0 10 0\n2 0 10 0\n3 0 10 0\n"
                                             "4 0 10 0\n5 0 10 0\n6 0 10 0\n7 0 10 0\n8 0 10 0\n");
    run_replay(pool1, w, "2500", &r);
    ok(!r.failed && r.total_us == 200000 && r.wall_s >= 0.2,
       "8 leaves of 10 us at scale 2500 on one worker: 200 ms of waits, wall %.3f s >= 0.2",
       r.wall_s);

    /* CRLF line ends and a long comment are fine. */
    char longc[1200];
    memset(longc, 'x', sizeof longc);
    longc[0] = '#';
    longc[sizeof longc - 2] = '\n';
    longc[sizeof longc - 1] = '\0';
    char text[2000];
    snprintf(text, sizeof text, "%ssatin-trace 1 nodes=2 total_us=3\r\n0 -1 1 1\r\n1 0 2 0\r\n",
             longc);
    run_replay(pool1, write_file("crlf.trace", text), NULL, &r);
    ok(!r.failed && r.nodes == 2 && r.total_us == 3, "CRLF lines and a 1200-character comment");

    /* The same tree in version 2, with data sizes: read, and its checksum
     * covers them (a version 1 file's stays what it was). */
    const char *v2 = write_file("small2.trace", "satin-trace 2 nodes=7 total_us=24\n"
                                                "0 -1 5 3 100 200\n1 0 3 2 10 20\n2 1 1 0 1 2\n"
                                                "3 1 4 0 0 0\n4 0 0 0 7 1099511627776\n"
                                                "5 0 11 1 5 6\n6 5 0 0 8 9\n");
    replay_tree *t1 = NULL, *t2 = NULL;
    replay_tree_load(p, &t1, &err);
    ok(replay_tree_load(v2, &t2, &err) == 0 && t1 && t1->version == 1 && t2->version == 2 &&
           t2->nnodes == 7 && t2->total_us == 24 && t2->leaves == 4,
       "a version 2 file reads as the same tree");
    ok(t1 && t2 && t1->arg_bytes[0] == 0 && t1->result_bytes[6] == 0 && t2->arg_bytes[0] == 100 &&
           t2->result_bytes[0] == 200 && t2->arg_bytes[4] == 7 &&
           t2->result_bytes[4] == 1099511627776 && t2->arg_bytes[6] == 8 && t2->result_bytes[6] == 9,
       "its data sizes are read (a version 1 file's are 0)");
    ok(t1 && t2 && t1->checksum == UINT64_C(0x125d8b757f5a6a6d) && t2->checksum != t1->checksum,
       "the version 1 checksum is unchanged (%016llx); version 2's differs",
       t1 ? (unsigned long long)t1->checksum : 0ull);
    replay_tree_free(&t1);
    replay_tree_free(&t2);
}

static void check_bad_file(satin_pool *pool, const char *name, const char *text, const char *want)
{
    const char *p = write_file(name, text);
    rp_out r;
    char pt[400];
    snprintf(pt, sizeof pt, "tree=%s", p);
    satin_outcome o;
    satin_run_record(pool, kit_kinds(), "replay", (const char *[]){pt, NULL}, &o);
    char full_want[600];
    snprintf(full_want, sizeof full_want, "replay: %s:%s", p, want);
    ok(o.failed, "%s: rejected", name);
    if (!ok(strstr(o.error, full_want) != NULL, "%s: error names the line: '%s'", name, want))
        diag("error was: '%s'", o.error);
    satin_outcome_free(&o);
    (void)r;
}

static void check_bad_files(satin_pool *pool)
{
    check_bad_file(pool, "empty.trace", "", "0: no header");
    check_bad_file(pool, "comments.trace", "# only\n# comments\n", "2: no header");
    check_bad_file(pool, "magic.trace", "satin-trace-x 1 nodes=1 total_us=0\n0 -1 0 0\n",
                   "1: expected the header 'satin-trace 2 nodes=N total_us=T'");
    check_bad_file(pool, "version.trace", "# c\nsatin-trace 3 nodes=1 total_us=0\n0 -1 0 0 0 0\n",
                   "2: trace format version 3 is not supported (this build reads versions 1 to 2)");
    check_bad_file(pool, "version0.trace", "satin-trace 0 nodes=1 total_us=0\n0 -1 0 0\n",
                   "1: trace format version 0 is not supported (this build reads versions 1 to 2)");
    check_bad_file(pool, "nodes0.trace", "satin-trace 1 nodes=0 total_us=0\n",
                   "1: nodes=0 is not an integer in [1, 4194304]");
    check_bad_file(pool, "id.trace", "satin-trace 1 nodes=3 total_us=0\n0 -1 0 2\n2 0 0 0\n",
                   "3: node id 2, expected 1");
    check_bad_file(pool, "parent.trace",
                   "satin-trace 1 nodes=3 total_us=0\n0 -1 0 1\n1 0 0 1\n2 0 0 0\n",
                   "4: node 2 names parent 0, but in pre-order its parent is 1");
    check_bad_file(pool, "rootparent.trace", "satin-trace 1 nodes=1 total_us=0\n0 0 0 0\n",
                   "2: node 0 names parent 0, but in pre-order its parent is -1");
    check_bad_file(pool, "fields3.trace", "satin-trace 1 nodes=1 total_us=0\n0 -1 0\n",
                   "2: expected 4 fields 'id parent self_us nchildren' (format version 1), got 3");
    check_bad_file(pool, "fields5.trace", "satin-trace 1 nodes=1 total_us=0\n0 -1 0 0 9\n",
                   "2: expected 4 fields 'id parent self_us nchildren' (format version 1), got more "
                   "than 4");
    check_bad_file(pool, "v2fields4.trace", "satin-trace 2 nodes=1 total_us=0\n0 -1 0 0\n",
                   "2: expected 6 fields 'id parent self_us nchildren arg_bytes result_bytes' "
                   "(format version 2), got 4");
    check_bad_file(pool, "v2fields7.trace", "satin-trace 2 nodes=1 total_us=0\n0 -1 0 0 1 2 3\n",
                   "2: expected 6 fields 'id parent self_us nchildren arg_bytes result_bytes' "
                   "(format version 2), got more than 6");
    check_bad_file(pool, "v2bytes.trace",
                   "satin-trace 2 nodes=1 total_us=0\n0 -1 0 0 1099511627777 0\n",
                   "2: arg_bytes '1099511627777' is not an integer in [0, 1099511627776]");
    check_bad_file(pool, "v2result.trace", "satin-trace 2 nodes=1 total_us=0\n0 -1 0 0 0 -1\n",
                   "2: result_bytes '-1' is not an integer in [0, 1099511627776]");
    check_bad_file(pool, "notint.trace", "satin-trace 1 nodes=1 total_us=0\n0 -1 1x 0\n",
                   "2: self_us '1x' is not an integer in [0, 68719476736]");
    check_bad_file(pool, "negative.trace", "satin-trace 1 nodes=1 total_us=0\n0 -1 -5 0\n",
                   "2: self_us '-5' is not an integer");
    check_bad_file(pool, "bigself.trace", "satin-trace 1 nodes=1 total_us=0\n0 -1 68719476737 0\n",
                   "2: self_us '68719476737' is not an integer");
    check_bad_file(pool, "kids.trace", "satin-trace 1 nodes=3 total_us=0\n0 -1 0 3\n",
                   "2: node 0 has 3 children: more than the header's nodes=3 leave room for");
    check_bad_file(pool, "wide.trace", "satin-trace 1 nodes=2 total_us=0\n0 -1 0 65537\n",
                   "2: nchildren '65537' is not an integer in [0, 65536]");
    check_bad_file(pool, "truncated.trace",
                   "satin-trace 1 nodes=4 total_us=0\n0 -1 0 1\n1 0 0 2\n2 1 0 0\n",
                   "4: the file ends inside the tree: node 1 still expects 1 more children");
    check_bad_file(pool, "tworoots.trace",
                   "satin-trace 1 nodes=3 total_us=0\n0 -1 0 1\n1 0 0 0\n2 -1 0 0\n",
                   "4: node 2 comes after the root's subtree is complete");
    check_bad_file(pool, "fewer.trace", "satin-trace 1 nodes=3 total_us=0\n0 -1 0 1\n1 0 0 0\n",
                   "3: the file ends after 2 nodes, the header says nodes=3");
    check_bad_file(pool, "more.trace", "satin-trace 1 nodes=1 total_us=0\n0 -1 0 0\n1 0 0 0\n",
                   "3: more nodes than the header's nodes=1");
    check_bad_file(pool, "total.trace", "satin-trace 1 nodes=2 total_us=7\n0 -1 3 1\n1 0 3 0\n",
                   "3: the self times sum to 6 us, the header says total_us=7");
    char longl[400];
    memset(longl, ' ', sizeof longl);
    memcpy(longl, "satin-trace 1 nodes=1 total_us=0\n0 -1 0 0", 41);
    longl[sizeof longl - 2] = '\n';
    longl[sizeof longl - 1] = '\0';
    check_bad_file(pool, "longline.trace", longl, "2: line longer than 255 characters");

    satin_outcome o;
    char pt[400];
    snprintf(pt, sizeof pt, "tree=%s", tmp_path("missing.trace"));
    satin_run_record(pool, kit_kinds(), "replay", (const char *[]){pt, NULL}, &o);
    char want[1200];
    snprintf(want, sizeof want, "replay: no trace file %s under SATIN_REPLAY_DIR (%s)", pt + 5,
             dir);
    ok(o.failed && strcmp(o.error, want) == 0, "a missing file: '%s'", o.error);
    satin_outcome_free(&o);
    snprintf(pt, sizeof pt, "tree=%s", dir);
    satin_run_record(pool, kit_kinds(), "replay", (const char *[]){pt, NULL}, &o);
    ok(o.failed && strstr(o.error, "is not a regular file"), "a directory: '%s'", o.error);
    satin_outcome_free(&o);
}

static void check_bad_params(satin_pool *pool)
{
    static const struct {
        const char *p[3], *want, *what;
    } cases[] = {
        {{"scale=2", NULL, NULL}, "needs parameter 'tree'", "no tree"},
        {{"tree=", NULL, NULL}, "tree= needs a path of 1 to 1024 bytes", "empty tree="},
        {{"tree=x", "scale=0", NULL}, "out of range", "scale=0"},
        {{"tree=x", "scale=1e7", NULL}, "out of range", "scale=1e7"},
        {{"tree=x", "scale=nan", NULL}, "not a finite number", "scale=nan"},
        {{"tree=x", "depth=2", NULL}, "unknown parameter 'depth'", "unknown key"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        satin_outcome o;
        satin_run_record(pool, kit_kinds(), "replay", cases[i].p, &o);
        ok(o.failed && strstr(o.error, cases[i].want), "%s: '%s'", cases[i].what, o.error);
        satin_outcome_free(&o);
    }
    /* A scale that would make the waits overflow the limit. */
    const char *big = write_file("big.trace", "satin-trace 1 nodes=1 total_us=68719476736\n"
                                              "0 -1 68719476736 0\n");
    char pt[400];
    snprintf(pt, sizeof pt, "tree=%s", big);
    satin_outcome o;
    satin_run_record(pool, kit_kinds(), "replay", (const char *[]){pt, "scale=1e6", NULL}, &o);
    ok(o.failed && strstr(o.error, "makes the waits sum to more than"), "waits over the limit: '%s'",
       o.error);
    satin_outcome_free(&o);
}

/* A node whose copy of the file is not the submitted one refuses to guess. */
static void check_changed_file(void)
{
    const char *p = write_file("changing.trace", "satin-trace 1 nodes=1 total_us=5\n0 -1 5 0\n");
    const replay_tree *t;
    satin_err err = {""};
    ok(replay_cache_load(p, &t, &err) == 0, "loaded");
    uint64_t first = t->checksum;
    write_file("changing.trace", "satin-trace 1 nodes=1 total_us=6\n0 -1 6 0\n");
    ok(replay_cache_get(p, first, &t, &err) == 0 && t->self_us[0] == 5,
       "a tree already cached is served by path and checksum, whatever the file has now");
    err.msg[0] = '\0';
    ok(replay_cache_get(p, first ^ 1, &t, &err) < 0 &&
           strstr(err.msg, "is not the one the job was submitted with"),
       "a checksum the file does not have: '%s'", err.msg);
    ok(replay_cache_load(p, &t, &err) == 0 && t->self_us[0] == 6 && t->checksum != first,
       "loading again reads the new content as another entry");
}

/* The kind reads only files under SATIN_REPLAY_DIR, and nothing without it. */
static void check_replay_dir(satin_pool *pool)
{
    char pt[1200];
    satin_outcome o;
    snprintf(pt, sizeof pt, "tree=%s", "/etc/passwd");
    const char *params[] = {pt, NULL};
    unsetenv("SATIN_REPLAY_DIR");
    satin_run_record(pool, kit_kinds(), "replay", params, &o);
    ok(o.failed && strstr(o.error, "trace files are off on this daemon"),
       "replay dir: without SATIN_REPLAY_DIR the kind reads no file: %s", o.error);
    satin_outcome_free(&o);
    setenv("SATIN_REPLAY_DIR", dir, 1);
    char want[1500];
    satin_run_record(pool, kit_kinds(), "replay", params, &o);
    snprintf(want, sizeof want, "replay: no trace file /etc/passwd under SATIN_REPLAY_DIR (%s)",
             dir);
    ok(o.failed && strcmp(o.error, want) == 0, "replay dir: a file outside it is refused: %s",
       o.error);
    satin_outcome_free(&o);
    /* Outside and missing: the same words as outside and present. */
    snprintf(pt, sizeof pt, "tree=%s", "/etc/no-such-file-here");
    satin_run_record(pool, kit_kinds(), "replay", params, &o);
    snprintf(want, sizeof want,
             "replay: no trace file /etc/no-such-file-here under SATIN_REPLAY_DIR (%s)", dir);
    ok(o.failed && strcmp(o.error, want) == 0,
       "replay dir: a missing file outside it gets the same message: %s", o.error);
    satin_outcome_free(&o);
    snprintf(pt, sizeof pt, "tree=%s/../../etc/passwd", dir);
    satin_run_record(pool, kit_kinds(), "replay", params, &o);
    snprintf(want, sizeof want, "replay: no trace file %s under SATIN_REPLAY_DIR (%s)", pt + 5,
             dir);
    ok(o.failed && strcmp(o.error, want) == 0, "replay dir: '..' does not get out of it: %s",
       o.error);
    satin_outcome_free(&o);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test_replay.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        printf("Bail out! cannot make a temporary directory\n");
        return 1;
    }
    satin_pool *pool1 = satin_pool_new(&(satin_pool_config){.workers = 1});
    satin_pool *pool2 = satin_pool_new(&(satin_pool_config){.workers = 2});

    check_replay_dir(pool1);
    setenv("SATIN_REPLAY_DIR", dir, 1);
    check_recorder();
    check_traced_kinds(pool1, pool2);
    check_small_file(pool1, pool2);
    check_bad_files(pool2);
    check_bad_params(pool2);
    check_changed_file();

    satin_pool_destroy(&pool1);
    satin_pool_destroy(&pool2);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.')
            unlink(tmp_path(e->d_name));
    if (d)
        closedir(d);
    if (rmdir(dir) != 0)
        diag("could not remove %s", dir);
    return done_testing();
}
