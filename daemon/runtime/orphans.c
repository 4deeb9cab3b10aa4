/*
 * orphans.c - results computed for a record whose owner died, kept for the
 * invocation that will compute the same thing again (pool.h, "orphans").
 *
 * Workers look here before every invocation while the table is not empty,
 * so the common answer ("not here") must not take the lock: a bit filter
 * over places answers it with one relaxed load, and only a hit locks and
 * digests the arguments.  The filter is cleared when the table empties.
 *
 * An entry is either a result (ready) or a promise: another node still
 * runs that record for its dead owner and will tell the result.  An
 * invocation that meets a promise waits for it (spawn.c), unless its
 * holder dies or gives up on it (satin_pool_abandon_orphans).
 *
 * Every entry names the submitted job its record belonged to (its origin),
 * and only invocations of that job look: the table counts its entries per
 * origin, and a job asks once per change of which origins it holds
 * (satin_orphans_for_job), so the other jobs of the node keep running
 * their children in place while a failure's orphans wait.
 */
#include "pool_internal.h"
#include "satin_digest.h"

#include <stdlib.h>
#include <string.h>

#define NBUCKETS 4096
#define FILTER_WORDS 1024   /* 65536 bits */

typedef struct orphan {
    struct orphan *next;        /* in its bucket */
    struct orphan *older, *newer;
    int ready;                  /* 0: a promise of `holder` */
    int holder;
    uint64_t origin, place, digest, runs;
    int64_t added_ns;
    size_t len;
    unsigned char data[];
} orphan;

struct satin_orphans {
    pthread_mutex_t lock;
    orphan *bucket[NBUCKETS];
    orphan *oldest, *newest;
    size_t count, bytes;
    _Atomic uint64_t filter[FILTER_WORDS];
    _Atomic uint64_t lookups;   /* satin_orphans_take's calls, outside the lock */
    satin_orphan_stats stats;
    /* The origins that have entries, with how many: few (one per job a
     * failure touched), so a plain array. */
    struct origin_count {
        uint64_t origin;
        size_t n;
    } *origins;
    size_t norigins, caporigins;
};

/* Adds d (+1 or -1) to origin's count; a first entry or a last one changes
 * every job's answer, so the generation moves on. */
static void count_origin(satin_pool *pool, struct satin_orphans *t, uint64_t origin, int d)
{
    size_t i = 0;
    while (i < t->norigins && t->origins[i].origin != origin)
        i++;
    if (i == t->norigins) {
        if (d < 0)
            return;
        if (t->norigins == t->caporigins) {
            t->caporigins = t->caporigins ? 2 * t->caporigins : 8;
            t->origins = realloc(t->origins, t->caporigins * sizeof *t->origins);
            if (!t->origins)
                abort();
        }
        t->origins[t->norigins++] = (struct origin_count){origin, 0};
    }
    if (d > 0)
        t->origins[i].n++;
    else
        t->origins[i].n--;
    if (t->origins[i].n == 0 || (d > 0 && t->origins[i].n == 1)) {
        if (t->origins[i].n == 0)
            t->origins[i] = t->origins[--t->norigins];
        atomic_fetch_add_explicit(&pool->orphan_gen, 1, memory_order_seq_cst);
    }
}

static size_t bucket_of(uint64_t place)
{
    return (size_t)(place % NBUCKETS);
}

static void filter_bit(uint64_t place, size_t *word, uint64_t *bit)
{
    uint64_t h = place >> 20;   /* other bits than the bucket's */
    *word = (size_t)(h / 64 % FILTER_WORDS);
    *bit = 1ULL << (h % 64);
}

void satin_orphans_init(satin_pool *pool)
{
    struct satin_orphans *t = calloc(1, sizeof *t);
    if (!t)
        abort();
    pthread_mutex_init(&t->lock, NULL);
    pool->orphan_table = t;
    atomic_store_explicit(&pool->orphans, 0, memory_order_relaxed);
    atomic_store_explicit(&pool->orphan_gen, 1, memory_order_relaxed);
    atomic_store_explicit(&pool->orphan_wait_ns, SATIN_ORPHAN_WAIT_NS, memory_order_relaxed);
}

void satin_orphans_free(satin_pool *pool)
{
    struct satin_orphans *t = pool->orphan_table;
    if (!t)
        return;
    for (orphan *o = t->oldest, *next; o; o = next) {
        next = o->newer;
        free(o);
    }
    free(t->origins);
    pthread_mutex_destroy(&t->lock);
    free(t);
    pool->orphan_table = NULL;
}

/* Unlinks and frees o; the caller holds the lock. */
static void drop(satin_pool *pool, struct satin_orphans *t, orphan *o)
{
    orphan **pp = &t->bucket[bucket_of(o->place)];
    while (*pp != o)
        pp = &(*pp)->next;
    *pp = o->next;
    if (o->older)
        o->older->newer = o->newer;
    else
        t->oldest = o->newer;
    if (o->newer)
        o->newer->older = o->older;
    else
        t->newest = o->older;
    t->count--;
    t->bytes -= o->len;
    count_origin(pool, t, o->origin, -1);
    free(o);
    if (t->count == 0) {
        atomic_store_explicit(&pool->orphans, 0, memory_order_relaxed);
        for (size_t i = 0; i < FILTER_WORDS; i++)
            atomic_store_explicit(&t->filter[i], 0, memory_order_relaxed);
    }
}

/* Links o in as the newest entry and lets look-ups see its place. */
static void insert_locked(satin_pool *pool, struct satin_orphans *t, orphan *o)
{
    size_t b = bucket_of(o->place);
    o->next = t->bucket[b];
    t->bucket[b] = o;
    o->newer = NULL;
    o->older = t->newest;
    if (t->newest)
        t->newest->newer = o;
    else
        t->oldest = o;
    t->newest = o;
    t->count++;
    t->bytes += o->len;
    count_origin(pool, t, o->origin, +1);
    size_t word;
    uint64_t bit;
    filter_bit(o->place, &word, &bit);
    atomic_fetch_or_explicit(&t->filter[word], bit, memory_order_relaxed);
    atomic_store_explicit(&pool->orphans, 1, memory_order_seq_cst);
    satin_pool_clear_fast(pool);   /* invocations look for them again */
}

/* The entry for (place, digest), ready or promised, or NULL; the caller
 * holds the lock. */
static orphan *find_locked(struct satin_orphans *t, uint64_t place, uint64_t digest)
{
    for (orphan *o = t->bucket[bucket_of(place)]; o; o = o->next)
        if (o->place == place && o->digest == digest)
            return o;
    return NULL;
}

static void expire_locked(satin_pool *pool, struct satin_orphans *t, int64_t now)
{
    while (t->oldest && now - t->oldest->added_ns > SATIN_ORPHAN_TTL_NS) {
        drop(pool, t, t->oldest);
        t->stats.expired++;
    }
}

void satin_pool_add_orphan(satin_pool *pool, uint64_t origin, uint64_t place, uint64_t digest,
                           const void *result, size_t len, uint64_t runs)
{
    struct satin_orphans *t = pool->orphan_table;
    if (len > SATIN_ORPHAN_MAX_BYTES)
        return;
    orphan *o = malloc(sizeof *o + (len ? len : 1));
    if (!o)
        abort();
    o->ready = 1;
    o->holder = -1;
    o->origin = origin;
    o->place = place;
    o->digest = digest;
    o->runs = runs;
    o->len = len;
    o->added_ns = satin_now_ns();
    if (len)
        memcpy(o->data, result, len);
    pthread_mutex_lock(&t->lock);
    expire_locked(pool, t, o->added_ns);
    /* The same orphan told twice (by its runner and again after a
     * restart...) is kept once; its result replaces its promise. */
    orphan *known = find_locked(t, place, digest);
    if (known && known->ready) {
        pthread_mutex_unlock(&t->lock);
        free(o);
        return;
    }
    if (known)
        drop(pool, t, known);
    while (t->oldest && (t->count >= SATIN_ORPHAN_MAX || t->bytes + len > SATIN_ORPHAN_MAX_BYTES)) {
        drop(pool, t, t->oldest);
        t->stats.evicted++;
    }
    insert_locked(pool, t, o);
    t->stats.added++;
    pthread_mutex_unlock(&t->lock);
    satin_pool_notify(pool);   /* an invocation may be waiting for it */
}

void satin_pool_expect_orphan(satin_pool *pool, uint64_t origin, uint64_t place, uint64_t digest,
                              int holder)
{
    struct satin_orphans *t = pool->orphan_table;
    orphan *o = calloc(1, sizeof *o + 1);
    if (!o)
        abort();
    o->holder = holder;
    o->origin = origin;
    o->place = place;
    o->digest = digest;
    o->added_ns = satin_now_ns();
    pthread_mutex_lock(&t->lock);
    expire_locked(pool, t, o->added_ns);
    if (find_locked(t, place, digest)) {
        pthread_mutex_unlock(&t->lock);
        free(o);
        return;
    }
    while (t->oldest && t->count >= SATIN_ORPHAN_MAX) {
        drop(pool, t, t->oldest);
        t->stats.evicted++;
    }
    insert_locked(pool, t, o);
    t->stats.promised++;
    pthread_mutex_unlock(&t->lock);
}

void satin_pool_abandon_orphans(satin_pool *pool, int holder, uint64_t place, uint64_t digest,
                                int all)
{
    struct satin_orphans *t = pool->orphan_table;
    pthread_mutex_lock(&t->lock);
    for (orphan *o = t->oldest, *next; o; o = next) {
        next = o->newer;
        if (!o->ready && o->holder == holder &&
            (all || (o->place == place && o->digest == digest))) {
            drop(pool, t, o);
            t->stats.abandoned++;
        }
    }
    pthread_mutex_unlock(&t->lock);
    satin_pool_notify(pool);   /* whoever waited for one runs it now */
}

int satin_orphans_take(satin_pool *pool, uint64_t place, const satin_task *task,
                       const void *arg, size_t arg_len, void *slot, size_t cap, size_t *len,
                       int can_wait, int *waited)
{
    struct satin_orphans *t = pool->orphan_table;
    atomic_fetch_add_explicit(&t->lookups, 1, memory_order_relaxed);
    size_t word;
    uint64_t bit;
    filter_bit(place, &word, &bit);
    if (!(atomic_load_explicit(&t->filter[word], memory_order_relaxed) & bit))
        return 0;
    uint64_t digest = satin_digest(task->name, arg, arg_len);
    int found = SATIN_ORPHAN_NONE;
    pthread_mutex_lock(&t->lock);
    orphan *o = find_locked(t, place, digest);   /* one entry per (place, digest) */
    if (o && !o->ready && can_wait) {
        if (!*waited)
            t->stats.waited++;
        *waited = 1;
        found = SATIN_ORPHAN_PROMISED;
    } else if (o && o->ready && o->len <= cap) {
        if (o->len)
            memcpy(slot, o->data, o->len);
        *len = o->len;
        t->stats.used++;
        t->stats.runs_saved += o->runs;
        drop(pool, t, o);
        found = SATIN_ORPHAN_TAKEN;
    }
    expire_locked(pool, t, satin_now_ns());
    pthread_mutex_unlock(&t->lock);
    return found;
}

int satin_orphans_for_job(satin_pool *pool, satin_job *job)
{
    if (!atomic_load_explicit(&pool->orphans, memory_order_seq_cst))
        return 0;
    uint64_t gen = atomic_load_explicit(&pool->orphan_gen, memory_order_seq_cst);
    uint64_t seen = atomic_load_explicit(&job->orphans_seen, memory_order_relaxed);
    if (seen >> 1 == gen)
        return (int)(seen & 1);
    struct satin_orphans *t = pool->orphan_table;
    int has = 0;
    pthread_mutex_lock(&t->lock);
    for (size_t i = 0; i < t->norigins && !has; i++)
        has = t->origins[i].origin == job->origin;
    pthread_mutex_unlock(&t->lock);
    /* gen as read before the look: a change since then moved it on, and the
     * next call looks again. */
    atomic_store_explicit(&job->orphans_seen, gen << 1 | (uint64_t)has, memory_order_relaxed);
    return has;
}

void satin_orphans_gave_up(satin_pool *pool)
{
    struct satin_orphans *t = pool->orphan_table;
    pthread_mutex_lock(&t->lock);
    t->stats.gave_up++;
    pthread_mutex_unlock(&t->lock);
}

void satin_pool_set_orphan_wait(satin_pool *pool, int64_t ns)
{
    atomic_store_explicit(&pool->orphan_wait_ns, ns, memory_order_relaxed);
}

void satin_pool_expire_orphans(satin_pool *pool)
{
    struct satin_orphans *t = pool->orphan_table;
    if (!atomic_load_explicit(&pool->orphans, memory_order_relaxed))
        return;
    pthread_mutex_lock(&t->lock);
    expire_locked(pool, t, satin_now_ns());
    pthread_mutex_unlock(&t->lock);
}

void satin_pool_orphan_stats(satin_pool *pool, satin_orphan_stats *out)
{
    struct satin_orphans *t = pool->orphan_table;
    pthread_mutex_lock(&t->lock);
    *out = t->stats;
    out->lookups = atomic_load_explicit(&t->lookups, memory_order_relaxed);
    out->held = t->count;
    out->promises = 0;
    for (orphan *o = t->oldest; o; o = o->newer)
        out->promises += !o->ready;
    pthread_mutex_unlock(&t->lock);
}
