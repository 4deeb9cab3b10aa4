/*
 * replay.c - a real application's job tree, replayed on emulated processors.
 *
 * satin-trace runs a kind once on one worker and writes its job tree with
 * every node's self time (replay_tree.h).  Here the job for node i spawns
 * node i's children, waits for them, then waits (satin_leaf_wait, as
 * synthetic's leaves do) for its self time times `scale`.  So the tree, and
 * the time each node keeps its worker busy, are the application's, while
 * the CPU stays free: 64 emulated processors fit on 2 cores.
 *
 * The argument carries the path of the trace file and a checksum of its
 * content; each daemon reads the file once (replay_cache.c), so the file
 * must be at that path on every node.  Unlike the other kinds, this one
 * reads a file: a job is still a pure function of its argument as long as
 * the file is there and unchanged, which the checksum checks.
 *
 * Result: nodes and leaves visited, total_us (the sum of the waits, exact
 * integer microseconds: sum over nodes of round(self_us * scale)) and
 * trace_us (the sum of the self times as the file has them).  Statistics:
 * parallelism = total waiting time / wall time, as synthetic's.
 *
 * Every node is an invocation of the bytes task `replay`: its argument an
 * rp_arg and the path, whose length varies, its result an rp_res.
 */
#include "apps.h"
#include "kind_shared.h"
#include "leaf_wait.h"
#include "replay_cache.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RP_MAX_PATH 1024
#define RP_MIN_SCALE 1e-6
#define RP_MAX_SCALE 1e6
#define RP_INLINE_KIDS 32   /* result slots on the stack; wider nodes allocate */

/* Fixed-width fields with no padding: the bytes may cross machines.  The
 * path's bytes follow, without a terminating NUL. */
typedef struct rp_arg {
    uint64_t checksum;    /* of the tree's content (replay_tree.h) */
    double scale;
    uint32_t node;        /* the node this invocation replays */
    uint32_t path_len;
} rp_arg;

typedef struct rp_res {
    int64_t nodes, leaves;
    int64_t total_us;     /* waits */
    int64_t trace_us;     /* self times as traced */
} rp_res;

static int rp_check(const void *arg, size_t len, satin_err *err);
SATIN_BYTES_TASK(replay, rp_check);

/* Bytes that passed the check, or this node's own spawns: the cheap tests
 * below keep a wrong length from reading out of bounds all the same. */
static void replay(SATIN_FRAME, const void *arg, size_t len)
{
    rp_arg a;
    if (len < sizeof a) {
        satin_fail("replay: argument of %zu bytes, expected at least %zu", len, sizeof a);
        return;
    }
    memcpy(&a, arg, sizeof a);
    if (a.path_len == 0 || a.path_len > RP_MAX_PATH || len != sizeof a + a.path_len ||
        !(a.scale >= RP_MIN_SCALE && a.scale <= RP_MAX_SCALE)) {
        satin_fail("replay: corrupt argument (%zu bytes, path of %u)", len, (unsigned)a.path_len);
        return;
    }
    /* Our own copy: the children's arguments differ from it only in `node`,
     * and it gives the path its NUL. */
    unsigned char buf[sizeof(rp_arg) + RP_MAX_PATH + 1];
    memcpy(buf, arg, len);
    buf[len] = '\0';
    const char *path = (const char *)buf + sizeof a;
    if (strlen(path) != a.path_len) {
        satin_fail("replay: corrupt argument (a NUL in the path)");
        return;
    }
    satin_err err = {""};
    const replay_tree *t;
    if (replay_cache_get(path, a.checksum, &t, &err) < 0) {
        satin_fail("%s", err.msg);
        return;
    }
    if (a.node >= t->nnodes) {
        satin_fail("replay: corrupt argument (node %u of a tree of %lld)", (unsigned)a.node,
                   (long long)t->nnodes);
        return;
    }
    /* parse kept the scaled waits of the whole tree within REPLAY_MAX_TOTAL_US;
     * a scale from elsewhere is held to a bound of that sum (each wait is
     * rounded up by at most 1/2) far below where the int64 sums overflow. */
    if ((double)t->total_us * a.scale + 0.5 * (double)t->nnodes > 0x1p62) {
        satin_fail("replay: scale=%g makes the waits of %s longer than %" PRId64 " us", a.scale,
                   path, REPLAY_MAX_TOTAL_US);
        return;
    }
    uint32_t nk = t->nkids[a.node], first = t->first_kid[a.node];
    rp_res inline_sub[RP_INLINE_KIDS];
    rp_res *sub = nk > RP_INLINE_KIDS ? calloc(nk, sizeof *sub) : inline_sub;
    if (!sub) {
        satin_fail("replay: out of memory for the %u children of node %u", (unsigned)nk,
                   (unsigned)a.node);
        return;
    }
    memset(sub, 0, sizeof *sub * nk);
    for (uint32_t k = 0; k < nk; k++) {
        rp_arg child = a;
        child.node = t->kids[first + k];
        memcpy(buf, &child, sizeof child);
        satin_spawn_bytes(replay, buf, len, &sub[k], sizeof sub[k]);
    }
    satin_sync();
    int64_t self = t->self_us[a.node], wait = replay_scaled_us(self, a.scale);
    rp_res r = {1, nk == 0, wait, self};
    for (uint32_t k = 0; k < nk; k++) {
        r.nodes += sub[k].nodes;
        r.leaves += sub[k].leaves;
        r.total_us += sub[k].total_us;
        r.trace_us += sub[k].trace_us;
    }
    if (sub != inline_sub)
        free(sub);
    satin_leaf_wait(wait);
    satin_return(&r, sizeof r);
}

/* What parse makes and the spawns keep (the path, scale and checksum
 * travel unchanged); whether the file holds node `node`, and holds that
 * content, only the run can tell: it reads the file. */
static int rp_valid(const rp_arg *a, const unsigned char *path, satin_err *err)
{
    if (!(a->scale >= RP_MIN_SCALE && a->scale <= RP_MAX_SCALE))
        return satin_err_set(err, "replay: scale=%g is out of range %g..%g", a->scale,
                             RP_MIN_SCALE, RP_MAX_SCALE);
    if (memchr(path, '\0', a->path_len))
        return satin_err_set(err, "replay: a NUL in the path");
    return satin_arg_range("replay", "node", a->node, 0, REPLAY_MAX_NODES - 1, err);
}

SATIN_ARG_CHECK_ITEMS(rp_check, "replay", rp_arg, path_len, 1, RP_MAX_PATH, 1, "path bytes",
                      rp_valid)

int satin_replay_arg_read(const void *arg, size_t len, char *path, size_t pathcap,
                          uint64_t *checksum, double *scale, uint32_t *node)
{
    rp_arg a;
    if (len < sizeof a)
        return -1;
    memcpy(&a, arg, sizeof a);
    if (a.path_len == 0 || a.path_len > RP_MAX_PATH || len != sizeof a + a.path_len ||
        a.path_len >= pathcap || !(a.scale >= RP_MIN_SCALE && a.scale <= RP_MAX_SCALE))
        return -1;
    memcpy(path, (const char *)arg + sizeof a, a.path_len);
    path[a.path_len] = 0;
    *checksum = a.checksum;
    *scale = a.scale;
    *node = a.node;
    return 0;
}

size_t satin_replay_arg_write(const char *path, uint64_t checksum, double scale, uint32_t node,
                              void *out, size_t cap)
{
    size_t plen = strlen(path);
    rp_arg a;
    memset(&a, 0, sizeof a);
    a.checksum = checksum;
    a.scale = scale;
    a.node = node;
    a.path_len = (uint32_t)plen;
    if (plen == 0 || plen > RP_MAX_PATH || cap < sizeof a + plen)
        return 0;
    memcpy(out, &a, sizeof a);
    memcpy((unsigned char *)out + sizeof a, path, plen);
    return sizeof a + plen;
}

static int rp_parse(const satin_params *p, satin_bytes *arg, satin_err *err)
{
    const char *path = "";
    double scale;
    if (satin_param_str(p, "tree", &path, err) < 0 ||
        satin_param_f64(p, "scale", RP_MIN_SCALE, RP_MAX_SCALE, &scale, err) < 0)
        return -1;
    size_t plen = strlen(path);
    if (plen == 0 || plen > RP_MAX_PATH)
        return satin_err_set(err, "replay: tree= needs a path of 1 to %d bytes", RP_MAX_PATH);
    const replay_tree *t;
    int64_t total, span;
    if (replay_cache_load(path, &t, err) < 0 || replay_tree_scaled(t, scale, &total, &span, err) < 0)
        return -1;
    rp_arg a;
    memset(&a, 0, sizeof a);
    a.checksum = t->checksum;
    a.scale = scale;
    a.node = 0;
    a.path_len = (uint32_t)plen;
    if (satin_bytes_put(arg, &a, sizeof a, err) < 0 || satin_bytes_put(arg, path, plen, err) < 0)
        return -1;
    return 0;
}

static void rp_format(const void *res, size_t len, double wall_s, satin_result *result,
                      satin_result *stats)
{
    rp_res r = {0, 0, 0, 0};
    if (len == sizeof r)
        memcpy(&r, res, sizeof r);
    satin_result_i64(result, "nodes", r.nodes);
    satin_result_i64(result, "leaves", r.leaves);
    satin_result_i64(result, "total_us", r.total_us);
    satin_result_i64(result, "trace_us", r.trace_us);
    if (wall_s > 0)
        satin_result_f64(stats, "parallelism", (double)r.total_us / 1e6 / wall_s);
}

static const satin_param_def rp_params[] = {
    {"tree", NULL, 1, "trace file written by satin-trace; the same path on every node"},
    {"scale", "1", 0, "multiply every self time by this, 1e-6..1e6 (waits are rounded to 1 us)"},
    {NULL, NULL, 0, NULL},
};

SATIN_KIND(replay,
           .summary = "emulated processors: a traced job tree whose nodes sleep their self times",
           .params = rp_params, .parse = rp_parse, .root = SATIN_TASK_OF(replay),
           .result_size = sizeof(rp_res), .format = rp_format);
