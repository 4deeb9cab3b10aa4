/* job.c - a job's life: creation, failure and cancellation, completion,
 * and the statistics it returns. */
#include "params.h"
#include "pool_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static satin_job *job_new(const satin_kind *kind, const satin_task *task, const void *arg,
                          size_t len, size_t result_cap)
{
    satin_job *job = calloc(1, sizeof *job);
    if (!job)
        abort();
    job->kind = kind;
    job->task = task;
    job->root = calloc(1, sizeof *job->root + len);
    job->result = calloc(1, result_cap ? result_cap : 1);
    if (!job->root || !job->result)
        abort();
    satin_record *r = job->root;
    r->task = task;
    r->job = job;
    r->result = job->result;
    r->result_cap = result_cap;
    r->len = len;
    r->flags = RECORD_ROOT;
    if (len)
        memcpy(r->arg, arg, len);
    pthread_mutex_init(&job->lock, NULL);
    pthread_cond_init(&job->finished_cond, NULL);
    return job;
}

satin_job *satin_job_new(const satin_kind *kind, const void *arg, size_t len)
{
    return job_new(kind, kind->root, arg, len,
                   kind->result_size ? kind->result_size : kind->root->result_size);
}

size_t satin_job_root_result_size(const satin_kind *kind, const satin_bytes *arg)
{
    size_t cap = kind->result_size ? kind->result_size : kind->root->result_size;
    return arg && arg->result_size > cap ? arg->result_size : cap;
}

satin_job *satin_job_new_parsed(const satin_kind *kind, const satin_bytes *arg)
{
    return job_new(kind, kind->root, arg->data, arg->len, satin_job_root_result_size(kind, arg));
}

satin_job *satin_job_new_task(const satin_task *task, const void *arg, size_t len,
                              size_t result_cap)
{
    return job_new(NULL, task, arg, len, result_cap);
}

const void *satin_job_arg(const satin_job *job, size_t *len)
{
    return satin_record_arg(job->root, len);
}

void satin_job_set_place(satin_job *job, uint64_t place)
{
    job->root->place = place;
}

void satin_job_set_remote(satin_job *job)
{
    job->remote = 1;
}

void satin_job_set_promised(satin_job *job)
{
    atomic_store_explicit(&job->promised, 1, memory_order_relaxed);
}

void satin_job_set_ancestry(satin_job *job, const uint64_t ancestry[2])
{
    job->ancestry.w[0] = ancestry[0];
    job->ancestry.w[1] = ancestry[1];
}

void satin_job_set_origin(satin_job *job, uint64_t origin)
{
    job->origin = origin;
}

uint64_t satin_job_origin(const satin_job *job)
{
    return job->origin;
}

void satin_job_destroy(satin_job **self)
{
    satin_job *job = *self;
    if (!job)
        return;
    pthread_mutex_destroy(&job->lock);
    pthread_cond_destroy(&job->finished_cond);
    free(job->root);
    free(job->result);
    free(job->busy0);
    free(job->idle0);
    free(job->busy1);
    free(job->idle1);
    free(job);
    *self = NULL;
}

void satin_job_fail(satin_job *job, const char *msg)
{
    pthread_mutex_lock(&job->lock);
    if (!job->failed) {
        job->failed = 1;
        snprintf(job->error, sizeof job->error, "%s", msg);
    }
    pthread_mutex_unlock(&job->lock);
    atomic_store_explicit(&job->stop, 1, memory_order_seq_cst);
    /* Children stop running in place (satin_spawn's fast path does not look
     * at the job): after the store, see spawn.c's arm_in_place. */
    if (job->pool)
        satin_pool_clear_fast(job->pool);
}

void satin_job_cancel(satin_job *job, const char *why)
{
    char msg[256];
    snprintf(msg, sizeof msg, "cancelled: %s", why && *why ? why : "by request");
    satin_job_fail(job, msg);
}

static void snapshot(satin_pool *pool, int64_t now, uint64_t **busy, uint64_t **idle)
{
    *busy = calloc((size_t)pool->nworkers, sizeof **busy);
    *idle = calloc((size_t)pool->nworkers, sizeof **idle);
    if (!*busy || !*idle)
        abort();
    for (int i = 0; i < pool->nworkers; i++)
        satin_worker_times(&pool->workers[i], now, &(*busy)[i], &(*idle)[i]);
}

void satin_job_begin(satin_job *job, satin_pool *pool)
{
    job->pool = pool;
    job->nworkers = pool->nworkers;
    job->t_start = satin_now_ns();
    snapshot(pool, job->t_start, &job->busy0, &job->idle0);
    satin_vals_attach(pool, job);
}

void satin_job_finish(satin_job *job, satin_pool *pool)
{
    int64_t now = satin_now_ns();
    uint64_t *busy, *idle;
    snapshot(pool, now, &busy, &idle);
    satin_vals_detach(pool, job);
    atomic_fetch_sub_explicit(&pool->active_jobs, 1, memory_order_relaxed);
    pthread_mutex_lock(&job->lock);
    job->t_end = now;
    job->busy1 = busy;
    job->idle1 = idle;
    job->finished = 1;
    satin_job_done_fn *done = job->done;
    void *done_arg = job->done_arg;
    pthread_cond_broadcast(&job->finished_cond);
    pthread_mutex_unlock(&job->lock);
    if (done)
        done(job, done_arg);
}

void satin_job_wait(satin_job *job)
{
    pthread_mutex_lock(&job->lock);
    while (!job->finished)
        pthread_cond_wait(&job->finished_cond, &job->lock);
    pthread_mutex_unlock(&job->lock);
}

void satin_pool_run(satin_pool *pool, satin_job *job)
{
    satin_pool_start(pool, job, NULL, NULL);
    satin_job_wait(job);
}

const satin_kind *satin_job_kind(const satin_job *job)
{
    return job->kind;
}

const satin_task *satin_job_task(const satin_job *job)
{
    return job->task;
}

/* The accessors below are for finished jobs: the finishing worker's unlock
 * of job->lock happened before the done callback or satin_pool_run return. */
int satin_job_stopping(const satin_job *job)
{
    return atomic_load_explicit(&job->stop, memory_order_relaxed);
}

int satin_job_failed(const satin_job *job)
{
    return job->failed;
}

const char *satin_job_error(const satin_job *job)
{
    return job->error;
}

const void *satin_job_result(const satin_job *job, size_t *len)
{
    *len = job->root->result_len;
    return job->result;
}

double satin_job_wall_seconds(const satin_job *job)
{
    return (double)(job->t_end - job->t_start) / 1e9;
}

void satin_job_times(const satin_job *job, int64_t *start, int64_t *end)
{
    *start = job->t_start;
    *end = job->t_end;
}

void satin_job_stats(const satin_job *job, satin_kvlist *stats)
{
    satin_kvlist_add_f64(stats, "wall_s", satin_job_wall_seconds(job));
    satin_kvlist_add_i64(stats, "records_queued", (int64_t)atomic_load(&job->spawned));
    satin_kvlist_add_i64(stats, "records_run", (int64_t)atomic_load(&job->run));
    satin_kvlist_add_i64(stats, "steals_intra", (int64_t)atomic_load(&job->steals));
    satin_kvlist_add_i64(stats, "workers", job->nworkers);
    double busy_total = 0, idle_total = 0;
    for (int i = 0; i < job->nworkers && job->busy1; i++) {
        char name[48];
        double busy = (double)(job->busy1[i] - job->busy0[i]) / 1e9;
        double idle = (double)(job->idle1[i] - job->idle0[i]) / 1e9;
        snprintf(name, sizeof name, "worker.%d.busy_s", i);
        satin_kvlist_add_f64(stats, name, busy);
        snprintf(name, sizeof name, "worker.%d.idle_s", i);
        satin_kvlist_add_f64(stats, name, idle);
        busy_total += busy;
        idle_total += idle;
    }
    satin_kvlist_add_f64(stats, "busy_s", busy_total);
    satin_kvlist_add_f64(stats, "idle_s", idle_total);
}

void satin_job_add_counts(satin_job *job, uint64_t queued, uint64_t run, uint64_t steals)
{
    atomic_fetch_add_explicit(&job->spawned, queued, memory_order_relaxed);
    atomic_fetch_add_explicit(&job->run, run, memory_order_relaxed);
    atomic_fetch_add_explicit(&job->steals, steals, memory_order_relaxed);
}

void satin_job_counts(const satin_job *job, uint64_t *queued, uint64_t *run, uint64_t *steals)
{
    *queued = atomic_load_explicit(&job->spawned, memory_order_relaxed);
    *run = atomic_load_explicit(&job->run, memory_order_relaxed);
    *steals = atomic_load_explicit(&job->steals, memory_order_relaxed);
}
