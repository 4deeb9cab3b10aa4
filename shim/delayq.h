/*
 * delayq.h - the bytes of one direction of one connection, held until
 * their time: a FIFO of chunks, each with the time it may leave.  A chunk
 * is never due before the chunk ahead of it, so bytes are never reordered
 * whatever the jitter drew.  A chunk of length 0 stands for the end of the
 * stream (the sender's FIN), delayed like the bytes before it.
 */
#ifndef WANEM_DELAYQ_H
#define WANEM_DELAYQ_H

#include <stddef.h>
#include <stdint.h>

typedef struct dq_chunk {
    struct dq_chunk *next;
    int64_t due_ns;
    size_t len, off;                   /* off: bytes of it already sent */
    unsigned char data[];
} dq_chunk;

typedef struct delayq {
    dq_chunk *head, *tail;
    size_t bytes;                      /* not yet sent */
    int64_t last_due_ns;
} delayq;

/* Appends a copy of data (len 0: the end of the stream), due at due_ns or
 * when the chunk ahead is, whichever is later.  -1 when out of memory. */
int delayq_push(delayq *q, const void *data, size_t len, int64_t due_ns);
/* `n` bytes of the head chunk were sent; drops it once it is all sent (an
 * end-of-stream chunk with n = 0). */
void delayq_consume(delayq *q, size_t n);
/* Drops everything; returns the bytes that were held. */
size_t delayq_clear(delayq *q);

#endif
