/* sim_net.c - links, bandwidth and latency (see sim_net.h). */
#include "sim_net.h"

#include <stdlib.h>

double sim_ns_per_byte(double bytes_per_second)
{
    return bytes_per_second > 0 ? 1e9 / bytes_per_second : 0;
}

void sim_net_init(sim_net *n, int nnodes, int nclusters, const int *cluster_of, sim_link lan,
                  sim_link wan)
{
    n->nnodes = nnodes;
    n->nclusters = nclusters;
    n->cluster_of = cluster_of;
    n->lan = lan;
    size_t pairs = (size_t)nclusters * (size_t)nclusters;
    n->wan = malloc(pairs * sizeof *n->wan);
    n->wan_free = calloc(pairs, sizeof *n->wan_free);
    n->nic_free = calloc((size_t)nnodes, sizeof *n->nic_free);
    if (!n->wan || !n->wan_free || !n->nic_free)
        abort();
    for (size_t i = 0; i < pairs; i++)
        n->wan[i] = wan;
    n->c = (sim_net_counters){{0, 0}, {0, 0}, 0};
}

void sim_net_set_wan(sim_net *n, int from_cluster, int to_cluster, sim_link wan)
{
    n->wan[(size_t)from_cluster * (size_t)n->nclusters + (size_t)to_cluster] = wan;
}

void sim_net_free(sim_net *n)
{
    free(n->wan);
    free(n->wan_free);
    free(n->nic_free);
    n->wan = NULL;
    n->wan_free = n->nic_free = NULL;
}

/* Time to put `bytes` on a link: rounded up, so that no message is free. */
static int64_t transfer_ns(const sim_link *l, size_t bytes)
{
    double t = (double)bytes * l->ns_per_byte;
    int64_t ns = (int64_t)t;
    return ns + (t > (double)ns);
}

int64_t sim_net_send(sim_net *n, int64_t now, int from, int to, size_t bytes)
{
    int64_t start = now > n->nic_free[from] ? now : n->nic_free[from];
    int64_t sent = start + transfer_ns(&n->lan, bytes);
    n->nic_free[from] = sent;
    int ca = n->cluster_of[from], cb = n->cluster_of[to];
    if (ca == cb) {
        n->c.msgs[0]++;
        n->c.bytes[0] += bytes;
        return sent + n->lan.latency_ns;
    }
    size_t k = (size_t)ca * (size_t)n->nclusters + (size_t)cb;
    const sim_link *w = &n->wan[k];
    int64_t wstart = sent > n->wan_free[k] ? sent : n->wan_free[k];
    n->c.wan_queued_ns += wstart - sent;
    int64_t wdone = wstart + transfer_ns(w, bytes);
    n->wan_free[k] = wdone;
    n->c.msgs[1]++;
    n->c.bytes[1] += bytes;
    return wdone + w->latency_ns;
}
