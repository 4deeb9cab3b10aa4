/*
 * deque.h - a Chase-Lev work-stealing deque of pointers.
 *
 * The owner pushes and takes at the head (bottom: LIFO, the fine-grained
 * end); any other thread steals from the tail (top: the oldest, coarsest
 * jobs).  Lock-free; the array grows on demand and old arrays are kept until
 * the deque is freed, because a thief may still be reading one.
 *
 * Memory orders follow Le, Pop, Cohen, Zappa Nardelli, "Correct and
 * efficient work-stealing for weak memory models" (PPoPP 2013), except that
 * the two standalone fences are folded into seq_cst accesses: ThreadSanitizer
 * does not model fences, and on x86-64 the cost is the same.
 */
#ifndef SATIN_DEQUE_H
#define SATIN_DEQUE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct satin_deque_array {
    int64_t mask;                       /* capacity - 1, a power of two minus 1 */
    struct satin_deque_array *older;    /* arrays this one replaced */
    _Atomic(void *) slot[];
} satin_deque_array;

typedef struct satin_deque {
    _Alignas(64) _Atomic int64_t top;   /* thieves' end */
    _Alignas(64) _Atomic int64_t bottom;/* owner's end */
    _Atomic(satin_deque_array *) array;
} satin_deque;

void satin_deque_init(satin_deque *d, unsigned log2_capacity);
void satin_deque_free(satin_deque *d);

/* Owner only. */
void satin_deque_push(satin_deque *d, void *item);
void *satin_deque_take(satin_deque *d);            /* NULL when empty */
/* The owner's head index: everything at or above an index read earlier was
 * pushed since then (how a frame finds its own children).  Inline: it is
 * on the spawn/sync path. */
static inline int64_t satin_deque_head(satin_deque *d)
{
    return atomic_load_explicit(&d->bottom, memory_order_relaxed);
}

/* Any thread.  NULL when empty or when another thread won the race. */
void *satin_deque_steal(satin_deque *d);
/* A racy size for heuristics (lazy spawns, load reports, idle checks). */
static inline int64_t satin_deque_size(satin_deque *d)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    int64_t t = atomic_load_explicit(&d->top, memory_order_relaxed);
    return b > t ? b - t : 0;
}

#endif
