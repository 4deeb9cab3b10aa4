/*
 * peer_book.c - peer records by peer number: open addressing, linear
 * probing, kept at most half full.
 */
#include "peer_book.h"

#include <stdlib.h>

void satin_peer_book_init(satin_peer_book *b)
{
    *b = (satin_peer_book){0};
}

void satin_peer_book_free(satin_peer_book *b)
{
    for (size_t i = 0; i < b->cap; i++)
        if (b->keys[i] >= 0)
            free(b->records[i]);
    free(b->keys);
    free(b->records);
    satin_peer_book_init(b);
}

static size_t slot(const satin_peer_book *b, int peer)
{
    /* Fibonacci hashing: neighbouring node numbers spread apart. */
    size_t i = (size_t)(((uint64_t)(unsigned)peer * 0x9E3779B97F4A7C15ull) >> 20) & (b->cap - 1);
    while (b->keys[i] >= 0 && b->keys[i] != peer)
        i = (i + 1) & (b->cap - 1);
    return i;
}

satin_peer_watch *satin_peer_book_find(const satin_peer_book *b, int peer)
{
    if (b->n == 0)
        return NULL;
    size_t i = slot(b, peer);
    return b->keys[i] == peer ? b->records[i] : NULL;
}

static void grow(satin_peer_book *b)
{
    satin_peer_book old = *b;
    b->cap = old.cap ? 2 * old.cap : 8;
    b->keys = malloc(b->cap * sizeof *b->keys);
    b->records = malloc(b->cap * sizeof *b->records);
    if (!b->keys || !b->records)
        abort();
    for (size_t i = 0; i < b->cap; i++)
        b->keys[i] = -1;
    for (size_t i = 0; i < old.cap; i++)
        if (old.keys[i] >= 0) {
            size_t j = slot(b, old.keys[i]);
            b->keys[j] = old.keys[i];
            b->records[j] = old.records[i];
        }
    free(old.keys);
    free(old.records);
}

satin_peer_watch *satin_peer_book_get(satin_peer_book *b, int peer, const satin_peer_watch *fresh)
{
    satin_peer_watch *w = satin_peer_book_find(b, peer);
    if (w)
        return w;
    if (2 * (b->n + 1) > b->cap)
        grow(b);
    size_t i = slot(b, peer);
    w = malloc(sizeof *w);
    if (!w)
        abort();
    *w = *fresh;
    b->keys[i] = peer;
    b->records[i] = w;
    b->n++;
    return w;
}
