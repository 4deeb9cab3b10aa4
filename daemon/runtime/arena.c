/* arena.c - LIFO record allocator (see arena.h). */
#include "arena.h"

#include <stdlib.h>

#define ARENA_BLOCK_SIZE ((size_t)256 << 10)

static satin_arena_block *block_new(size_t size)
{
    satin_arena_block *b = aligned_alloc(16, (sizeof *b + size + 15) & ~(size_t)15);
    if (!b)
        abort();
    b->next = NULL;
    b->size = size;
    b->used = 0;
    return b;
}

void satin_arena_init(satin_arena *a)
{
    a->first = a->cur = block_new(ARENA_BLOCK_SIZE);
}

void satin_arena_free(satin_arena *a)
{
    satin_arena_block *b = a->first;
    while (b) {
        satin_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->first = a->cur = NULL;
}

void *satin_arena_alloc(satin_arena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    satin_arena_block *b = a->cur;
    if (b->size - b->used < size) {
        /* Blocks above cur are free: reuse the next one if it is big enough,
         * otherwise slot a new one in between. */
        satin_arena_block *next = b->next;
        if (!next || next->size < size) {
            satin_arena_block *n = block_new(size > ARENA_BLOCK_SIZE ? size : ARENA_BLOCK_SIZE);
            n->next = next;
            b->next = n;
            next = n;
        }
        next->used = 0;
        a->cur = b = next;
    }
    void *p = b->mem + b->used;
    b->used += size;
    return p;
}

size_t satin_arena_trim(satin_arena *a, int keep)
{
    int n = 1, past_cur = a->first == a->cur;
    satin_arena_block *b = a->first;
    /* Blocks up to cur are in use; only those above it are free. */
    while (!past_cur || n < keep) {
        if (!b->next)
            return 0;
        b = b->next;
        n++;
        past_cur |= b == a->cur;
    }
    size_t freed = 0;
    satin_arena_block *f = b->next;
    b->next = NULL;
    while (f) {
        satin_arena_block *next = f->next;
        freed += f->size;
        free(f);
        f = next;
    }
    return freed;
}
