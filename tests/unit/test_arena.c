/*
 * test_arena.c - the record arena: LIFO marks across blocks, and trimming,
 * which must free exactly the free blocks above the current one beyond
 * those kept, and never one still in use.
 */
#include "../tap.h"
#include "arena.h"

#include <string.h>

#define BLOCK ((size_t)256 << 10)

static int nblocks(const satin_arena *a)
{
    int n = 0;
    for (const satin_arena_block *b = a->first; b; b = b->next)
        n++;
    return n;
}

int main(void)
{
    satin_arena a;
    satin_arena_init(&a);
    satin_arena_mark base = satin_arena_get_mark(&a);
    /* Five blocks' worth of 64 KiB records: the arena grows to five blocks. */
    for (int i = 0; i < 20; i++)
        memset(satin_arena_alloc(&a, 64 << 10), i, 64 << 10);
    is_i64(nblocks(&a), 5, "20 records of 64 KiB take 5 blocks of 256 KiB");

    /* Only blocks above the current one are free: here there is none. */
    is_i64((int64_t)satin_arena_trim(&a, 1), 0, "nothing is freed while every block is in use");
    is_i64(nblocks(&a), 5, "all 5 blocks stay");

    satin_arena_reset(&a, base);
    is_i64((int64_t)satin_arena_trim(&a, 2), (int64_t)(3 * BLOCK),
           "back at the start, keeping 2 blocks frees the other 3");
    is_i64(nblocks(&a), 2, "2 blocks left");
    is_i64((int64_t)satin_arena_trim(&a, 2), 0, "trimming again frees nothing");

    /* A record larger than a block gets its own; trimmed like the rest. */
    void *big = satin_arena_alloc(&a, 3 * BLOCK);
    ok(big != NULL, "a record of 3 blocks is allocated");
    memset(big, 0xAB, 3 * BLOCK);
    satin_arena_reset(&a, base);
    is_i64((int64_t)satin_arena_trim(&a, 1), (int64_t)(BLOCK + 3 * BLOCK),
           "keeping 1 block frees the second and the large one");
    is_i64(nblocks(&a), 1, "1 block left");

    /* The arena works on after a trim. */
    unsigned char *p = satin_arena_alloc(&a, 300 << 10);
    memset(p, 1, 300 << 10);
    ok(nblocks(&a) == 2 && p[(300 << 10) - 1] == 1, "it grows again after a trim");
    satin_arena_free(&a);
    return done_testing();
}
