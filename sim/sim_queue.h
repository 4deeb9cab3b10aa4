/*
 * sim_queue.h - the simulator's event queue: a binary heap ordered by time,
 * then by the order events were pushed, so that two events at the same
 * nanosecond always come out in the same order (a run is reproducible bit
 * for bit from its seed).
 */
#ifndef SATIN_SIM_QUEUE_H
#define SATIN_SIM_QUEUE_H

#include <stddef.h>
#include <stdint.h>

typedef struct sim_event {
    int64_t at;                /* ns of virtual time */
    uint64_t seq;              /* push order: ties at one time */
    int type;                  /* the simulation's own (sim.c) */
    int node;
    int64_t aux;               /* per type: a worker, a deadline, a size */
    void *data;                /* per type: a message's bytes */
} sim_event;

typedef struct sim_queue {
    sim_event *heap;
    size_t n, cap;
    uint64_t next_seq;
    uint64_t pushed;           /* events pushed since the queue was made */
    size_t peak;               /* most events waiting at once */
} sim_queue;

void sim_queue_init(sim_queue *q);
void sim_queue_free(sim_queue *q);
/* Pushes `ev` (its seq is set here). */
void sim_queue_push(sim_queue *q, sim_event ev);
/* The earliest event, removed; 0 when the queue is empty. */
int sim_queue_pop(sim_queue *q, sim_event *out);
/* The time of the earliest event without removing it (INT64_MAX: none). */
int64_t sim_queue_next_time(const sim_queue *q);

#endif
