/*
 * sim_ctl.h - each node's control thread, as a serial resource: the CPU
 * time satind spends per message to encode and send it, and to receive and
 * decode it.
 *
 * In satind one control thread per node does both, one message at a time,
 * so messages queue behind each other there.  A message to send is handed
 * to the network once the sender's thread has spent the send cost on it
 * (after what it was doing); an arriving message is handed to the engine
 * once the receiver's thread has spent the receive cost on it, and arrivals
 * are decoded one at a time in the order they came: the next one starts
 * after the engine has handled the previous one (and the thread has sent
 * what that produced).  With both costs 0 nothing ever waits and every
 * arrival goes to the engine at once.  The arithmetic and the waiting
 * arrivals are here; the events are sim.c's.
 */
#ifndef SATIN_SIM_CTL_H
#define SATIN_SIM_CTL_H

#include <stddef.h>
#include <stdint.h>

/* An arrival waiting for its node's control thread. */
typedef struct sim_ctl_msg {
    void *data;
    int64_t aux;
    int64_t arrived;
} sim_ctl_msg;

typedef struct sim_ctl_node {
    int64_t free_at;           /* when the thread has done what it was given */
    int decoding;              /* an arrival is being decoded (its event is pending) */
    sim_ctl_msg *q;            /* ring of arrivals not started */
    size_t head, n, cap;
} sim_ctl_node;

typedef struct sim_ctl {
    int64_t send_ns, recv_ns;
    int nnodes;
    sim_ctl_node *nodes;       /* [nnodes] */
    int64_t waited_ns;         /* time messages waited for a busy thread, both ends */
} sim_ctl;

void sim_ctl_init(sim_ctl *c, int nnodes, int64_t send_ns, int64_t recv_ns);
/* Frees the waiting arrivals' data with `drop`. */
void sim_ctl_free(sim_ctl *c, void (*drop)(void *));
/* A message `node` sends at `now`: when its thread has sent it. */
int64_t sim_ctl_send(sim_ctl *c, int node, int64_t now);
/* A message arrived at `node` at `now`: the time it is decoded, when that
 * is now (hand it to the engine at once) or later (the caller makes an
 * event then, and calls sim_ctl_next after handing it over); -1 when it
 * waits behind another arrival (kept here with its data and aux). */
int64_t sim_ctl_arrive(sim_ctl *c, int node, int64_t now, void *data, int64_t aux);
/* The decoded arrival was handed to the engine at `now`: the next waiting
 * one, in *out, and when it is decoded (now or later, as above); -1 when
 * none waits. */
int64_t sim_ctl_next(sim_ctl *c, int node, int64_t now, sim_ctl_msg *out);

#endif
