/*
 * values.c - a job's grid-wide values on this node (<satin/satin.h>,
 * satin_value): one copy per submitted job, shared by every record of it
 * that runs here, so that a bound one worker finds prunes the others'
 * search at once; the engine passes it to the other nodes (engine_values.c)
 * through the driver (satin_pool_on_values and the calls in pool.h).
 *
 * A value is an atomic int64 that only grows in its lattice (a CAS loop
 * for least and greatest, fetch_or for bits), so readers never wait and
 * joins from workers and from the driver mix in any order.  A job started
 * without an origin (a satind without a grid) has a copy of its own.
 */
#include "pool_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct satin_vals {
    uint64_t origin;
    int shared;                  /* in the pool's list (keyed by origin) */
    int refs;                    /* jobs here holding it; under vals_lock */
    size_t n;
    const satin_value_def *defs;
    _Atomic int64_t v[SATIN_VALUES_MAX];
    _Atomic uint32_t grown;      /* grown by this node's joins since the driver took them */
    struct satin_vals *next;
} satin_vals;

int64_t satin_value_bottom(int join)
{
    return join == SATIN_LEAST ? INT64_MAX : join == SATIN_GREATEST ? INT64_MIN : 0;
}

static satin_vals *vals_new(uint64_t origin, const satin_value_def *defs)
{
    satin_vals *x = calloc(1, sizeof *x);
    if (!x)
        abort();
    x->origin = origin;
    x->defs = defs;
    while (x->n < SATIN_VALUES_MAX && defs[x->n].name)
        x->n++;
    for (size_t i = 0; i < x->n; i++)
        atomic_init(&x->v[i], satin_value_bottom(defs[i].join));
    return x;
}

void satin_vals_attach(satin_pool *pool, satin_job *job)
{
    const satin_value_def *defs = satin_job_value_defs(job);
    if (!defs)
        return;
    if (job->origin == 0) {
        job->vals = vals_new(0, defs);
        job->vals->refs = 1;
        return;
    }
    pthread_mutex_lock(&pool->vals_lock);
    satin_vals *x = pool->vals;
    while (x && x->origin != job->origin)
        x = x->next;
    if (!x) {
        x = vals_new(job->origin, defs);
        x->shared = 1;
        x->next = pool->vals;
        pool->vals = x;
    }
    x->refs++;
    job->vals = x;
    pthread_mutex_unlock(&pool->vals_lock);
}

void satin_vals_detach(satin_pool *pool, satin_job *job)
{
    satin_vals *x = job->vals;
    if (!x)
        return;
    job->vals = NULL;
    if (!x->shared) {
        free(x);
        return;
    }
    pthread_mutex_lock(&pool->vals_lock);
    if (--x->refs == 0) {
        satin_vals **p = &pool->vals;
        while (*p != x)
            p = &(*p)->next;
        *p = x->next;
        free(x);
    }
    pthread_mutex_unlock(&pool->vals_lock);
}

void satin_vals_free_all(satin_pool *pool)
{
    while (pool->vals) {
        satin_vals *x = pool->vals;
        pool->vals = x->next;
        free(x);
    }
}

/* Joins v into value i of x: 1 when it grew. */
static int join(satin_vals *x, size_t i, int64_t v)
{
    int j = x->defs[i].join;
    if (j == SATIN_BITS) {
        int64_t old = atomic_fetch_or_explicit(&x->v[i], v, memory_order_relaxed);
        return (old | v) != old;
    }
    int64_t cur = atomic_load_explicit(&x->v[i], memory_order_relaxed);
    while (j == SATIN_LEAST ? v < cur : v > cur)
        if (atomic_compare_exchange_weak_explicit(&x->v[i], &cur, v, memory_order_relaxed,
                                                  memory_order_relaxed))
            return 1;
    return 0;
}

int64_t satin_value(int i)
{
    satin_job *job = satin_job_here();
    satin_vals *x = job ? job->vals : NULL;
    if (!x || i < 0 || (size_t)i >= x->n)
        return 0;
    return atomic_load_explicit(&x->v[i], memory_order_relaxed);
}

int satin_value_join(int i, int64_t v)
{
    satin_job *job = satin_job_here();
    satin_vals *x = job ? job->vals : NULL;
    if (!x || i < 0 || (size_t)i >= x->n || !join(x, (size_t)i, v))
        return 0;
    /* The driver hears once until it takes what grew: a flood of better
     * bounds costs one call, not one per join. */
    uint32_t was = atomic_fetch_or_explicit(&x->grown, 1u << i, memory_order_acq_rel);
    if (!was && x->shared) {
        pthread_mutex_lock(&job->pool->vals_lock);
        void (*fn)(void *, uint64_t) = job->pool->vals_fn;
        void *arg = job->pool->vals_arg;
        pthread_mutex_unlock(&job->pool->vals_lock);
        if (fn)
            fn(arg, x->origin);
    }
    return 1;
}

/* ---- the driver's side (pool.h) ------------------------------------------------ */

void satin_pool_on_values(satin_pool *pool, void (*fn)(void *arg, uint64_t origin), void *arg)
{
    pthread_mutex_lock(&pool->vals_lock);
    pool->vals_fn = fn;
    pool->vals_arg = arg;
    pthread_mutex_unlock(&pool->vals_lock);
}

/* Under vals_lock: the copy of `origin`, or NULL. */
static satin_vals *find(satin_pool *pool, uint64_t origin)
{
    satin_vals *x = pool->vals;
    while (x && x->origin != origin)
        x = x->next;
    return x;
}

size_t satin_pool_values(satin_pool *pool, uint64_t origin, const satin_value_def **defs,
                         int64_t out[SATIN_VALUES_MAX], uint32_t *grown)
{
    pthread_mutex_lock(&pool->vals_lock);
    satin_vals *x = find(pool, origin);
    size_t n = x ? x->n : 0;
    if (x) {
        *defs = x->defs;
        for (size_t i = 0; i < n; i++)
            out[i] = atomic_load_explicit(&x->v[i], memory_order_relaxed);
        if (grown)
            *grown = atomic_exchange_explicit(&x->grown, 0, memory_order_acq_rel);
    } else if (grown) {
        *grown = 0;
    }
    pthread_mutex_unlock(&pool->vals_lock);
    return n;
}

uint32_t satin_pool_values_join(satin_pool *pool, uint64_t origin, const int64_t *vals,
                                uint32_t mask)
{
    uint32_t grew = 0;
    pthread_mutex_lock(&pool->vals_lock);
    satin_vals *x = find(pool, origin);
    for (size_t i = 0; x && i < x->n; i++)
        if ((mask & (1u << i)) && join(x, i, vals[i]))
            grew |= 1u << i;
    pthread_mutex_unlock(&pool->vals_lock);
    return grew;
}

void satin_job_set_values(satin_job *job, const satin_value_def *defs)
{
    job->value_defs = defs;
}

const satin_value_def *satin_job_value_defs(const satin_job *job)
{
    if (job->value_defs)
        return job->value_defs;
    return job->kind && job->kind->values && job->kind->values[0].name ? job->kind->values : NULL;
}
