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
    n->jitter = NULL;
    n->seed = 0;
    n->pairs = NULL;
    n->npairs = n->pairs_cap = 0;
    n->c = (sim_net_counters){{0, 0}, {0, 0}, 0};
}

void sim_net_set_jitter(sim_net *n, int from_cluster, int to_cluster, int64_t jitter_ns)
{
    size_t pairs = (size_t)n->nclusters * (size_t)n->nclusters;
    if (!n->jitter && jitter_ns <= 0)
        return;
    if (!n->jitter && !(n->jitter = calloc(pairs, sizeof *n->jitter)))
        abort();
    n->jitter[(size_t)from_cluster * (size_t)n->nclusters + (size_t)to_cluster] =
        jitter_ns > 0 ? jitter_ns : 0;
}

void sim_net_set_seed(sim_net *n, uint64_t seed)
{
    n->seed = seed;
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
    free(n->pairs);
    free(n->jitter);
    n->jitter = NULL;
    n->pairs = NULL;
    n->npairs = n->pairs_cap = 0;
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

/* splitmix64's finaliser: the same on every machine. */
static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int64_t sim_net_jitter(const sim_net *n, int from, int to, uint64_t k, int64_t jitter_ns)
{
    if (jitter_ns <= 0)
        return 0;
    uint64_t pair = (uint64_t)from * (uint64_t)n->nnodes + (uint64_t)to;
    uint64_t r = mix(mix(mix(n->seed) ^ pair) ^ k);
    /* [0, jitter]: the modulo's bias is below 2^-30 for any jitter under a second. */
    return (int64_t)(r % ((uint64_t)jitter_ns + 1));
}

static sim_net_pair *pair_slot(sim_net *n, uint64_t key)
{
    size_t mask = n->pairs_cap - 1, i = (size_t)mix(key) & mask;
    while (n->pairs[i].key && n->pairs[i].key != key)
        i = (i + 1) & mask;
    return &n->pairs[i];
}

/* The pair's entry, made (at no messages, arrival 0) when new. */
static sim_net_pair *pair_get(sim_net *n, int from, int to)
{
    uint64_t key = (uint64_t)from * (uint64_t)n->nnodes + (uint64_t)to + 1;
    if (2 * (n->npairs + 1) > n->pairs_cap) {
        sim_net_pair *old = n->pairs;
        size_t cap = n->pairs_cap;
        n->pairs_cap = cap ? 2 * cap : 64;
        n->pairs = calloc(n->pairs_cap, sizeof *n->pairs);
        if (!n->pairs)
            abort();
        for (size_t i = 0; i < cap; i++)
            if (old[i].key)
                *pair_slot(n, old[i].key) = old[i];
        free(old);
    }
    sim_net_pair *p = pair_slot(n, key);
    if (!p->key) {
        *p = (sim_net_pair){.key = key};
        n->npairs++;
    }
    return p;
}

/* `at` plus the link's jitter, never before the pair's previous message. */
static int64_t jittered(sim_net *n, int from, int to, int64_t at, size_t link)
{
    int64_t jitter_ns = n->jitter ? n->jitter[link] : 0;
    if (jitter_ns <= 0)
        return at;   /* FIFO already: one interface, one link, one latency */
    sim_net_pair *p = pair_get(n, from, to);
    at += sim_net_jitter(n, from, to, p->sent++, jitter_ns);
    if (at < p->last_at)
        at = p->last_at;
    p->last_at = at;
    return at;
}

int64_t sim_net_send(sim_net *n, int64_t now, int from, int to, size_t bytes)
{
    int64_t start = now > n->nic_free[from] ? now : n->nic_free[from];
    int64_t sent = start + transfer_ns(&n->lan, bytes);
    n->nic_free[from] = sent;
    int ca = n->cluster_of[from], cb = n->cluster_of[to];
    size_t k = (size_t)ca * (size_t)n->nclusters + (size_t)cb;
    if (ca == cb) {
        n->c.msgs[0]++;
        n->c.bytes[0] += bytes;
        return jittered(n, from, to, sent + n->lan.latency_ns, k);
    }
    const sim_link *w = &n->wan[k];
    int64_t wstart = sent > n->wan_free[k] ? sent : n->wan_free[k];
    n->c.wan_queued_ns += wstart - sent;
    int64_t wdone = wstart + transfer_ns(w, bytes);
    n->wan_free[k] = wdone;
    n->c.msgs[1]++;
    n->c.bytes[1] += bytes;
    return jittered(n, from, to, wdone + w->latency_ns, k);
}
