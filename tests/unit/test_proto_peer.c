/*
 * test_proto_peer.c - the peer (daemon <-> daemon) messages of the wire
 * codec, types 32..44: round trips of every type with every field at its
 * extremes, the exact bytes of the examples in PROTOCOL.md, truncation at
 * every offset, lying lengths and counts, every limit with its exact error
 * code, and pseudo-random garbage and mutations of peer messages.
 *
 * The client messages are tested by test_proto.c.  As there, hand-made
 * frames come from the small independent builder below, not from the
 * codec's own writer, so that a writer bug cannot hide itself.
 */
#include "satin_proto.h"
#include "satin_wire.h"
#include "proto_kit.h"

#include <stdint.h>

/* ---- an independent little frame builder ---------------------------------- */


static void b_header(buf *b, unsigned type, uint32_t sender, uint64_t rid)
{
    b->n = 0;
    b_u16(b, SATIN_PROTO_MAGIC);
    b_u8(b, SATIN_PROTO_VERSION);
    b_u8(b, type);
    b_u32(b, sender);
    b_u64(b, rid);
}

/* A JOBREC whose arg length field says `len` but `n` bytes follow (place
 * 0x70 + rec, ancestry {rec, ~rec}, origin 0x0e + rec). */
static void b_jobrec_raw(buf *b, uint32_t owner, uint64_t rec, uint64_t job, const char *kind,
                         uint32_t cap, uint32_t len, const void *arg, size_t n)
{
    b_u32(b, owner);
    b_u64(b, rec);
    b_u64(b, job);
    b_u64(b, 0x70 + rec);
    b_u64(b, rec);
    b_u64(b, ~rec);
    b_u64(b, 0x0e + rec);
    b_str(b, kind);
    b_u32(b, cap);
    b_u32(b, len);
    b_raw(b, arg, n);
}
static void b_jobrec(buf *b, uint32_t owner, uint64_t rec, const char *kind, const char *arg)
{
    b_jobrec_raw(b, owner, rec, 1, kind, 8, (uint32_t)strlen(arg), arg, strlen(arg));
}

static buf H, B;   /* scratch header and body */

/* Decodes H + B and expects a rejection with `code`. */
static void reject(size_t max, int code, const char *what)
{
    satin_proto_error err;
    satin_msg *m = satin_msg_decode(H.b, H.n, B.b, B.n, max, &err);
    ok(m == NULL, "%s: rejected", what);
    is_i64(err.code, code, "%s: code %d (%s)", what, code, satin_proto_code_name(code));
    ok(err.text[0] != '\0', "%s: has a text", what);
    diag("%s -> %s", what, err.text);
    satin_msg_destroy(&m);
}

/* Decodes H + B and expects a rejection whose text is exactly `text`. */
static void reject_text(int code, const char *text, const char *what)
{
    satin_proto_error err;
    satin_msg *m = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
    ok(m == NULL && err.code == code, "%s: rejected with code %d", what, code);
    is_str(err.text, text, "%s: the text", what);
    satin_msg_destroy(&m);
}

static satin_msg *accept(size_t max, const char *what)
{
    satin_proto_error err;
    satin_msg *m = satin_msg_decode(H.b, H.n, B.b, B.n, max, &err);
    if (!ok(m != NULL, "%s: accepted", what))
        diag("rejected: code %d: %s", err.code, err.text);
    return m;
}

/* ---- round trips ---------------------------------------------------------- */

static satin_msg *roundtrip(const satin_msg *m, const char *what)
{
    unsigned char *h = NULL, *b = NULL, *h2 = NULL, *b2 = NULL;
    size_t hl = 0, bl = 0, hl2 = 0, bl2 = 0;
    satin_proto_error err;
    int rc = satin_msg_encode(m, &h, &hl, &b, &bl);
    ok(rc == 0 && h && b && hl == SATIN_PROTO_HEADER_SIZE, "%s: encodes (%zu body bytes)",
       what, bl);
    if (rc < 0) {
        satin_msg_check(m, &err);
        diag("encode failed: %s", err.text);
        return NULL;
    }
    satin_msg *d = satin_msg_decode(h, hl, b, bl, 4u << 20, &err);
    if (!ok(d != NULL, "%s: decodes", what))
        diag("code %d: %s", err.code, err.text);
    if (d) {
        ok(err.code == 0 && d->type == m->type && d->version == SATIN_PROTO_VERSION &&
           d->sender == m->sender && d->request_id == m->request_id,
           "%s: header fields", what);
        rc = satin_msg_encode(d, &h2, &hl2, &b2, &bl2);
        ok(rc == 0 && hl2 == hl && bl2 == bl && memcmp(h, h2, hl) == 0 &&
           memcmp(b, b2, bl) == 0, "%s: re-encodes to the same bytes", what);
    }
    free(h);
    free(b);
    free(h2);
    free(b2);
    return d;
}

static int same_kvlist(const satin_kvlist *got, const satin_kvlist *want)
{
    if (got->n != want->n)
        return 0;
    for (size_t i = 0; i < got->n; i++) {
        const satin_kv *g = &got->items[i], *w = &want->items[i];
        if (strcmp(g->name, w->name) != 0 || g->type != w->type)
            return 0;
        if (g->type == SATIN_KV_I64 && g->i64 != w->i64)
            return 0;
        if (g->type == SATIN_KV_F64 && memcmp(&g->f64, &w->f64, sizeof g->f64) != 0)
            return 0;
        if (g->type == SATIN_KV_STR && strcmp(g->str, w->str) != 0)
            return 0;
    }
    return 1;
}

static int same_jobrec(const satin_msg_jobrec *g, const satin_msg_jobrec *w)
{
    return g->owner == w->owner && g->record_id == w->record_id && g->job_id == w->job_id &&
           g->place == w->place && g->ancestry[0] == w->ancestry[0] &&
           g->ancestry[1] == w->ancestry[1] && strcmp(g->kind, w->kind) == 0 && g->result_cap == w->result_cap &&
           g->arg_len == w->arg_len && g->arg != NULL &&
           (w->arg_len == 0 || memcmp(g->arg, w->arg, w->arg_len) == 0);
}

static int same_jobrecs(const satin_msg *d, const satin_msg *m)
{
    if (d->njobrecs != m->njobrecs)
        return 0;
    for (size_t i = 0; i < d->njobrecs; i++)
        if (!same_jobrec(&d->jobrecs[i], &m->jobrecs[i])) {
            diag("jobs[%zu] differs", i);
            return 0;
        }
    return 1;
}

static char name63[64], name64[65];

static void fill_stats(satin_kvlist *l)
{
    satin_kvlist_add_i64(l, "jobs_run", INT64_MAX);
    satin_kvlist_add_i64(l, "steals", -1);
    satin_kvlist_add_f64(l, "wall_s", -0.0);
    satin_kvlist_add_str(l, "node", "a0 \xc3\xa9");
    satin_kvlist_add_str(l, name63, "");
}

static void test_names(void)
{
    static const char *const names[] = {
        "HELLO", "STEAL", "STEAL_REPLY", "PUSH", "PUSH_ACK", "JOB_RESULT", "LOAD",
        "STEAL_CANCEL", "JOB_CANCEL", "STATS_REQUEST", "STATS_REPLY", "HEARTBEAT", "ORPHAN",
        "JOBS_REQUEST", "JOBS_REPLY", "VALUES",
    };
    for (int t = SATIN_MSG_HELLO; t <= SATIN_MSG_VALUES; t++)
        is_str(satin_msg_type_name(t), names[t - SATIN_MSG_HELLO], "type %d is %s", t,
               names[t - SATIN_MSG_HELLO]);
    is_i64(SATIN_MSG_HELLO, 32, "HELLO is 32");
    is_i64(SATIN_MSG_STATS_REPLY, 42, "STATS_REPLY is 42");
    is_i64(SATIN_MSG_HEARTBEAT, 43, "HEARTBEAT is 43");
    is_i64(SATIN_MSG_ORPHAN, 44, "ORPHAN is 44");
    is_i64(SATIN_MSG_JOBS_REQUEST, 45, "JOBS_REQUEST is 45");
    is_i64(SATIN_MSG_JOBS_REPLY, 46, "JOBS_REPLY is 46");
    is_i64(SATIN_MSG_VALUES, 47, "VALUES is 47");
    is_str(satin_msg_type_name(48), "UNKNOWN", "type 48 unknown");
    is_str(satin_msg_type_name(63), "UNKNOWN", "type 63 unknown");

    int peers = 0, requests = 0, all_new = 1, none_new = 1;
    for (int t = -1; t < 300; t++) {
        peers += satin_msg_is_peer(t);
        requests += satin_msg_is_request(t);
        if (satin_msg_is_request(t) && satin_msg_is_peer(t))
            requests = 1000;
    }
    is_i64(peers, 16, "sixteen peer types");
    ok(satin_msg_is_peer(32) && satin_msg_is_peer(47) && !satin_msg_is_peer(31) &&
       !satin_msg_is_peer(48) && !satin_msg_is_peer(SATIN_MSG_SUBMIT), "peer range is 32..47");
    is_i64(requests, 7, "still seven client request types, none of them a peer type");
    for (int t = SATIN_MSG_HELLO; t <= SATIN_MSG_VALUES; t++) {
        satin_msg *m = satin_msg_new(t);
        all_new &= m != NULL && m->type == t;
        satin_msg_destroy(&m);
    }
    for (int t = 48; t <= 64; t++) {
        satin_msg *m = satin_msg_new(t);
        none_new &= m == NULL;
        satin_msg_destroy(&m);
    }
    ok(all_new, "every peer type can be made");
    ok(none_new, "no message of types 48..64");
}

/* ---- the examples of PROTOCOL.md, byte for byte ----------------------------- */

static void test_golden(void)
{
    unsigned char *h, *b;
    size_t hl, bl;

    static const unsigned char steal_h[16] = {0x53, 0x54, 3, 33, 0, 0, 0, 3,
                                              0, 0, 0, 0, 0, 0, 0, 5};
    static const unsigned char steal_b[] = {0, 0, 0, 3, 0, 0, 0, 3, 0, 1};
    satin_msg *m = satin_msg_new(SATIN_MSG_STEAL);
    m->sender = 3;
    m->request_id = 5;
    m->thief = 3;
    m->flags = SATIN_STEAL_SYNC | SATIN_STEAL_WAN;
    m->max_jobs = 1;
    ok(satin_msg_encode(m, &h, &hl, &b, &bl) == 0, "golden STEAL encodes");
    ok(hl == 16 && memcmp(h, steal_h, 16) == 0, "golden STEAL header bytes");
    ok(bl == sizeof steal_b && memcmp(b, steal_b, bl) == 0, "golden STEAL body bytes");
    free(h);
    free(b);
    satin_msg_destroy(&m);

    static const unsigned char reply_b[] = {
        0, 0, 0, 1,                       /* victim 1 */
        0, 0, 0, 3,                       /* flags: echo */
        0, 1,                             /* njobs */
        0, 0, 0, 1,                       /* owner 1 */
        0, 0, 0, 0, 0, 0, 0, 0x10,        /* record id */
        0, 0, 0, 0, 0, 0, 0, 7,           /* job id */
        0x0f, 0xed, 0xcb, 0xa9, 0x87, 0x65, 0x43, 0x21,   /* place */
        0, 0, 0, 0, 0, 0, 0, 0x11,        /* ancestry, first word */
        0x80, 0, 0, 0, 0, 0, 0, 0,        /* ancestry, second word */
        0, 0, 0, 0, 0, 0, 0x0a, 0x0b,     /* origin */
        0, 3, 'f', 'i', 'b',              /* kind */
        0, 0, 0, 8,                       /* result_cap */
        0, 0, 0, 8, 0x1c, 0, 0, 0, 0, 0, 0, 0,   /* arg: 8 opaque bytes */
    };
    m = satin_msg_new(SATIN_MSG_STEAL_REPLY);
    m->sender = 1;
    m->request_id = 5;
    m->victim = 1;
    m->flags = 3;
    ok(satin_msg_add_jobrec(m, 1, 0x10, 7, "fib", 8, "\x1c\0\0\0\0\0\0\0", 8) == 0,
       "golden STEAL_REPLY: add the record");
    m->jobrecs[0].place = 0x0fedcba987654321ULL;
    m->jobrecs[0].ancestry[0] = 0x11;
    m->jobrecs[0].ancestry[1] = 0x8000000000000000ULL;
    m->jobrecs[0].origin = 0x0a0b;
    ok(satin_msg_encode(m, &h, &hl, &b, &bl) == 0, "golden STEAL_REPLY encodes");
    ok(h[3] == 34 && h[7] == 1 && h[15] == 5, "golden STEAL_REPLY header: type, sender, id");
    ok(bl == sizeof reply_b && memcmp(b, reply_b, bl) == 0, "golden STEAL_REPLY body bytes");
    free(h);
    free(b);
    satin_msg_destroy(&m);

    static const unsigned char result_b[] = {
        0, 0, 0, 1,                       /* owner 1 */
        0, 0, 0, 0, 0, 0, 0, 0x10,        /* record id */
        0,                                /* status ok */
        0, 0,                             /* error "" */
        0, 0, 0, 8, 0x15, 0x01, 0, 0, 0, 0, 0, 0,   /* result: 8 bytes */
        0, 1,                             /* stats: 1 item */
        0, 4, 'r', 'u', 'n', 's', 1, 0, 0, 0, 0, 0, 0, 0x03, 0xa1,  /* runs = 929 */
    };
    m = satin_msg_new(SATIN_MSG_JOB_RESULT);
    m->sender = 2;
    m->owner = 1;
    m->record_id = 0x10;
    satin_msg_set_data(m, "\x15\x01\0\0\0\0\0\0", 8);
    satin_kvlist_add_i64(&m->stats, "runs", 929);
    ok(satin_msg_encode(m, &h, &hl, &b, &bl) == 0, "golden JOB_RESULT encodes");
    ok(bl == sizeof result_b && memcmp(b, result_b, bl) == 0, "golden JOB_RESULT body bytes");
    free(h);
    free(b);
    satin_msg_destroy(&m);
}

static satin_msg *reply_with(size_t njobs)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_STEAL_REPLY);
    m->sender = 9;
    m->request_id = 1234;
    m->victim = 9;
    m->flags = SATIN_STEAL_FORWARDED | SATIN_STEAL_SYNC;
    for (size_t i = 0; i < njobs; i++) {
        unsigned char arg[40];
        for (size_t k = 0; k < sizeof arg; k++)
            arg[k] = (unsigned char)(i * 31 + k);   /* NUL and high bytes included */
        char kind[16];
        snprintf(kind, sizeof kind, "k%zu", i % 7);
        satin_msg_add_jobrec(m, (uint32_t)(i % 3 == 0 ? 65535 : i), UINT64_MAX - i, i,
                             i == 1 ? name63 : kind, (uint32_t)(i * 8), arg, i % 5 == 2 ? 0 : i % 41);
    }
    return m;
}

static void test_roundtrip(void)
{
    satin_msg *m, *d;

    m = satin_msg_new(SATIN_MSG_HELLO);
    m->sender = 65535;
    m->request_id = UINT64_MAX;
    satin_msg_set_grid_name(m, name63);
    m->node_count = SATIN_PROTO_MAX_NODES;
    satin_msg_set_node_id(m, name63);
    for (size_t i = 0; i < sizeof m->digest; i++)
        m->digest[i] = (unsigned char)(255 - i);
    d = roundtrip(m, "HELLO 65536 nodes");
    ok(d && strcmp(d->grid_name, name63) == 0 && d->node_count == 65536 && d->flags == 0,
       "HELLO fields");
    ok(d && strcmp(d->node_id, name63) == 0 && memcmp(d->digest, m->digest, sizeof d->digest) == 0,
       "HELLO node id and membership digest");
    satin_msg_destroy(&d);
    satin_msg_set_grid_name(m, "das \xe2\x80\x93 4 clusters");
    m->node_count = 1;
    m->flags = 0xFFFF;   /* reserved bits travel unchanged */
    d = roundtrip(m, "HELLO one node, all flag bits");
    ok(d && strcmp(d->grid_name, "das \xe2\x80\x93 4 clusters") == 0 && d->node_count == 1 &&
       d->flags == 0xFFFF, "HELLO fields, reserved flags kept");
    ok(d && d->nmodules == 0, "HELLO without modules");
    satin_msg_destroy(&d);
    /* Its modules: names, versions, digests and tasks, in order. */
    unsigned char mdig[SATIN_PROTO_DIGEST_SIZE];
    for (size_t i = 0; i < sizeof mdig; i++)
        mdig[i] = (unsigned char)(i * 7);
    ok(satin_msg_add_module_task(m, "orphan") == -1, "a task needs a module first");
    ok(satin_msg_add_module(m, "satin-kinds", "0.1.0", mdig) == 0, "HELLO: a module");
    satin_msg_add_module_task(m, "fib");
    satin_msg_add_module_task(m, name63);
    mdig[0] = 0xAA;
    ok(satin_msg_add_module(m, name63, "", mdig) == 0, "HELLO: a module without tasks or version");
    d = roundtrip(m, "HELLO with two modules");
    ok(d && d->nmodules == 2 && strcmp(d->modules[0].name, "satin-kinds") == 0 &&
           strcmp(d->modules[0].version, "0.1.0") == 0 && d->modules[0].ntasks == 2 &&
           strcmp(d->modules[0].tasks[0], "fib") == 0 &&
           strcmp(d->modules[0].tasks[1], name63) == 0 && d->modules[0].digest[0] == 0 &&
           d->modules[0].digest[31] == (unsigned char)(31 * 7),
       "HELLO: the first module, its version, digest and tasks");
    ok(d && strcmp(d->modules[1].name, name63) == 0 && d->modules[1].version[0] == 0 &&
           d->modules[1].ntasks == 0 && d->modules[1].digest[0] == 0xAA,
       "HELLO: the second module");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_STEAL);
    m->sender = 4;
    m->request_id = 77;
    m->thief = 65535;
    m->flags = 0xFFFFFFFFu;
    m->max_jobs = SATIN_PROTO_MAX_JOBS;
    d = roundtrip(m, "STEAL max");
    ok(d && d->thief == 65535 && d->flags == 0xFFFFFFFFu && d->max_jobs == 1024,
       "STEAL fields (forwarded, all flags, 1024 jobs)");
    satin_msg_destroy(&d);
    m->thief = 0;
    m->flags = 0;
    m->max_jobs = 1;
    d = roundtrip(m, "STEAL min");
    ok(d && d->thief == 0 && d->flags == 0 && d->max_jobs == 1, "STEAL fields (min)");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    m = reply_with(0);
    d = roundtrip(m, "STEAL_REPLY 0 jobs");
    ok(d && d->victim == 9 && d->flags == (SATIN_STEAL_FORWARDED | SATIN_STEAL_SYNC) &&
       d->njobrecs == 0 && d->jobrecs == NULL, "STEAL_REPLY 0 jobs: fields");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    m = reply_with(3);
    d = roundtrip(m, "STEAL_REPLY 3 jobs");
    ok(d && same_jobrecs(d, m), "STEAL_REPLY 3 jobs: records equal, in order");
    ok(d && d->njobrecs == 3 && d->jobrecs[2].arg_len == 0 && d->jobrecs[2].arg != NULL,
       "STEAL_REPLY: an empty arg decodes as 0 bytes, non-NULL");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    m = reply_with(SATIN_PROTO_MAX_JOBS);
    ok(satin_msg_add_jobrec(m, 0, 0, 0, "x", 0, NULL, 0) == -1, "the 1025th record is refused");
    d = roundtrip(m, "STEAL_REPLY 1024 jobs");
    ok(d && d->njobrecs == 1024 && same_jobrecs(d, m), "STEAL_REPLY 1024 jobs: records equal");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_PUSH);
    m->sender = 12;
    size_t big = 200000;
    unsigned char *arg = malloc(big);
    for (size_t k = 0; k < big; k++)
        arg[k] = (unsigned char)(k * 7);
    ok(satin_msg_add_jobrec(m, 12, 0xDEADBEEFCAFEull, 42, "uts", 4u << 20, arg, big) == 0,
       "PUSH: add its record");
    ok(satin_msg_add_jobrec(m, 12, 1, 42, "uts", 0, NULL, 0) == -1, "PUSH: a second is refused");
    ok(satin_msg_add_jobrec(m, 12, 1, 42, "uts", 0, NULL, 3) == -1, "NULL arg with a length refused");
    d = roundtrip(m, "PUSH 200 kB arg");
    ok(d && same_jobrecs(d, m), "PUSH: the record, arg byte for byte");
    satin_msg_destroy(&d);
    free(arg);
    satin_msg_destroy(&m);
    m = satin_msg_new(SATIN_MSG_PUSH);
    satin_msg_add_jobrec(m, 0, 0, 0, "fib", 0, NULL, 0);
    d = roundtrip(m, "PUSH empty arg");
    ok(d && same_jobrecs(d, m) && d->jobrecs[0].arg_len == 0, "PUSH empty arg: fields");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_PUSH_ACK);
    m->record_id = UINT64_MAX;
    d = roundtrip(m, "PUSH_ACK");
    ok(d && d->record_id == UINT64_MAX, "PUSH_ACK record id");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_JOB_RESULT);
    m->sender = 100;
    m->request_id = 3;
    m->owner = 65535;
    m->record_id = 0x0123456789ABCDEFull;
    m->status = SATIN_STATUS_OK;
    ok(satin_msg_set_data(m, "\0\1\2\3\xff", 5) == 0, "JOB_RESULT: set data");
    ok(satin_msg_set_data(m, NULL, 2) == -1, "NULL data with a length refused");
    fill_stats(&m->stats);
    d = roundtrip(m, "JOB_RESULT ok");
    ok(d && d->owner == 65535 && d->record_id == 0x0123456789ABCDEFull &&
       d->status == SATIN_STATUS_OK && strcmp(d->error, "") == 0 && d->data_len == 5 &&
       memcmp(d->data, "\0\1\2\3\xff", 5) == 0 && same_kvlist(&d->stats, &m->stats),
       "JOB_RESULT ok: fields");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_JOB_RESULT);
    m->status = SATIN_STATUS_ERROR;
    satin_msg_set_error(m, "kind 'fib' is not registered here");
    d = roundtrip(m, "JOB_RESULT error, no data");
    ok(d && d->status == SATIN_STATUS_ERROR && strcmp(d->error, m->error) == 0 &&
       d->data_len == 0 && d->data != NULL && d->stats.n == 0, "JOB_RESULT error: fields");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_JOB_RESULT);
    m->owner = 3;
    m->record_id = 77;
    m->status = SATIN_STATUS_RETURNED;
    satin_msg_set_error(m, "node b0 is leaving");
    d = roundtrip(m, "JOB_RESULT returned");
    ok(d && d->status == SATIN_STATUS_RETURNED && d->owner == 3 && d->record_id == 77 &&
       strcmp(d->error, m->error) == 0 && d->data_len == 0,
       "JOB_RESULT returned (status 2): fields");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    int64_t loads[] = {0, 1, INT64_MAX};
    for (size_t i = 0; i < 3; i++) {
        m = satin_msg_new(SATIN_MSG_LOAD);
        m->load = loads[i];
        d = roundtrip(m, "LOAD");
        ok(d && d->load == loads[i], "LOAD %" PRId64, loads[i]);
        satin_msg_destroy(&d);
        satin_msg_destroy(&m);
    }

    m = satin_msg_new(SATIN_MSG_STEAL_CANCEL);
    m->request_id = 8;        /* the canceller's own sequence */
    m->steal_id = UINT64_MAX - 5;
    m->thief = 65534;
    d = roundtrip(m, "STEAL_CANCEL");
    ok(d && d->steal_id == UINT64_MAX - 5 && d->thief == 65534 && d->request_id == 8,
       "STEAL_CANCEL fields");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_JOB_CANCEL);
    m->owner = 2;
    d = roundtrip(m, "JOB_CANCEL no ids");
    ok(d && d->owner == 2 && d->nrecord_ids == 0 && d->record_ids == NULL, "JOB_CANCEL empty");
    satin_msg_destroy(&d);
    int added = 1;
    for (int i = 0; i < SATIN_PROTO_MAX_RECORD_IDS; i++)
        added &= satin_msg_add_record_id(m, (uint64_t)i * 0x9E3779B97F4A7C15ull) == 0;
    ok(added, "1024 record ids added");
    ok(satin_msg_add_record_id(m, 1) == -1, "the 1025th record id is refused");
    d = roundtrip(m, "JOB_CANCEL 1024 ids");
    ok(d && d->nrecord_ids == 1024 &&
       memcmp(d->record_ids, m->record_ids, 1024 * sizeof *m->record_ids) == 0,
       "JOB_CANCEL ids equal, in order");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    /* 0, 1, 2 (a node's status), and 4, 5: phases 0 and 1 with the profile bit */
    static const uint8_t phases[] = {0, 1, 2, 4, 5};
    for (size_t pi = 0; pi < sizeof phases; pi++) {
        uint8_t phase = phases[pi];
        m = satin_msg_new(SATIN_MSG_STATS_REQUEST);
        m->job_id = UINT64_MAX;
        m->phase = phase;
        d = roundtrip(m, "STATS_REQUEST");
        ok(d && d->job_id == UINT64_MAX && d->phase == phase, "STATS_REQUEST phase %u", phase);
        satin_msg_destroy(&d);
        satin_msg_destroy(&m);

        m = satin_msg_new(SATIN_MSG_STATS_REPLY);
        m->job_id = 6;
        m->phase = phase;
        if (phase)
            fill_stats(&m->stats);
        d = roundtrip(m, "STATS_REPLY");
        ok(d && d->job_id == 6 && d->phase == phase && same_kvlist(&d->stats, &m->stats),
           "STATS_REPLY phase %u, %zu counters", phase, m->stats.n);
        satin_msg_destroy(&d);
        satin_msg_destroy(&m);
    }

    /* an empty message of every peer type whose fields allow it; the
     * others are refused by the encoder (test_encoder_limits) */
    int empties[] = {SATIN_MSG_PUSH_ACK, SATIN_MSG_LOAD, SATIN_MSG_STEAL_CANCEL,
                     SATIN_MSG_JOB_CANCEL, SATIN_MSG_STATS_REQUEST, SATIN_MSG_STATS_REPLY,
                     SATIN_MSG_JOB_RESULT, SATIN_MSG_STEAL_REPLY};
    for (size_t i = 0; i < sizeof empties / sizeof empties[0]; i++) {
        m = satin_msg_new(empties[i]);
        d = roundtrip(m, satin_msg_type_name(empties[i]));
        satin_msg_destroy(&d);
        satin_msg_destroy(&m);
    }
}

/* ---- truncation at every offset ------------------------------------------- */

static void truncate_all(const satin_msg *m, const char *what)
{
    unsigned char *h, *b;
    size_t hl, bl;
    satin_proto_error err;
    if (!ok(satin_msg_encode(m, &h, &hl, &b, &bl) == 0, "%s: encodes", what))
        return;
    int clean = 1;
    for (size_t n = 0; n < bl; n++) {
        unsigned char *cut = malloc(n ? n : 1);   /* exact size: ASan sees overreads */
        memcpy(cut, b, n);
        satin_msg *d = satin_msg_decode(h, hl, cut, n, 0, &err);
        if (d || err.code != SATIN_PROTO_BAD_MESSAGE || strstr(err.text, "truncated") == NULL) {
            clean = 0;
            diag("%s cut at %zu: %s (code %d: %s)", what, n, d ? "accepted" : "rejected",
                 err.code, err.text);
        }
        satin_msg_destroy(&d);
        free(cut);
    }
    ok(clean, "%s: all %zu truncations rejected as truncated", what, bl);
    free(h);
    free(b);
}

static void test_truncation(void)
{
    satin_msg *m = reply_with(3);
    truncate_all(m, "STEAL_REPLY 3 jobs");
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_JOB_RESULT);
    m->owner = 1;
    m->status = SATIN_STATUS_ERROR;
    satin_msg_set_error(m, "boom");
    satin_msg_set_data(m, "abcdef", 6);
    fill_stats(&m->stats);
    truncate_all(m, "JOB_RESULT");
    satin_msg_destroy(&m);

    for (int t = SATIN_MSG_HELLO; t <= SATIN_MSG_STATS_REPLY; t++) {
        m = satin_msg_new(t);
        satin_msg_set_grid_name(m, "g");
        m->node_count = 2;
        satin_msg_set_node_id(m, "n");
        m->max_jobs = 2;
        satin_msg_add_jobrec(m, 1, 2, 3, "fib", 4, "xy", 2);
        satin_msg_add_record_id(m, 5);
        satin_kvlist_add_i64(&m->stats, "n", 1);
        truncate_all(m, satin_msg_type_name(t));
        satin_msg_destroy(&m);
    }
}

/* ---- lying lengths, limits, exact codes ----------------------------------- */

static void reply_start(unsigned njobs)
{
    b_header(&H, SATIN_MSG_STEAL_REPLY, 1, 5);
    B.n = 0;
    b_u32(&B, 1);
    b_u32(&B, 0);
    b_u16(&B, njobs);
}

static void test_rejections(void)
{
    satin_msg *d;
    satin_proto_error err;

    /* trailing bytes after every peer body */
    for (int t = SATIN_MSG_HELLO; t <= SATIN_MSG_STATS_REPLY; t++) {
        satin_msg *m = satin_msg_new(t);
        satin_msg_set_grid_name(m, "g");
        m->node_count = 1;
        satin_msg_set_node_id(m, "n");
        m->max_jobs = 1;
        satin_msg_add_jobrec(m, 0, 0, 0, "k", 0, NULL, 0);
        unsigned char *h, *b;
        size_t hl, bl;
        if (satin_msg_encode(m, &h, &hl, &b, &bl) < 0) {
            ok(0, "%s encodes", satin_msg_type_name(t));
            satin_msg_destroy(&m);
            continue;
        }
        memcpy(H.b, h, hl);
        H.n = hl;
        memcpy(B.b, b, bl);
        B.n = bl;
        B.b[B.n++] = 0;
        char what[48];
        snprintf(what, sizeof what, "%s + 1 trailing byte", satin_msg_type_name(t));
        reject(0, SATIN_PROTO_BAD_MESSAGE, what);
        d = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
        ok(strstr(err.text, "1 trailing byte") != NULL, "%s: the text says so", what);
        free(h);
        free(b);
        satin_msg_destroy(&m);
    }

    /* a well-formed STEAL_REPLY built by hand is accepted */
    reply_start(2);
    b_jobrec(&B, 1, 10, "fib", "abc");
    b_jobrec(&B, 2, 11, "uts", "");
    d = accept(0, "hand-made STEAL_REPLY");
    ok(d && d->njobrecs == 2 && d->jobrecs[0].arg_len == 3 &&
       memcmp(d->jobrecs[0].arg, "abc", 3) == 0 && d->jobrecs[1].owner == 2,
       "hand-made STEAL_REPLY: fields");
    satin_msg_destroy(&d);

    /* lying lengths in a JOBREC arg */
    reply_start(2);
    b_jobrec(&B, 1, 10, "fib", "abc");
    b_jobrec_raw(&B, 1, 11, 1, "fib", 8, 1000, "xyz", 3);
    reject_text(SATIN_PROTO_BAD_MESSAGE, "truncated STEAL_REPLY: jobs[1].arg needs 1000 bytes, 3 left",
                "arg length 1000, 3 bytes follow");
    reply_start(1);
    b_jobrec_raw(&B, 1, 11, 1, "fib", 8, 0xFFFFFFFFu, "xyz", 3);
    reject_text(SATIN_PROTO_BAD_MESSAGE,
                "truncated STEAL_REPLY: jobs[0].arg needs 4294967295 bytes, 3 left",
                "arg length 2^32-1");
    reply_start(1);
    b_jobrec_raw(&B, 1, 11, 1, "fib", 8, 0, "", 0);
    B.n -= 2;   /* the arg length itself cut in half */
    reject_text(SATIN_PROTO_BAD_MESSAGE,
                "truncated STEAL_REPLY: jobs[0].arg length needs 4 bytes, 2 left",
                "arg length cut in half");
    /* an arg length that is too short leaves the rest as trailing bytes or
     * misreads the next record: either way rejected */
    reply_start(2);
    b_jobrec_raw(&B, 1, 11, 1, "fib", 8, 1, "xyz", 3);
    b_jobrec(&B, 1, 12, "fib", "");
    reject(0, SATIN_PROTO_BAD_MESSAGE, "arg length 1, 3 bytes of arg");
    b_header(&H, SATIN_MSG_PUSH, 1, 5);
    B.n = 0;
    b_jobrec_raw(&B, 1, 11, 1, "fib", 8, 5, "xyz", 3);
    reject_text(SATIN_PROTO_BAD_MESSAGE, "truncated PUSH: job.arg needs 5 bytes, 3 left",
                "PUSH arg length 5, 3 follow");
    B.n = 0;
    reject(0, SATIN_PROTO_BAD_MESSAGE, "PUSH with an empty body");

    /* lying njobs */
    reply_start(5);
    b_jobrec(&B, 1, 10, "fib", "abc");
    reject_text(SATIN_PROTO_BAD_MESSAGE,
                "truncated STEAL_REPLY: njobs 5 needs at least 315 bytes, 68 left",
                "njobs 5, one record follows");
    reply_start(1000);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "njobs 1000, nothing follows");
    reply_start(3);   /* three minimal records' worth of bytes, but only two records */
    b_jobrec(&B, 1, 10, "a", "");
    b_jobrec(&B, 1, 11, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "");
    reject(0, SATIN_PROTO_BAD_MESSAGE, "njobs 3, the bytes of two long records");
    reply_start(1);
    b_jobrec(&B, 1, 10, "fib", "");
    b_jobrec(&B, 1, 11, "fib", "");
    reject(0, SATIN_PROTO_BAD_MESSAGE, "njobs 1, two records follow");

    /* too many jobs: 1025 real records is the limit, not a truncation */
    reply_start(SATIN_PROTO_MAX_JOBS + 1);
    for (int i = 0; i <= SATIN_PROTO_MAX_JOBS; i++)
        b_jobrec(&B, 1, (uint64_t)i, "fib", "");
    reject(0, SATIN_PROTO_TOO_LARGE, "1025 jobs");
    d = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
    is_str(err.text, "STEAL_REPLY: njobs is 1025, at most 1024", "1025 jobs: the text");
    reply_start(SATIN_PROTO_MAX_JOBS);
    for (int i = 0; i < SATIN_PROTO_MAX_JOBS; i++)
        b_jobrec(&B, 1, (uint64_t)i, "fib", "");
    d = accept(0, "1024 jobs");
    satin_msg_destroy(&d);

    /* JOBREC fields */
    const char *bad_kinds[] = {"", name64};
    for (size_t i = 0; i < 2; i++) {
        reply_start(1);
        b_jobrec(&B, 1, 10, bad_kinds[i], "abc");   /* the arg keeps njobs plausible */
        reject(0, SATIN_PROTO_BAD_MESSAGE, i ? "64-byte kind" : "empty kind");
        d = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
        ok(strstr(err.text, "jobs[0].kind is ") != NULL, "%s: the kind is named",
           i ? "64-byte kind" : "empty kind");
    }
    reply_start(1);
    b_u32(&B, 1); b_u64(&B, 1); b_u64(&B, 1);
    b_rawstr(&B, 3, "f\0b", 3);
    b_u32(&B, 0); b_u32(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "NUL in a kind");
    reply_start(1);
    b_jobrec(&B, 1, 10, "f\xc0\xaf", "");
    reject(0, SATIN_PROTO_BAD_MESSAGE, "overlong UTF-8 in a kind");
    reply_start(1);
    b_jobrec(&B, 65536, 10, "fib", "");
    reject_text(SATIN_PROTO_BAD_MESSAGE,
                "STEAL_REPLY: jobs[0].owner 65536 is not a node index (0..65535)",
                "record owner 65536");
    reply_start(1);
    b_jobrec(&B, 65535, 10, "fib", "");
    d = accept(0, "record owner 65535");
    satin_msg_destroy(&d);

    /* result_cap against the one limit the decoder knows */
    reply_start(1);
    b_jobrec_raw(&B, 1, 10, 1, "fib", 4096, 0, "", 0);
    d = accept(4096, "result_cap == max_size");
    satin_msg_destroy(&d);
    reject(4095, SATIN_PROTO_TOO_LARGE, "result_cap one above max_size");
    b_header(&H, SATIN_MSG_PUSH, 1, 5);
    B.n = 0;
    b_jobrec_raw(&B, 1, 10, 1, "fib", (1u << 20) + 1, 0, "", 0);
    reject(0, SATIN_PROTO_TOO_LARGE, "result_cap above the default 1 MiB");
    d = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
    is_str(err.text, "PUSH: job.result_cap 1048577 is above the limit 1048576",
           "result_cap: the text");

    /* the whole message against max_size */
    {
        satin_msg *m = satin_msg_new(SATIN_MSG_STEAL_REPLY);
        unsigned char *arg = calloc(1, 300000);
        for (int i = 0; i < 4; i++)
            satin_msg_add_jobrec(m, 0, (uint64_t)i, 1, "uts", 0, arg, 300000);
        free(arg);
        unsigned char *h, *b;
        size_t hl, bl;
        ok(satin_msg_encode(m, &h, &hl, &b, &bl) == 0 && bl > (1u << 20),
           "a 1.2 MB STEAL_REPLY of 4 records encodes");
        d = satin_msg_decode(h, hl, b, bl, 0, &err);
        ok(d == NULL && err.code == SATIN_PROTO_TOO_LARGE, "default max_size refuses it (code 4)");
        d = satin_msg_decode(h, hl, b, bl, 4 * 300100, &err);
        ok(d != NULL && d->njobrecs == 4, "max_jobs x record limit takes it");
        satin_msg_destroy(&d);
        d = satin_msg_decode(h, hl, b, bl, hl + bl - 1, &err);
        ok(d == NULL && err.code == SATIN_PROTO_TOO_LARGE, "one byte less does not");
        free(h);
        free(b);
        satin_msg_destroy(&m);
    }

    /* node indexes: header sender and body fields */
    b_header(&H, SATIN_MSG_LOAD, 65536, 1);
    B.n = 0;
    b_u64(&B, 3);
    reject_text(SATIN_PROTO_BAD_MESSAGE, "LOAD: sender 65536 is not a node index (0..65535)",
                "peer sender 65536");
    d = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
    ok(err.have_header && err.sender == 65536 && err.type == SATIN_MSG_LOAD,
       "peer sender 65536: header reported");
    b_header(&H, SATIN_MSG_LOAD, 65535, 1);
    d = accept(0, "peer sender 65535");
    satin_msg_destroy(&d);
    b_header(&H, SATIN_MSG_ACCEPTED, 0xFFFFFFFFu, 1);
    d = accept(0, "client messages keep the full u32 sender");
    satin_msg_destroy(&d);

    b_header(&H, SATIN_MSG_STEAL, 3, 1);
    B.n = 0;
    b_u32(&B, 70000); b_u32(&B, 0); b_u16(&B, 1);
    reject_text(SATIN_PROTO_BAD_MESSAGE, "STEAL: thief 70000 is not a node index (0..65535)",
                "thief 70000");
    B.n = 0;
    b_u32(&B, 3); b_u32(&B, 0); b_u16(&B, 0);
    reject_text(SATIN_PROTO_BAD_MESSAGE, "STEAL: max_jobs 0 is not in 1..1024", "max_jobs 0");
    B.n = 0;
    b_u32(&B, 3); b_u32(&B, 0); b_u16(&B, 1025);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "max_jobs 1025");
    B.n = 0;
    b_u32(&B, 3); b_u32(&B, 0); b_u16(&B, 1024);
    d = accept(0, "max_jobs 1024");
    satin_msg_destroy(&d);
    reply_start(0);
    B.b[0] = 0xFF;   /* victim 0xFF000001 */
    reject(0, SATIN_PROTO_BAD_MESSAGE, "victim above 65535");

    /* HELLO */
    static const unsigned char dig[SATIN_PROTO_DIGEST_SIZE] = {
        0x9f, 0x86, 0xd0, 0x81, 0x88, 0x4c, 0x7d, 0x65, 0x9a, 0x2f, 0xea,
        0xa0, 0xc5, 0x5a, 0xd0, 0x15, 0xa3, 0xbf, 0x4f, 0x1b, 0x2b, 0x0b,
        0x82, 0x2c, 0xd1, 0x5d, 0x6c, 0x15, 0xb0, 0xf0, 0x0a, 0x08};
    b_header(&H, SATIN_MSG_HELLO, 0, 0);
    B.n = 0;
    b_str(&B, ""); b_u32(&B, 2); b_u16(&B, 0); b_str(&B, "a0"); b_raw(&B, dig, sizeof dig); b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "HELLO empty grid name");
    B.n = 0;
    b_str(&B, name64); b_u32(&B, 2); b_u16(&B, 0); b_str(&B, "a0"); b_raw(&B, dig, sizeof dig); b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "HELLO 64-byte grid name");
    B.n = 0;
    b_str(&B, "g"); b_u32(&B, 0); b_u16(&B, 0); b_str(&B, "a0"); b_raw(&B, dig, sizeof dig); b_u16(&B, 0);
    reject_text(SATIN_PROTO_BAD_MESSAGE, "HELLO: node count 0 is not in 1..65536",
                "HELLO node count 0");
    B.n = 0;
    b_str(&B, "g"); b_u32(&B, 65537); b_u16(&B, 0); b_str(&B, "a0"); b_raw(&B, dig, sizeof dig); b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "HELLO node count 65537");
    B.n = 0;
    b_str(&B, "g"); b_u32(&B, 65536); b_u16(&B, 0x8000); b_str(&B, "a0"); b_raw(&B, dig, sizeof dig); b_u16(&B, 0);
    d = accept(0, "HELLO reserved flag bit");
    ok(d && d->flags == 0x8000, "HELLO reserved flag bits are kept, not refused");
    ok(d && strcmp(d->node_id, "a0") == 0 && memcmp(d->digest, dig, sizeof dig) == 0,
       "HELLO node id and the 32 digest bytes, as sent");
    satin_msg_destroy(&d);
    /* Modules: a task's name is unique over all of them, a module's name
     * among them. */
    B.n = 0;
    b_str(&B, "g"); b_u32(&B, 4); b_u16(&B, 0); b_str(&B, "a0"); b_raw(&B, dig, sizeof dig);
    b_u16(&B, 2);
    b_str(&B, "m1"); b_str(&B, "1"); b_raw(&B, dig, sizeof dig); b_u16(&B, 1); b_str(&B, "fib");
    b_str(&B, "m2"); b_str(&B, "2"); b_raw(&B, dig, sizeof dig); b_u16(&B, 2); b_str(&B, "uts");
    b_str(&B, "fib");
    reject_text(SATIN_PROTO_BAD_MESSAGE, "HELLO: task 'fib' repeated (modules[0] and [1])",
                "HELLO: a task in two modules");
    B.n = 0;
    b_str(&B, "g"); b_u32(&B, 4); b_u16(&B, 0); b_str(&B, "a0"); b_raw(&B, dig, sizeof dig);
    b_u16(&B, 2);
    b_str(&B, "m1"); b_str(&B, "1"); b_raw(&B, dig, sizeof dig); b_u16(&B, 0);
    b_str(&B, "m1"); b_str(&B, "2"); b_raw(&B, dig, sizeof dig); b_u16(&B, 0);
    reject_text(SATIN_PROTO_BAD_MESSAGE, "HELLO: modules[1].name 'm1' repeated",
                "HELLO: a module named twice");
    B.n = 0;
    b_str(&B, "g"); b_u32(&B, 4); b_u16(&B, 0); b_str(&B, "a0"); b_raw(&B, dig, sizeof dig);
    b_u16(&B, 65);
    for (int i = 0; i < 65; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "m%d", i);
        b_str(&B, nm); b_str(&B, ""); b_raw(&B, dig, sizeof dig); b_u16(&B, 0);
    }
    reject(0, SATIN_PROTO_TOO_LARGE, "HELLO: 65 modules");
    B.n = 0;
    b_str(&B, "g"); b_u32(&B, 4); b_u16(&B, 0); b_str(&B, "a0"); b_raw(&B, dig, sizeof dig);
    b_u16(&B, 2);
    b_str(&B, "m1"); b_str(&B, ""); b_raw(&B, dig, sizeof dig); b_u16(&B, 600);
    for (int i = 0; i < 600; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "a%d", i);
        b_str(&B, nm);
    }
    b_str(&B, "m2"); b_str(&B, ""); b_raw(&B, dig, sizeof dig); b_u16(&B, 425);
    for (int i = 0; i < 425; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "b%d", i);
        b_str(&B, nm);
    }
    reject_text(SATIN_PROTO_TOO_LARGE, "HELLO: more than 1024 tasks in all modules",
                "HELLO: 1025 tasks in all");
    B.n = 0;
    b_str(&B, "g"); b_u32(&B, 4); b_u16(&B, 0); b_str(&B, "a0"); b_raw(&B, dig, sizeof dig);
    b_u16(&B, 1);
    b_str(&B, "m1"); b_str(&B, "1"); b_raw(&B, dig, sizeof dig); b_u16(&B, 1); b_str(&B, "");
    reject(0, SATIN_PROTO_BAD_MESSAGE, "HELLO: an empty task name");
    /* A HELLO of SGP/2 ends after the membership digest: in version 3 the
     * module count must follow. */
    B.n = 0;
    b_str(&B, "g"); b_u32(&B, 4); b_u16(&B, 0); b_str(&B, "a0"); b_raw(&B, dig, sizeof dig);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "HELLO without its module count");
    /* The previous release's HELLO stops after the flags: a text that says so. */
    B.n = 0;
    b_str(&B, "g"); b_u32(&B, 4); b_u16(&B, 0);
    reject_text(SATIN_PROTO_BAD_MESSAGE,
                "truncated HELLO: it ends before the node id and membership digest (a peer of an older release?)",
                "HELLO without node id and digest");
    B.n = 0;
    b_str(&B, "g"); b_u32(&B, 4); b_u16(&B, 0); b_str(&B, ""); b_raw(&B, dig, sizeof dig); b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "HELLO empty node id");
    B.n = 0;
    b_str(&B, "g"); b_u32(&B, 4); b_u16(&B, 0); b_str(&B, "a0"); b_raw(&B, dig, sizeof dig - 1);
    reject_text(SATIN_PROTO_BAD_MESSAGE,
                "truncated HELLO: membership digest needs 32 bytes, 31 left",
                "HELLO digest one byte short");

    /* JOB_RESULT */
    b_header(&H, SATIN_MSG_JOB_RESULT, 2, 0);
    B.n = 0;
    b_u32(&B, 1); b_u64(&B, 1); b_u8(&B, 3); b_str(&B, ""); b_u32(&B, 0); b_u16(&B, 0);
    reject_text(SATIN_PROTO_BAD_MESSAGE, "JOB_RESULT: status 3 is not 0, 1 or 2",
                "JOB_RESULT status 3");
    B.n = 0;
    b_u32(&B, 1); b_u64(&B, 1); b_u8(&B, 0); b_str(&B, ""); b_u32(&B, 10); b_raw(&B, "abc", 3);
    reject_text(SATIN_PROTO_BAD_MESSAGE, "truncated JOB_RESULT: result needs 10 bytes, 3 left",
                "JOB_RESULT result length 10, 3 follow");
    B.n = 0;
    b_u32(&B, 1); b_u64(&B, 1); b_u8(&B, 0); b_str(&B, "\xed\xa0\x80"); b_u32(&B, 0);
    b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "JOB_RESULT error with a surrogate");
    B.n = 0;
    b_u32(&B, 1); b_u64(&B, 1); b_u8(&B, 0); b_str(&B, ""); b_u32(&B, 0);
    b_u16(&B, 2);
    b_str(&B, "a"); b_u8(&B, 1); b_u64(&B, 1);
    b_str(&B, "a"); b_u8(&B, 1); b_u64(&B, 2);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "JOB_RESULT repeated stats name");

    /* LOAD */
    b_header(&H, SATIN_MSG_LOAD, 1, 0);
    B.n = 0;
    b_u64(&B, UINT64_MAX);
    reject_text(SATIN_PROTO_BAD_MESSAGE, "LOAD: load -1 is negative", "LOAD -1");
    B.n = 0;
    b_u64(&B, (uint64_t)1 << 63);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "LOAD INT64_MIN");

    /* STEAL_CANCEL */
    b_header(&H, SATIN_MSG_STEAL_CANCEL, 1, 0);
    B.n = 0;
    b_u64(&B, 5); b_u32(&B, 65536);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "STEAL_CANCEL thief 65536");

    /* JOB_CANCEL */
    b_header(&H, SATIN_MSG_JOB_CANCEL, 1, 0);
    B.n = 0;
    b_u32(&B, 1); b_u16(&B, SATIN_PROTO_MAX_RECORD_IDS + 1);
    for (int i = 0; i <= SATIN_PROTO_MAX_RECORD_IDS; i++)
        b_u64(&B, (uint64_t)i);
    reject(0, SATIN_PROTO_TOO_LARGE, "JOB_CANCEL 1025 ids");
    B.n = 0;
    b_u32(&B, 1); b_u16(&B, 3); b_u64(&B, 1); b_u64(&B, 2);
    reject_text(SATIN_PROTO_BAD_MESSAGE, "truncated JOB_CANCEL: n 3 needs at least 24 bytes, 16 left",
                "JOB_CANCEL n 3, two ids follow");
    B.n = 0;
    b_u32(&B, 1); b_u16(&B, 2); b_u64(&B, 7); b_u64(&B, 7);
    d = accept(0, "JOB_CANCEL repeated id (harmless, allowed)");
    satin_msg_destroy(&d);

    /* STATS */
    b_header(&H, SATIN_MSG_STATS_REQUEST, 1, 0);
    B.n = 0;
    b_u64(&B, 1); b_u8(&B, 3);
    reject_text(SATIN_PROTO_BAD_MESSAGE,
                "STATS_REQUEST: phase 3 is not 0, 1 or 2 (or 4, 5: 0, 1 with a profile)",
                "STATS_REQUEST phase 3");
    B.n = 0;
    b_u64(&B, 1); b_u8(&B, 6);
    reject_text(SATIN_PROTO_BAD_MESSAGE,
                "STATS_REQUEST: phase 6 is not 0, 1 or 2 (or 4, 5: 0, 1 with a profile)",
                "STATS_REQUEST phase 6 (a node's status with the profile bit)");
    B.n = 0;
    b_u64(&B, 9); b_u8(&B, 2);
    d = accept(0, "STATS_REQUEST phase 2 (a node's status)");
    ok(d && d->job_id == 9 && d->phase == SATIN_STATS_PHASE_NODE, "phase 2: query 9 read");
    satin_msg_destroy(&d);
    b_header(&H, SATIN_MSG_STATS_REPLY, 1, 0);
    B.n = 0;
    b_u64(&B, 1); b_u8(&B, 255); b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "STATS_REPLY phase 255");
    B.n = 0;
    b_u64(&B, 1); b_u8(&B, 1); b_u16(&B, SATIN_PROTO_MAX_KV + 1);
    reject(0, SATIN_PROTO_TOO_LARGE, "STATS_REPLY 1025 counters");

    /* unknown peer types: code 1, called unknown, header reported */
    int unknown_ok = 1;
    for (unsigned t = 48; t <= 63; t++) {
        b_header(&H, t, 1, 99);
        B.n = 0;
        d = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
        if (d || err.code != SATIN_PROTO_BAD_MESSAGE || !strstr(err.text, "unknown") ||
            !err.have_header || err.request_id != 99 || err.type != (int)t) {
            unknown_ok = 0;
            diag("type %u: %s", t, err.text);
        }
        satin_msg_destroy(&d);
    }
    ok(unknown_ok, "types 48..63: code 1, called unknown, header reported");

    /* JOBS_REQUEST: the asker's kind, its key's length, admin */
    b_header(&H, SATIN_MSG_JOBS_REQUEST, 1, 5);
    B.n = 0;
    b_u64(&B, 7); b_u32(&B, 1); b_u8(&B, 3); b_u32(&B, 0); b_str(&B, ""); b_u8(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "JOBS_REQUEST asker kind 3");
    B.n = 0;
    b_u64(&B, 7); b_u32(&B, 1); b_u8(&B, SATIN_ASKER_KEY); b_u32(&B, 0); b_str(&B, "short");
    b_u8(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "JOBS_REQUEST a key of 5 characters");
    B.n = 0;
    b_u64(&B, 7); b_u32(&B, 1); b_u8(&B, SATIN_ASKER_UID); b_u32(&B, 1000);
    b_str(&B, "rq2bLPvGRK39:xvE^+Q(P5xrIZ%b3Rr*c+Z9<9m0"); b_u8(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "JOBS_REQUEST a key with a uid asker");
    B.n = 0;
    b_u64(&B, 7); b_u32(&B, 1); b_u8(&B, SATIN_ASKER_UID); b_u32(&B, 1000); b_str(&B, "");
    b_u8(&B, 2);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "JOBS_REQUEST admin 2");
    B.n = 0;
    b_u64(&B, 7); b_u32(&B, 1); b_u8(&B, SATIN_ASKER_UID); b_u32(&B, 1000); b_str(&B, "");
    reject(0, SATIN_PROTO_BAD_MESSAGE, "JOBS_REQUEST without its admin byte");
    b_u8(&B, 1);
    d = accept(0, "JOBS_REQUEST of uid 1000, an admin");
    ok(d && d->job_id == 7 && d->flags == 1 && d->asker_kind == SATIN_ASKER_UID &&
           d->asker_uid == 1000 && d->asker_admin == 1 && d->asker_key && !d->asker_key[0],
       "JOBS_REQUEST: its fields");
    satin_msg_destroy(&d);
    b_u8(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "JOBS_REQUEST with a trailing byte");

    /* JOBS_REPLY: a count that lies, one past the limit */
    b_header(&H, SATIN_MSG_JOBS_REPLY, 1, 5);
    B.n = 0;
    b_u64(&B, 7); b_u16(&B, 3); b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "JOBS_REPLY: 3 jobs, 1 there");
    B.n = 0;
    b_u64(&B, 7); b_u16(&B, 1); b_u16(&B, 1); b_str(&B, "job"); b_u8(&B, 1);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "JOBS_REPLY: a job's value cut short");
    b_header(&H, 50, 1, 99);
    b_u64(&B, 1);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "peer type 50");
    d = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
    ok(strstr(err.text, "unknown message type 50") != NULL, "type 50: the text says unknown");
}

/* ---- what the encoder refuses --------------------------------------------- */

static void refuse(satin_msg *m, int code, const char *what)
{
    unsigned char *h = (unsigned char *)"x", *b = (unsigned char *)"x";
    size_t hl = 1, bl = 1;
    satin_proto_error err;
    ok(satin_msg_encode(m, &h, &hl, &b, &bl) == -1 && !h && !b && !hl && !bl,
       "encoder refuses %s", what);
    ok(satin_msg_check(m, &err) == -1, "check refuses %s", what);
    is_i64(err.code, code, "%s: code %d", what, code);
    diag("%s -> %s", what, err.text);
}

static void test_encoder_limits(void)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_HELLO);
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "HELLO without a grid name");
    satin_msg_set_grid_name(m, "g");
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "HELLO node count 0");
    m->node_count = 65537;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "HELLO node count 65537");
    m->node_count = 3;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "HELLO without a node id");
    satin_msg_set_node_id(m, "a0");
    m->flags = 0x10000;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "HELLO flags above a u16");
    m->flags = 0;
    m->sender = 65536;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "a peer sender of 65536");
    m->sender = 65535;
    ok(satin_msg_check(m, NULL) == 0, "a good HELLO passes");
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_STEAL);
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "STEAL max_jobs 0");
    m->max_jobs = 1025;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "STEAL max_jobs 1025");
    m->max_jobs = 1;
    m->thief = 65536;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "STEAL thief 65536");
    satin_msg_destroy(&m);

    m = reply_with(SATIN_PROTO_MAX_JOBS);
    /* bypass the setter's limit the way a careless caller could */
    m->jobrecs = realloc(m->jobrecs, (SATIN_PROTO_MAX_JOBS + 1) * sizeof *m->jobrecs);
    m->jobrecs[SATIN_PROTO_MAX_JOBS] = m->jobrecs[0];
    m->jobrecs[SATIN_PROTO_MAX_JOBS].kind = strdup("x");
    m->jobrecs[SATIN_PROTO_MAX_JOBS].arg = malloc(1);
    m->jobrecs[SATIN_PROTO_MAX_JOBS].arg_len = 0;
    m->njobrecs++;
    refuse(m, SATIN_PROTO_TOO_LARGE, "STEAL_REPLY 1025 jobs");
    satin_msg_destroy(&m);

    m = reply_with(2);
    m->jobrecs[1].owner = 65536;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "a record owner of 65536");
    m->jobrecs[1].owner = 1;
    free(m->jobrecs[1].kind);
    m->jobrecs[1].kind = strdup("");
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "a record with an empty kind");
    free(m->jobrecs[1].kind);
    m->jobrecs[1].kind = strdup(name64);
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "a record with a 64-byte kind");
    free(m->jobrecs[1].kind);
    m->jobrecs[1].kind = strdup("ok");
    free(m->jobrecs[1].arg);
    m->jobrecs[1].arg = NULL;
    m->jobrecs[1].arg_len = 4;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "a record with a NULL arg of 4 bytes");
    m->jobrecs[1].arg_len = 0;
    ok(satin_msg_check(m, NULL) == 0, "a NULL arg of 0 bytes is fine");
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_PUSH);
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "PUSH without a record");
    satin_msg_destroy(&m);
    m = reply_with(2);
    m->type = SATIN_MSG_PUSH;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "PUSH with two records");
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_JOB_RESULT);
    m->status = 3;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "JOB_RESULT status 3");
    m->status = 0;
    m->data_len = 3;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "JOB_RESULT NULL data of 3 bytes");
    m->data_len = 0;
    m->owner = 0xFFFFFFFFu;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "JOB_RESULT owner 2^32-1");
    m->owner = 0;
    satin_kvlist_add_i64(&m->stats, name64, 1);
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "JOB_RESULT a 64-byte stats name");
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_LOAD);
    m->load = -1;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "LOAD -1");
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_STEAL_CANCEL);
    m->thief = 65536;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "STEAL_CANCEL thief 65536");
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_JOB_CANCEL);
    m->record_ids = calloc(SATIN_PROTO_MAX_RECORD_IDS + 1, sizeof *m->record_ids);
    m->nrecord_ids = SATIN_PROTO_MAX_RECORD_IDS + 1;
    refuse(m, SATIN_PROTO_TOO_LARGE, "JOB_CANCEL 1025 ids");
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_STATS_REQUEST);
    m->phase = 3;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "STATS_REQUEST phase 3");
    m->phase = 6;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "STATS_REQUEST phase 6");
    m->type = SATIN_MSG_STATS_REPLY;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "STATS_REPLY phase 6");
    satin_msg_destroy(&m);
}

/* ---- garbage and mutations ------------------------------------------------ */

static unsigned random_peer_type(void)
{
    return (unsigned)(xorshift() % 16 ? SATIN_MSG_HELLO + xorshift() % 11   /* known */
                                      : 32 + xorshift() % 32);             /* any in range */
}

static void test_fuzz(void)
{
    kit_rng = 0xD1B54A32D192ED03u; /* this file's own fixed seed */
    static unsigned char h[32], b[4096];
    int accepted = 0, runs = 0;
    int per_type[64] = {0};

    /* random frames with mostly plausible peer headers */
    for (int i = 0; i < 6000; i++, runs++) {
        size_t hl = xorshift() % 16 == 0 ? xorshift() % 20 : 16;
        for (size_t k = 0; k < sizeof h; k++)
            h[k] = (unsigned char)xorshift();
        if (xorshift() % 8 != 0) {
            h[0] = 0x53;
            h[1] = 0x54;
            h[2] = xorshift() % 16 ? 1 : (unsigned char)xorshift();
            h[3] = (unsigned char)random_peer_type();
            if (xorshift() % 8)
                h[4] = h[5] = 0;   /* sender within 0..65535 */
        }
        size_t bl = xorshift() % (xorshift() % 2 ? 48 : sizeof b);
        for (size_t k = 0; k < bl; k++)
            b[k] = (unsigned char)(xorshift() % 3 ? xorshift() % 8 : xorshift());
        int a = fuzz_one(h, hl, b, bl);
        accepted += a;
        if (a)
            per_type[h[3] & 63]++;
    }

    /* mutations of valid messages of every peer type */
    satin_msg *seeds[16];
    size_t nseeds = 0;
    for (int t = SATIN_MSG_HELLO; t <= SATIN_MSG_STATS_REPLY; t++) {
        satin_msg *m = satin_msg_new(t);
        m->sender = 7;
        m->request_id = 0x0102030405060708u;
        satin_msg_set_grid_name(m, "grid");
        satin_msg_set_node_id(m, "n7");
        m->node_count = 16;
        m->thief = 3;
        m->victim = 4;
        m->owner = 5;
        m->max_jobs = 2;
        m->flags = 3;
        m->record_id = 99;
        m->steal_id = 98;
        m->load = 12;
        m->phase = 1;
        m->job_id = 6;
        satin_msg_set_error(m, "e");
        satin_msg_set_data(m, "data", 4);
        satin_msg_add_jobrec(m, 1, 2, 3, "fib", 8, "\0\0\0\x1e", 4);
        satin_msg_add_jobrec(m, 2, 3, 4, "uts", 16, "", 0);
        satin_msg_add_record_id(m, 10);
        satin_msg_add_record_id(m, 11);
        satin_kvlist_add_i64(&m->stats, "n", 1);
        satin_kvlist_add_str(&m->stats, "s", "x");
        seeds[nseeds++] = m;
    }
    seeds[nseeds++] = reply_with(3);
    for (size_t s = 0; s < nseeds; s++) {
        unsigned char *eh, *eb;
        size_t ehl, ebl;
        if (satin_msg_encode(seeds[s], &eh, &ehl, &eb, &ebl) < 0) {
            ok(0, "fuzz seed %zu encodes", s);
            satin_msg_destroy(&seeds[s]);
            continue;
        }
        for (int i = 0; i < 3000; i++, runs++) {
            size_t bl = ebl < sizeof b ? ebl : sizeof b;
            memcpy(b, eb, bl);
            memcpy(h, eh, 16);
            int flips = 1 + (int)(xorshift() % 4);
            for (int f = 0; f < flips && bl; f++) {
                size_t at = xorshift() % bl;
                switch (xorshift() % 5) {
                case 0: b[at] ^= (unsigned char)(1u << (xorshift() % 8)); break;
                case 1: b[at] = (unsigned char)xorshift(); break;
                case 2: b[at] = (unsigned char)(b[at] + 1); break;
                case 3: b[at] = (unsigned char)(b[at] - 1); break;
                default: bl = at; break;   /* cut */
                }
            }
            if (xorshift() % 16 == 0)
                h[3] = (unsigned char)random_peer_type();   /* body of another type */
            if (xorshift() % 32 == 0)
                h[4 + xorshift() % 4] ^= (unsigned char)(1u << (xorshift() % 8));   /* sender */
            int a = fuzz_one(h, 16, b, bl);
            accepted += a;
            if (a)
                per_type[h[3] & 63]++;
        }
        free(eh);
        free(eb);
        satin_msg_destroy(&seeds[s]);
    }
    ok(fuzz_bad == 0, "%d garbage/mutated peer frames: no crash, coherent answers (%d accepted)",
       runs, accepted);
    ok(accepted > 0 && accepted < runs, "the fuzzer reached both outcomes");
    int every = 1;
    for (int t = SATIN_MSG_HELLO; t <= SATIN_MSG_STATS_REPLY; t++) {
        every &= per_type[t] > 0;
        if (!per_type[t])
            diag("no %s accepted by the fuzzer", satin_msg_type_name(t));
    }
    ok(every, "the fuzzer got a message of every peer type accepted");
}

/* ORPHAN (44): every field both ways, byte for byte, and what a receiver
 * refuses: a status past 2, an empty or too long kind, a short body. */
static void test_orphan(void)
{
    static const unsigned char golden[] = {
        0x0f, 0xed, 0xcb, 0xa9, 0x87, 0x65, 0x43, 0x21,   /* place */
        0, 0, 0, 0, 0, 0, 0x12, 0x34,                     /* arg digest */
        0, 0, 0, 0, 0, 0, 0x56, 0x78,                     /* origin */
        0, 3, 'f', 'i', 'b',                              /* kind */
        1,                                                /* status: running */
        0, 0, 0, 0, 0, 0, 0, 42,                          /* jobs run */
        0, 0, 0, 2, 'o', 'k',                             /* result */
    };
    satin_msg *m = satin_msg_new(SATIN_MSG_ORPHAN);
    m->sender = 2;
    m->request_id = 9;
    m->place = 0x0fedcba987654321ULL;
    m->arg_digest = 0x1234;
    m->origin = 0x5678;
    m->status = SATIN_ORPHAN_RUNNING;
    m->jobs_run = 42;
    satin_msg_set_kind(m, "fib");
    satin_msg_set_data(m, "ok", 2);
    unsigned char *h, *b;
    size_t hl, bl;
    ok(satin_msg_encode(m, &h, &hl, &b, &bl) == 0 && h[3] == 44, "golden ORPHAN encodes");
    ok(bl == sizeof golden && memcmp(b, golden, bl) == 0, "golden ORPHAN body bytes");
    free(h);
    free(b);
    satin_msg_destroy(&m);

    for (int status = 0; status <= 2; status++) {
        m = satin_msg_new(SATIN_MSG_ORPHAN);
        m->sender = 65535;
        m->place = UINT64_MAX;
        m->arg_digest = UINT64_MAX - 1;
        m->origin = UINT64_MAX - 2;
        m->status = (uint8_t)status;
        m->jobs_run = UINT64_MAX;
        satin_msg_set_kind(m, status == 1 ? name63 : "uts");
        size_t len = status == 0 ? 100000 : 0;
        unsigned char *data = malloc(len + 1);
        for (size_t i = 0; i < len; i++)
            data[i] = (unsigned char)(i * 7);
        satin_msg_set_data(m, data, len);
        satin_msg *d = roundtrip(m, status == 0 ? "ORPHAN result" : status == 1 ? "ORPHAN running"
                                                                               : "ORPHAN gone");
        ok(d && d->place == m->place && d->arg_digest == m->arg_digest &&
               d->origin == m->origin && d->status == status &&
               d->jobs_run == UINT64_MAX && strcmp(d->kind, m->kind) == 0 &&
               d->data_len == len && d->data && (len == 0 || memcmp(d->data, data, len) == 0),
           "ORPHAN status %d: every field back", status);
        free(data);
        satin_msg_destroy(&d);
        satin_msg_destroy(&m);
    }

    m = satin_msg_new(SATIN_MSG_ORPHAN);
    satin_msg_set_kind(m, "fib");
    m->status = 3;
    ok(satin_msg_encode(m, &h, &hl, &b, &bl) < 0, "ORPHAN status 3 is not encoded");
    satin_msg_destroy(&m);

    b_header(&H, SATIN_MSG_ORPHAN, 2, 1);
    B.n = 0;
    b_u64(&B, 1);
    b_u64(&B, 2);
    b_u64(&B, 3);
    b_str(&B, "fib");
    b_u8(&B, 3);
    b_u64(&B, 0);
    b_u32(&B, 0);
    reject_text(SATIN_PROTO_BAD_MESSAGE, "ORPHAN: status 3 is not 0, 1 or 2", "ORPHAN status 3");
    B.n = 0;
    b_u64(&B, 1);
    b_u64(&B, 2);
    b_u64(&B, 3);
    b_str(&B, "");
    b_u8(&B, 0);
    b_u64(&B, 0);
    b_u32(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "ORPHAN with an empty kind");
    B.n = 0;
    b_u64(&B, 1);
    b_u64(&B, 2);
    b_u64(&B, 3);
    b_str(&B, name64);
    b_u8(&B, 0);
    b_u64(&B, 0);
    b_u32(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "ORPHAN with a 64-byte kind");
    B.n = 0;
    b_u64(&B, 1);
    b_u64(&B, 2);
    b_u64(&B, 3);
    b_str(&B, "fib");
    b_u8(&B, 0);
    b_u64(&B, 0);
    b_u32(&B, 5);
    b_raw(&B, "abc", 3);
    reject_text(SATIN_PROTO_BAD_MESSAGE, "truncated ORPHAN: result needs 5 bytes, 3 left",
                "ORPHAN result cut short");
    B.n = 0;
    b_u64(&B, 1);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "ORPHAN cut after the place");
}

/* Adds 10 to a node number; fails on 7 (a node the other file lacks). */
static int add_ten(void *ctx, uint32_t *node)
{
    int *calls = ctx;
    (*calls)++;
    if (*node == 7)
        return -1;
    *node += 10;
    return 0;
}

/* satin_msg_each_node: the node numbers each type carries, for a node
 * that renumbers them (a membership change, PROTOCOL.md 14.20). */
static void test_each_node(void)
{
    int calls = 0;
    satin_msg *m = satin_msg_new(SATIN_MSG_STEAL_REPLY);
    m->victim = 1;
    satin_msg_add_jobrec(m, 2, 11, 12, "fib", 64, "", 0);
    satin_msg_add_jobrec(m, 3, 21, 22, "fib", 64, "", 0);
    ok(satin_msg_each_node(m, add_ten, &calls) == 0 && calls == 3 && m->victim == 11 &&
           m->jobrecs[0].owner == 12 && m->jobrecs[1].owner == 13,
       "STEAL_REPLY: the victim and each record's owner");
    m->jobrecs[0].owner = 7;
    calls = 0;
    ok(satin_msg_each_node(m, add_ten, &calls) == -1 && calls == 2 && m->jobrecs[1].owner == 13,
       "a number that cannot be renumbered stops the walk");
    satin_msg_destroy(&m);
    uint32_t fields[][2] = {{SATIN_MSG_STEAL, 0}, {SATIN_MSG_STEAL_CANCEL, 0},
                            {SATIN_MSG_JOB_RESULT, 1}, {SATIN_MSG_JOB_CANCEL, 1}};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        m = satin_msg_new((int)fields[i][0]);
        m->thief = m->owner = 4;
        calls = 0;
        satin_msg_each_node(m, add_ten, &calls);
        ok(calls == 1 && (fields[i][1] ? m->owner == 14 && m->thief == 4
                                       : m->thief == 14 && m->owner == 4),
           "%s: its %s only", satin_msg_type_name(m->type), fields[i][1] ? "owner" : "thief");
        satin_msg_destroy(&m);
    }
    m = satin_msg_new(SATIN_MSG_HELLO);
    calls = 0;
    ok(satin_msg_each_node(m, add_ten, &calls) == 0 && calls == 0, "HELLO: none");
    satin_msg_destroy(&m);
}

/* Records' bytes without copies: borrowed on the way out (the encoding is
 * the same as with copies), borrowed on the way in (pointing into the body
 * that was decoded), owned again on demand, and whatever a message keeps
 * released with it. */
static int kept_released;
static void note_release(void *p)
{
    kept_released += *(int *)p;
}

static void test_borrowed(void)
{
    unsigned char arg[3000], res[700];
    for (size_t i = 0; i < sizeof arg; i++)
        arg[i] = (unsigned char)(i * 31 + 1);
    for (size_t i = 0; i < sizeof res; i++)
        res[i] = (unsigned char)(i * 7 + 3);
    satin_msg *copied = satin_msg_new(SATIN_MSG_STEAL_REPLY);
    satin_msg *lent = satin_msg_new(SATIN_MSG_STEAL_REPLY);
    satin_msg_add_jobrec(copied, 2, 9, 4, "array", 64, arg, sizeof arg);
    satin_msg_add_jobrec_ref(lent, 2, 9, 4, "array", 64, arg, sizeof arg);
    satin_msg_add_jobrec_ref(lent, 2, 10, 4, "array", 64, NULL, 0);
    satin_msg_add_jobrec(copied, 2, 10, 4, "array", 64, NULL, 0);
    ok(lent->jobrecs[0].arg == arg && lent->jobrecs[0].arg_borrowed,
       "add_jobrec_ref points at the caller's bytes");
    ok(copied->jobrecs[0].arg != arg && !copied->jobrecs[0].arg_borrowed,
       "add_jobrec copies them");
    unsigned char *h1, *b1, *h2, *b2;
    size_t hl1, bl1, hl2, bl2;
    ok(satin_msg_encode(copied, &h1, &hl1, &b1, &bl1) == 0 &&
           satin_msg_encode(lent, &h2, &hl2, &b2, &bl2) == 0 && hl1 == hl2 && bl1 == bl2 &&
           memcmp(h1, h2, hl1) == 0 && memcmp(b1, b2, bl1) == 0,
       "a borrowed record encodes to the same bytes as a copied one");
    size_t hs, bs;
    ok(satin_msg_encoded_size(lent, &hs, &bs) == 0 && hs == hl1 && bs == bl1,
       "encoded_size gives both frames' sizes");
    unsigned char *flat = malloc(hs + bs);
    ok(satin_msg_encode_to(lent, flat, hs, bs) == 0 && memcmp(flat, h1, hs) == 0 &&
           memcmp(flat + hs, b1, bs) == 0,
       "encode_to writes the header and right after it the body");
    ok(satin_msg_encode_to(lent, flat, hs, bs - 1) == -1,
       "encode_to refuses sizes the message does not have");

    satin_msg *in = satin_msg_decode_borrowed(h1, hl1, b1, bl1, 0, NULL);
    ok(in && in->njobrecs == 2 && in->jobrecs[0].arg_borrowed &&
           in->jobrecs[0].arg >= b1 && in->jobrecs[0].arg + sizeof arg <= b1 + bl1 &&
           in->jobrecs[0].arg_len == sizeof arg &&
           memcmp(in->jobrecs[0].arg, arg, sizeof arg) == 0 && in->jobrecs[1].arg_len == 0,
       "decode_borrowed: a record's argument points into the body, unchanged");
    int one = 1;
    ok(satin_msg_keep(in, note_release, &one) == 0, "keep ties a thing to the message");
    ok(satin_msg_keep(in, note_release, &one) == -1, "and refuses a second one");
    satin_msg_own_bytes(in);
    ok(in->jobrecs[0].arg < b1 || in->jobrecs[0].arg >= b1 + bl1,
       "own_bytes: the argument is the message's own copy now");
    memset(b1, 0, bl1);
    ok(memcmp(in->jobrecs[0].arg, arg, sizeof arg) == 0 && !in->jobrecs[0].arg_borrowed,
       "and reads the same after the body is overwritten");
    satin_msg_destroy(&in);
    is_i64(kept_released, 1, "destroy releases what the message kept, once");

    /* JOB_RESULT data. */
    satin_msg *r = satin_msg_new(SATIN_MSG_JOB_RESULT);
    satin_msg_set_data_ref(r, res, sizeof res);
    ok(r->data == res && r->data_borrowed, "set_data_ref points at the caller's result");
    unsigned char *h3, *b3;
    size_t hl3, bl3;
    satin_msg_encode(r, &h3, &hl3, &b3, &bl3);
    satin_msg_set_data(r, "x", 1);
    ok(r->data != res && !r->data_borrowed && r->data_len == 1,
       "set_data after set_data_ref copies, and does not free the borrowed bytes");
    satin_msg *rin = satin_msg_decode_borrowed(h3, hl3, b3, bl3, 0, NULL);
    ok(rin && rin->data_borrowed && rin->data >= b3 && rin->data_len == sizeof res &&
           memcmp(rin->data, res, sizeof res) == 0,
       "a result decoded borrowed points into the body");
    satin_msg *rcopy = satin_msg_decode(h3, hl3, b3, bl3, 0, NULL);
    ok(rcopy && !rcopy->data_borrowed && (rcopy->data < b3 || rcopy->data >= b3 + bl3) &&
           memcmp(rcopy->data, res, sizeof res) == 0,
       "the ordinary decode still copies it");
    satin_msg_destroy(&rin);
    satin_msg_destroy(&rcopy);
    satin_msg_destroy(&r);
    free(h3);
    free(b3);
    free(flat);
    free(h1);
    free(b1);
    free(h2);
    free(b2);
    satin_msg_destroy(&copied);
    satin_msg_destroy(&lent);
}

/* JOBS_REQUEST and JOBS_REPLY: a node's jobs for another's LIST (GRID flag). */
static void test_jobs_messages(void)
{
    static const char key[] = "rq2bLPvGRK39:xvE^+Q(P5xrIZ%b3Rr*c+Z9<9m0";
    satin_msg *m = satin_msg_new(SATIN_MSG_JOBS_REQUEST);
    m->sender = 3;
    m->job_id = 42;
    m->flags = 1;
    m->asker_kind = SATIN_ASKER_KEY;
    m->asker_key = strdup(key);
    satin_msg *d = roundtrip(m, "JOBS_REQUEST of a key");
    ok(d && d->job_id == 42 && d->flags == 1 && d->asker_kind == SATIN_ASKER_KEY &&
           strcmp(d->asker_key, key) == 0 && d->asker_admin == 0,
       "JOBS_REQUEST: query, flags and the asker's key survive");
    satin_msg_destroy(&d);
    free(m->asker_key);
    m->asker_key = NULL;
    m->asker_kind = SATIN_ASKER_ANONYMOUS;
    m->asker_admin = 1;
    d = roundtrip(m, "JOBS_REQUEST anonymous admin");
    ok(d && d->asker_kind == SATIN_ASKER_ANONYMOUS && d->asker_admin == 1 && !d->asker_key[0],
       "JOBS_REQUEST: an anonymous asker, an empty key");
    satin_msg_destroy(&d);
    m->asker_kind = SATIN_ASKER_KEY;   /* a key asker without a key */
    unsigned char *h = NULL, *b = NULL;
    size_t hl, bl;
    ok(satin_msg_encode(m, &h, &hl, &b, &bl) < 0, "JOBS_REQUEST: a key asker without a key does not encode");
    free(h);
    free(b);
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_JOBS_REPLY);
    m->sender = 2;
    m->job_id = 42;
    satin_kvlist *j = satin_msg_add_job(m);
    satin_kvlist_add_i64(j, "job", 7);
    satin_kvlist_add_str(j, "name", "nightly");
    satin_kvlist_add_str(j, "node", "b1");
    satin_msg_add_job(m);
    d = roundtrip(m, "JOBS_REPLY of two jobs");
    ok(d && d->job_id == 42 && d->njobs == 2 && d->jobs[0].n == 3 && d->jobs[1].n == 0 &&
           strcmp(satin_kvlist_str(&d->jobs[0], "name"), "nightly") == 0,
       "JOBS_REPLY: the query and each job's values survive");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);
}

/* VALUES: a job's grid-wide values, each lattice's state. */
static void test_values_message(void)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_VALUES);
    m->sender = 2;
    m->origin = 0x0123456789ABCDEFull;
    uint64_t elems[3] = {1, 7, UINT64_MAX};
    ok(satin_msg_add_value(m, "tour", SATIN_VALUE_MIN, 1, -5, NULL, 0) != NULL &&
           satin_msg_add_value(m, "value", SATIN_VALUE_MAX, 0, 0, NULL, 0) != NULL &&
           satin_msg_add_value(m, "found", SATIN_VALUE_OR, 0, (int64_t)0x8000000000000001ull,
                               NULL, 0) != NULL &&
           satin_msg_add_value(m, "ids", SATIN_VALUE_UNION, 0, 0, elems, 3) != NULL,
       "VALUES: four values added, one of each join");
    satin_msg *d = roundtrip(m, "VALUES of four values");
    ok(d && d->origin == 0x0123456789ABCDEFull && d->nvalues == 4, "VALUES: the job and the count");
    ok(d && strcmp(d->values[0].name, "tour") == 0 && d->values[0].op == SATIN_VALUE_MIN &&
           d->values[0].set == 1 && d->values[0].scalar == -5,
       "VALUES: a min that holds -5");
    ok(d && d->values[1].op == SATIN_VALUE_MAX && d->values[1].set == 0 && d->values[1].scalar == 0,
       "VALUES: a max that holds nothing yet");
    ok(d && d->values[2].op == SATIN_VALUE_OR &&
           (uint64_t)d->values[2].scalar == 0x8000000000000001ull,
       "VALUES: an or's 64 bits");
    ok(d && d->values[3].op == SATIN_VALUE_UNION && d->values[3].nelems == 3 &&
           d->values[3].elems[2] == UINT64_MAX,
       "VALUES: a set's elements");
    satin_msg_destroy(&d);
    for (int i = 4; i < SATIN_PROTO_MAX_VALUES; i++) {
        char name[16];
        snprintf(name, sizeof name, "v%d", i);
        satin_msg_add_value(m, name, SATIN_VALUE_OR, 0, 1, NULL, 0);
    }
    ok(satin_msg_add_value(m, "one-more", SATIN_VALUE_OR, 0, 1, NULL, 0) == NULL,
       "VALUES: no 17th value");
    satin_msg_destroy(&m);

    /* rejections, by hand */
    b_header(&H, SATIN_MSG_VALUES, 1, 0);
    B.n = 0;
    b_u64(&B, 9); b_u16(&B, 0);
    reject_text(SATIN_PROTO_BAD_MESSAGE, "VALUES: no value", "VALUES without a value");
    B.n = 0;
    b_u64(&B, 9); b_u16(&B, 1); b_str(&B, "x"); b_u8(&B, 5); b_u64(&B, 0);
    reject_text(SATIN_PROTO_BAD_MESSAGE, "VALUES: values[0].op 5 is not 1..4", "VALUES: op 5");
    B.n = 0;
    b_u64(&B, 9); b_u16(&B, 1); b_str(&B, "x"); b_u8(&B, SATIN_VALUE_MIN); b_u8(&B, 2); b_u64(&B, 0);
    reject_text(SATIN_PROTO_BAD_MESSAGE, "VALUES: values[0].set 2 is not 0 or 1", "VALUES: set 2");
    B.n = 0;
    b_u64(&B, 9); b_u16(&B, 1); b_str(&B, "x"); b_u8(&B, SATIN_VALUE_MAX); b_u8(&B, 0); b_u64(&B, 3);
    reject_text(SATIN_PROTO_BAD_MESSAGE, "VALUES: values[0] holds nothing but a value of 3",
                "VALUES: nothing, with a value");
    B.n = 0;
    b_u64(&B, 9); b_u16(&B, 1); b_str(&B, "s"); b_u8(&B, SATIN_VALUE_UNION); b_u32(&B, 4097);
    b_u64(&B, 0);
    reject_text(SATIN_PROTO_TOO_LARGE, "VALUES: values[0] has 4097 elements, at most 4096",
                "VALUES: a set of 4097");
    B.n = 0;
    b_u64(&B, 9); b_u16(&B, 1); b_str(&B, "s"); b_u8(&B, SATIN_VALUE_UNION); b_u32(&B, 1000);
    b_u64(&B, 0);
    reject_text(SATIN_PROTO_BAD_MESSAGE, "VALUES: values[0]: 1000 elements, 8 bytes left",
                "VALUES: a set count that lies");
    B.n = 0;
    b_u64(&B, 9); b_u16(&B, 2);
    b_str(&B, "x"); b_u8(&B, SATIN_VALUE_OR); b_u64(&B, 1);
    b_str(&B, "x"); b_u8(&B, SATIN_VALUE_OR); b_u64(&B, 2);
    reject_text(SATIN_PROTO_BAD_MESSAGE, "VALUES: values[1].name 'x' repeats values[0]'s",
                "VALUES: a name twice");
    B.n = 0;
    b_u64(&B, 9); b_u16(&B, 1); b_str(&B, "x"); b_u8(&B, SATIN_VALUE_OR); b_u64(&B, 1); b_u8(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "VALUES with a trailing byte");
    B.n = 0;
    b_u64(&B, 9); b_u16(&B, 1); b_str(&B, "x"); b_u8(&B, SATIN_VALUE_OR); b_u64(&B, 1);
    d = accept(0, "VALUES of one or");
    ok(d && d->nvalues == 1 && d->values[0].scalar == 1, "VALUES: by hand, its field");
    satin_msg_destroy(&d);
}

int main(void)
{
    test_values_message();
    test_jobs_messages();
    test_borrowed();
    memset(name63, 'n', 63);
    test_each_node();
    memset(name64, 'l', 64);
    test_names();
    test_golden();
    test_orphan();
    test_roundtrip();
    test_truncation();
    test_rejections();
    test_encoder_limits();
    test_fuzz();
    return done_testing();
}
