/*
 * test_matmul.c - the matmul kind: its checksum against C = A B computed
 * here with a naive triple loop from the documented element definition,
 * for sizes that are and are not multiples of the leaf size, whatever the
 * leaf size and the number of workers; the same with the matrices
 * travelling with the jobs (carry=), whose records are what they should be
 * and stay within the default record limit; and the error texts of bad
 * parameters.
 */
#include "kinds.h"
#include "trace.h"
#include "../tap.h"

#define KIND_UNDER_TEST "matmul"
#include "kind_kit.h"

#include <stdint.h>

/* The definition in matmul.c's header comment, written out again. */
static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t pos(int i, int j)
{
    return (uint64_t)i << 32 | (uint64_t)j;
}

static uint64_t naive_checksum(int n, uint64_t seed)
{
    uint64_t ka = mix(seed ^ mix(1)), kb = mix(seed ^ mix(2)), kw = mix(0x5bd1e995);
    uint64_t *a = malloc(sizeof *a * (size_t)n * (size_t)n);
    uint64_t *b = malloc(sizeof *b * (size_t)n * (size_t)n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            a[(size_t)i * (size_t)n + (size_t)j] = mix(ka ^ pos(i, j));
            b[(size_t)i * (size_t)n + (size_t)j] = mix(kb ^ pos(i, j));
        }
    uint64_t sum = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            uint64_t c = 0;
            for (int k = 0; k < n; k++)
                c += a[(size_t)i * (size_t)n + (size_t)k] * b[(size_t)k * (size_t)n + (size_t)j];
            sum += (mix(kw ^ pos(i, j)) | 1) * c;
        }
    free(a);
    free(b);
    return sum;
}

static int64_t as_i64(uint64_t v)
{
    int64_t s;
    memcpy(&s, &v, sizeof s);
    return s;
}

/* The checksum of matmul (leaf < 0: the default; carry < 0: none given),
 * or 0 with a diagnostic. */
static int64_t run_mm_carry(satin_pool *pool, int n, long long seed, int leaf, long long carry)
{
    char pn[32], ps[32], pl[32], pc[32];
    snprintf(pn, sizeof pn, "n=%d", n);
    snprintf(ps, sizeof ps, "seed=%lld", seed);
    snprintf(pl, sizeof pl, "leaf=%d", leaf);
    snprintf(pc, sizeof pc, "carry=%lld", carry);
    const char *params[5] = {pn, ps, NULL, NULL, NULL};
    int k = 2;
    if (leaf >= 0)
        params[k++] = pl;
    if (carry >= 0)
        params[k++] = pc;
    satin_outcome o;
    int64_t v = 0;
    satin_run_record(pool, kit_kinds(), "matmul", params, &o);
    if (o.failed)
        diag("matmul n=%d seed=%lld leaf=%d carry=%lld failed: %s", n, seed, leaf, carry,
             o.error);
    else if (satin_kvlist_i64(&o.result, "checksum", &v) < 0)
        diag("matmul gave no i64 'checksum'");
    satin_outcome_free(&o);
    return v;
}

static int64_t run_mm(satin_pool *pool, int n, long long seed, int leaf)
{
    return run_mm_carry(pool, n, seed, leaf, -1);
}

static void check_naive(satin_pool *pool, int workers)
{
    /* n, seed, leaf (-1: default 48) */
    static const int cases[][3] = {
        {1, 1, -1}, {2, 7, -1}, {3, 1, 1}, {5, 2, 2},   {17, 3, 4},  {47, 1, -1},
        {48, 1, -1}, {49, 1, -1}, {96, 1, -1}, {97, 5, -1}, {100, 9, 16}, {130, 4, -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int n = cases[i][0], seed = cases[i][1], leaf = cases[i][2];
        is_i64(run_mm(pool, n, seed, leaf), as_i64(naive_checksum(n, (uint64_t)seed)),
               "n=%d seed=%d leaf=%d: checksum of the naive product, %d worker(s)", n, seed,
               leaf, workers);
    }
}

/* The leaf size changes the recursion, never the checksum. */
static void check_leaves(satin_pool *pool, int workers)
{
    int64_t want = as_i64(naive_checksum(96, 42));
    static const int leaves[] = {1, 5, 7, 24, 48, 95, 96, 128};
    for (size_t i = 0; i < sizeof leaves / sizeof leaves[0]; i++) {
        if (leaves[i] == 1 && workers == 1)
            continue;  /* 96^3 leaf jobs: once is enough */
        is_i64(run_mm(pool, 96, 42, leaves[i]), want, "n=96 seed=42 leaf=%d, %d worker(s)",
               leaves[i], workers);
    }
}

static void check_seeds(satin_pool *pool)
{
    int64_t a = run_mm(pool, 64, 1, -1), b = run_mm(pool, 64, 2, -1);
    ok(a != b, "seeds 1 and 2 give different checksums");
    is_i64(run_mm(pool, 64, 0x7fffffffffffffffLL, -1),
           as_i64(naive_checksum(64, 0x7fffffffffffffffu)), "the largest seed");
}

/* With the matrices travelling, the checksum is the naive one and the one
 * of carry=0: the first fitting job at the root, at a level where some
 * blocks fit and others are leaves, with jobs that carry data over several
 * levels, or down to leaves of 1 x 1 x 1. */
static void check_carry(satin_pool *pool, int workers)
{
    /* n, seed, leaf (-1: default 48), carry */
    static const int cases[][4] = {
        {1, 1, -1, 1},       {5, 2, 2, 18},      {17, 3, 4, 64},       {24, 6, 1, 100},
        {49, 1, -1, 4802},   {97, 5, -1, 4802},  {100, 9, 16, 2000},   {100, 9, 16, 5000},
        {130, 4, -1, 1 << 29}, {200, 11, -1, 20000}, {200, 11, 30, 1 << 20},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int n = cases[i][0], seed = cases[i][1], leaf = cases[i][2], carry = cases[i][3];
        int64_t got = run_mm_carry(pool, n, seed, leaf, carry);
        is_i64(got, as_i64(naive_checksum(n, (uint64_t)seed)),
               "n=%d seed=%d leaf=%d carry=%d: checksum of the naive product, %d worker(s)", n,
               seed, leaf, carry, workers);
        is_i64(got, run_mm_carry(pool, n, seed, leaf, 0),
               "n=%d seed=%d leaf=%d carry=%d: the checksum of carry=0", n, seed, leaf, carry);
    }
}

/* n=510 with carry 2 x 510^2: the root makes A and B, and its 8 block
 * products of 255^3 travel with 2 x 255^2 elements, records of 1040448
 * bytes, just within the default record limit (1048576; 256^3 would not). */
static void check_carry_limit(satin_pool *pool, int workers)
{
    static int64_t want;
    static int have;
    if (!have) {
        want = as_i64(naive_checksum(510, 8));
        have = 1;
    }
    is_i64(run_mm_carry(pool, 510, 8, -1, 2 * 510 * 510), want,
           "n=510 carry=520200: records of 1040448 bytes run, checksum of the naive product, "
           "%d worker(s)", workers);
}

/* What the records carry, traced (the task's data_size: with carry, the
 * bytes passed are the data). */
static void check_carry_records(void)
{
    satin_trace_tree t;
    satin_outcome o;
    /* carry 2 x 96^2: the root makes its blocks, its 8 leaves of 48^3 get theirs. */
    satin_trace_record(kit_kinds(), "matmul",
                       (const char *[]){"n=96", "carry=18432", NULL}, 0, 0, 0, &t, &o);
    ok(!o.failed && t.n == 9 && t.node[0].nchildren == 8, "traced n=96 carry=18432: 9 jobs");
    ok(t.n == 9 && t.node[0].arg_bytes == 48 && t.node[0].result_bytes == 8,
       "the root: a 48-byte argument and a checksum");
    int blocks = t.n == 9;
    for (size_t i = 1; i < t.n; i++)
        blocks &= t.node[i].arg_bytes == 48 + 8 * 2 * 48 * 48 &&
                  t.node[i].result_bytes == 8 * 48 * 48;
    ok(blocks, "each leaf: its blocks of A and B in (48 + 2 x 48^2 x 8 bytes), C out (48^2 x 8)");
    satin_outcome_free(&o);
    satin_trace_tree_free(&t);

    /* n=100 leaf=16 carry 2 x 50^2: the jobs of 50^3 make their blocks, those of
     * 25^3 carry theirs and split again, down to leaves of 13^3 (first in
     * pre-order: the first halves are rounded up). */
    satin_trace_record(kit_kinds(), "matmul",
                       (const char *[]){"n=100", "leaf=16", "carry=5000", NULL}, 0, 0, 0, &t,
                       &o);
    ok(!o.failed && t.n > 4 && t.node[1].arg_bytes == 48 && t.node[1].result_bytes == 8 &&
           t.node[2].arg_bytes == 48 + 8 * 2 * 25 * 25 && t.node[2].result_bytes == 8 * 25 * 25 &&
           t.node[2].nchildren == 8 && t.node[3].arg_bytes == 48 + 8 * 2 * 13 * 13 &&
           t.node[3].result_bytes == 8 * 13 * 13 && t.node[3].nchildren == 0,
       "traced n=100 leaf=16 carry=5000: 50^3 makes, 25^3 carries and splits, 13^3 carries");
    satin_outcome_free(&o);
    satin_trace_tree_free(&t);

    /* One element less: the root does not fit, its leaves make their own. */
    satin_trace_record(kit_kinds(), "matmul",
                       (const char *[]){"n=96", "carry=18431", NULL}, 0, 0, 0, &t, &o);
    blocks = !o.failed && t.n == 9;
    for (size_t i = 0; i < t.n; i++)
        blocks &= t.node[i].arg_bytes == 48 && t.node[i].result_bytes == 8;
    ok(blocks, "traced n=96 carry=18431: no job carries data");
    satin_outcome_free(&o);
    satin_trace_tree_free(&t);
}

/* The limit checked is the pool's (satind --max-record), not the default:
 * n=96 carry=18432 sends its 8 leaves records of 36912 bytes. */
static void check_daemon_limit(void)
{
    satin_pool *small = satin_pool_new(&(satin_pool_config){.workers = 1, .max_record = 36911});
    check_bad(small, (const char *[]){"n=96", "carry=18432", NULL},
              "matmul: carry=18432 gives records of 36912 bytes (blocks of A and B of 48x48x48) "
              "and results of 18432 (its block of C), over the record limit (36911 bytes, "
              "satind --max-record): give a smaller carry",
              "a daemon's --max-record one byte short of a record: refused with its limit");
    satin_pool_destroy(&small);
    satin_pool *fits = satin_pool_new(&(satin_pool_config){.workers = 1, .max_record = 36912});
    is_i64(run_mm_carry(fits, 96, 5, -1, 18432), as_i64(naive_checksum(96, 5)),
           "and with --max-record the size of the record, it runs: checksum of the naive product");
    satin_pool_destroy(&fits);
    /* A larger limit does not raise the 1 MiB that other nodes' checks hold
     * a carrying record to: n=512 carry=524288 would send 1 MiB + 48 bytes. */
    satin_pool *big = satin_pool_new(&(satin_pool_config){.workers = 1, .max_record = 4 << 20});
    check_bad(big, (const char *[]){"n=512", "carry=524288", NULL},
              "matmul: carry=524288 gives records of 1048624 bytes (blocks of A and B of "
              "256x256x256) and results of 524288 (its block of C), over the 1048576 bytes other "
              "nodes accept in a record that carries data, whatever --max-record: give a smaller "
              "carry",
              "a daemon's --max-record of 4 MiB: still refused above 1 MiB, with that bound");
    is_i64(run_mm_carry(big, 512, 5, -1, 524287), run_mm_carry(big, 512, 5, -1, 0),
           "and carry=524287 (records of 256 KiB) runs there: the checksum of carry=0");
    satin_pool_destroy(&big);
}

static void check_bad_params(satin_pool *pool)
{
    check_bad(pool, (const char *[]){NULL}, "needs parameter 'n'", "missing n");
    check_bad(pool, (const char *[]){"n=0", NULL}, "out of range", "n=0");
    check_bad(pool, (const char *[]){"n=16385", NULL}, "out of range", "n=16385");
    check_bad(pool, (const char *[]){"n=9x", NULL}, "not an integer", "n=9x");
    check_bad(pool, (const char *[]){"n=96", "seed=-1", NULL}, "out of range", "seed=-1");
    check_bad(pool, (const char *[]){"n=96", "seed=one", NULL}, "not an integer", "seed=one");
    check_bad(pool, (const char *[]){"n=96", "leaf=0", NULL}, "out of range", "leaf=0");
    check_bad(pool, (const char *[]){"n=96", "leaf=129", NULL}, "out of range", "leaf=129");
    check_bad(pool, (const char *[]){"n=96", "m=3", NULL}, "unknown parameter 'm'",
              "unknown key");
    check_bad(pool, (const char *[]){"n=96", "carry=-1", NULL}, "out of range", "carry=-1");
    check_bad(pool, (const char *[]){"n=96", "carry=536870913", NULL}, "out of range",
              "carry=2^29+1");
    /* The block products of 256^3 below a root of 512 would carry 1048624 bytes. */
    check_bad(pool, (const char *[]){"n=512", "carry=524288", NULL},
              "matmul: carry=524288 gives records of 1048624 bytes (blocks of A and B of "
              "256x256x256) and results of 524288 (its block of C), over the record limit "
              "(1048576 bytes, satind --max-record): give a smaller carry",
              "n=512 carry=524288: records above 1 MiB");
    check_bad(pool, (const char *[]){"n=16384", "carry=536870912", "leaf=1", NULL},
              "over the record limit (1048576 bytes", "n=16384 carry=2^29: records above 1 MiB");
}

int main(void)
{
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = 2});
    check_naive(pool, 2);
    check_leaves(pool, 2);
    check_seeds(pool);
    check_carry(pool, 2);
    check_carry_limit(pool, 2);
    check_bad_params(pool);
    satin_pool_destroy(&pool);

    pool = satin_pool_new(&(satin_pool_config){.workers = 1});
    check_naive(pool, 1);
    check_leaves(pool, 1);
    check_carry(pool, 1);
    check_carry_limit(pool, 1);
    satin_pool_destroy(&pool);
    check_carry_records();
    check_daemon_limit();
    return done_testing();
}
