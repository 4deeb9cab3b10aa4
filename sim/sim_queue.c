/* sim_queue.c - the event heap (see sim_queue.h). */
#include "sim_queue.h"

#include <stdlib.h>

void sim_queue_init(sim_queue *q)
{
    q->heap = NULL;
    q->n = q->cap = 0;
    q->next_seq = 0;
    q->pushed = 0;
    q->peak = 0;
}

void sim_queue_free(sim_queue *q)
{
    free(q->heap);
    sim_queue_init(q);
}

static int before(const sim_event *a, const sim_event *b)
{
    return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

void sim_queue_push(sim_queue *q, sim_event ev)
{
    if (q->n == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 1024;
        q->heap = realloc(q->heap, q->cap * sizeof *q->heap);
        if (!q->heap)
            abort();
    }
    ev.seq = q->next_seq++;
    q->pushed++;
    size_t i = q->n++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(&ev, &q->heap[parent]))
            break;
        q->heap[i] = q->heap[parent];
        i = parent;
    }
    q->heap[i] = ev;
    if (q->n > q->peak)
        q->peak = q->n;
}

int sim_queue_pop(sim_queue *q, sim_event *out)
{
    if (q->n == 0)
        return 0;
    *out = q->heap[0];
    sim_event last = q->heap[--q->n];
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= q->n)
            break;
        if (child + 1 < q->n && before(&q->heap[child + 1], &q->heap[child]))
            child++;
        if (!before(&q->heap[child], &last))
            break;
        q->heap[i] = q->heap[child];
        i = child;
    }
    if (q->n)
        q->heap[i] = last;
    return 1;
}

int64_t sim_queue_next_time(const sim_queue *q)
{
    return q->n ? q->heap[0].at : INT64_MAX;
}
