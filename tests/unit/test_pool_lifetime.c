/* test_pool_lifetime.c - a pool created and destroyed many times while its
 * workers go hungry.
 *
 * Each worker's hot fields (satin_here: the in-place limit, the spawn count)
 * live in its thread's TLS, and other threads write them: a worker that
 * finds nothing raises every sibling's limit (satin_pool_report_hungry).
 * A worker's TLS goes away with its thread, so no worker may still be in its
 * loop once another has left it.  The window is right after a job: the
 * workers that took its records reset the hungry flag, and the first one to
 * find nothing again raises everyone's limit, while satin_pool_destroy
 * stops and joins them.  Stacks of 256 MiB are beyond glibc's stack cache,
 * so a joined worker's TLS is unmapped at once and a late write faults
 * (before the fix: about 1 run in 25 when several copies ran at once). */
#include "../tap.h"
#include "apps.h"
#include "fib.h"
#include "kinds.h"
#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/* The window is widest when the workers are preempted: two threads that
 * burn CPU beside the pool, as a loaded machine would. */
static atomic_int burning = 1;
static void *burn(void *arg)
{
    (void)arg;
    volatile uint64_t x = 0;
    while (atomic_load_explicit(&burning, memory_order_relaxed))
        x++;
    return NULL;
}

static satin_registry *reg;

static int run_round(int workers, int n)
{
    satin_pool *pool = satin_pool_new(&(satin_pool_config){.workers = workers});
    unsigned char arg[32];
    size_t len = satin_fib_arg_write(n, 0, arg, sizeof arg);
    satin_job *job = satin_job_new(satin_registry_kind(reg, "fib"), arg, len);
    satin_pool_run(pool, job);
    int64_t v = -1;
    size_t got = 0;
    const void *res = satin_job_result(job, &got);
    if (!satin_job_failed(job) && got == sizeof v)
        memcpy(&v, res, sizeof v);
    satin_job_destroy(&job);
    /* At once: the workers are still turning hungry after the job. */
    satin_pool_destroy(&pool);
    return v == satin_fib_value(n);
}

int main(void)
{
    alarm(240);
    reg = satin_registry_linked(satin_module_entry());
    pthread_t burners[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&burners[i], NULL, burn, NULL);
    const int rounds = 300;
    int shapes[][2] = {{2, 16}, {6, 18}, {12, 14}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int workers = shapes[s][0], n = shapes[s][1], exact = 0;
        for (int r = 0; r < rounds; r++)
            exact += run_round(workers, n);
        is_i64(exact, rounds,
               "%d workers: %d pools each ran fib(%d) exactly and were destroyed at once "
               "while their workers went hungry", workers, rounds, n);
    }
    satin_registry_destroy(&reg);
    atomic_store(&burning, 0);
    for (int i = 0; i < 2; i++)
        pthread_join(burners[i], NULL);
    return done_testing();
}
