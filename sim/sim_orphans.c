/* sim_orphans.c - a simulated node's orphan results (see sim_orphans.h). */
#include "sim_orphans.h"

#include <stdlib.h>
#include <string.h>

/* Few entries (results sent shortly before a death, records a dead owner
 * had out), looked up before every task once there is one: a hash by
 * place answers the usual "not here" without a digest. */
#define NBUCKETS 1024

struct sim_orphan {
    sim_orphan *next;
    int ready;                 /* 0: a promise of `holder` */
    int holder;
    uint64_t place, digest;
    int64_t value;
};

static sim_orphan **slot_of(const sim_orphans *t, uint64_t place)
{
    return &t->bucket[place % NBUCKETS];
}

static sim_orphan *find(const sim_orphans *t, uint64_t place, uint64_t digest)
{
    if (!t->bucket)
        return NULL;
    for (sim_orphan *o = *slot_of(t, place); o; o = o->next)
        if (o->place == place && o->digest == digest)
            return o;
    return NULL;
}

static sim_orphan *insert(sim_orphans *t, uint64_t place, uint64_t digest)
{
    if (!t->bucket && !(t->bucket = calloc(NBUCKETS, sizeof *t->bucket)))
        abort();
    sim_orphan *o = calloc(1, sizeof *o);
    if (!o)
        abort();
    o->place = place;
    o->digest = digest;
    o->next = *slot_of(t, place);
    *slot_of(t, place) = o;
    t->count++;
    return o;
}

static void unlink_one(sim_orphans *t, sim_orphan **pp)
{
    sim_orphan *o = *pp;
    *pp = o->next;
    free(o);
    t->count--;
}

void sim_orphans_add(sim_orphans *t, uint64_t place, uint64_t digest, int64_t value)
{
    sim_orphan *o = find(t, place, digest);
    if (o && o->ready)
        return;   /* told twice: kept once */
    if (!o)
        o = insert(t, place, digest);
    o->ready = 1;
    o->holder = -1;
    o->value = value;
}

void sim_orphans_promise(sim_orphans *t, int holder, uint64_t place, uint64_t digest)
{
    if (find(t, place, digest))
        return;
    insert(t, place, digest)->holder = holder;
}

void sim_orphans_abandon(sim_orphans *t, int holder, uint64_t place, uint64_t digest, int all)
{
    for (size_t b = 0; t->bucket && b < NBUCKETS; b++)
        for (sim_orphan **pp = &t->bucket[b]; *pp;) {
            const sim_orphan *o = *pp;
            if (!o->ready && o->holder == holder &&
                (all || (o->place == place && o->digest == digest))) {
                unlink_one(t, pp);
                t->abandoned++;
            } else {
                pp = &(*pp)->next;
            }
        }
}

int sim_orphans_at(const sim_orphans *t, uint64_t place)
{
    if (!t->count)
        return 0;
    for (const sim_orphan *o = *slot_of(t, place); o; o = o->next)
        if (o->place == place)
            return 1;
    return 0;
}

int sim_orphans_take(sim_orphans *t, uint64_t place, uint64_t digest, int64_t *value)
{
    if (!t->bucket)
        return 0;
    for (sim_orphan **pp = slot_of(t, place); *pp; pp = &(*pp)->next) {
        const sim_orphan *o = *pp;
        if (o->place != place || o->digest != digest || !o->ready)
            continue;
        *value = o->value;
        unlink_one(t, pp);
        t->used++;
        return 1;
    }
    return 0;
}

int sim_orphans_promised(const sim_orphans *t, uint64_t place, uint64_t digest)
{
    const sim_orphan *o = find(t, place, digest);
    return o && !o->ready;
}

void sim_orphans_wait(sim_orphans *t, void *task, uint64_t place, uint64_t digest, int64_t now)
{
    if (t->nwaiters == t->capwaiters) {
        t->capwaiters = t->capwaiters ? 2 * t->capwaiters : 8;
        t->waiters = realloc(t->waiters, t->capwaiters * sizeof *t->waiters);
        if (!t->waiters)
            abort();
    }
    t->waiters[t->nwaiters++] = (sim_orphan_waiter){task, place, digest, now};
    t->waited++;
}

void *sim_orphans_settle(sim_orphans *t, int64_t now, int *got, int64_t *value)
{
    for (size_t i = 0; i < t->nwaiters; i++) {
        const sim_orphan_waiter *w = &t->waiters[i];
        *got = sim_orphans_take(t, w->place, w->digest, value);
        int go = *got || !sim_orphans_promised(t, w->place, w->digest);
        if (!go && now - w->since >= SIM_ORPHAN_WAIT_NS) {
            t->gave_up++;
            go = 1;
        }
        if (!go)
            continue;
        void *task = w->task;
        memmove(&t->waiters[i], &t->waiters[i + 1], (t->nwaiters - i - 1) * sizeof *w);
        t->nwaiters--;
        return task;
    }
    return NULL;
}

void sim_orphans_free(sim_orphans *t)
{
    for (size_t b = 0; t->bucket && b < NBUCKETS; b++)
        while (t->bucket[b])
            unlink_one(t, &t->bucket[b]);
    free(t->bucket);
    free(t->waiters);
    *t = (sim_orphans){0};
}
