/*
 * gen_proto_seeds.c - writes the seed corpus of fuzz_proto: one valid
 * message of each type, built with the encoder, plus a few near misses
 * (a cut body, a wrong magic, a newer version, trailing bytes, a small
 * max_size).  The files are committed; this program is kept (and built by
 * make check) so that they can be remade when the protocol changes:
 *
 *   make build/tests/fuzz/gen_proto_seeds
 *   build/tests/fuzz/gen_proto_seeds tests/fuzz/corpus/proto
 *
 * File layout: see fuzz_proto.c (u16 prefix, header frame, body frame).
 */
#include "satin_proto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *outdir;
static int failed;

/* Writes prefix + header + body; `cut` bytes are dropped from the end and
 * `extra` zero bytes added, for the near misses. */
static void write_seed(const char *name, unsigned size_sel, const unsigned char *h, size_t hl,
                       const unsigned char *b, size_t bl, size_t cut, size_t extra)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        failed = 1;
        return;
    }
    unsigned prefix = size_sel << 14 | (unsigned)hl;
    unsigned char p[2] = {(unsigned char)(prefix >> 8), (unsigned char)prefix};
    size_t keep = bl > cut ? bl - cut : 0;
    fwrite(p, 1, 2, f);
    fwrite(h, 1, hl, f);
    fwrite(b, 1, keep, f);
    for (size_t i = 0; i < extra; i++)
        fputc(0, f);
    if (fclose(f) != 0) {
        perror(path);
        failed = 1;
    }
}

/* Encodes m into seed `name` and frees it. */
static void seed(const char *name, satin_msg *m)
{
    unsigned char *h, *b;
    size_t hl, bl;
    satin_proto_error err;
    if (satin_msg_check(m, &err) < 0 || satin_msg_encode(m, &h, &hl, &b, &bl) < 0) {
        fprintf(stderr, "gen_proto_seeds: %s does not encode: %s\n", name, err.text);
        failed = 1;
        satin_msg_destroy(&m);
        return;
    }
    write_seed(name, 0, h, hl, b, bl, 0, 0);
    free(h);
    free(b);
    satin_msg_destroy(&m);
}

static satin_msg *msg(int type, uint64_t request_id)
{
    satin_msg *m = satin_msg_new(type);
    m->request_id = request_id;
    return m;
}

static void client_seeds(void)
{
    satin_msg *m = msg(SATIN_MSG_SUBMIT, 1);
    m->flags = SATIN_FLAG_PROGRESS;
    satin_msg_set_kind(m, "uts");
    satin_msg_add_param(m, "tree", "seed-T1");
    satin_msg_add_param(m, "chunk", "16");
    seed("submit-uts", m);

    m = msg(SATIN_MSG_SUBMIT, 2);
    satin_msg_set_kind(m, "fib");
    satin_msg_add_param(m, "n", "30");
    seed("submit-fib", m);

    m = msg(SATIN_MSG_ACCEPTED, 1);
    m->job_id = 7;
    seed("accepted", m);

    m = msg(SATIN_MSG_PROGRESS, 1);
    m->job_id = 7;
    m->elapsed_ms = 1500;
    m->jobs_run = 123456;
    seed("progress", m);

    m = msg(SATIN_MSG_RESULT, 1);
    m->job_id = 7;
    satin_msg_set_kind(m, "uts");
    satin_msg_set_error(m, "");
    satin_kvlist_add_i64(&m->result, "nodes", 102181082);
    satin_kvlist_add_f64(&m->stats, "wall_s", 1.25);
    satin_kvlist_add_str(&m->stats, "policy", "crs");
    seed("result", m);

    /* A result with data: a 2x1 image, as the raytracer's image=1 sends it. */
    m = msg(SATIN_MSG_RESULT, 1);
    m->job_id = 8;
    satin_msg_set_kind(m, "raytracer");
    satin_msg_set_error(m, "");
    satin_kvlist_add_i64(&m->result, "pixels", 2);
    satin_msg_set_data_type(m, "image/x-portable-pixmap");
    satin_msg_set_data(m, "P6\n2 1\n255\n\x10\x20\x30\xff\x00\x80", 17);
    satin_kvlist_add_f64(&m->stats, "wall_s", 0.01);
    seed("result-data", m);

    m = msg(SATIN_MSG_ERROR, 3);
    m->code = SATIN_PROTO_BAD_PARAMS;
    satin_msg_set_error(m, "fib: parameter n=93 is out of range [0, 92]");
    seed("error", m);

    m = msg(SATIN_MSG_WAIT, 4);
    m->job_id = 7;
    m->flags = SATIN_FLAG_PROGRESS;
    seed("wait", m);

    m = msg(SATIN_MSG_CANCEL, 5);
    m->job_id = 7;
    seed("cancel", m);

    m = msg(SATIN_MSG_OK, 5);
    m->job_id = 7;
    seed("ok", m);

    seed("status", msg(SATIN_MSG_STATUS, 6));

    m = msg(SATIN_MSG_STATUS_REPLY, 6);
    satin_kvlist_add_i64(&m->info, "workers", 4);
    satin_kvlist_add_str(&m->info, "policy", "rs");
    seed("status-reply", m);

    seed("list-kinds", msg(SATIN_MSG_LIST_KINDS, 8));

    m = msg(SATIN_MSG_KINDS, 8);
    satin_msg_add_kind(m, "fib", "Fibonacci");
    satin_msg_set_kind_module(m, "satin-kinds", "0.1.0");
    satin_msg_add_kind_param(m, "n", NULL, 1, "which one");
    satin_msg_add_kind_param(m, "threshold", "0", 0, "sequential below");
    satin_msg_add_kind(m, "nqueens", "N queens");
    satin_msg_set_kind_module(m, "satin-kinds", "0.1.0");
    seed("kinds", m);

    seed("grid-status", msg(SATIN_MSG_GRID_STATUS, 10));

    m = msg(SATIN_MSG_GRID, 10);
    satin_kvlist *node = satin_msg_add_job(m);
    satin_kvlist_add_str(node, "node", "a0");
    satin_kvlist_add_str(node, "state", "alive");
    satin_kvlist_add_i64(node, "workers", 2);
    node = satin_msg_add_job(m);
    satin_kvlist_add_str(node, "node", "b1");
    satin_kvlist_add_str(node, "state", "dead");
    satin_kvlist_add_f64(node, "dead_s", 4.5);
    seed("grid", m);
}

static void peer_seeds(void)
{
    static const unsigned char arg[] = {0, 0, 0, 0, 0, 0, 0, 30, 0, 0, 0, 0, 0, 0, 0, 0};
    satin_msg *m = msg(SATIN_MSG_HELLO, 1);
    m->sender = 1;
    satin_msg_set_grid_name(m, "local-2x2");
    m->node_count = 4;
    satin_msg_set_node_id(m, "a1");
    for (size_t i = 0; i < sizeof m->digest; i++)
        m->digest[i] = (unsigned char)(0xA0 + i);
    seed("peer-hello", m);

    /* With its kind modules, as every satind's HELLO has them. */
    m = msg(SATIN_MSG_HELLO, 1);
    m->sender = 1;
    satin_msg_set_grid_name(m, "local-2x2");
    m->node_count = 4;
    satin_msg_set_node_id(m, "a1");
    unsigned char mdig[SATIN_PROTO_DIGEST_SIZE];
    for (size_t i = 0; i < sizeof mdig; i++)
        mdig[i] = (unsigned char)(0x30 + i);
    satin_msg_add_module(m, "satin-kinds", "0.1.0", mdig);
    satin_msg_add_module_task(m, "fib");
    satin_msg_add_module_task(m, "uts");
    mdig[0] = 0;
    satin_msg_add_module(m, "cxx-kinds", "1.0", mdig);
    satin_msg_add_module_task(m, "partitions");
    seed("peer-hello-modules", m);

    m = msg(SATIN_MSG_STEAL, 2);
    m->sender = 2;
    m->thief = 2;
    m->flags = SATIN_STEAL_WAN | SATIN_STEAL_PREFETCH;
    m->max_jobs = 4;
    seed("peer-steal", m);

    m = msg(SATIN_MSG_STEAL_REPLY, 2);
    m->sender = 0;
    m->victim = 0;
    satin_msg_add_jobrec(m, 0, 11, 7, "fib", 8, arg, sizeof arg);
    satin_msg_add_jobrec(m, 0, 12, 7, "fib", 8, arg, 8);
    seed("peer-steal-reply", m);

    m = msg(SATIN_MSG_STEAL_REPLY, 2);
    m->flags = SATIN_STEAL_VICTIM_BUSY;
    seed("peer-steal-reply-empty", m);

    m = msg(SATIN_MSG_PUSH, 3);
    satin_msg_add_jobrec(m, 1, 13, 7, "nqueens", 8, arg, sizeof arg);
    seed("peer-push", m);

    m = msg(SATIN_MSG_PUSH_ACK, 3);
    m->record_id = 13;
    seed("peer-push-ack", m);

    m = msg(SATIN_MSG_JOB_RESULT, 4);
    m->owner = 1;
    m->record_id = 13;
    satin_msg_set_error(m, "");
    satin_msg_set_data(m, arg, 8);
    satin_kvlist_add_i64(&m->stats, "jobs", 3);
    seed("peer-job-result", m);

    m = msg(SATIN_MSG_LOAD, 5);
    m->load = 42;
    seed("peer-load", m);

    m = msg(SATIN_MSG_STEAL_CANCEL, 6);
    m->steal_id = 2;
    m->thief = 2;
    seed("peer-steal-cancel", m);

    m = msg(SATIN_MSG_JOB_CANCEL, 7);
    satin_msg_add_record_id(m, 11);
    satin_msg_add_record_id(m, 12);
    seed("peer-job-cancel", m);

    m = msg(SATIN_MSG_VALUES, 7);
    m->origin = 0xABC;
    uint64_t elems[2] = {3, 9};
    satin_msg_add_value(m, "best", SATIN_VALUE_MIN, 1, 420, NULL, 0);
    satin_msg_add_value(m, "ids", SATIN_VALUE_UNION, 0, 0, elems, 2);
    seed("peer-values", m);

    m = msg(SATIN_MSG_STATS_REQUEST, 8);
    m->job_id = 7;
    m->phase = SATIN_STATS_PHASE_END;
    seed("peer-stats-request", m);

    m = msg(SATIN_MSG_STATS_REPLY, 8);
    m->job_id = 7;
    m->phase = SATIN_STATS_PHASE_END;
    satin_kvlist_add_i64(&m->stats, "steals", 5);
    seed("peer-stats-reply", m);

    m = msg(SATIN_MSG_STATS_REQUEST, 8);
    m->job_id = 3;
    m->phase = SATIN_STATS_PHASE_NODE;
    seed("peer-stats-request-node", m);

    m = msg(SATIN_MSG_STATS_REPLY, 8);
    m->job_id = 3;
    m->phase = SATIN_STATS_PHASE_NODE;
    satin_kvlist_add_i64(&m->stats, "workers", 4);
    satin_kvlist_add_f64(&m->stats, "uptime_s", 12.5);
    seed("peer-stats-reply-node", m);

    m = msg(SATIN_MSG_STATS_REQUEST, 8);
    m->job_id = 7;
    m->phase = SATIN_STATS_PHASE_START | SATIN_STATS_PROFILE;
    seed("peer-stats-request-profile", m);

    m = msg(SATIN_MSG_STATS_REPLY, 8);
    m->job_id = 7;
    m->phase = SATIN_STATS_PHASE_END | SATIN_STATS_PROFILE;
    satin_kvlist_add_i64(&m->stats, "steals", 5);
    satin_kvlist_add_str(&m->stats, "profile", "w=2 s=1000 e=9000 0b0 0i1 150w7 40a7 10b1");
    seed("peer-stats-reply-profile", m);
}

/* Near misses of a SUBMIT: each must be rejected with a clear error. */
static void bad_seeds(void)
{
    satin_msg *m = msg(SATIN_MSG_SUBMIT, 9);
    satin_msg_set_kind(m, "nqueens");
    satin_msg_add_param(m, "n", "12");
    satin_msg_add_param(m, "threshold", "4");   /* 52 bytes in all: over max_size 40 */
    unsigned char *h, *b;
    size_t hl, bl;
    if (satin_msg_encode(m, &h, &hl, &b, &bl) < 0) {
        failed = 1;
        satin_msg_destroy(&m);
        return;
    }
    write_seed("bad-truncated-body", 0, h, hl, b, bl, 3, 0);
    write_seed("bad-trailing-bytes", 0, h, hl, b, bl, 0, 2);
    write_seed("bad-over-max-size", 2, h, hl, b, bl, 0, 0);
    write_seed("bad-short-header", 0, h, hl - 1, b, bl, 0, 0);
    h[0] ^= 0xFF;
    write_seed("bad-magic", 0, h, hl, b, bl, 0, 0);
    h[0] ^= 0xFF;
    h[2] = SATIN_PROTO_VERSION + 1;
    write_seed("bad-version", 0, h, hl, b, bl, 0, 0);
    h[2] = SATIN_PROTO_VERSION;
    h[3] = SATIN_MSG_PEER_LAST;
    write_seed("bad-unknown-peer-type", 0, h, hl, b, bl, 0, 0);
    free(h);
    free(b);
    satin_msg_destroy(&m);

    /* A HELLO of the release before the membership digest: it ends after
     * the flags (the node id and the digest cut off). */
    m = msg(SATIN_MSG_HELLO, 1);
    m->sender = 1;
    satin_msg_set_grid_name(m, "local-2x2");
    m->node_count = 4;
    satin_msg_set_node_id(m, "a1");
    if (satin_msg_encode(m, &h, &hl, &b, &bl) < 0) {
        failed = 1;
        satin_msg_destroy(&m);
        return;
    }
    write_seed("bad-hello-without-digest", 0, h, hl, b, bl, 2 + 2 + SATIN_PROTO_DIGEST_SIZE, 0);
    free(h);
    free(b);
    satin_msg_destroy(&m);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_proto_seeds DIR\n");
        return 2;
    }
    outdir = argv[1];
    client_seeds();
    peer_seeds();
    bad_seeds();
    return failed;
}
