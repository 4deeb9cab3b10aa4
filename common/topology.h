/*
 * topology.h - the grid described by one YAML file that every daemon and
 * tool reads: the clusters, their nodes, the policy and its parameters, and
 * the wide-area links between clusters.  The schema is in etc/README.md.
 */
#ifndef SATIN_TOPOLOGY_H
#define SATIN_TOPOLOGY_H

#include <stddef.h>

#define SATIN_NAME_MAX 64
/* failure_timeout defaults: a LAN peer silent 3 s, a wide-area one 10 s, is
 * dead (etc/README.md says why). */
#define SATIN_FAILURE_TIMEOUT_LAN_MS 3000.0
#define SATIN_FAILURE_TIMEOUT_WAN_MS 10000.0
#define SATIN_ENDPOINT_MAX 256

typedef struct satin_node_def {
    char id[SATIN_NAME_MAX];             /* unique in the grid, e.g. "a0" */
    int index;                           /* position in the file: the wire node id */
    int cluster;                         /* index into clusters */
    char endpoint[SATIN_ENDPOINT_MAX];   /* peer endpoint this node binds, tcp://host:port */
    char client[SATIN_ENDPOINT_MAX];     /* client endpoint ("" = the default) */
    int workers;                         /* 0 = online CPUs */
    char public_key[64];                 /* Z85 CURVE public key, "" if not given */
    char kinds_dir[512];                 /* its own `kinds_dir:` ("" = the grid's) */
    int line, column;                    /* where it was defined, for messages */
} satin_node_def;

typedef struct satin_cluster_def {
    char name[SATIN_NAME_MAX];
    int first_node, nnodes;              /* nodes[first_node .. first_node+nnodes-1] */
} satin_cluster_def;

typedef struct satin_link_def {
    int from, to;                        /* cluster indexes (directed) */
    double latency_ms;                   /* one-way */
    double jitter_ms;
    double bandwidth_kBps;               /* kilobytes per second, as the paper's KByte/s */
} satin_link_def;

/* A value the loader keeps as written, for a layer above to read: the
 * policy and its tunables belong to the policy registry (daemon/policy/),
 * which reads them with satin_topology_value_int/_num below, so that the
 * file's rules and messages stay those of every other number in it. */
typedef struct satin_topology_value {
    char key[SATIN_NAME_MAX];            /* "" when the key is absent */
    char text[128];                      /* the scalar as written */
    int scalar;                          /* 1: a scalar that fits `text` */
    char shown[96];                      /* as messages show it: 'fast', a mapping */
    int key_line, key_column;            /* where the key is */
    int line, column;                    /* where the value is */
} satin_topology_value;

/* A remote client allowed to submit over a node's tcp:// client endpoint. */
typedef struct satin_client_def {
    char name[SATIN_NAME_MAX];
    char public_key[64];                 /* Z85 */
    int admin;                           /* may wait on, cancel and see the jobs of others */
} satin_client_def;

typedef struct satin_topology {
    char path[512];
    char name[SATIN_NAME_MAX];
    satin_topology_value policy;         /* `policy:`, its word in lower case */
    satin_topology_value *policy_params; /* `policy_params:`, in file order */
    int npolicy_params;
    int security_none;                   /* 1: `security: none` (plain text, local experiments) */
    int allow_insecure_network;          /* 1: `none` with non-loopback peer endpoints */
    char keys_dir[512];                  /* `keys:` secret key directory ("" = none), resolved
                                          * against the file's directory */
    char kinds_dir[512];                 /* `kinds_dir:` the kind modules ("" = the program's
                                          * default), resolved likewise */
    satin_client_def *clients;           /* `clients:` remote clients' public keys */
    int nclients;
    int emulate;                         /* 1: reach remote clusters through satin-wanem */
    char shim_host[SATIN_NAME_MAX];      /* wan.shim_host: where satin-wanem listens */
    int shim_base_port;                  /* wan.shim_base_port: its first relay port */
    satin_link_def wan_default;          /* from = to = -1 */
    double failure_timeout_lan_ms;       /* failure_timeout.lan_ms: a peer of this cluster
                                          * silent this long is dead */
    double failure_timeout_wan_ms;       /* failure_timeout.wan_ms: the same across clusters */
    int orphan_saving;                   /* orphan_saving (default true): results of records
                                          * whose owner died are kept for the re-run */
    satin_link_def *links;               /* per directed pair overrides */
    int nlinks;
    satin_cluster_def *clusters;
    int nclusters;
    satin_node_def *nodes;               /* grouped by cluster, in file order */
    int nnodes;
} satin_topology;

/* NULL with "FILE:LINE:COLUMN: what was expected" in err on any problem. */
satin_topology *satin_topology_load(const char *path, char *err, size_t errlen);
/* The same from text in memory (`name` stands for the file in messages). */
satin_topology *satin_topology_parse(const char *name, const char *text, size_t len,
                                     char *err, size_t errlen);
void satin_topology_destroy(satin_topology **self);

/* "FILE:LINE:COLUMN: " and the message into err; returns -1. */
int satin_topology_fail(const satin_topology *t, int line, int column, char *err,
                        size_t errlen, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* A value as a whole number in [min, max], or as a number of `unit` in
 * [min, max] ((min, max] when above_min): 0, or -1 with the loader's own
 * message ("FILE:L:C: 'KEY' must be a whole number from 0 to 9, not 'x'"). */
int satin_topology_value_int(const satin_topology *t, const satin_topology_value *v,
                             long long min, long long max, long long *out, char *err,
                             size_t errlen);
int satin_topology_value_num(const satin_topology *t, const satin_topology_value *v, double min,
                             double max, int above_min, const char *unit, double *out,
                             char *err, size_t errlen);
/* Under `security: curve` every node needs its public key: 0, or -1 with
 * "FILE:LINE:COLUMN: node N has no public_key ..." in err for the first that
 * lacks one.  The loader leaves this to the programs that start daemons, so
 * that tools can still read a file whose keys are not handed out yet. */
int satin_topology_check_keys(const satin_topology *t, char *err, size_t errlen);
/* The node whose public key this is (Z85), or -1. */
int satin_topology_node_of_key(const satin_topology *t, const char *z85);
/* The allowed client whose public key this is, or -1. */
int satin_topology_client_of_key(const satin_topology *t, const char *z85);

/* The digest of the grid's membership, what every node must agree on to
 * talk to the others: SHA-256 over the grid name and, in file order (the
 * order gives the wire indexes), each cluster's name and node count and
 * each node's id, cluster, peer endpoint and public key, every string
 * length-prefixed.  Policy, links, client endpoints, workers and the
 * clients: list are left out: they may differ between nodes, or are
 * checked elsewhere.  Sent in HELLO (PROTOCOL.md 14.2). */
#define SATIN_TOPOLOGY_DIGEST_SIZE 32
void satin_topology_digest(const satin_topology *t, unsigned char out[SATIN_TOPOLOGY_DIGEST_SIZE]);
/* Its first bytes in hex, for log lines: "9f86d081884c". */
void satin_topology_digest_hex(const unsigned char d[SATIN_TOPOLOGY_DIGEST_SIZE], char *buf,
                               size_t len);

/* How the membership of `new` differs from that of `old` (topology_diff.c):
 * one line per difference ("node c0 added (cluster C, tcp://...)", "node b1
 * removed ...", "node a1: endpoint X -> Y", "node a1: public key ...", one
 * line for all nodes whose index changed), each passed to fn (may be NULL);
 * returns how many.  0 exactly when the membership digests are equal,
 * except for a change of cluster names or order that moves no node, which
 * is one line too. */
typedef void (*satin_topology_diff_fn)(void *ctx, const char *line);
int satin_topology_membership_diff(const satin_topology *old, const satin_topology *new,
                                   satin_topology_diff_fn fn, void *ctx);

/* The node with this id, or NULL. */
const satin_node_def *satin_topology_node(const satin_topology *t, const char *id);
/* The link parameters from cluster a to cluster b (the override or the default). */
satin_link_def satin_topology_link(const satin_topology *t, int from, int to);

/* The relay port satin-wanem listens on (at shim_host) for traffic from any
 * node of cluster `from_cluster` to node `to_node`:
 * shim_base_port + from_cluster * nnodes + to_node.  -1 for indexes out of
 * range.  Only ports with from_cluster != the node's own cluster are used. */
int satin_topology_shim_port(const satin_topology *t, int from_cluster, int to_node);
/* Where node `from_node` connects to reach node `to_node`: "tcp://HOST:PORT"
 * of the relay when the grid is emulated and the two are in different
 * clusters, else to_node's own endpoint ("" for indexes out of range). */
void satin_topology_peer_endpoint(const satin_topology *t, int from_node, int to_node, char *buf,
                                  size_t len);

#endif
