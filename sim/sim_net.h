/*
 * sim_net.h - the simulated network: when a message of some size sent at
 * some moment arrives.
 *
 * Every node has one network interface that sends one message at a time
 * at the LAN bandwidth; a message to a node of another cluster then
 * crosses the wide-area link between the two clusters (one per direction),
 * which also carries one message at a time, at its own bandwidth, and adds
 * its latency.  A link with jitter adds to each message a delay drawn
 * uniformly from [0, jitter] (as satin-wanem does per chunk), from the
 * run's seed and the pair of nodes (each pair its own sequence, so traffic
 * elsewhere does not change it); a message never arrives before the one its
 * sender sent ahead of it to the same node.  So messages between two nodes
 * arrive in the order they were sent, as on a TCP connection.  The
 * arithmetic is all here, and nothing else: no events, no engine.
 */
#ifndef SATIN_SIM_NET_H
#define SATIN_SIM_NET_H

#include <stddef.h>
#include <stdint.h>

typedef struct sim_link {
    int64_t latency_ns;        /* one way */
    double ns_per_byte;        /* 1e9 / bytes per second; 0: unlimited */
} sim_link;

/* The last arrival and the number of messages so far between two nodes on
 * a link with jitter (an open-addressed table: only pairs that talked). */
typedef struct sim_net_pair {
    uint64_t key;              /* from * nnodes + to + 1; 0: empty slot */
    int64_t last_at;
    uint64_t sent;
} sim_net_pair;

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
    /* [nclusters * nclusters] the most a message from one cluster to
     * another (the diagonal: inside a cluster) is delayed beyond the
     * latency; NULL while every link has none */
    int64_t *jitter;
    uint64_t seed;             /* the jitter's draws */
    sim_net_pair *pairs;       /* [pairs_cap], a power of two */
    size_t npairs, pairs_cap;
    sim_net_counters c;
} sim_net;

/* Every wide-area link starts as `wan`; sim_net_set_wan changes one. */
void sim_net_init(sim_net *n, int nnodes, int nclusters, const int *cluster_of, sim_link lan,
                  sim_link wan);
void sim_net_set_wan(sim_net *n, int from_cluster, int to_cluster, sim_link wan);
void sim_net_free(sim_net *n);
/* The jitter from cluster `from_cluster` to `to_cluster` (the same: the
 * LAN inside it); 0 until set.  And the seed of its draws (0 until set). */
void sim_net_set_jitter(sim_net *n, int from_cluster, int to_cluster, int64_t jitter_ns);
void sim_net_set_seed(sim_net *n, uint64_t seed);
/* When `bytes` sent from node `from` to node `to` at `now` arrive. */
int64_t sim_net_send(sim_net *n, int64_t now, int from, int to, size_t bytes);
/* The jitter of the k-th message (from 0) from `from` to `to` on a link
 * with jitter `jitter_ns`: in [0, jitter_ns], a function of these and the
 * seed only. */
int64_t sim_net_jitter(const sim_net *n, int from, int to, uint64_t k, int64_t jitter_ns);
/* Bytes per second as a link's ns_per_byte (0 stays unlimited). */
double sim_ns_per_byte(double bytes_per_second);

#endif
