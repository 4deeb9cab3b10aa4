/*
 * profile.c - what this node's workers and steal requests did while a job
 * asked for a profile (satin-submit --profile; PROTOCOL.md 14.12).
 *
 * Nothing is recorded while no session is open: a worker's switch between
 * a record and its idle loop then pays one load of pool->profiling.  While
 * sessions are open every such switch, and every steal request of the node
 * out and back, is an event in one log under a mutex (a switch happens once
 * per top-level record, not per spawn).  A session is one job's profile on
 * this node: its events are the log's from where it opened, after a
 * snapshot of every worker's state and the requests out, so that sessions
 * of jobs that overlap share the log.  The log holds SATIN_PROFILE_LOG_MAX
 * events; past that, the sessions are truncated at the moment it filled.
 * A session that begins while the log is full, or while 16 are open, ends
 * the oldest one (whose job then gets no profile of this node): one whose
 * end never came, its owner dead, must not stop every later profile.
 */
#include "pool_internal.h"

#include <stdlib.h>
#include <string.h>

#define SESSIONS_MAX 16
#define REQUESTS_MAX 256

typedef struct session {
    int owner;
    uint64_t job_id;
    size_t first;            /* its first event in the log */
    int64_t start;
    int64_t truncated;       /* events after this are lost (SATIN_PROFILE_WHOLE: none) */
} session;

typedef struct request {
    uint64_t id;             /* the STEAL's request id */
    uint32_t n;              /* its number in the profile */
    int wan;
} request;

struct satin_profiler {
    pthread_mutex_t lock;
    satin_profile_event *log;
    size_t n;
    int64_t full_at;         /* when the log filled (SATIN_PROFILE_WHOLE: it has not) */
    session s[SESSIONS_MAX];
    int nsessions;
    request req[REQUESTS_MAX];
    int nreq;
    uint32_t next_req;
    _Atomic uint64_t events;  /* ever recorded (the node's counter profile_events) */
};

void satin_profiler_init(satin_pool *pool)
{
    satin_profiler *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    pthread_mutex_init(&p->lock, NULL);
    pool->profiler = p;
    atomic_init(&pool->profiling, 0);
}

void satin_profiler_free(satin_pool *pool)
{
    satin_profiler *p = pool->profiler;
    if (!p)
        return;
    pthread_mutex_destroy(&p->lock);
    free(p->log);
    free(p);
    pool->profiler = NULL;
}

/* With the lock held. */
static void note(satin_profiler *p, int64_t t, char what, uint32_t n)
{
    if (p->full_at != SATIN_PROFILE_WHOLE)
        return;
    if (p->n == SATIN_PROFILE_LOG_MAX) {
        p->full_at = t;
        return;
    }
    p->log[p->n++] = (satin_profile_event){t, what, n};
    atomic_fetch_add_explicit(&p->events, 1, memory_order_relaxed);
}

void satin_profiler_worker(satin_pool *pool, int worker, int busy, int64_t now)
{
    satin_profiler *p = pool->profiler;
    pthread_mutex_lock(&p->lock);
    if (p->nsessions)
        note(p, now, busy ? SATIN_PROFILE_BUSY : SATIN_PROFILE_FREE, (uint32_t)worker);
    pthread_mutex_unlock(&p->lock);
}

/* The oldest session goes, and the events only it needed. */
static void drop_oldest(satin_profiler *p)
{
    memmove(&p->s[0], &p->s[1], (size_t)(p->nsessions - 1) * sizeof *p->s);
    p->nsessions--;
    size_t keep = p->nsessions ? p->s[0].first : p->n;
    memmove(p->log, p->log + keep, (p->n - keep) * sizeof *p->log);
    p->n -= keep;
    for (int i = 0; i < p->nsessions; i++)
        p->s[i].first -= keep;
}

void satin_pool_profile_begin(satin_pool *pool, int owner, uint64_t job_id)
{
    satin_profiler *p = pool->profiler;
    pthread_mutex_lock(&p->lock);
    /* A session whose end never comes (its owner died) must not keep the
     * log full, nor hold a slot, for ever: the oldest goes when a new one
     * finds either so.  The others keep their truncation. */
    if (p->nsessions && p->full_at != SATIN_PROFILE_WHOLE) {
        for (int i = 0; i < p->nsessions; i++)
            if (p->s[i].truncated == SATIN_PROFILE_WHOLE)
                p->s[i].truncated = p->full_at > p->s[i].start ? p->full_at : p->s[i].start;
        drop_oldest(p);
        p->full_at = SATIN_PROFILE_WHOLE;
    }
    if (p->nsessions == SESSIONS_MAX)
        drop_oldest(p);
    if (p->nsessions == 0) {
        if (!p->log && !(p->log = malloc(SATIN_PROFILE_LOG_MAX * sizeof *p->log)))
            abort();
        p->n = 0;
        p->full_at = SATIN_PROFILE_WHOLE;
        p->nreq = 0;
    }
    /* Workers note their switches from now on; each state read below is
     * either one they noted or one the snapshot sees (pool.c, set_busy). */
    atomic_store(&pool->profiling, 1);
    int64_t now = satin_now_ns();
    session *s = &p->s[p->nsessions++];
    *s = (session){owner, job_id, p->n, now, SATIN_PROFILE_WHOLE};
    for (int i = 0; i < pool->nworkers; i++)
        note(p, now,
             atomic_load(&pool->workers[i].state_since) > 0 ? SATIN_PROFILE_BUSY
                                                            : SATIN_PROFILE_FREE,
             (uint32_t)i);
    for (int i = 0; i < p->nreq; i++)
        note(p, now, p->req[i].wan ? SATIN_PROFILE_WAN : SATIN_PROFILE_LAN, p->req[i].n);
    pthread_mutex_unlock(&p->lock);
}

/* An event and its place in the log: qsort is not stable, and a worker's
 * switches at one nanosecond must keep their order. */
typedef struct keyed {
    satin_profile_event e;
    size_t i;
} keyed;

static int by_time(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->e.t != y->e.t)
        return x->e.t < y->e.t ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

int satin_pool_profile_end(satin_pool *pool, int owner, uint64_t job_id, int64_t end_mono,
                           int64_t off, satin_profile *out)
{
    satin_profiler *p = pool->profiler;
    pthread_mutex_lock(&p->lock);
    int k = 0;
    while (k < p->nsessions && !(p->s[k].owner == owner && p->s[k].job_id == job_id))
        k++;
    if (k == p->nsessions) {
        pthread_mutex_unlock(&p->lock);
        return -1;
    }
    session s = p->s[k];
    memmove(&p->s[k], &p->s[k + 1], (size_t)(p->nsessions - k - 1) * sizeof *p->s);
    p->nsessions--;
    int64_t end = end_mono ? end_mono : satin_now_ns();
    satin_profile_free(out);
    out->workers = pool->nworkers;
    out->start = s.start + off;
    out->end = (end > s.start ? end : s.start) + off;
    int64_t cut = s.truncated;
    if (p->full_at != SATIN_PROFILE_WHOLE && (cut == SATIN_PROFILE_WHOLE || p->full_at < cut))
        cut = p->full_at > s.start ? p->full_at : s.start;
    if (cut != SATIN_PROFILE_WHOLE && cut < end)
        out->truncated = cut + off;
    /* Workers noted their times before they took the lock: in the log a
     * switch may follow a later one of another worker.  Sorted, each
     * worker's own stay in order (the sort is on time, and a worker's
     * times never decrease). */
    size_t n = p->n - s.first;
    keyed *kv = malloc((n ? n : 1) * sizeof *kv);
    if (!kv)
        abort();
    for (size_t i = 0; i < n; i++)
        kv[i] = (keyed){p->log[s.first + i], i};
    if (p->nsessions == 0) {
        atomic_store(&pool->profiling, 0);
        p->nreq = 0;
    }
    pthread_mutex_unlock(&p->lock);
    qsort(kv, n, sizeof *kv, by_time);
    for (size_t i = 0; i < n; i++) {
        int64_t t = kv[i].e.t < s.start ? s.start : kv[i].e.t;
        if (t > end)
            break;
        if (out->truncated != SATIN_PROFILE_WHOLE && t + off > out->truncated)
            break;
        satin_profile_add(out, t + off, kv[i].e.what, kv[i].e.n);
    }
    free(kv);
    return 0;
}

void satin_pool_profile_steal(satin_pool *pool, uint64_t request_id, int wan)
{
    satin_profiler *p = pool->profiler;
    pthread_mutex_lock(&p->lock);
    if (p->nsessions && p->nreq < REQUESTS_MAX) {
        request *r = &p->req[p->nreq++];
        *r = (request){request_id, p->next_req++, wan};
        note(p, satin_now_ns(), wan ? SATIN_PROFILE_WAN : SATIN_PROFILE_LAN, r->n);
    }
    pthread_mutex_unlock(&p->lock);
}

void satin_pool_profile_answered(satin_pool *pool, uint64_t request_id)
{
    satin_profiler *p = pool->profiler;
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < p->nreq; i++)
        if (p->req[i].id == request_id) {
            note(p, satin_now_ns(), SATIN_PROFILE_ANSWERED, p->req[i].n);
            p->req[i] = p->req[--p->nreq];
            break;
        }
    pthread_mutex_unlock(&p->lock);
}

uint64_t satin_pool_profile_events(satin_pool *pool)
{
    return atomic_load_explicit(&pool->profiler->events, memory_order_relaxed);
}

int satin_pool_profiling(satin_pool *pool)
{
    return atomic_load_explicit(&pool->profiling, memory_order_relaxed);
}
