/*
 * sim_net.h - the simulated network: when a message of some size sent at
 * some moment arrives.
 *
 * Every node has one network interface that sends one message at a time
 * at the LAN bandwidth; a message to a node of another cluster then
 * crosses the wide-area link between the two clusters (one per direction),
 * which also carries one message at a time, at its own bandwidth, and adds
 * its latency.  Messages between two nodes therefore arrive in the order
 * they were sent, as on a TCP connection.  The arithmetic is all here, and
 * nothing else: no events, no engine.
 */
#ifndef SATIN_SIM_NET_H
#define SATIN_SIM_NET_H

#include <stddef.h>
#include <stdint.h>

typedef struct sim_link {
    int64_t latency_ns;        /* one way */
    double ns_per_byte;        /* 1e9 / bytes per second; 0: unlimited */
} sim_link;

/* What crossed the network, per link class (0 LAN, 1 WAN). */
typedef struct sim_net_counters {
    uint64_t msgs[2], bytes[2];
    int64_t wan_queued_ns;     /* time messages waited for a busy wide-area link */
} sim_net_counters;

typedef struct sim_net {
    int nnodes, nclusters;
    const int *cluster_of;     /* [nnodes], not owned */
    sim_link lan;
    sim_link *wan;             /* [nclusters * nclusters], from * nclusters + to */
    int64_t *nic_free;         /* [nnodes] when each interface is free again */
    int64_t *wan_free;         /* [nclusters * nclusters] when each link is free again */
    sim_net_counters c;
} sim_net;

/* Every wide-area link starts as `wan`; sim_net_set_wan changes one. */
void sim_net_init(sim_net *n, int nnodes, int nclusters, const int *cluster_of, sim_link lan,
                  sim_link wan);
void sim_net_set_wan(sim_net *n, int from_cluster, int to_cluster, sim_link wan);
void sim_net_free(sim_net *n);
/* When `bytes` sent from node `from` to node `to` at `now` arrive. */
int64_t sim_net_send(sim_net *n, int64_t now, int from, int to, size_t bytes);
/* Bytes per second as a link's ns_per_byte (0 stays unlimited). */
double sim_ns_per_byte(double bytes_per_second);

#endif
