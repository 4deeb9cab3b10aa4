/* test_pool_moves.c - records that came from another node move on.
 *
 * A real pool behind the scripted policy environment (test_policy_fake.h):
 * reply and push take records with satin_pool_take_for_remote and the
 * queue length is satin_pool_queue_length, as in satind's node.  The pool
 * has one worker, held busy by a job that spawns nothing, so the only
 * queued work is what the test starts as "arrived from elsewhere" (what the
 * node does with a JOBREC of a steal reply, a prefetch or a push): whatever
 * moves, moves by construction.  Each given record is then completed as if
 * its result came back, which must finish the stand-in job with it. */
#include "test_policy_fake.h"
#include "pool.h"

#include <stdatomic.h>
#include <unistd.h>

static int any_bytes(const void *arg, size_t len, satin_err *err)
{
    (void)arg;
    (void)len;
    (void)err;
    return 0;
}

SATIN_BYTES_TASK(hold, any_bytes);
static atomic_int hold_started, hold_release;

static void hold(SATIN_FRAME, const void *arg, size_t len)
{
    (void)arg; (void)len;
    atomic_store(&hold_started, 1);
    poll_until(600, flag_is_set, &hold_release);   /* until the test lets it go on */
}

/* Returns its argument: a stand-in's result says which record it was. */
SATIN_BYTES_TASK(value, any_bytes);
static void value(SATIN_FRAME, const void *arg, size_t len)
{
    satin_return(arg, len);
}

static satin_pool *pool;
static satin_job *holder;
static satin_record *given[16];
static int ngiven;
static atomic_int standins_done;

static int take(int max)
{
    satin_record *r[8];
    int n = satin_pool_take_for_remote(pool, r, max < 8 ? max : 8);
    for (int i = 0; i < n && ngiven < 16; i++)
        given[ngiven++] = r[i];
    return n;
}

static int pool_reply(void *ctx, int thief, uint64_t id, unsigned flags, int max_jobs)
{
    fake_action *a = fake_record_(ctx, FAKE_REPLY);
    a->node = thief;
    a->id = id;
    a->flags = flags;
    a->value = max_jobs;
    a->result = take(max_jobs);
    return a->result;
}

static int pool_push(void *ctx, int target)
{
    fake_action *a = fake_record_(ctx, FAKE_PUSH);
    a->node = target;
    a->result = take(1);
    return a->result;
}

static int64_t pool_queue_length(void *ctx)
{
    (void)ctx;
    return satin_pool_queue_length(pool);
}

static void standin_done(satin_job *job, void *arg)
{
    (void)job; (void)arg;
    atomic_fetch_add(&standins_done, 1);
}

/* A busy 1-worker pool and a fake environment that acts on it. */
static fake_env *setup(void)
{
    pool = satin_pool_new(&(satin_pool_config){.workers = 1});
    atomic_store(&hold_started, 0);
    atomic_store(&hold_release, 0);
    atomic_store(&standins_done, 0);
    ngiven = 0;
    holder = satin_job_new_task(SATIN_TASK_OF(hold), NULL, 0, 8);
    satin_pool_start(pool, holder, NULL, NULL);
    if (!wait_flag(60, &hold_started, "the holder to start"))
        abort();   /* the records would not be what arrived */
    fake_env *fe = fake_new();
    fe->env.reply = pool_reply;
    fe->env.push = pool_push;
    fe->env.queue_length = pool_queue_length;
    return fe;
}

/* A record arrives from another node: a stand-in job on the pool. */
static satin_job *arrive(int64_t value)
{
    satin_job *job = satin_job_new_task(SATIN_TASK_OF(value), &value, sizeof value, sizeof value);
    satin_pool_start(pool, job, standin_done, NULL);
    return job;
}

/* The result of given[k] comes back: its stand-in must end with it. */
static void result_comes_back(int k, satin_job *job, int64_t value, const char *what)
{
    if (k >= ngiven) {
        ok(0, "%s (no record %d was given)", what, k);
        return;
    }
    satin_record_complete(given[k], 1, &value, sizeof value, NULL);
    satin_job_wait(job);
    size_t len;
    const void *res = satin_job_result(job, &len);
    int64_t v = -1;
    if (len == sizeof v)
        memcpy(&v, res, sizeof v);
    ok(!satin_job_failed(job) && v == value, "%s", what);
}

static void teardown(fake_env *fe, satin_job **jobs, int njobs)
{
    atomic_store(&hold_release, 1);
    for (int i = 0; i < njobs; i++) {
        satin_job_wait(jobs[i]);
        satin_job_destroy(&jobs[i]);
    }
    satin_job_wait(holder);
    satin_job_destroy(&holder);
    satin_pool_destroy(&pool);
    free(fe);
}

/* Clusters {0, 1} and {2}: coordinator 0 prefetches from 2 while its only
 * worker is busy; member 1, idle, steals the prefetched job from it. */
static void cls_prefetched_job_is_stolen(void)
{
    const satin_policy_ops *ops = &satin_policy_cls;
    fake_topo ft;
    fake_topo_init(&ft, 0, 2, (const int[]){2, 1});
    fake_env *fe = setup();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    fe->idle = 0;
    FAKE_DRAWS(fe, 0, 0);
    ops->on_queue_length(p, 0);
    uint64_t id = expect_steal(fe, 2, SATIN_STEAL_WAN | SATIN_STEAL_PREFETCH,
                               "cls: the cluster's load is 0: coordinator 0 prefetches from 2");
    satin_job *pre = arrive(7);
    fake_on_steal_reply(fe, ops, p, 2, id, 1, SATIN_STEAL_WAN | SATIN_STEAL_PREFETCH);
    is_i64(satin_pool_queue_length(pool), 1, "cls: the prefetched job waits in 0's queue");
    ops->on_steal_request(p, 1, 1, 55, SATIN_STEAL_SYNC);
    expect_reply(fe, 1, 55, SATIN_STEAL_SYNC, 1, "cls: idle member 1 asks coordinator 0");
    ok(fe->act[fe->seen - 1].result == 1 && ngiven == 1 && satin_record_job(given[0]) == pre,
       "cls: and gets the prefetched job while 0's worker is busy");
    is_i64(fake_node_stat(fe, "jobs_given"), 1, "cls: counted as given");
    is_i64(satin_pool_queue_length(pool), 0, "cls: 0's queue is empty again");
    result_comes_back(0, pre, 7, "cls: 1's result ends the prefetched job on 0");
    is_i64(atomic_load(&standins_done), 1, "cls: so 0 can send the result to 2");
    ops->destroy(p);
    teardown(fe, &pre, 1);
}

/* Cluster {0, 1, 2}: leaf 1 is asked on behalf of root 0 (its subtree
 * walk).  Its only queued work arrived from elsewhere: it gives that; with
 * nothing queued it forwards to 2.  Never an empty reply that would end
 * the walk while 2 may have work. */
static void chs_gives_an_arrived_job(void)
{
    const satin_policy_ops *ops = &satin_policy_chs;
    fake_topo ft;
    fake_topo_init(&ft, 1, 1, (const int[]){3});
    fake_env *fe = setup();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    fe->idle = 0;
    satin_job *in = arrive(11);
    ops->on_steal_request(p, 0, 0, 9, SATIN_STEAL_SYNC);
    expect_reply(fe, 0, 9, SATIN_STEAL_SYNC, 1, "chs: 1 has a queued job: it answers 0");
    ok(fe->act[fe->seen - 1].result == 1 && ngiven == 1 && satin_record_job(given[0]) == in,
       "chs: with the job that arrived from elsewhere, not an empty reply");
    ops->on_steal_request(p, 0, 0, 10, SATIN_STEAL_SYNC);
    expect_forward(fe, 2, 0, 10, SATIN_STEAL_SYNC | SATIN_STEAL_FORWARDED,
                   "chs: queue empty now: the next request walks on to 2");
    expect_none(fe, "chs: (only that)");
    result_comes_back(0, in, 11, "chs: 0's result ends the stand-in on 1");
    ops->destroy(p);
    teardown(fe, &in, 1);
}

/* Cluster {0, 1, 2}: six jobs pushed to 0 while its worker is busy; above
 * the threshold (4) RP pushes the oldest two on. */
static void rp_pushes_a_pushed_job_on(void)
{
    const satin_policy_ops *ops = &satin_policy_rp;
    fake_topo ft;
    fake_topo_init(&ft, 0, 1, (const int[]){3});
    fake_env *fe = setup();
    satin_policy *p = fake_create(ops, &ft, fe, NULL);
    fe->idle = 0;
    satin_job *in[6];
    for (int i = 0; i < 6; i++) {
        in[i] = arrive(100 + i);
        fake_on_push(fe, ops, p, 1);
    }
    FAKE_DRAWS(fe, 0, 1);
    ops->on_queue_length(p, satin_pool_queue_length(pool));
    expect_push(fe, 1, "rp: 6 queued > 4: push to 1");
    expect_push(fe, 2, "rp: 5 > 4: push to 2");
    expect_none(fe, "rp: 4 left: no more");
    ok(ngiven == 2 && satin_record_job(given[0]) == in[0] && satin_record_job(given[1]) == in[1],
       "rp: the two pushed on are the oldest jobs that were pushed here");
    is_i64(satin_pool_queue_length(pool), 4, "rp: four stay");
    is_i64(fake_node_stat(fe, "pushes"), 2, "rp: two pushes counted");
    result_comes_back(0, in[0], 100, "rp: 1's result ends the first stand-in");
    result_comes_back(1, in[1], 101, "rp: 2's result ends the second");
    ops->destroy(p);
    teardown(fe, in, 6);
}

int main(void)
{
    cls_prefetched_job_is_stolen();
    chs_gives_an_arrived_job();
    rp_pushes_a_pushed_job_on();
    return done_testing();
}
