/* deque.c - Chase-Lev work-stealing deque (see deque.h for the why). */
#include "deque.h"

#include <stdlib.h>

static satin_deque_array *array_new(int64_t capacity)
{
    satin_deque_array *a = malloc(sizeof *a + (size_t)capacity * sizeof a->slot[0]);
    if (!a)
        abort();
    a->mask = capacity - 1;
    a->older = NULL;
    for (int64_t i = 0; i < capacity; i++)
        atomic_init(&a->slot[i], NULL);
    return a;
}

void satin_deque_init(satin_deque *d, unsigned log2_capacity)
{
    atomic_init(&d->top, 0);
    atomic_init(&d->bottom, 0);
    atomic_init(&d->array, array_new((int64_t)1 << log2_capacity));
}

void satin_deque_free(satin_deque *d)
{
    satin_deque_array *a = atomic_load_explicit(&d->array, memory_order_relaxed);
    while (a) {
        satin_deque_array *older = a->older;
        free(a);
        a = older;
    }
    atomic_store_explicit(&d->array, NULL, memory_order_relaxed);
}

/* Owner only: a twice larger array holding the live range [t, b). */
static satin_deque_array *grow(satin_deque *d, satin_deque_array *a, int64_t t, int64_t b)
{
    satin_deque_array *n = array_new((a->mask + 1) * 2);
    for (int64_t i = t; i < b; i++)
        atomic_store_explicit(&n->slot[i & n->mask],
                              atomic_load_explicit(&a->slot[i & a->mask], memory_order_relaxed),
                              memory_order_relaxed);
    n->older = a;
    atomic_store_explicit(&d->array, n, memory_order_release);
    return n;
}

void satin_deque_push(satin_deque *d, void *item)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
    satin_deque_array *a = atomic_load_explicit(&d->array, memory_order_relaxed);
    if (b - t > a->mask)
        a = grow(d, a, t, b);
    atomic_store_explicit(&a->slot[b & a->mask], item, memory_order_relaxed);
    /* Release: a thief that sees the new bottom sees the item and what it points to. */
    atomic_store_explicit(&d->bottom, b + 1, memory_order_release);
}

void *satin_deque_take(satin_deque *d)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed) - 1;
    satin_deque_array *a = atomic_load_explicit(&d->array, memory_order_relaxed);
    /* seq_cst store then seq_cst load: the store-load order the algorithm needs. */
    atomic_store_explicit(&d->bottom, b, memory_order_seq_cst);
    int64_t t = atomic_load_explicit(&d->top, memory_order_seq_cst);
    /* Restores below are release stores so that a thief reading them still
     * synchronises with the pushes before (cheap on x86, visible to TSan). */
    if (t > b) {
        atomic_store_explicit(&d->bottom, b + 1, memory_order_release);
        return NULL;
    }
    void *item = atomic_load_explicit(&a->slot[b & a->mask], memory_order_relaxed);
    if (t == b) {
        /* The last item: race the thieves for it. */
        if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1,
                                                     memory_order_seq_cst,
                                                     memory_order_relaxed))
            item = NULL;
        atomic_store_explicit(&d->bottom, b + 1, memory_order_release);
    }
    return item;
}

void *satin_deque_steal(satin_deque *d)
{
    int64_t t = atomic_load_explicit(&d->top, memory_order_seq_cst);
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_seq_cst);
    if (t >= b)
        return NULL;
    satin_deque_array *a = atomic_load_explicit(&d->array, memory_order_acquire);
    void *item = atomic_load_explicit(&a->slot[t & a->mask], memory_order_relaxed);
    if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1, memory_order_seq_cst,
                                                 memory_order_relaxed))
        return NULL;
    return item;
}
