/*
 * test_uts.c - the uts kind through whole job records: the published tree
 * sizes of both generators, a chain tens of thousands of levels deep, the
 * same results on one and two workers and for any chunk size, agreement
 * with the plain sequential loop, and the error texts of bad parameters.
 */
#include "apps.h"
#include "kinds.h"
#include "uts_tree.h"
#include "../tap.h"

#define KIND_UNDER_TEST "uts"
#include "kind_kit.h"

#include <openssl/sha.h>

typedef struct counts {
    int failed;
    char error[256];
    int64_t nodes, leaves, depth;
    double nodes_per_s;
} counts;

static counts run_uts(satin_pool *pool, const char *const *params)
{
    satin_outcome o;
    counts c = {0, "", -1, -1, -1, -1.0};
    satin_run_record(pool, kit_kinds(), "uts", params, &o);
    c.failed = o.failed;
    snprintf(c.error, sizeof c.error, "%s", o.error);
    if (!o.failed && (satin_kvlist_i64(&o.result, "nodes", &c.nodes) < 0 ||
                      satin_kvlist_i64(&o.result, "leaves", &c.leaves) < 0 ||
                      satin_kvlist_i64(&o.result, "depth", &c.depth) < 0))
        diag("uts gave no nodes/leaves/depth");
    if (!o.failed && satin_kvlist_f64(&o.stats, "nodes_per_s", &c.nodes_per_s) < 0)
        diag("uts gave no nodes_per_s statistic");
    satin_outcome_free(&o);
    return c;
}

#define P(...) ((const char *const[]){__VA_ARGS__, NULL})

static void check_size(satin_pool *pool, const char *const *params, const char *what,
                       int64_t nodes, int64_t depth)
{
    counts c = run_uts(pool, params);
    if (c.failed)
        diag("%s failed: %s", what, c.error);
    is_i64(c.nodes, nodes, "%s has %" PRId64 " nodes", what, nodes);
    if (depth >= 0)
        is_i64(c.depth, depth, "%s has depth %" PRId64, what, depth);
}

static void check_published(satin_pool *pool)
{
    check_size(pool, P("tree=seed-T1"), "seed T1", 50045, -1);
    check_size(pool, P("tree=seed-T2"), "seed T2", 53521, -1);
    check_size(pool, P("tree=seed-T3"), "seed T3", 5529089, -1);
    check_size(pool, P("tree=T1"), "standard T1", 4130071, 10);
    check_size(pool, P("tree=T3"), "standard T3", 4112897, 1572);
    /* Explicit parameters override the preset: seed T2 with T1's root is T1. */
    check_size(pool, P("tree=seed-T2", "root=0"), "seed-T2 root=0 (= seed T1)", 50045, -1);
    check_size(pool, P("gen=2003", "root=0x0000", "children=3200", "q=0.234375", "m=4"),
               "seed T1 by explicit parameters", 50045, -1);
    /* Balanced: (4^7 - 1) / 3 nodes, depth 6. */
    check_size(pool, P("gen=std", "t=3", "b=4", "d=6"), "balanced b=4 d=6", 5461, 6);
    /* A root without children is a one-node tree. */
    counts c = run_uts(pool, P("gen=2003", "children=0"));
    ok(!c.failed && c.nodes == 1 && c.leaves == 1 && c.depth == 0,
       "children=0: one node, one leaf, depth 0");
    ok(c.nodes_per_s >= 0, "nodes_per_s statistic is reported");
}

/* The chain gen=2003 children=1 m=1 q=0.99999 counted with nothing but
 * OpenSSL's one-shot SHA1(): child 0 of v is SHA1(v || 0 0 0 0); a node goes
 * on while (v mod 2^32) / 2^32 < q. */
static int64_t chain_length(void)
{
    unsigned char msg[24] = {0}, md[SHA_DIGEST_LENGTH];
    int64_t nodes = 1;   /* the root, id 0 */
    for (;;) {
        memset(msg + 20, 0, 4);
        SHA1(msg, sizeof msg, md);
        nodes++;
        uint32_t low = (uint32_t)md[16] << 24 | (uint32_t)md[17] << 16 |
                       (uint32_t)md[18] << 8 | md[19];
        if (!((double)low / 4294967296.0 < 0.99999))
            return nodes;
        memcpy(msg, md, 20);
    }
}

static void check_deep_chain(satin_pool *pool)
{
    int64_t want = chain_length();
    counts c = run_uts(pool, P("gen=2003", "children=1", "m=1", "q=0.99999"));
    if (c.failed)
        diag("chain failed: %s", c.error);
    is_i64(c.nodes, want, "deep chain: %" PRId64 " nodes, as a plain SHA1() loop counts", want);
    is_i64(c.depth, want - 1, "deep chain: depth is nodes - 1");
    is_i64(c.leaves, 1, "deep chain: one leaf");
    ok(c.depth >= 10000, "deep chain is really deep (%" PRId64 " levels)", c.depth);
}

static int same(const counts *a, const counts *b)
{
    return !a->failed && !b->failed && a->nodes == b->nodes && a->leaves == b->leaves &&
           a->depth == b->depth;
}

static void check_schedules(satin_pool *one, satin_pool *two)
{
    const char *const *trees[] = {P("tree=seed-T3"), P("tree=T3"), P("tree=T4", "d=12")};
    const char *names[] = {"seed T3", "T3", "T4 d=12"};
    for (size_t i = 0; i < 3; i++) {
        counts a = run_uts(one, trees[i]), b = run_uts(two, trees[i]);
        ok(same(&a, &b), "%s: same nodes/leaves/depth on 1 and 2 workers (%" PRId64 "/%" PRId64
           "/%" PRId64 ")", names[i], a.nodes, a.leaves, a.depth);
    }
    counts base = run_uts(two, P("tree=seed-T1"));
    const char *chunks[] = {"chunk=1", "chunk=2", "chunk=7", "chunk=128"};
    for (size_t i = 0; i < 4; i++) {
        counts c = run_uts(two, P("tree=seed-T1", chunks[i]));
        ok(same(&base, &c), "seed T1 with %s: same result as the default chunk", chunks[i]);
    }
    counts g1 = run_uts(two, P("gen=std", "t=1", "a=0", "d=9", "b=4", "r=7"));
    counts g3 = run_uts(two, P("gen=std", "t=1", "a=0", "d=9", "b=4", "r=7", "g=3"));
    ok(same(&g1, &g3) && g1.nodes > 1000, "granularity g=3 repeats the hash, same tree");
}

/* The kind against uts_count_sequential(), one tree of every shape. */
static void check_sequential(satin_pool *pool)
{
    struct {
        const char *name;
        const char *const *params;
        uts_params p;
    } cases[] = {
        {"seed T2", P("tree=seed-T2"),
         {.gen = UTS_GEN_2003, .root_children = 3200, .q = 0.234375, .m = 4,
          .root_id = {[18] = 1, [19] = 1}}},
        {"standard T3", P("tree=T3"),
         {.gen = UTS_GEN_STD, .type = UTS_BIN, .b0 = 2000, .q = 0.124875, .m = 8,
          .seed = 42, .gen_mx = 6, .shift_depth = 0.5, .granularity = 1}},
        {"geometric expdec", P("gen=std", "t=1", "a=1", "d=12", "b=3", "r=7"),
         {.gen = UTS_GEN_STD, .type = UTS_GEO, .shape = UTS_EXPDEC, .gen_mx = 12, .b0 = 3,
          .seed = 7, .q = 0.234375, .m = 4, .shift_depth = 0.5, .granularity = 1}},
        {"geometric cyclic", P("gen=std", "t=1", "a=2", "d=10", "b=4", "r=9"),
         {.gen = UTS_GEN_STD, .type = UTS_GEO, .shape = UTS_CYCLIC, .gen_mx = 10, .b0 = 4,
          .seed = 9, .q = 0.234375, .m = 4, .shift_depth = 0.5, .granularity = 1}},
        {"hybrid", P("gen=std", "t=2", "a=0", "d=10", "b=5", "r=7", "q=0.24", "m=4", "f=0.4"),
         {.gen = UTS_GEN_STD, .type = UTS_HYBRID, .shape = UTS_LINEAR, .gen_mx = 10, .b0 = 5,
          .seed = 7, .q = 0.24, .m = 4, .shift_depth = 0.4, .granularity = 1}},
        {"binomial m=150", P("gen=std", "t=0", "b=50", "q=0.0099", "m=150", "r=11"),
         {.gen = UTS_GEN_STD, .type = UTS_BIN, .b0 = 50, .seed = 11, .q = 0.0099, .m = 150,
          .gen_mx = 6, .shift_depth = 0.5, .granularity = 1}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t n = 0, l = 0, d = 0;
        int rc = uts_count_sequential(&cases[i].p, &n, &l, &d);
        counts c = run_uts(pool, cases[i].params);
        if (c.failed)
            diag("%s failed: %s", cases[i].name, c.error);
        ok(rc == 0 && !c.failed && (uint64_t)c.nodes == n && (uint64_t)c.leaves == l &&
           (uint64_t)c.depth == d && n > 1,
           "%s: the kind agrees with uts_count_sequential (%" PRIu64 " nodes, %" PRIu64
           " leaves, depth %" PRIu64 ")", cases[i].name, n, l, d);
        if (cases[i].p.m == 150)
            ok(c.nodes > 1000 && (c.nodes - 51) % 100 == 0,
               "binomial m=150: the root has 50 children, every other interior node 100 "
               "(the cap), not 150");
    }
}

/* The generator functions against OpenSSL's one-shot SHA1(). */
static void check_generator_api(void)
{
    uts_params p = {.gen = UTS_GEN_STD, .type = UTS_GEO, .shape = UTS_FIXED, .gen_mx = 10,
                    .b0 = 4, .seed = 19, .q = 0.234375, .m = 4, .shift_depth = 0.5,
                    .granularity = 1};
    char err[200];
    ok(uts_params_check(&p, err, sizeof err) == 0, "T1's parameters pass the check");
    uts_tree t;
    uts_tree_init(&t, &p);
    uts_node root, kid;
    uts_root(&t, &root);
    unsigned char msg[24] = {0}, md[SHA_DIGEST_LENGTH];
    msg[19] = 19;
    SHA1(msg, 20, md);
    ok(memcmp(root.id, md, 20) == 0 && root.depth == 0,
       "std root = SHA1(16 zero bytes || seed big-endian)");
    uts_child(&t, &root, 258, &kid);
    memcpy(msg, root.id, 20);
    msg[20] = 0, msg[21] = 0, msg[22] = 1, msg[23] = 2;
    SHA1(msg, 24, md);
    ok(memcmp(kid.id, md, 20) == 0 && kid.depth == 1,
       "child 258 = SHA1(parent || 00 00 01 02)");
    p.granularity = 5;
    uts_tree_init(&t, &p);
    uts_node kid5;
    uts_child(&t, &root, 258, &kid5);
    ok(memcmp(kid.id, kid5.id, 20) == 0, "granularity 5 gives the same child");
    kid.depth = 10;
    is_i64(uts_num_children(&t, &kid), 0, "fixed shape: no children at depth gen_mx");

    uts_params s = {.gen = UTS_GEN_2003, .root_children = 3200, .q = 0.234375, .m = 4};
    uts_tree_init(&t, &s);
    uts_root(&t, &root);
    is_i64(uts_num_children(&t, &root), 3200, "2003 root: n_r children");
    uts_node v = {.depth = 7};
    v.id[16] = 0x3b, v.id[17] = 0xff, v.id[18] = 0xff, v.id[19] = 0xff;   /* < 0.234375 */
    is_i64(uts_num_children(&t, &v), 4, "2003: v mod 2^32 = 0x3bffffff is interior");
    v.id[16] = 0x3c, v.id[17] = 0, v.id[18] = 0, v.id[19] = 0;            /* = 0.234375 */
    is_i64(uts_num_children(&t, &v), 0, "2003: v mod 2^32 = 0x3c000000 = q 2^32 is a leaf");
    s.q = 0.5, s.m = 2;
    ok(uts_params_check(&s, err, sizeof err) < 0 && strstr(err, "q*m < 1"),
       "2003: q*m = 1 is rejected (%s)", err);
}

#define BAIL_OUT_OF_MEMORY() do { printf("Bail out! out of memory\n"); exit(1); } while (0)

/* The bounded walk with a 4-entry stack: full after almost every push and
 * in the middle of the root's 3200 children.  Whenever it stops, the two
 * oldest entries go to a plain work list, as a chunk would. */
static void check_tiny_stack(void)
{
    uts_params p = {.gen = UTS_GEN_2003, .root_children = 3200, .q = 0.234375, .m = 4};
    uts_tree t;
    uts_tree_init(&t, &p);
    uts_node root;
    uts_root(&t, &root);
    size_t todo_cap = 1024, ntodo = 0, fulls = 0;
    uts_node *todo = malloc(todo_cap * sizeof *todo);
    if (!todo)
        BAIL_OUT_OF_MEMORY();
    uts_counts sum = {0, 0, 0};
    int first = 1, bad = 0;
    while (first || ntodo > 0) {
        uts_slot stack[4];
        uts_walk w;
        uts_walk_init(&w, &t, stack, 4);
        if (first)
            uts_walk_add(&w, &root, 1);
        else
            uts_walk_add(&w, &todo[--ntodo], 0);
        first = 0;
        uts_walk_status st;
        while ((st = uts_walk_run(&w, 7)) != UTS_WALK_DONE) {
            if (st == UTS_WALK_TOO_DEEP) {
                bad = 1;
                break;
            }
            fulls += st == UTS_WALK_FULL;
            if (w.sp < 2)
                continue;
            if (ntodo + 2 > todo_cap) {
                uts_node *more = realloc(todo, 2 * todo_cap * sizeof *todo);
                if (!more)
                    BAIL_OUT_OF_MEMORY();
                todo = more;
                todo_cap *= 2;
            }
            for (int i = 0; i < 2; i++) {
                memcpy(todo[ntodo].id, w.stack[i].id, 20);
                todo[ntodo++].depth = w.stack[i].depth;
            }
            memmove(w.stack, w.stack + 2, (w.sp - 2) * sizeof *w.stack);
            w.sp -= 2;
        }
        sum.nodes += w.counts.nodes;
        sum.leaves += w.counts.leaves;
        if (w.counts.max_depth > sum.max_depth)
            sum.max_depth = w.counts.max_depth;
    }
    free(todo);
    uint64_t n = 0, l = 0, d = 0;
    uts_count_sequential(&p, &n, &l, &d);
    ok(!bad && sum.nodes == 50045 && sum.leaves == l && sum.max_depth == d && fulls > 100,
       "a walk with a 4-entry stack, stopped every 7 nodes, counts seed T1 (%" PRIu64
       " nodes, %zu times full)", sum.nodes, fulls);
}

static void check_error(satin_pool *pool, const char *const *params, const char *want)
{
    counts c = run_uts(pool, params);
    int good = c.failed && strstr(c.error, want) != NULL;
    ok(good, "%s %s... is rejected: '%s'", params[0], params[1] ? params[1] : "", want);
    if (!good)
        diag("got failed=%d error '%s'", c.failed, c.error);
}

static void check_errors(satin_pool *pool)
{
    check_error(pool, P("tree=T9"), "unknown tree 'T9'");
    check_error(pool, P("tree=T9"), "seed-T1, seed-T2, seed-T3, T1, T2, T3, T4, T5, T1L, T2L, T3L");
    check_error(pool, P("q=0.5"), "give tree=NAME");
    check_error(pool, P("gen=2004"), "gen=2004 must be 2003");
    check_error(pool, P("gen=2003", "t=1"), "'t' belongs to gen=std");
    check_error(pool, P("tree=seed-T1", "b=4"), "'b' belongs to gen=std");
    check_error(pool, P("tree=T1", "root=5"), "'root' belongs to gen=2003");
    check_error(pool, P("gen=std", "children=3"), "'children' belongs to gen=2003");
    check_error(pool, P("tree=T1", "gen=2003"), "tree=T1 is a gen=std tree");
    check_error(pool, P("tree=seed-T1", "q=1"), "0 < q < 1");
    check_error(pool, P("tree=T1", "q=0"), "0 < q < 1");
    check_error(pool, P("gen=2003", "q=abc"), "q=abc is not a finite number");
    check_error(pool, P("gen=2003", "m=257"), "m=257 is out of range [1, 256]");
    check_error(pool, P("gen=2003", "m=0"), "out of range [1, 256]");
    check_error(pool, P("gen=2003", "q=0.5", "m=2"), "q*m < 1");
    check_error(pool, P("gen=2003", "root=xyz"), "root=xyz is not hexadecimal");
    check_error(pool, P("gen=2003", "root=00000000000000000000000000000000000000001"),
                "1 to 40 hex digits");
    check_error(pool, P("gen=2003", "children=-1"), "children=-1 is out of range");
    check_error(pool, P("gen=std", "t=4"), "t=4 is out of range [0, 3]");
    check_error(pool, P("gen=std", "a=-1"), "a=-1 is out of range [0, 3]");
    check_error(pool, P("gen=std", "d=0"), "d=0 is out of range");
    check_error(pool, P("gen=std", "b=-1"), "b=-1 is out of range");
    check_error(pool, P("gen=std", "r=4294967296"), "r=4294967296 is out of range");
    check_error(pool, P("gen=std", "g=0"), "g=0 is out of range");
    check_error(pool, P("gen=std", "f=-0.5"), "f=-0.5 is out of range");
    check_error(pool, P("tree=seed-T1", "chunk=0"), "chunk=0 is out of range [1, 128]");
    check_error(pool, P("tree=seed-T1", "chunk=129"), "chunk=129 is out of range");
    check_error(pool, P("tree=seed-T1", "depth=3"), "unknown parameter 'depth'");
}

int main(void)
{
    satin_pool *one = satin_pool_new(&(satin_pool_config){.workers = 1});
    satin_pool *two = satin_pool_new(&(satin_pool_config){.workers = 2});
    check_generator_api();
    check_tiny_stack();
    check_published(two);
    check_deep_chain(two);
    check_schedules(one, two);
    check_sequential(two);
    check_errors(two);
    satin_pool_destroy(&one);
    satin_pool_destroy(&two);
    return done_testing();
}
