/* delayq.c - a FIFO of chunks with the times they may leave (delayq.h). */
#include "delayq.h"

#include <stdlib.h>
#include <string.h>

int delayq_push(delayq *q, const void *data, size_t len, int64_t due_ns)
{
    dq_chunk *c = malloc(sizeof *c + len);
    if (!c)
        return -1;
    if (due_ns < q->last_due_ns)
        due_ns = q->last_due_ns;   /* jitter never overtakes: no reordering */
    q->last_due_ns = due_ns;
    c->next = NULL;
    c->due_ns = due_ns;
    c->len = len;
    c->off = 0;
    if (len)
        memcpy(c->data, data, len);
    if (q->tail)
        q->tail->next = c;
    else
        q->head = c;
    q->tail = c;
    q->bytes += len;
    return 0;
}

void delayq_consume(delayq *q, size_t n)
{
    dq_chunk *c = q->head;
    if (!c)
        return;
    c->off += n;
    q->bytes -= n;
    if (c->off < c->len)
        return;
    q->head = c->next;
    if (!q->head)
        q->tail = NULL;
    free(c);
}

size_t delayq_clear(delayq *q)
{
    size_t held = q->bytes;
    while (q->head) {
        dq_chunk *c = q->head;
        q->head = c->next;
        free(c);
    }
    q->tail = NULL;
    q->bytes = 0;
    return held;
}
