/*
 * fuzz_topology.c - libFuzzer target for the topology loader (daemon/topology.h).
 *
 * satind, satin-wanem and the tools all start by loading one YAML file
 * with satin_topology_load.  Whatever the file holds, the loader must hand
 * back either a topology whose tables are consistent, or NULL with a
 * "FILE:LINE:COLUMN: message" that points the user at the problem; it
 * must never crash or leak (libFuzzer's LeakSanitizer checks every input).
 *
 * The loader takes a path, so the input goes into one memfd made on the
 * first call and is loaded through /proc/self/fd/N: no files to clean up,
 * and the reading code is exercised as well as the parser.
 */
#include "policy_config.h"
#include "topology.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1;
static char path[64];

static void put_input(const uint8_t *data, size_t size)
{
    if (memfd < 0) {
        memfd = memfd_create("satin-fuzz-topology", MFD_CLOEXEC);
        if (memfd < 0)
            abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
    }
    if (ftruncate(memfd, 0) < 0)
        abort();
    for (size_t off = 0; off < size;) {
        ssize_t n = pwrite(memfd, data + off, size - off, (off_t)off);
        if (n <= 0)
            abort();
        off += (size_t)n;
    }
}

/* "PATH:LINE:COLUMN: message" with LINE and COLUMN from 1, and a message. */
static int error_well_formed(const char *err)
{
    size_t plen = strlen(path);
    if (strncmp(err, path, plen) != 0 || err[plen] != ':')
        return 0;
    const char *s = err + plen + 1;
    for (int field = 0; field < 2; field++) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || !isdigit((unsigned char)*s) || v < 1 || *end != ':')
            return 0;
        s = end + 1;
    }
    return s[0] == ' ' && s[1] != '\0' && s[1] != ' ';
}

static int text_ok(const char *s, size_t size)
{
    return memchr(s, '\0', size) != NULL;
}

/* The invariants the daemon and the shim index by without checking. */
static int topology_consistent(const satin_topology *t)
{
    if (t->nclusters < 1 || t->nnodes < 1 || !t->clusters || !t->nodes || t->nlinks < 0 ||
        (t->nlinks > 0 && !t->links) || !text_ok(t->name, sizeof t->name) || !t->name[0] ||
        !text_ok(t->policy.text, sizeof t->policy.text) ||
        !text_ok(t->shim_host, sizeof t->shim_host))
        return 0;
    int next = 0;
    for (int c = 0; c < t->nclusters; c++) {
        const satin_cluster_def *cl = &t->clusters[c];
        if (!text_ok(cl->name, sizeof cl->name) || !cl->name[0] || cl->first_node != next ||
            cl->nnodes < 1)
            return 0;
        next += cl->nnodes;
    }
    if (next != t->nnodes)
        return 0;
    for (int i = 0; i < t->nnodes; i++) {
        const satin_node_def *nd = &t->nodes[i];
        if (nd->index != i || nd->cluster < 0 || nd->cluster >= t->nclusters ||
            i < t->clusters[nd->cluster].first_node ||
            i >= t->clusters[nd->cluster].first_node + t->clusters[nd->cluster].nnodes ||
            !text_ok(nd->id, sizeof nd->id) || !nd->id[0] ||
            !text_ok(nd->endpoint, sizeof nd->endpoint) ||
            strncmp(nd->endpoint, "tcp://", 6) != 0 || !text_ok(nd->client, sizeof nd->client) ||
            !text_ok(nd->public_key, sizeof nd->public_key) || nd->workers < 0 ||
            satin_topology_node(t, nd->id) != nd)
            return 0;
    }
    for (int i = 0; i < t->nclients; i++) {
        const satin_client_def *cd = &t->clients[i];
        if (!text_ok(cd->name, sizeof cd->name) || !cd->name[0] ||
            !text_ok(cd->public_key, sizeof cd->public_key) ||
            satin_topology_client_of_key(t, cd->public_key) < 0)
            return 0;
    }
    if (t->nclients < 0 || (t->nclients > 0 && !t->clients) ||
        !text_ok(t->keys_dir, sizeof t->keys_dir))
        return 0;
    for (int i = 0; i < t->nlinks; i++) {
        const satin_link_def *l = &t->links[i];
        if (l->from < 0 || l->from >= t->nclusters || l->to < 0 || l->to >= t->nclusters ||
            l->from == l->to)
            return 0;
    }
    /* The lookups every node makes for every peer (bounded: the grid may
     * hold thousands of nodes). */
    char ep[SATIN_ENDPOINT_MAX + 64];
    int n = t->nnodes < 32 ? t->nnodes : 32;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            satin_topology_peer_endpoint(t, a, b, ep, sizeof ep);
            if (!ep[0])
                return 0;
            satin_link_def l = satin_topology_link(t, t->nodes[a].cluster, t->nodes[b].cluster);
            if (!(l.latency_ms >= 0) || !(l.jitter_ms >= 0) || !(l.bandwidth_kBps >= 0))
                return 0;
        }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];   /* the size satind and satin-wanem use */
    put_input(data, size);
    memset(err, 'X', sizeof err);
    satin_topology *t = satin_topology_load(path, err, sizeof err);
    if (!t) {
        if (!memchr(err, '\0', sizeof err) || !error_well_formed(err))
            abort();
        return 0;
    }
    if (!topology_consistent(t))
        abort();
    /* What satind does first with it: the policy keys against the registry. */
    satin_policy_config policy;
    char note[256];
    if (satin_policy_configure(t, NULL, &policy, note, sizeof note, err, sizeof err) < 0) {
        if (!memchr(err, '\0', sizeof err) || !error_well_formed(err))
            abort();
    } else if (!policy.ops || policy.params.backoff_max_ns < policy.params.backoff_min_ns) {
        abort();
    }
    /* What satind checks next under `security: curve`: an error in the
     * same format, or every node findable by its (then unique) key. */
    if (satin_topology_check_keys(t, err, sizeof err) < 0) {
        if (!memchr(err, '\0', sizeof err) || !error_well_formed(err))
            abort();
    } else if (!t->security_none) {
        for (int i = 0; i < t->nnodes; i++)
            if (satin_topology_node_of_key(t, t->nodes[i].public_key) != i)
                abort();
    }
    satin_topology_destroy(&t);
    return 0;
}
