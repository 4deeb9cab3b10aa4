/*
 * arena.h - a per-worker LIFO allocator for invocation records.
 *
 * Spawned records live until the frame that spawned them syncs, and frames
 * nest exactly like the worker's C stack, so records can be carved from a
 * stack of blocks and released by resetting to a mark: no malloc per spawn.
 * Blocks are kept for reuse; a record larger than a block gets its own.
 */
#ifndef SATIN_ARENA_H
#define SATIN_ARENA_H

#include <stddef.h>

typedef struct satin_arena_block {
    struct satin_arena_block *next;   /* the next (free) block above this one */
    size_t size, used;
    _Alignas(16) unsigned char mem[];
} satin_arena_block;

typedef struct satin_arena {
    satin_arena_block *first, *cur;
} satin_arena;

typedef struct satin_arena_mark {
    satin_arena_block *block;
    size_t used;
} satin_arena_mark;

void satin_arena_init(satin_arena *a);
void satin_arena_free(satin_arena *a);
/* Frees the free blocks above the current one, beyond the first `keep`
 * blocks of the arena: after a deep job the high-water mark goes back to
 * the C library instead of staying with the worker for ever.  Returns the
 * bytes freed. */
size_t satin_arena_trim(satin_arena *a, int keep);
/* 16-byte aligned memory valid until the arena is reset below it. */
void *satin_arena_alloc(satin_arena *a, size_t size);
static inline satin_arena_mark satin_arena_get_mark(const satin_arena *a)
{
    return (satin_arena_mark){a->cur, a->cur->used};
}

static inline void satin_arena_reset(satin_arena *a, satin_arena_mark mark)
{
    a->cur = mark.block;
    a->cur->used = mark.used;
}

#endif
