/*
 * control.h - satind's control thread: it owns the ZeroMQ sockets, accepts
 * job records from clients, starts them on the pool, and returns results,
 * progress, status and errors.  Workers never touch a socket.
 */
#ifndef SATIN_CONTROL_H
#define SATIN_CONTROL_H

#include "options.h"
#include "policy_config.h"
#include "kinds.h"
#include "pool.h"
#include "topology.h"

typedef struct satin_control satin_control;

/* Binds the client endpoint (and, with a topology, this node's peer
 * endpoint); NULL (and a logged reason) when it cannot.  `reg` (the
 * modules loaded; kept, not copied) is what clients and peers may run. */
satin_control *satin_control_new(const satind_options *options, satin_pool *pool,
                                 const satin_registry *reg,
                                 const satin_topology *topo, int self,
                                 const satin_policy_config *policy);
/* Serves until SIGTERM/SIGINT arrives on `signal_fd`, then stops cleanly:
 * running jobs are cancelled and their clients get an error result.
 * Returns 1 when every job drained and the pool may be destroyed. */
int satin_control_run(satin_control *self, int signal_fd);
void satin_control_destroy(satin_control **self);

#endif
