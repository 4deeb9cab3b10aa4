/* test_values.c - a job's grid-wide values on one node (daemon/runtime/
 * values.c): two jobs of one origin share one copy while both run, a job
 * without an origin has its own, each join keeps its lattice, the driver
 * hears of this node's growth once until it takes it, its own joins (from
 * other nodes) are not news, and the copy goes with the last job of its
 * origin.  The jobs wait for each other with bounded waits on flags: the
 * order of joins is the test's, not the scheduler's. */
#include "../tap.h"
#include "pool.h"

#include <stdatomic.h>

enum { BEST, TOP, FLAGS };
static const satin_value_def defs[] = {
    [BEST] = {"best", SATIN_LEAST},
    [TOP] = {"top", SATIN_GREATEST},
    [FLAGS] = {"flags", SATIN_BITS},
    {NULL, 0},
};

/* step s of the script has happened */
static atomic_int step;
static int64_t seen[8][3];    /* what a job read at a step: best, top, flags */
static int joined[8];

static int step_reached(void *s)
{
    return atomic_load(&step) >= *(const int *)s;
}

/* A job's wait for the script's step s (tap.h's poll_until, on a worker). */
static int wait_step(int s)
{
    return poll_until(60, step_reached, &s);
}

static void look(int at)
{
    seen[at][0] = satin_value(BEST);
    seen[at][1] = satin_value(TOP);
    seen[at][2] = satin_value(FLAGS);
}

static int any(const int64_t *a, satin_err *err)
{
    (void)a, (void)err;
    return 0;
}

/* Job A: joins, then waits for B, then for the driver. */
SATIN_TASK(int64_t, job_a, int64_t, any);
static int64_t job_a(SATIN_FRAME, int64_t unused)
{
    (void)unused;
    look(0);
    joined[0] = satin_value_join(BEST, 50) + satin_value_join(TOP, 3) +
                satin_value_join(FLAGS, 0x4) + satin_value_join(BEST, 60) +
                satin_value_join(9, 1) + satin_value_join(-1, 1);
    look(1);
    atomic_store(&step, 1);
    if (!wait_step(2))
        return -1;
    look(2);             /* B's joins */
    atomic_store(&step, 3);
    if (!wait_step(4))
        return -1;
    look(3);             /* the driver's */
    return 0;
}

/* Job B, of A's origin: joins once A has. */
SATIN_TASK(int64_t, job_b, int64_t, any);
static int64_t job_b(SATIN_FRAME, int64_t unused)
{
    (void)unused;
    if (!wait_step(1))
        return -1;
    look(4);             /* A's joins, in the one copy */
    joined[1] = satin_value_join(BEST, 40) + satin_value_join(TOP, 2) +
                satin_value_join(FLAGS, 0x1);
    atomic_store(&step, 2);
    return 0;
}

/* Job C, without an origin: a copy of its own. */
SATIN_TASK(int64_t, job_c, int64_t, any);
static int64_t job_c(SATIN_FRAME, int64_t unused)
{
    (void)unused;
    look(5);
    joined[2] = satin_value_join(BEST, 7);
    look(6);
    return 0;
}

static int calls;
static uint64_t called_for;
static void on_values(void *arg, uint64_t origin)
{
    (void)arg;
    __atomic_fetch_add(&calls, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&called_for, origin, __ATOMIC_SEQ_CST);
}

static satin_job *job_of(const satin_task *t, uint64_t origin)
{
    int64_t arg = 0;
    satin_job *j = satin_job_new_task(t, &arg, sizeof arg, sizeof(int64_t));
    satin_job_set_values(j, defs);
    satin_job_set_origin(j, origin);
    return j;
}

static int both_waiting(void *arg)
{
    (void)arg;
    return atomic_load(&step) >= 3;
}

int main(void)
{
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = 2});
    satin_pool_on_values(pool, on_values, NULL);
    satin_job *a = job_of(SATIN_TASK_OF(job_a), 7), *b = job_of(SATIN_TASK_OF(job_b), 7);
    satin_pool_start(pool, a, NULL, NULL);
    satin_pool_start(pool, b, NULL, NULL);
    ok(poll_until(60, both_waiting, NULL), "A and B ran their joins, A waits for the driver");

    ok(seen[0][0] == INT64_MAX && seen[0][1] == INT64_MIN && seen[0][2] == 0,
       "before any join: least INT64_MAX, greatest INT64_MIN, bits 0");
    is_i64(joined[0], 3, "A's joins: 50, 3, 0x4 grew; 60 did not; values 9 and -1 are none");
    ok(seen[1][0] == 50 && seen[1][1] == 3 && seen[1][2] == 0x4, "A reads its joins back");
    ok(seen[4][0] == 50 && seen[4][1] == 3 && seen[4][2] == 0x4,
       "B, of A's origin, reads A's joins: one copy");
    is_i64(joined[1], 2, "B's joins: 40 and 0x1 grew, top 2 did not");
    ok(seen[2][0] == 40 && seen[2][1] == 3 && seen[2][2] == 0x5, "A reads B's: 40, 3, 0x5");
    is_i64(__atomic_load_n(&calls, __ATOMIC_SEQ_CST), 1,
           "the driver heard once for five growths it had not taken");
    is_i64((int64_t)__atomic_load_n(&called_for, __ATOMIC_SEQ_CST), 7, "of origin 7");

    const satin_value_def *d = NULL;
    int64_t v[SATIN_VALUES_MAX];
    uint32_t grown = 0;
    size_t n = satin_pool_values(pool, 7, &d, v, &grown);
    ok(n == 3 && d == defs && v[0] == 40 && v[1] == 3 && v[2] == 0x5 && grown == 0x7,
       "the driver takes origin 7's: 3 values, 40, 3, 0x5, all grown here");
    n = satin_pool_values(pool, 7, &d, v, &grown);
    ok(n == 3 && grown == 0, "taken: nothing grown since");
    is_i64((int64_t)satin_pool_values(pool, 8, &d, v, &grown), 0, "no values of origin 8 here");
    int64_t from_peer[3] = {30, 1, 0x8};
    is_i64(satin_pool_values_join(pool, 7, from_peer, 0x7), 0x5,
           "another node's 30, 1, 0x8: best and flags grew, top did not");
    n = satin_pool_values(pool, 7, &d, v, &grown);
    ok(v[0] == 30 && v[2] == 0xD && grown == 0, "joined, and not news of this node's");
    atomic_store(&step, 4);
    satin_job_wait(a);
    satin_job_wait(b);
    ok(seen[3][0] == 30 && seen[3][2] == 0xD, "A reads the other node's values: 30, 0xD");
    is_i64(__atomic_load_n(&calls, __ATOMIC_SEQ_CST), 1, "and the driver heard nothing more");
    is_i64((int64_t)satin_pool_values(pool, 7, &d, v, &grown), 0,
           "both jobs ended: origin 7's copy is gone");
    size_t len;
    ok(!satin_job_failed(a) && !satin_job_failed(b) &&
           *(const int64_t *)satin_job_result(a, &len) == 0,
       "neither job's waits timed out");

    satin_job *c = job_of(SATIN_TASK_OF(job_c), 0);
    satin_pool_run(pool, c);
    ok(seen[5][0] == INT64_MAX && joined[2] == 1 && seen[6][0] == 7,
       "a job without an origin: a copy of its own, from nothing");
    is_i64(__atomic_load_n(&calls, __ATOMIC_SEQ_CST), 1, "not the driver's news: no grid shares it");
    satin_job_destroy(&a);
    satin_job_destroy(&b);
    satin_job_destroy(&c);
    satin_pool_destroy(&pool);
    return done_testing();
}
