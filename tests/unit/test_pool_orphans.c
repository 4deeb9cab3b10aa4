/*
 * test_pool_orphans.c - the pool's orphan table: an invocation about to
 * run at a place where an orphan result with the same kind and arguments
 * waits takes that result instead of running, once; a different place, a
 * different digest or a result too big for the slot is not taken; a
 * promised result is waited for, or run when withdrawn.  Places
 * compose through queued and in-place spawns, and a record taken for
 * another node carries its place.
 */
#include "../tap.h"
#include "pool.h"
#include "satin_digest.h"

#include <stdatomic.h>
#include <unistd.h>

static atomic_long runs;

static int any_depth(const int64_t *d, satin_err *err)
{
    (void)d;
    (void)err;
    return 0;
}

/* tree(d): 2^d leaves, each worth 1. */
SATIN_TASK(int64_t, tree, int64_t, any_depth);
static int64_t tree(SATIN_FRAME, int64_t d)
{
    atomic_fetch_add(&runs, 1);
    if (d == 0)
        return 1;
    int64_t r[2] = {0, 0};
    satin_spawn(tree, &r[0], d - 1);
    satin_spawn(tree, &r[1], d - 1);
    satin_sync();
    return r[0] + r[1];
}

static satin_job *tree_job(int64_t depth)
{
    return satin_job_new_task(SATIN_TASK_OF(tree), &depth, sizeof depth, sizeof(int64_t));
}

#define ROOT 0x1234567ULL

static uint64_t digest_of(int64_t d)
{
    return satin_digest("tree", &d, sizeof d);
}

/* Runs tree(depth) at place ROOT; returns its value, sets *ran. */
static int64_t run_tree(satin_pool *pool, int64_t depth, long *ran)
{
    atomic_store(&runs, 0);
    satin_job *job = tree_job(depth);
    satin_job_set_place(job, ROOT);
    satin_job_set_origin(job, ROOT);
    satin_pool_run(pool, job);
    size_t len;
    int64_t v = -1;
    const void *res = satin_job_result(job, &len);
    if (!satin_job_failed(job) && len == sizeof v)
        memcpy(&v, res, sizeof v);
    satin_job_destroy(&job);
    *ran = atomic_load(&runs);
    return v;
}

static satin_pool *new_pool(int workers)
{
    satin_pool_config cfg = {.workers = workers};
    return satin_pool_new(&cfg);
}

static void test_taken(void)
{
    satin_pool *pool = new_pool(2);
    long ran;
    satin_orphan_stats st;
    is_i64(run_tree(pool, 10, &ran), 1024, "no orphan: tree(10) is 1024");
    is_i64(ran, 2047, "no orphan: every invocation ran");

    /* The left child of the root, standing for its 1023 invocations. */
    int64_t v = 777;
    satin_pool_add_orphan(pool, ROOT, satin_place_child(ROOT, 1), digest_of(9), &v, sizeof v, 1023);
    satin_pool_orphan_stats(pool, &st);
    is_i64((int64_t)st.held, 1, "one orphan held");
    is_i64(run_tree(pool, 10, &ran), 777 + 512, "the left child's orphan value is taken");
    is_i64(ran, 2047 - 1023, "and its subtree does not run");
    satin_pool_orphan_stats(pool, &st);
    ok(st.used == 1 && st.runs_saved == 1023 && st.held == 0,
       "used once (%llu), saving 1023 runs (%llu), none left (%llu)",
       (unsigned long long)st.used, (unsigned long long)st.runs_saved,
       (unsigned long long)st.held);
    is_i64(run_tree(pool, 10, &ran), 1024, "taken once only: the next run computes it");

    /* Two levels down, through whatever spawns ran in place. */
    v = 1000;
    uint64_t grandchild = satin_place_child(satin_place_child(ROOT, 2), 1);
    satin_pool_add_orphan(pool, ROOT, grandchild, digest_of(8), &v, sizeof v, 511);
    is_i64(run_tree(pool, 10, &ran), 1024 - 256 + 1000, "a grandchild's orphan is taken");
    is_i64(ran, 2047 - 511, "and its subtree does not run");

    /* A job's root itself: nothing runs at all. */
    v = 5;
    satin_pool_add_orphan(pool, ROOT, ROOT, digest_of(10), &v, sizeof v, 2047);
    is_i64(run_tree(pool, 10, &ran), 5, "a root's orphan is taken");
    is_i64(ran, 0, "and nothing runs");
    satin_pool_destroy(&pool);
}

static void test_not_taken(void)
{
    satin_pool *pool = new_pool(2);
    long ran;
    satin_orphan_stats st;
    int64_t v = 777;
    satin_pool_add_orphan(pool, ROOT, satin_place_child(ROOT, 1), digest_of(8), &v, sizeof v, 1);
    satin_pool_add_orphan(pool, ROOT, satin_place_child(ROOT, 3), digest_of(9), &v, sizeof v, 1);
    satin_pool_add_orphan(pool, ROOT, satin_place_child(ROOT + 1, 1), digest_of(9), &v, sizeof v, 1);
    unsigned char big[16] = {0};
    satin_pool_add_orphan(pool, ROOT, satin_place_child(ROOT, 2), digest_of(9), big, sizeof big, 1);
    is_i64(run_tree(pool, 10, &ran), 1024,
           "wrong digest, wrong index, wrong parent, too big for the slot: none taken");
    is_i64(ran, 2047, "everything ran");
    satin_pool_orphan_stats(pool, &st);
    ok(st.used == 0 && st.held == 4 && st.added == 4, "all four still held (%llu)",
       (unsigned long long)st.held);
    satin_pool_add_orphan(pool, ROOT, satin_place_child(ROOT, 1), digest_of(8), &v, sizeof v, 1);
    satin_pool_orphan_stats(pool, &st);
    ok(st.held == 4 && st.added == 4, "the same orphan told twice is kept once");
    satin_pool_destroy(&pool);
}

static void test_bounded(void)
{
    satin_pool *pool = new_pool(1);
    satin_orphan_stats st;
    int64_t v = 1;
    for (uint64_t i = 0; i < SATIN_ORPHAN_MAX + 5; i++)
        satin_pool_add_orphan(pool, ROOT, i, 7, &v, sizeof v, 1);
    satin_pool_orphan_stats(pool, &st);
    ok(st.held == SATIN_ORPHAN_MAX && st.evicted == 5, "at most %d held, the oldest go (%llu)",
       SATIN_ORPHAN_MAX, (unsigned long long)st.evicted);
    long ran;
    is_i64(run_tree(pool, 4, &ran), 16, "a full table of other places changes nothing");
    satin_pool_destroy(&pool);
}

static atomic_int finished;
static void on_done(satin_job *job, void *arg)
{
    (void)job, (void)arg;
    atomic_store(&finished, 1);
}

/* Starts tree(depth) at place ROOT in the background, the counters reset;
 * on_done sets `finished`. */
static satin_job *start_tree(satin_pool *pool, int64_t depth)
{
    atomic_store(&runs, 0);
    atomic_store(&finished, 0);
    satin_job *job = tree_job(depth);
    satin_job_set_place(job, ROOT);
    satin_job_set_origin(job, ROOT);
    satin_pool_start(pool, job, on_done, NULL);
    return job;
}

/* satin_job_wait may return before the done callback has run. */
static void wait_done(satin_job *job)
{
    satin_job_wait(job);
    wait_flag(60, &finished, "the job's done callback");
}

/* For poll_until: `runs` reached *(long *)want. */
static int runs_reach(void *want)
{
    return atomic_load(&runs) >= *(long *)want;
}

/* For poll_until: the pool's count of waits for a promised result reached
 * `waited`. */
typedef struct waits {
    satin_pool *pool;
    uint64_t waited;
} waits;
static int waits_reach(void *arg)
{
    waits *w = arg;
    satin_orphan_stats st;
    satin_pool_orphan_stats(w->pool, &st);
    return st.waited >= w->waited;
}

/* A promise: the invocation at its place waits for the result (the job
 * does not end meanwhile), takes it when it comes, and runs the record
 * itself when the promise is withdrawn. */
static void test_promised(void)
{
    /* One worker: the root's own sync runs child 1, nested in nothing (a
     * second worker might steal it while it helps at a sync of its own, and
     * then rightly run it rather than wait). */
    satin_pool *pool = new_pool(1);
    satin_orphan_stats st;
    for (int withdrawn = 0; withdrawn <= 1; withdrawn++) {
        uint64_t place = satin_place_child(ROOT, 1);
        satin_pool_expect_orphan(pool, ROOT, place, digest_of(9), 3);
        satin_pool_orphan_stats(pool, &st);
        waits w = {pool, st.waited + 1};
        satin_job *job = start_tree(pool, 10);
        /* However slow the machine: the rest of the tree runs, and the
         * invocation at the promised place waits; then nothing more runs. */
        poll_until(60, runs_reach, &(long){1024});
        poll_until(60, waits_reach, &w);
        ok(!atomic_load(&finished) && atomic_load(&runs) == 1024 && waits_reach(&w),
           "promise %d: the job waits, all but the promised subtree ran (%ld)", withdrawn,
           (long)atomic_load(&runs));
        int64_t v = 600;
        if (withdrawn)
            satin_pool_abandon_orphans(pool, 3, place, digest_of(9), 0);
        else
            satin_pool_add_orphan(pool, ROOT, place, digest_of(9), &v, sizeof v, 1023);
        wait_done(job);
        size_t len;
        const int64_t *res = satin_job_result(job, &len);
        is_i64(*res, withdrawn ? 1024 : 600 + 512,
               withdrawn ? "withdrawn: the waiting invocation ran it itself"
                         : "kept: the promised result is taken");
        is_i64(atomic_load(&runs), withdrawn ? 2047 : 1024, "promise %d: runs", withdrawn);
        satin_job_destroy(&job);
    }
    satin_pool_orphan_stats(pool, &st);
    ok(st.promised == 2 && st.waited == 2 && st.abandoned == 1 && st.used == 1 && st.held == 0,
       "promised 2, waited 2, abandoned 1, used 1, none held");

    /* A job's root at a promised place may be the promised record itself
     * (come back, or taken by a thief): it runs, it does not wait. */
    satin_pool_expect_orphan(pool, ROOT, ROOT, digest_of(4), 3);
    satin_job *job = start_tree(pool, 4);
    int done = poll_until(60, flag_is_set, &finished);
    ok(done && atomic_load(&runs) == 31, "a root at a promised place runs at once (%ld runs)",
       (long)atomic_load(&runs));
    if (!done)   /* let it end, so that the test does */
        satin_pool_abandon_orphans(pool, 3, ROOT, digest_of(4), 0);
    wait_done(job);
    satin_job_destroy(&job);
    satin_pool_abandon_orphans(pool, 3, ROOT, digest_of(4), 0);
    /* A promise neither kept nor withdrawn: the waiter runs the record after
     * the longest wait. */
    satin_pool_set_orphan_wait(pool, 100000000);
    satin_pool_expect_orphan(pool, ROOT, satin_place_child(ROOT, 1), digest_of(9), 3);
    long ran;
    satin_orphan_stats before;
    satin_pool_orphan_stats(pool, &before);
    is_i64(run_tree(pool, 10, &ran), 1024, "an unkept promise: the waiter runs it after the wait");
    is_i64(ran, 2047, "an unkept promise: every invocation ran");
    satin_pool_orphan_stats(pool, &st);
    ok(st.gave_up == before.gave_up + 1 && st.waited == before.waited + 1,
       "an unkept promise: waited once, gave up once");
    satin_pool_abandon_orphans(pool, 3, 0, 0, 1);

    /* The holder dies: all of its promises go. */
    satin_pool_expect_orphan(pool, ROOT, 1, 1, 2);
    satin_pool_expect_orphan(pool, ROOT, 2, 2, 2);
    satin_pool_expect_orphan(pool, ROOT, 3, 3, 1);
    satin_pool_abandon_orphans(pool, 2, 0, 0, 1);
    satin_pool_orphan_stats(pool, &st);
    ok(st.held == 1 && st.promises == 1, "a dead holder's promises go, another's stays");
    satin_pool_destroy(&pool);
}

/* A record taken for another node carries its place. */
static atomic_int spawned, release;
SATIN_TASK(int64_t, pair, int64_t, any_depth);
static int64_t pair(SATIN_FRAME, int64_t unused)
{
    (void)unused;
    int64_t r[2] = {0, 0};
    satin_spawn(tree, &r[0], 0);
    satin_spawn(tree, &r[1], 0);
    atomic_store(&spawned, 1);
    poll_until(600, flag_is_set, &release);   /* until the test lets it go on */
    satin_sync();
    return r[0] + r[1];
}

static satin_job *pair_job(void)
{
    int64_t unused = 0;
    return satin_job_new_task(SATIN_TASK_OF(pair), &unused, sizeof unused, sizeof(int64_t));
}

static void test_remote_place(void)
{
    satin_pool *pool = new_pool(1);
    satin_job *job = pair_job();
    satin_job_set_place(job, ROOT);
    satin_pool_start(pool, job, NULL, NULL);
    if (!wait_flag(60, &spawned, "the pair to spawn its children"))
        abort();   /* the rest would take a record that was never made */
    satin_record *r[2];
    int n = satin_pool_take_for_remote(pool, r, 1);
    ok(n == 1 && satin_record_place(r[0]) == satin_place_child(ROOT, 1),
       "the record taken for another node (the oldest child) has the first child's place");
    int64_t v = 40;
    satin_record_complete(r[0], 1, &v, sizeof v, NULL);
    atomic_store(&release, 1);
    satin_job_wait(job);
    size_t len;
    const int64_t *res = satin_job_result(job, &len);
    is_i64(*res, 41, "its result came back from 'elsewhere'");
    satin_job_destroy(&job);
    satin_pool_destroy(&pool);
}

/* Another node's record (X) waits at its sync for a child taken by a
 * "thief"; its worker helps with a job submitted here (Y), whose child
 * meets a promise.  When X descends from the promised record (its ancestry
 * holds the promised place), the promised record may be waiting for X; when
 * X is itself promised to other nodes, they may be waiting for it: either
 * way Y must not wait on top of X, and runs the child itself.  Otherwise Y
 * waits for the promised result. */
enum { X_UNRELATED, X_DESCENDS, X_PROMISED };
static void test_wait_above_remote(int mode)
{
    int related = mode != X_UNRELATED;
    satin_pool *pool = new_pool(1);
    uint64_t place = satin_place_child(ROOT, 1);
    atomic_store(&spawned, 0);
    atomic_store(&release, 0);
    satin_job *x = pair_job();
    satin_job_set_place(x, ROOT + 7);
    satin_job_set_remote(x);
    satin_ancestry anc = {{0, 0}};
    satin_ancestry_add(&anc, mode == X_DESCENDS ? place : place ^ 0x5a5a5a5a5a5aULL);
    satin_job_set_ancestry(x, anc.w);
    if (mode == X_PROMISED)
        satin_job_set_promised(x);
    satin_pool_start(pool, x, NULL, NULL);
    if (!wait_flag(60, &spawned, "X to spawn its children"))
        abort();   /* the rest would take a record that was never made */
    satin_record *taken[1];
    int n = satin_pool_take_for_remote(pool, taken, 1);
    uint64_t got[2];
    satin_record_ancestry(taken[0], got);
    satin_ancestry want = anc;
    satin_ancestry_add(&want, ROOT + 7);
    ok(n == 1 && got[0] == want.w[0] && got[1] == want.w[1],
       "X's child taken for another node descends from X's ancestry and X's root");
    /* X runs its second child, then waits for the first.  Nothing to wait
     * for here: the one worker is in X until that child's result comes (at
     * the end), so Y, started now or later, runs on top of X either way. */
    atomic_store(&release, 1);

    satin_orphan_stats before, after;
    satin_pool_expect_orphan(pool, ROOT, place, digest_of(3), 3);
    satin_pool_orphan_stats(pool, &before);
    int64_t v = 100;
    satin_job *y = start_tree(pool, 4);
    if (related) {
        int done = poll_until(60, flag_is_set, &finished);
        satin_pool_orphan_stats(pool, &after);
        ok(done && after.waited == before.waited,
           "X %s: Y, on top of X, ran the child itself",
           mode == X_DESCENDS ? "descends from the promised record" : "is promised itself");
        if (!done)   /* let it end, so that the test does */
            satin_pool_abandon_orphans(pool, 3, 0, 0, 1);
    } else {
        poll_until(60, runs_reach, &(long){16});
        poll_until(60, waits_reach, &(waits){pool, before.waited + 1});
        satin_pool_orphan_stats(pool, &after);
        ok(!atomic_load(&finished) && after.waited == before.waited + 1,
           "X does not: Y, on top of X, waits for the promised result");
        satin_pool_add_orphan(pool, ROOT, place, digest_of(3), &v, sizeof v, 15);
    }
    wait_done(y);
    size_t len;
    const int64_t *res = satin_job_result(y, &len);
    is_i64(*res, related ? 16 : 100 + 8, "Y's value");
    satin_job_destroy(&y);
    int64_t one = 1;
    satin_record_complete(taken[0], 1, &one, sizeof one, NULL);
    satin_job_wait(x);
    satin_job_destroy(&x);
    satin_pool_abandon_orphans(pool, 3, 0, 0, 1);
    satin_pool_destroy(&pool);
}

/* Orphans belong to one submitted job (their origin): a job of another
 * origin never looks for them, so it keeps its in-place spawns, and when
 * the last of them goes the job of their origin stops looking too. */
static void test_only_their_job(void)
{
    satin_pool *pool = new_pool(2);
    satin_orphan_stats before, after;
    int64_t v = 777;
    satin_pool_add_orphan(pool, ROOT, satin_place_child(ROOT, 1), digest_of(8), &v, sizeof v, 1);
    satin_pool_orphan_stats(pool, &before);
    int64_t depth = 10;
    satin_job *other = tree_job(depth);
    satin_job_set_place(other, ROOT);   /* the same places: only the origin differs */
    satin_job_set_origin(other, ROOT + 99);
    satin_pool_run(pool, other);
    size_t len;
    const int64_t *res = satin_job_result(other, &len);
    is_i64(*res, 1024, "a job of another origin computes its own value");
    satin_job_destroy(&other);
    satin_pool_orphan_stats(pool, &after);
    ok(after.lookups == before.lookups && after.used == 0 && after.held == 1,
       "and none of its 2047 invocations looked for the orphan (%llu look-ups)",
       (unsigned long long)(after.lookups - before.lookups));
    long ran;
    is_i64(run_tree(pool, 10, &ran), 1024, "the job of the orphan's origin: its value");
    satin_pool_orphan_stats(pool, &after);
    ok(after.lookups > before.lookups, "looked for it (%llu look-ups)",
       (unsigned long long)(after.lookups - before.lookups));
    satin_pool_abandon_orphans(pool, -1, 0, 0, 1);   /* a result has no holder: kept */
    satin_pool_orphan_stats(pool, &after);
    is_i64((int64_t)after.held, 1, "the wrong-digest result is still held");
    satin_pool_destroy(&pool);
}

int main(void)
{
    test_taken();
    test_not_taken();
    test_bounded();
    test_promised();
    test_remote_place();
    test_wait_above_remote(X_DESCENDS);
    test_wait_above_remote(X_PROMISED);
    test_wait_above_remote(X_UNRELATED);
    test_only_their_job();
    return done_testing();
}
