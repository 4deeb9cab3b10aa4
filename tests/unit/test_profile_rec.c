/* test_profile_rec.c - the pool's profile recorder (daemon/runtime/profile.c):
 * nothing recorded without a session; a job's events tile each worker's
 * time and sum to the busy time the job's statistics report; steal
 * requests out and back; the log's bound and truncation; sessions that
 * never end do not stop later ones. */
#include "../tap.h"
#include "pool.h"

#include <stdlib.h>
#include <string.h>

/* A frame of `n` leaves that each spin a little: siblings steal them, so
 * both workers run several top-level records. */
static int any_i64(const int64_t *a, satin_err *err)
{
    (void)a;
    (void)err;
    return 0;
}

SATIN_TASK(int64_t, spin_leaves, int64_t, any_i64);
static int64_t spin_leaves(SATIN_FRAME, int64_t n)
{
    if (n < 0) {
        volatile uint64_t x = 0;
        for (int i = 0; i < 100000; i++)
            x += (uint64_t)i;
        return 1;
    }
    int64_t *res = calloc((size_t)n, sizeof *res), sum = 0;
    for (int64_t i = 0; i < n; i++)
        satin_spawn(spin_leaves, &res[i], -1);
    satin_sync();
    for (int64_t i = 0; i < n; i++)
        sum += res[i];
    free(res);
    return sum;
}

static double stat_f64(const satin_kvlist *l, const char *name)
{
    double v = -1;
    satin_kvlist_f64(l, name, &v);
    return v;
}

static void test_job(void)
{
    satin_pool_config cfg = {.workers = 2, .stack_size = (size_t)16 << 20};
    satin_pool *pool = satin_pool_new(&cfg);
    int64_t arg = 1000;

    /* no session: nothing */
    satin_job *job = satin_job_new_task(SATIN_TASK_OF(spin_leaves), &arg, sizeof arg, sizeof(int64_t));
    satin_pool_run(pool, job);
    satin_job_destroy(&job);
    is_i64((int64_t)satin_pool_profile_events(pool), 0, "a job without a session records nothing");
    ok(!satin_pool_profiling(pool), "and the pool does not profile");
    satin_profile p;
    satin_profile_init(&p);
    ok(satin_pool_profile_end(pool, 0, 1, 0, 0, &p) == -1, "the end of a session never begun: -1");

    satin_pool_profile_begin(pool, 0, 7);
    ok(satin_pool_profiling(pool), "a session open: the pool profiles");
    job = satin_job_new_task(SATIN_TASK_OF(spin_leaves), &arg, sizeof arg, sizeof(int64_t));
    satin_pool_run(pool, job);
    int64_t t0, t1;
    satin_job_times(job, &t0, &t1);
    satin_kvlist stats;
    satin_kvlist_init(&stats);
    satin_job_stats(job, &stats);
    satin_job_destroy(&job);
    ok(satin_pool_profile_end(pool, 0, 7, t1, -t0, &p) == 0, "the session ends");
    ok(!satin_pool_profiling(pool), "and with it the profiling");
    is_i64(p.workers, 2, "2 workers");
    ok(p.start < 0 && p.end == t1 - t0 && p.truncated == SATIN_PROFILE_WHOLE,
       "from before the job's start to its end, whole");
    /* Each worker: the snapshot first, then busy and free in turn. */
    int alternate = 1, seen[2] = {0, 0}, last[2] = {0, 0};
    int64_t busy_since[2] = {0, 0}, computing[2] = {0, 0};
    for (size_t i = 0; i < p.n; i++) {
        const satin_profile_event *e = &p.ev[i];
        alternate &= e->what == SATIN_PROFILE_BUSY || e->what == SATIN_PROFILE_FREE;
        if (e->n > 1)
            continue;
        int w = (int)e->n, busy = e->what == SATIN_PROFILE_BUSY;
        alternate &= !seen[w] || busy != last[w];
        alternate &= i == 0 || e->t >= p.ev[i - 1].t;
        int64_t t = e->t < 0 ? 0 : e->t;   /* the job's statistics begin at its start */
        if (seen[w] && last[w] && !busy)
            computing[w] += t - busy_since[w];
        if (busy)
            busy_since[w] = t;
        seen[w] = 1;
        last[w] = busy;
    }
    for (int w = 0; w < 2; w++)
        if (last[w])
            computing[w] += p.end - busy_since[w];
    ok(alternate && seen[0] && seen[1], "each worker's events alternate, in time order (%zu)", p.n);
    for (int w = 0; w < 2; w++) {
        char key[32];
        snprintf(key, sizeof key, "worker.%d.busy_s", w);
        double busy = stat_f64(&stats, key);
        ok(busy > 0 && computing[w] > 0 && (double)computing[w] / 1e9 - busy < 1e-9 &&
           busy - (double)computing[w] / 1e9 < 1e-9,
           "worker %d: computing %lld ns, the job's statistics say busy %.9f s", w,
           (long long)computing[w], busy);
    }
    ok((int64_t)satin_pool_profile_events(pool) >= (int64_t)p.n, "the counter counts them");
    satin_kvlist_free(&stats);

    /* steal requests of the node's own */
    satin_pool_profile_begin(pool, 1, 8);
    satin_pool_profile_steal(pool, 555, 1);
    satin_pool_profile_steal(pool, 556, 0);
    satin_pool_profile_answered(pool, 555);
    satin_pool_profile_answered(pool, 999);   /* not ours: nothing */
    ok(satin_pool_profile_end(pool, 1, 8, 0, 0, &p) == 0 && p.n == 5 &&
       p.ev[2].what == SATIN_PROFILE_WAN && p.ev[3].what == SATIN_PROFILE_LAN &&
       p.ev[4].what == SATIN_PROFILE_ANSWERED && p.ev[4].n == p.ev[2].n &&
       p.ev[2].n != p.ev[3].n,
       "2 workers' snapshot, a wide-area and a local request out, the first answered");
    satin_profile_free(&p);
    satin_pool_destroy(&pool);
}

static void test_bounds(void)
{
    satin_pool_config cfg = {.workers = 1, .stack_size = (size_t)16 << 20};
    satin_pool *pool = satin_pool_new(&cfg);
    satin_profile p;
    satin_profile_init(&p);

    /* a full log truncates the session at the moment it filled */
    satin_pool_profile_begin(pool, 0, 1);
    for (int i = 0; i < SATIN_PROFILE_LOG_MAX; i++) {
        satin_pool_profile_steal(pool, (uint64_t)i, 0);
        satin_pool_profile_answered(pool, (uint64_t)i);
    }
    ok(satin_pool_profile_end(pool, 0, 1, 0, 0, &p) == 0 && p.n == SATIN_PROFILE_LOG_MAX &&
       p.truncated != SATIN_PROFILE_WHOLE && p.truncated >= p.ev[p.n - 1].t &&
       p.truncated <= p.end,
       "%d events kept, the profile truncated after the last", SATIN_PROFILE_LOG_MAX);

    /* a session never ended, the log full: the next session ends it */
    satin_pool_profile_begin(pool, 2, 1);
    satin_pool_profile_begin(pool, 3, 1);
    for (int i = 0; i < SATIN_PROFILE_LOG_MAX; i++) {
        satin_pool_profile_steal(pool, (uint64_t)i, 0);
        satin_pool_profile_answered(pool, (uint64_t)i);
    }
    satin_pool_profile_begin(pool, 4, 1);
    ok(satin_pool_profile_end(pool, 2, 1, 0, 0, &p) == -1, "the oldest session went");
    ok(satin_pool_profile_end(pool, 3, 1, 0, 0, &p) == 0 && p.truncated != SATIN_PROFILE_WHOLE,
       "the next keeps its truncation");
    ok(satin_pool_profile_end(pool, 4, 1, 0, 0, &p) == 0 && p.truncated == SATIN_PROFILE_WHOLE &&
       p.n == 1,
       "the new one is whole: its snapshot of the worker");

    /* at most 16 sessions */
    for (int i = 0; i < 17; i++)
        satin_pool_profile_begin(pool, 5, (uint64_t)i);
    ok(satin_pool_profile_end(pool, 5, 0, 0, 0, &p) == -1, "a 17th session ends the first");
    int rest = 1;
    for (int i = 1; i < 17; i++)
        rest &= satin_pool_profile_end(pool, 5, (uint64_t)i, 0, 0, &p) == 0;
    ok(rest && !satin_pool_profiling(pool), "the 16 others end, and profiling stops");
    satin_profile_free(&p);
    satin_pool_destroy(&pool);
}

int main(void)
{
    test_job();
    test_bounds();
    return done_testing();
}
