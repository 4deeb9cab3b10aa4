/*
 * test_proto.c - the wire codec: round trips of every message type, the
 * exact bytes of a few messages (so the spec and the code cannot drift),
 * and every way a message can be rejected, including truncation at every
 * offset and a few thousand pseudo-random and mutated buffers.
 *
 * Hand-made frames are built with the small writer below, not with the
 * codec's own, so that a bug in the codec's writer cannot hide itself.
 */
#include "satin_proto.h"
#include "satin_wire.h"
#include "proto_kit.h"

#include <float.h>
#include <stdint.h>

/* ---- an independent little frame builder ---------------------------------- */


static void b_header(buf *b, unsigned magic, unsigned version, unsigned type,
                     uint32_t sender, uint64_t rid)
{
    b->n = 0;
    b_u16(b, magic);
    b_u8(b, version);
    b_u8(b, type);
    b_u32(b, sender);
    b_u64(b, rid);
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

/* Decodes H + B and expects a message. */
static satin_msg *accept(size_t max, const char *what)
{
    satin_proto_error err;
    satin_msg *m = satin_msg_decode(H.b, H.n, B.b, B.n, max, &err);
    if (!ok(m != NULL, "%s: accepted", what))
        diag("rejected: code %d: %s", err.code, err.text);
    return m;
}

/* ---- round trips ---------------------------------------------------------- */

/* Encodes m, decodes it, and checks that the decoded message encodes to the
 * very same bytes (the codec is canonical).  Returns the decoded message. */
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
        is_i64(err.code, 0, "%s: no error code", what);
        is_i64(d->type, m->type, "%s: type", what);
        is_i64(d->version, SATIN_PROTO_VERSION, "%s: version", what);
        is_i64(d->sender, m->sender, "%s: sender", what);
        ok(d->request_id == m->request_id, "%s: request id", what);
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

static void same_kvlist(const satin_kvlist *got, const satin_kvlist *want, const char *what)
{
    is_i64(got->n, want->n, "%s: item count", what);
    int same = got->n == want->n;
    for (size_t i = 0; same && i < got->n; i++) {
        const satin_kv *g = &got->items[i], *w = &want->items[i];
        same = strcmp(g->name, w->name) == 0 && g->type == w->type;
        if (same && g->type == SATIN_KV_I64)
            same = g->i64 == w->i64;
        if (same && g->type == SATIN_KV_F64)   /* bit for bit: NaN, -0.0 */
            same = memcmp(&g->f64, &w->f64, sizeof g->f64) == 0;
        if (same && g->type == SATIN_KV_STR)
            same = strcmp(g->str, w->str) == 0;
        if (!same)
            diag("item %zu differs (%s)", i, w->name);
    }
    ok(same, "%s: items equal, in order", what);
}

static char name63[64], name64[65];

static void test_names(void)
{
    is_str(satin_msg_type_name(SATIN_MSG_SUBMIT), "SUBMIT", "type name SUBMIT");
    is_str(satin_msg_type_name(SATIN_MSG_KINDS), "KINDS", "type name KINDS");
    is_str(satin_msg_type_name(SATIN_MSG_STATUS_REPLY), "STATUS_REPLY", "type name STATUS_REPLY");
    is_str(satin_msg_type_name(0), "UNKNOWN", "type 0 unknown");
    is_str(satin_msg_type_name(50), "UNKNOWN", "type 50 unknown");
    is_str(satin_msg_type_name(-3), "UNKNOWN", "type -3 unknown");
    is_str(satin_proto_code_name(0), "ok", "code 0");
    is_str(satin_proto_code_name(1), "bad message", "code 1");
    is_str(satin_proto_code_name(8), "unsupported version", "code 8");
    is_str(satin_proto_code_name(99), "unknown error", "code 99");
    int requests = 0;
    for (int t = -1; t < 300; t++)
        requests += satin_msg_is_request(t);
    ok(requests == 7 && satin_msg_is_request(SATIN_MSG_SUBMIT) &&
       satin_msg_is_request(SATIN_MSG_LIST_KINDS) && satin_msg_is_request(SATIN_MSG_LIST) &&
       satin_msg_is_request(SATIN_MSG_GRID_STATUS) && !satin_msg_is_request(SATIN_MSG_GRID) &&
       !satin_msg_is_request(SATIN_MSG_ERROR) && !satin_msg_is_request(SATIN_MSG_JOBS),
       "seven request types");
    is_str(satin_msg_type_name(15), "GRID_STATUS", "type 15 is GRID_STATUS");
    is_str(satin_msg_type_name(16), "GRID", "type 16 is GRID");
    ok(satin_msg_new(0) == NULL, "no message of type 0");
    ok(satin_msg_new(17) == NULL, "no message of type 17");
    ok(satin_msg_new(50) == NULL, "no message of an unassigned peer type (50)");
    satin_msg *m = satin_msg_new(SATIN_MSG_SUBMIT);
    satin_msg_destroy(&m);
    ok(m == NULL, "destroy clears the caller's pointer");
    satin_msg_destroy(&m);
    satin_msg_destroy(NULL);
    ok(m == NULL, "destroying it again, or NULL, leaves it NULL");
}

static void test_golden(void)
{
    /* ACCEPTED, sender 7, request 0x0102030405060708, job 42 */
    static const unsigned char want_h[16] = {0x53, 0x54, 0x03, 0x02, 0, 0, 0, 7,
                                             1, 2, 3, 4, 5, 6, 7, 8};
    static const unsigned char want_b[8] = {0, 0, 0, 0, 0, 0, 0, 42};
    satin_msg *m = satin_msg_new(SATIN_MSG_ACCEPTED);
    m->sender = 7;
    m->request_id = 0x0102030405060708u;
    m->job_id = 42;
    unsigned char *h, *b;
    size_t hl, bl;
    ok(satin_msg_encode(m, &h, &hl, &b, &bl) == 0, "golden ACCEPTED encodes");
    ok(hl == 16 && memcmp(h, want_h, 16) == 0, "golden ACCEPTED header bytes");
    ok(bl == 8 && memcmp(b, want_b, 8) == 0, "golden ACCEPTED body bytes");
    free(h);
    free(b);
    satin_msg_destroy(&m);
    ok(m == NULL, "destroy clears the pointer");

    /* SUBMIT progress, kind "fib", n=30: the example in PROTOCOL.md */
    static const unsigned char want_s[] = {0, 0, 0, 1, 0, 3, 'f', 'i', 'b', 0, 1,
                                           0, 1, 'n', 0, 2, '3', '0', 0, 0};
    m = satin_msg_new(SATIN_MSG_SUBMIT);
    m->flags = SATIN_FLAG_PROGRESS;
    m->request_id = 1;
    satin_msg_set_kind(m, "fib");
    satin_msg_add_param(m, "n", "30");
    ok(satin_msg_encode(m, &h, &hl, &b, &bl) == 0, "golden SUBMIT encodes");
    ok(h[3] == SATIN_MSG_SUBMIT && h[15] == 1, "golden SUBMIT header type and request id");
    ok(bl == sizeof want_s && memcmp(b, want_s, bl) == 0, "golden SUBMIT body bytes");
    free(h);
    free(b);
    satin_msg_destroy(&m);

    /* RESULT with one of each kv type */
    static const unsigned char want_r[] = {
        0, 0, 0, 0, 0, 0, 0, 9,           /* job id */
        0,                                /* status ok */
        0, 3, 'f', 'i', 'b',              /* kind */
        0, 0,                             /* error "" */
        0, 3,                             /* result count */
        0, 1, 'v', 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE,  /* v = -2 */
        0, 1, 'x', 2, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0,                    /* x = 1.5 */
        0, 1, 's', 3, 0, 2, 'h', 'i',                                  /* s = "hi" */
        0, 0,                             /* data type "" */
        0, 0, 0, 0,                       /* data: 0 bytes */
        0, 0,                             /* stats count */
    };
    m = satin_msg_new(SATIN_MSG_RESULT);
    m->job_id = 9;
    satin_msg_set_kind(m, "fib");
    satin_kvlist_add_i64(&m->result, "v", -2);
    satin_kvlist_add_f64(&m->result, "x", 1.5);
    satin_kvlist_add_str(&m->result, "s", "hi");
    ok(satin_msg_encode(m, &h, &hl, &b, &bl) == 0, "golden RESULT encodes");
    ok(bl == sizeof want_r && memcmp(b, want_r, bl) == 0, "golden RESULT body bytes");
    free(h);
    free(b);
    satin_msg_destroy(&m);
}

static satin_msg *full_submit(void)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_SUBMIT);
    m->flags = SATIN_FLAG_PROGRESS;
    m->request_id = UINT64_MAX;
    satin_msg_set_kind(m, "uts");
    for (int i = 0; i < SATIN_PROTO_MAX_PARAMS; i++) {
        char key[16], val[32];
        snprintf(key, sizeof key, "k%02d", i);
        snprintf(val, sizeof val, "value-%d", i * 7919);
        ok(satin_msg_add_param(m, i == 5 ? name63 : key,
                               i == 3 ? "" : i == 4 ? "h\xc3\xa9llo \xe2\x80\xa6" : val) == 0,
           "add param %d", i);
    }
    return m;
}

static void test_roundtrip_submit(void)
{
    satin_msg *m = full_submit();
    ok(satin_msg_add_param(m, "one-too-many", "x") == -1, "the 65th param is refused");
    satin_msg *d = roundtrip(m, "SUBMIT 64 params");
    if (d) {
        is_i64(d->flags, SATIN_FLAG_PROGRESS, "SUBMIT flags");
        is_str(d->kind, "uts", "SUBMIT kind");
        is_i64(d->nparams, 64, "SUBMIT nparams");
        int same = d->nparams == m->nparams;
        for (size_t i = 0; same && i < d->nparams; i++)
            same = strcmp(d->params[i].key, m->params[i].key) == 0 &&
                   strcmp(d->params[i].value, m->params[i].value) == 0;
        ok(same, "SUBMIT params equal, in order");
        is_str(satin_msg_param_value(d, name63), "value-39595", "63-byte key survives");
        is_str(satin_msg_param_value(d, "k03"), "", "empty value survives");
        is_str(satin_msg_param_value(d, "k04"), "h\xc3\xa9llo \xe2\x80\xa6", "UTF-8 value survives");
        ok(satin_msg_param_value(d, "nope") == NULL, "absent param is NULL");
    }
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_SUBMIT);
    satin_msg_set_kind(m, "fib");
    d = roundtrip(m, "SUBMIT no params");
    ok(d && d->nparams == 0 && d->params == NULL && d->flags == 0, "SUBMIT no params: fields");
    ok(d && d->job_name && d->job_name[0] == '\0', "SUBMIT without a name: an empty one");
    satin_msg_destroy(&d);
    satin_msg_set_job_name(m, "nightly run \xc3\xa9");
    d = roundtrip(m, "SUBMIT with a job name");
    is_str(d ? d->job_name : NULL, "nightly run \xc3\xa9", "SUBMIT: the job name survives, UTF-8");
    satin_msg_destroy(&d);
    char long_name[80];
    memset(long_name, 'x', 64);
    long_name[64] = '\0';
    satin_msg_set_job_name(m, long_name);
    unsigned char *h2 = NULL, *b2 = NULL;
    size_t hl2 = 0, bl2 = 0;
    satin_proto_error e2;
    ok(satin_msg_encode(m, &h2, &hl2, &b2, &bl2) < 0 && satin_msg_check(m, &e2) < 0 &&
           e2.code == SATIN_PROTO_BAD_PARAMS,
       "SUBMIT: a 64-byte job name does not encode (bad parameters)");
    free(h2);
    free(b2);
    satin_msg_set_job_name(m, NULL);
    /* flag bits this release does not know travel unchanged */
    m->flags = 0xFFFFFFFFu;
    d = roundtrip(m, "SUBMIT all flag bits");
    ok(d && d->flags == 0xFFFFFFFFu, "SUBMIT unknown flag bits kept");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);
}

static void fill_kvlist(satin_kvlist *l)
{
    double nan_bits;
    uint64_t nb = 0x7FF8000000000123u;   /* a NaN with a payload */
    memcpy(&nan_bits, &nb, sizeof nan_bits);
    satin_kvlist_add_i64(l, "zero", 0);
    satin_kvlist_add_i64(l, "min", INT64_MIN);
    satin_kvlist_add_i64(l, "max", INT64_MAX);
    satin_kvlist_add_i64(l, "minus-one", -1);
    satin_kvlist_add_f64(l, "pi", 3.141592653589793);
    satin_kvlist_add_f64(l, "negzero", -0.0);
    satin_kvlist_add_f64(l, "inf", -INFINITY);
    satin_kvlist_add_f64(l, "tiny", DBL_TRUE_MIN);
    satin_kvlist_add_f64(l, "nan", nan_bits);
    satin_kvlist_add_str(l, "empty", "");
    satin_kvlist_add_str(l, "utf8", "\xe6\xbc\xa2\xe5\xad\x97 \xf0\x9f\x98\x80");
    satin_kvlist_add_str(l, name63, "long name");
}

static void test_roundtrip_rest(void)
{
    satin_msg *m, *d;

    m = satin_msg_new(SATIN_MSG_ACCEPTED);
    m->job_id = UINT64_MAX;
    m->request_id = 77;
    d = roundtrip(m, "ACCEPTED");
    ok(d && d->job_id == UINT64_MAX, "ACCEPTED job id");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_PROGRESS);
    m->job_id = 5;
    m->elapsed_ms = 0x123456789ABCDEFu;
    m->jobs_run = UINT64_MAX - 1;
    d = roundtrip(m, "PROGRESS");
    ok(d && d->job_id == 5 && d->elapsed_ms == 0x123456789ABCDEFu &&
       d->jobs_run == UINT64_MAX - 1, "PROGRESS fields");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_RESULT);
    m->job_id = 12;
    m->sender = 3;
    m->status = SATIN_STATUS_OK;
    satin_msg_set_kind(m, name63);
    fill_kvlist(&m->result);
    satin_kvlist_add_f64(&m->stats, "wall_s", 0.25);
    satin_kvlist_add_i64(&m->stats, "jobs_stolen", 1234);
    d = roundtrip(m, "RESULT ok");
    if (d) {
        ok(d->job_id == 12 && d->status == SATIN_STATUS_OK, "RESULT ok: job and status");
        is_str(d->kind, name63, "RESULT ok: kind");
        is_str(d->error, "", "RESULT ok: error is empty, not NULL");
        same_kvlist(&d->result, &m->result, "RESULT ok: result");
        same_kvlist(&d->stats, &m->stats, "RESULT ok: stats");
    }
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_RESULT);
    m->job_id = 13;
    m->status = SATIN_STATUS_ERROR;
    satin_msg_set_kind(m, "nqueens");
    satin_msg_set_error(m, "n must be in 1..20");
    d = roundtrip(m, "RESULT error");
    if (d) {
        ok(d->status == SATIN_STATUS_ERROR, "RESULT error: status");
        is_str(d->error, "n must be in 1..20", "RESULT error: text");
        ok(d->result.n == 0 && d->stats.n == 0, "RESULT error: empty kvlists");
    }
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    /* RESULT with data: the type and the bytes, NUL and 0xFF included */
    m = satin_msg_new(SATIN_MSG_RESULT);
    m->job_id = 14;
    satin_msg_set_kind(m, "raytracer");
    satin_kvlist_add_i64(&m->result, "pixels", 4);
    satin_msg_set_data_type(m, "image/x-portable-pixmap");
    ok(satin_msg_set_data(m, "P6\n2 2\n255\n\0\xff\1", 14) == 0, "RESULT: set data");
    satin_kvlist_add_f64(&m->stats, "wall_s", 0.5);
    d = roundtrip(m, "RESULT data");
    if (d) {
        is_str(d->data_type, "image/x-portable-pixmap", "RESULT data: type");
        ok(d->data_len == 14 && memcmp(d->data, "P6\n2 2\n255\n\0\xff\1", 14) == 0,
           "RESULT data: the 14 bytes");
        same_kvlist(&d->result, &m->result, "RESULT data: result");
        same_kvlist(&d->stats, &m->stats, "RESULT data: stats after the data");
    }
    satin_msg_destroy(&d);
    /* A type with no bytes is data too (an empty file). */
    satin_msg_set_data(m, NULL, 0);
    d = roundtrip(m, "RESULT empty data");
    ok(d && d->data_len == 0 && d->data && strcmp(d->data_type, "image/x-portable-pixmap") == 0,
       "RESULT empty data: the type, 0 bytes");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    /* RESULT with kind left NULL: sent as "" */
    m = satin_msg_new(SATIN_MSG_RESULT);
    d = roundtrip(m, "RESULT blank");
    ok(d && d->kind && d->kind[0] == '\0' && d->error && d->error[0] == '\0' && d->data_type &&
       d->data_type[0] == '\0' && d->data_len == 0,
       "RESULT blank: strings decode as \"\", no data");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    for (int code = 1; code <= 8; code++) {
        char what[32];
        snprintf(what, sizeof what, "ERROR code %d", code);
        m = satin_msg_new(SATIN_MSG_ERROR);
        m->job_id = (uint64_t)code - 1;   /* 0 = no job */
        m->code = (uint16_t)code;
        satin_msg_set_errorf(m, "%s: %d", satin_proto_code_name(code), code);
        d = roundtrip(m, what);
        ok(d && d->code == code && d->job_id == (uint64_t)code - 1, "%s: fields", what);
        if (d)
            is_str(d->error, m->error, "%s: message", what);
        satin_msg_destroy(&d);
        satin_msg_destroy(&m);
    }
    m = satin_msg_new(SATIN_MSG_ERROR);
    m->code = 999;   /* a code from a later release still travels */
    d = roundtrip(m, "ERROR unknown code");
    ok(d && d->code == 999 && strcmp(d->error, "") == 0, "ERROR unknown code, empty message");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_WAIT);
    m->job_id = 99;
    m->flags = SATIN_FLAG_PROGRESS;
    d = roundtrip(m, "WAIT");
    ok(d && d->job_id == 99 && d->flags == SATIN_FLAG_PROGRESS, "WAIT fields");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_CANCEL);
    m->job_id = 100;
    d = roundtrip(m, "CANCEL");
    ok(d && d->job_id == 100, "CANCEL job id");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_OK);
    m->job_id = 101;
    m->status = SATIN_CANCEL_FINISHED;
    d = roundtrip(m, "OK");
    ok(d && d->job_id == 101 && d->status == SATIN_CANCEL_FINISHED, "OK job id and state");
    satin_msg_destroy(&d);
    m->status = 3;
    {
        unsigned char *h = NULL, *b = NULL;
        size_t hl, bl;
        ok(satin_msg_encode(m, &h, &hl, &b, &bl) < 0, "OK with state 3: not encoded");
        free(h);
        free(b);
    }
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_LIST);
    m->flags = SATIN_LIST_ALL;
    d = roundtrip(m, "LIST");
    ok(d && d->flags == SATIN_LIST_ALL, "LIST flags");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_JOBS);
    satin_kvlist_add_i64(satin_msg_add_job(m), "job", 7);
    satin_kvlist *second = satin_msg_add_job(m);
    satin_kvlist_add_i64(second, "job", 8);
    satin_kvlist_add_str(second, "state", "pending");
    satin_msg_add_job(m);
    d = roundtrip(m, "JOBS");
    ok(d && d->njobs == 3 && d->jobs[0].n == 1 && d->jobs[0].items[0].i64 == 7 &&
           d->jobs[1].n == 2 && strcmp(satin_kvlist_str(&d->jobs[1], "state"), "pending") == 0 &&
           d->jobs[2].n == 0,
       "JOBS: three jobs, one of them empty, each as it was");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    int empties[] = {SATIN_MSG_STATUS, SATIN_MSG_LIST_KINDS};
    for (size_t i = 0; i < 2; i++) {
        unsigned char *h, *b;
        size_t hl, bl;
        m = satin_msg_new(empties[i]);
        ok(satin_msg_encode(m, &h, &hl, &b, &bl) == 0 && bl == 0 && b != NULL,
           "%s: empty body, non-NULL buffer", satin_msg_type_name(empties[i]));
        free(h);
        free(b);
        d = roundtrip(m, satin_msg_type_name(empties[i]));
        satin_msg_destroy(&d);
        /* an empty body may come as NULL */
        ok(satin_msg_encode(m, &h, &hl, &b, &bl) == 0, "encode again");
        d = satin_msg_decode(h, hl, NULL, 0, 0, NULL);
        ok(d && d->type == empties[i], "%s: NULL empty body accepted",
           satin_msg_type_name(empties[i]));
        free(h);
        free(b);
        satin_msg_destroy(&d);
        satin_msg_destroy(&m);
    }

    m = satin_msg_new(SATIN_MSG_STATUS_REPLY);
    fill_kvlist(&m->info);
    d = roundtrip(m, "STATUS_REPLY");
    if (d)
        same_kvlist(&d->info, &m->info, "STATUS_REPLY info");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_KINDS);
    ok(satin_msg_add_kind_param(m, "n", "1", 0, "x") == -1, "kind param before any kind refused");
    ok(satin_msg_set_kind_module(m, "satin-kinds", "1") == -1, "a module before any kind refused");
    satin_msg_add_kind(m, "fib", "Fibonacci numbers, the naive way");
    ok(satin_msg_set_kind_module(m, "satin-kinds", "0.1.0") == 0, "KINDS: fib's module");
    satin_msg_add_kind_param(m, "n", NULL, 1, "which Fibonacci number");
    satin_msg_add_kind_param(m, "threshold", "10", 0, "");
    satin_msg_add_kind(m, "idle", "");
    satin_msg_set_kind_module(m, "x", NULL);
    satin_msg_add_kind(m, name63, "a long name");
    satin_msg_set_kind_module(m, name63, name63);
    for (int j = 0; j < SATIN_PROTO_MAX_KIND_PARAMS; j++) {
        char pn[16];
        snprintf(pn, sizeof pn, "p%d", j);
        ok(satin_msg_add_kind_param(m, j == 0 ? name63 : pn, "", 0, "help") == 0,
           "kind param %d", j);
    }
    ok(satin_msg_add_kind_param(m, "extra", "", 0, "") == -1, "65th kind param refused");
    d = roundtrip(m, "KINDS");
    if (d && d->nkinds == 3) {
        is_i64(d->nkinds, 3, "KINDS nkinds");
        is_str(d->kinds[0].name, "fib", "KINDS[0] name");
        is_str(d->kinds[0].summary, "Fibonacci numbers, the naive way", "KINDS[0] summary");
        is_str(d->kinds[0].module, "satin-kinds", "KINDS[0] module");
        is_str(d->kinds[0].module_version, "0.1.0", "KINDS[0] module version");
        ok(strcmp(d->kinds[1].module, "x") == 0 && strcmp(d->kinds[1].module_version, "") == 0,
           "KINDS[1]: a 1-byte module, no version");
        ok(strcmp(d->kinds[2].module, name63) == 0 && strcmp(d->kinds[2].module_version, name63) == 0,
           "KINDS[2]: 63-byte module name and version");
        is_i64(d->kinds[0].nparams, 2, "KINDS[0] nparams");
        is_str(d->kinds[0].params[0].name, "n", "KINDS[0].params[0] name");
        is_str(d->kinds[0].params[0].def, "", "KINDS[0].params[0] no default");
        is_i64(d->kinds[0].params[0].flags, SATIN_KIND_PARAM_REQUIRED, "required, no default");
        is_str(d->kinds[0].params[0].help, "which Fibonacci number", "KINDS[0].params[0] help");
        is_str(d->kinds[0].params[1].def, "10", "KINDS[0].params[1] default");
        is_i64(d->kinds[0].params[1].flags, SATIN_KIND_PARAM_HAS_DEFAULT, "has default");
        ok(d->kinds[1].nparams == 0 && d->kinds[1].params == NULL, "KINDS[1] has no params");
        is_i64(d->kinds[2].nparams, 64, "KINDS[2] has 64 params");
        is_str(d->kinds[2].params[0].name, name63, "KINDS[2] 63-byte param name");
    } else
        ok(0, "KINDS decoded with 3 kinds");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);
}

/* ---- header rejections ---------------------------------------------------- */

static void test_header(void)
{
    satin_proto_error err;
    B.n = 0;
    b_u64(&B, 1);   /* a valid ACCEPTED body */

    b_header(&H, SATIN_PROTO_MAGIC, SATIN_PROTO_VERSION, SATIN_MSG_ACCEPTED, 0, 1);
    satin_msg *m = accept(0, "valid ACCEPTED");
    satin_msg_destroy(&m);

    int all_short = 1;
    for (size_t n = 0; n < 16; n++) {
        m = satin_msg_decode(H.b, n, B.b, B.n, 0, &err);
        all_short &= m == NULL && err.code == SATIN_PROTO_BAD_MESSAGE && !err.have_header;
        satin_msg_destroy(&m);
    }
    ok(all_short, "header frames of 0..15 bytes: bad message");
    H.b[16] = 0;
    H.n = 17;
    reject(0, SATIN_PROTO_BAD_MESSAGE, "17-byte header");
    m = satin_msg_decode(NULL, 16, B.b, B.n, 0, &err);
    ok(m == NULL && err.code == SATIN_PROTO_BAD_MESSAGE, "NULL header: bad message");

    b_header(&H, 0x5453, SATIN_PROTO_VERSION, SATIN_MSG_ACCEPTED, 0, 1);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "byte-swapped magic");
    b_header(&H, 0, 0, 0, 0, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "all-zero header");
    m = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
    ok(!err.have_header, "wrong magic: the header is not trusted");

    unsigned versions[] = {0, SATIN_PROTO_VERSION + 1, 255};
    for (size_t i = 0; i < 3; i++) {
        char what[32];
        snprintf(what, sizeof what, "version %u", versions[i]);
        b_header(&H, SATIN_PROTO_MAGIC, versions[i], SATIN_MSG_SUBMIT, 4, 0xABCDEF);
        B.n = 0;   /* even a body this release cannot parse: the version is reported */
        reject(0, SATIN_PROTO_UNSUPPORTED_VERSION, what);
        m = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
        ok(err.have_header && err.request_id == 0xABCDEF && err.sender == 4 &&
           err.type == SATIN_MSG_SUBMIT, "%s: header fields reported for the reply", what);
    }
    B.n = 0;
    b_u64(&B, 1);
    unsigned types[] = {0, 13, 31, 44, 50, 63, 64, 200, 255};   /* peer types: test_proto_peer.c */
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        char what[32];
        snprintf(what, sizeof what, "type %u", types[i]);
        b_header(&H, SATIN_PROTO_MAGIC, SATIN_PROTO_VERSION, types[i], 0, 9);
        reject(0, SATIN_PROTO_BAD_MESSAGE, what);
        m = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
        ok(err.have_header && err.request_id == 9 && err.type == (int)types[i],
           "%s: request id reported", what);
    }
    b_header(&H, SATIN_PROTO_MAGIC, SATIN_PROTO_VERSION, 50, 0, 9);
    m = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
    ok(strstr(err.text, "unknown") != NULL && strstr(err.text, "peer") != NULL,
       "type 50 is called an unknown peer type");

    b_header(&H, SATIN_PROTO_MAGIC, SATIN_PROTO_VERSION, SATIN_MSG_ACCEPTED, 0, 1);
    m = satin_msg_decode(H.b, H.n, NULL, 8, 0, &err);
    ok(m == NULL && err.code == SATIN_PROTO_BAD_MESSAGE, "NULL body with a length: bad message");
}

/* ---- size limit ----------------------------------------------------------- */

static void test_size(void)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_SUBMIT);
    satin_msg_set_kind(m, "fib");
    satin_msg_add_param(m, "n", "30");
    unsigned char *h, *b;
    size_t hl, bl;
    satin_msg_encode(m, &h, &hl, &b, &bl);
    memcpy(H.b, h, hl);
    H.n = hl;
    memcpy(B.b, b, bl);
    B.n = bl;
    free(h);
    free(b);
    satin_msg *d = accept(hl + bl, "message exactly at max_size");
    satin_msg_destroy(&d);
    reject(hl + bl - 1, SATIN_PROTO_TOO_LARGE, "message one byte over max_size");
    reject(8, SATIN_PROTO_TOO_LARGE, "max_size below the header size");
    satin_msg_destroy(&m);

    /* > 1 MiB: 20 params of 60000 bytes */
    m = satin_msg_new(SATIN_MSG_SUBMIT);
    satin_msg_set_kind(m, "big");
    char *v = malloc(60001);
    memset(v, 'x', 60000);
    v[60000] = '\0';
    for (int i = 0; i < 20; i++) {
        char k[16];
        snprintf(k, sizeof k, "p%d", i);
        satin_msg_add_param(m, k, v);
    }
    free(v);
    ok(satin_msg_encode(m, &h, &hl, &b, &bl) == 0 && bl > (1u << 20), "1.2 MB SUBMIT encodes");
    satin_proto_error err;
    d = satin_msg_decode(h, hl, b, bl, 0, &err);
    ok(d == NULL && err.code == SATIN_PROTO_TOO_LARGE, "default max_size (1 MiB) refuses it");
    diag("%s", err.text);
    d = satin_msg_decode(h, hl, b, bl, 2u << 20, &err);
    ok(d != NULL && d->nparams == 20, "a 2 MiB max_size takes it");
    satin_msg_destroy(&d);
    free(h);
    free(b);
    satin_msg_destroy(&m);
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
        /* a fresh, exact-size copy so that ASan sees any read past the end */
        unsigned char *cut = malloc(n ? n : 1);
        memcpy(cut, b, n);
        satin_msg *d = satin_msg_decode(h, hl, cut, n, 0, &err);
        if (d || err.code != SATIN_PROTO_BAD_MESSAGE ||
            (strstr(err.text, "truncated") == NULL)) {
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
    satin_msg *m = full_submit();
    truncate_all(m, "SUBMIT");
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_RESULT);
    m->job_id = 1;
    satin_msg_set_kind(m, "uts");
    satin_msg_set_error(m, "x");
    fill_kvlist(&m->result);
    satin_msg_set_data_type(m, "text/plain");
    satin_msg_set_data(m, "some data", 9);
    fill_kvlist(&m->stats);
    truncate_all(m, "RESULT");
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_KINDS);
    satin_msg_add_kind(m, "fib", "summary");
    satin_msg_set_kind_module(m, "satin-kinds", "0.1.0");
    satin_msg_add_kind_param(m, "n", "1", 1, "help");
    satin_msg_add_kind_param(m, "m", NULL, 0, "");
    satin_msg_add_kind(m, "uts", "");
    satin_msg_set_kind_module(m, "satin-kinds", "0.1.0");
    truncate_all(m, "KINDS");
    satin_msg_destroy(&m);

    int fixed[] = {SATIN_MSG_ACCEPTED, SATIN_MSG_PROGRESS, SATIN_MSG_ERROR, SATIN_MSG_WAIT,
                   SATIN_MSG_CANCEL, SATIN_MSG_OK, SATIN_MSG_STATUS_REPLY};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        m = satin_msg_new(fixed[i]);
        satin_msg_set_error(m, "abc");
        satin_kvlist_add_str(&m->info, "a", "b");
        truncate_all(m, satin_msg_type_name(fixed[i]));
        satin_msg_destroy(&m);
    }

    /* the exact wording the brief promises */
    satin_proto_error err;
    b_header(&H, SATIN_PROTO_MAGIC, SATIN_PROTO_VERSION, SATIN_MSG_SUBMIT, 0, 1);
    B.n = 0;
    b_u32(&B, 0);
    b_str(&B, "fib");
    b_u16(&B, 3);
    b_str(&B, "a"); b_str(&B, "1");
    b_str(&B, "b"); b_str(&B, "2");
    b_str(&B, "c"); b_rawstr(&B, 300, "abcdefghijkl", 12);
    satin_msg *d = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
    ok(d == NULL, "lying value length rejected");
    is_str(err.text, "truncated SUBMIT: params[2].value needs 300 bytes, 12 left",
           "lying value length: the text names the field");
}

/* ---- body rejections ------------------------------------------------------ */

static void submit_start(const char *kind, unsigned nparams)
{
    b_header(&H, SATIN_PROTO_MAGIC, SATIN_PROTO_VERSION, SATIN_MSG_SUBMIT, 0, 1);
    B.n = 0;
    b_u32(&B, 0);
    b_str(&B, kind);
    b_u16(&B, nparams);
}

static void result_start(void)
{
    b_header(&H, SATIN_PROTO_MAGIC, SATIN_PROTO_VERSION, SATIN_MSG_RESULT, 0, 1);
    B.n = 0;
    b_u64(&B, 1);
    b_u8(&B, 0);
    b_str(&B, "k");
    b_str(&B, "");
}

static void test_body_rejections(void)
{
    satin_msg *d;
    satin_proto_error err;

    /* trailing bytes after every type's body */
    for (int t = SATIN_MSG_SUBMIT; t <= SATIN_MSG_KINDS; t++) {
        satin_msg *m = satin_msg_new(t);
        satin_msg_set_kind(m, "k");
        unsigned char *h, *b;
        size_t hl, bl;
        satin_msg_encode(m, &h, &hl, &b, &bl);
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

    /* lying lengths and counts */
    submit_start("fib", 0);
    B.n -= 2 + 2 + 3;
    b_rawstr(&B, 50, "fib", 3);
    b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "kind length past the end");
    submit_start("fib", 10);
    b_str(&B, "a"); b_str(&B, "1");
    reject(0, SATIN_PROTO_BAD_MESSAGE, "nparams 10, two follow");
    submit_start("fib", 2);
    b_str(&B, "a"); b_str(&B, "1");
    b_str(&B, "b"); b_rawstr(&B, 0xFFFF, "bcdef", 5);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "value length 65535, 5 bytes left");
    d = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
    is_str(err.text, "truncated SUBMIT: params[1].value needs 65535 bytes, 5 left",
           "value length 65535: the text");
    submit_start("fib", 1);
    b_rawstr(&B, 0xFFFF, "bcdef", 5);
    reject(0, SATIN_PROTO_BAD_PARAMS, "key length 65535: over the name limit first");
    submit_start("fib", 2);
    b_str(&B, "a"); b_str(&B, "1");
    b_str(&B, "bbbbbbbbbb");
    b_u8(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "value length cut in half");
    d = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
    is_str(err.text, "truncated SUBMIT: params[1].value length needs 2 bytes, 1 left",
           "value length cut in half: the text");
    result_start();
    b_u16(&B, 1000);   /* result count */
    b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "kvlist count 1000, nothing follows");
    b_header(&H, SATIN_PROTO_MAGIC, SATIN_PROTO_VERSION, SATIN_MSG_KINDS, 0, 1);
    B.n = 0;
    b_u16(&B, 200);
    b_str(&B, "x");
    reject(0, SATIN_PROTO_BAD_MESSAGE, "nkinds 200, 3 bytes follow");

    /* limits on SUBMIT parameters: bad parameters */
    submit_start("fib", 65);
    for (int i = 0; i < 65; i++) {
        char k[16];
        snprintf(k, sizeof k, "k%d", i);
        b_str(&B, k);
        b_str(&B, "v");
    }
    reject(0, SATIN_PROTO_BAD_PARAMS, "65 params");
    submit_start("fib", 1);
    b_str(&B, name64); b_str(&B, "v");
    reject(0, SATIN_PROTO_BAD_PARAMS, "64-byte param key");
    submit_start("fib", 1);
    b_str(&B, ""); b_str(&B, "v");
    reject(0, SATIN_PROTO_BAD_PARAMS, "empty param key");
    submit_start("fib", 2);
    b_str(&B, "n"); b_str(&B, "1");
    b_str(&B, "n"); b_str(&B, "2");
    reject(0, SATIN_PROTO_BAD_PARAMS, "repeated param key");
    submit_start("fib", 1);
    b_str(&B, name63); b_str(&B, "v");
    b_str(&B, "");
    d = accept(0, "63-byte param key");
    satin_msg_destroy(&d);

    /* the job's name: 0..63 bytes, after the parameters */
    submit_start("fib", 1);
    b_str(&B, "n"); b_str(&B, "1");
    b_str(&B, name63);
    d = accept(0, "a 63-byte job name");
    ok(d && d->job_name && strcmp(d->job_name, name63) == 0, "a 63-byte job name: decoded");
    satin_msg_destroy(&d);
    submit_start("fib", 0);
    b_str(&B, name64);
    reject(0, SATIN_PROTO_BAD_PARAMS, "a 64-byte job name");
    submit_start("fib", 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "SUBMIT without its job name");
    submit_start("fib", 0);
    b_rawstr(&B, 3, "a\0b", 3);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "a NUL in the job name");
    submit_start("fib", 0);
    b_rawstr(&B, 2, "\xc3(", 2);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "a job name that is not UTF-8");
    submit_start("fib", 0);
    b_str(&B, "x");
    b_u8(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "a byte after the job name");

    /* names */
    submit_start("", 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "empty kind");
    submit_start(name64, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "64-byte kind");
    result_start();
    b_u16(&B, 1);
    b_str(&B, name64); b_u8(&B, 1); b_u64(&B, 1);
    b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "64-byte kv name");
    result_start();
    b_u16(&B, 1);
    b_str(&B, ""); b_u8(&B, 1); b_u64(&B, 1);
    b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "empty kv name");
    result_start();
    b_u16(&B, 2);
    b_str(&B, "a"); b_u8(&B, 1); b_u64(&B, 1);
    b_str(&B, "a"); b_u8(&B, 2); b_u64(&B, 1);
    b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "repeated kv name");
    result_start();
    b_u16(&B, 1);
    b_str(&B, "a"); b_u8(&B, 4); b_u64(&B, 1);
    b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "kv type 4");
    result_start();
    b_u16(&B, 0);
    b_str(&B, ""); b_u32(&B, 0);
    b_u16(&B, 1);
    b_str(&B, "a"); b_u8(&B, 0); b_u64(&B, 1);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "kv type 0 in stats");

    /* RESULT's data: lengths checked, bytes only with a type, none on error */
    result_start();
    b_u16(&B, 0);
    b_str(&B, "text/plain"); b_u32(&B, 100); b_u8(&B, 'x');
    reject(0, SATIN_PROTO_BAD_MESSAGE, "data of 100 bytes, 1 there");
    d = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
    is_str(err.text, "truncated RESULT: data needs 100 bytes, 1 left", "data cut: the text");
    result_start();
    b_u16(&B, 0);
    b_str(&B, "text/plain"); b_u8(&B, 0); b_u8(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "data length cut in half");
    result_start();
    b_u16(&B, 0);
    b_str(&B, ""); b_u32(&B, 2); b_u8(&B, 'h'); b_u8(&B, 'i');
    b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "data bytes without a type");
    d = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
    is_str(err.text, "RESULT: 2 bytes of data without a type", "data without a type: the text");
    result_start();
    b_u16(&B, 0);
    b_str(&B, name64); b_u32(&B, 0);
    b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "a 64-byte data type");
    result_start();
    B.b[8] = 1;   /* status error */
    b_u16(&B, 0);
    b_str(&B, "text/plain"); b_u32(&B, 0);
    b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "a failed job with a data type");
    d = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
    is_str(err.text, "RESULT: a failed job with data (type 'text/plain', 0 bytes)",
           "a failed job with data: the text");
    result_start();
    b_u16(&B, 0);
    b_str(&B, "text/plain"); b_u32(&B, 3); b_u8(&B, 'a'); b_u8(&B, 0); b_u8(&B, 0xff);
    b_u16(&B, 0);
    d = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
    ok(d && d->data_len == 3 && memcmp(d->data, "a\0\xff", 3) == 0 &&
       strcmp(d->data_type, "text/plain") == 0, "hand-made RESULT with 3 data bytes decodes");
    satin_msg_destroy(&d);
    result_start();
    B.b[8] = 2;
    b_u16(&B, 0);
    b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "RESULT status 2");

    /* NUL and malformed UTF-8 */
    submit_start("fib", 1);
    B.n -= 2 + 2 + 3;
    b_rawstr(&B, 4, "fi\0b", 4);
    b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "NUL in kind");
    submit_start("fib", 1);
    b_str(&B, "n"); b_rawstr(&B, 3, "3\0" "0", 3);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "NUL in a param value");
    result_start();
    b_u16(&B, 1);
    b_str(&B, "s"); b_u8(&B, 3); b_rawstr(&B, 1, "", 1);
    b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "a kv str that is one NUL");
    static const char *bad_utf8[] = {
        "\xff", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
        "\x80", "\xc3", "\xe2\x82",
    };
    for (size_t i = 0; i < sizeof bad_utf8 / sizeof bad_utf8[0]; i++) {
        char what[40];
        snprintf(what, sizeof what, "malformed UTF-8 #%zu in a value", i);
        submit_start("fib", 1);
        b_str(&B, "n"); b_str(&B, bad_utf8[i]);
        reject(0, SATIN_PROTO_BAD_MESSAGE, what);
    }

    /* counts above the limits of the other lists: too large */
    result_start();
    b_u16(&B, SATIN_PROTO_MAX_KV + 1);
    for (int i = 0; i <= SATIN_PROTO_MAX_KV; i++) {
        char k[16];
        snprintf(k, sizeof k, "k%d", i);
        b_str(&B, k); b_u8(&B, 1); b_u64(&B, (uint64_t)i);
    }
    b_u16(&B, 0);
    reject(0, SATIN_PROTO_TOO_LARGE, "1025 kv items");
    b_header(&H, SATIN_PROTO_MAGIC, SATIN_PROTO_VERSION, SATIN_MSG_KINDS, 0, 1);
    B.n = 0;
    b_u16(&B, SATIN_PROTO_MAX_KINDS + 1);
    reject(0, SATIN_PROTO_TOO_LARGE, "257 kinds");
    B.n = 0;
    b_u16(&B, 1);
    b_str(&B, "k"); b_str(&B, ""); b_str(&B, "mod"); b_str(&B, "1");
    b_u16(&B, SATIN_PROTO_MAX_KIND_PARAMS + 1);
    reject(0, SATIN_PROTO_TOO_LARGE, "65 params of a kind");
    B.n = 0;
    b_u16(&B, 2);
    b_str(&B, "k"); b_str(&B, ""); b_str(&B, "mod"); b_str(&B, "1"); b_u16(&B, 0);
    b_str(&B, "k"); b_str(&B, ""); b_str(&B, "mod"); b_str(&B, "1"); b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "repeated kind name");
    B.n = 0;
    b_u16(&B, 1);
    b_str(&B, "k"); b_str(&B, ""); b_str(&B, ""); b_str(&B, "1"); b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "a kind without a module");
    d = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
    is_str(err.text, "KINDS: kinds[0].module is empty",
           "a kind without a module: the text");
    B.n = 0;
    b_u16(&B, 1);
    b_str(&B, "k"); b_str(&B, ""); b_str(&B, "mod"); b_str(&B, name64); b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "a 64-byte module version");
    B.n = 0;
    b_u16(&B, 1);
    b_str(&B, "k"); b_str(&B, ""); b_str(&B, "module");
    reject(0, SATIN_PROTO_BAD_MESSAGE, "a kind that ends after its module");
    d = satin_msg_decode(H.b, H.n, B.b, B.n, 0, &err);
    is_str(err.text, "truncated KINDS: kinds[0].module_version length needs 2 bytes, 0 left",
           "ends after its module: the text");
    B.n = 0;
    b_u16(&B, 1);
    b_str(&B, "k"); b_str(&B, ""); b_u16(&B, 2);
    b_str(&B, "p"); b_str(&B, ""); b_u8(&B, 0); b_str(&B, "");
    b_str(&B, "p"); b_str(&B, ""); b_u8(&B, 0); b_str(&B, "");
    reject(0, SATIN_PROTO_BAD_MESSAGE, "repeated kind param name");
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
    satin_msg *m = satin_msg_new(SATIN_MSG_SUBMIT);
    satin_proto_error err;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "SUBMIT without a kind");
    satin_msg_set_kind(m, name64);
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "a 64-byte kind");
    satin_msg_set_kind(m, "fib");
    ok(satin_msg_check(m, &err) == 0 && err.code == 0, "check passes a good SUBMIT");
    satin_msg_add_param(m, name64, "v");
    refuse(m, SATIN_PROTO_BAD_PARAMS, "a 64-byte key");
    free(m->params[0].key);
    m->params[0].key = strdup("n");
    satin_msg_add_param(m, "n", "v");
    refuse(m, SATIN_PROTO_BAD_PARAMS, "a repeated key");
    satin_msg_destroy(&m);

    m = full_submit();
    /* bypass the setter's limit the way a careless caller could */
    m->params = realloc(m->params, 65 * sizeof *m->params);
    m->params[64].key = strdup("k64");
    m->params[64].value = strdup("v");
    m->nparams = 65;
    refuse(m, SATIN_PROTO_BAD_PARAMS, "65 params");
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_RESULT);
    satin_kvlist_add_str(&m->result, name64, "v");
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "a 64-byte kv name");
    satin_kvlist_free(&m->result);
    satin_kvlist_add_str(&m->result, "s", "\xff");
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "a kv str that is not UTF-8");
    satin_kvlist_free(&m->result);
    satin_kvlist_add_i64(&m->stats, "t", 1);
    m->stats.items[0].type = (satin_kv_type)9;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "kv type 9");
    satin_kvlist_free(&m->stats);
    m->status = 2;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "RESULT status 2");
    m->status = 0;
    satin_msg_set_data(m, "abc", 3);
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "RESULT data without a type");
    satin_msg_set_data_type(m, name64);
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "a 64-byte data type");
    satin_msg_set_data_type(m, "text/plain");
    ok(satin_msg_check(m, &err) == 0, "RESULT data with a type is fine");
    m->status = SATIN_STATUS_ERROR;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "a failed RESULT with data");
    m->status = 0;
    satin_msg_set_data(m, NULL, 0);
    satin_msg_set_data_type(m, NULL);
    char *big = malloc(SATIN_PROTO_STR_MAX + 2);
    memset(big, 'a', SATIN_PROTO_STR_MAX + 1);
    big[SATIN_PROTO_STR_MAX + 1] = '\0';
    m->error = big;
    refuse(m, SATIN_PROTO_TOO_LARGE, "a 65536-byte error");
    big[SATIN_PROTO_STR_MAX] = '\0';
    ok(satin_msg_check(m, &err) == 0, "a 65535-byte error is fine");
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_STATUS_REPLY);
    for (int i = 0; i <= SATIN_PROTO_MAX_KV; i++) {
        char k[16];
        snprintf(k, sizeof k, "k%d", i);
        satin_kvlist_add_i64(&m->info, k, i);
    }
    refuse(m, SATIN_PROTO_TOO_LARGE, "1025 kv items");
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_KINDS);
    for (int i = 0; i < SATIN_PROTO_MAX_KINDS; i++) {
        char k[16];
        snprintf(k, sizeof k, "k%d", i);
        ok(satin_msg_add_kind(m, k, "") == 0 && satin_msg_set_kind_module(m, "mod", "") == 0,
           "add kind %d", i);
    }
    ok(satin_msg_add_kind(m, "one-more", "") == -1, "the 257th kind is refused");
    ok(satin_msg_check(m, NULL) == 0, "256 kinds are fine");
    satin_msg_set_kind_module(m, "", "1");
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "a kind whose module is \"\"");
    satin_msg_set_kind_module(m, "mod", name64);
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "a 64-byte module version");
    satin_msg_set_kind_module(m, "mod", "");
    satin_msg_add_kind_param(m, "p", "", 0, "");
    m->kinds[255].params[0].flags = 0x100;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "kind param flags above a byte");
    satin_msg_destroy(&m);

    m = satin_msg_new(SATIN_MSG_ACCEPTED);
    m->version = 256;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "version 256");
    m->version = 1;
    m->type = 50;
    refuse(m, SATIN_PROTO_BAD_MESSAGE, "type 50");
    m->type = SATIN_MSG_ACCEPTED;
    satin_msg_destroy(&m);
    ok(satin_msg_check(NULL, &err) == -1, "check refuses NULL");

    /* version is encoded as set, so a peer can be tested against a newer one */
    m = satin_msg_new(SATIN_MSG_STATUS);
    m->version = SATIN_PROTO_VERSION + 1;
    unsigned char *h, *b;
    size_t hl, bl;
    ok(satin_msg_encode(m, &h, &hl, &b, &bl) == 0 && h[2] == SATIN_PROTO_VERSION + 1,
       "version %d encodes", SATIN_PROTO_VERSION + 1);
    satin_msg *d = satin_msg_decode(h, hl, b, bl, 0, &err);
    ok(d == NULL && err.code == SATIN_PROTO_UNSUPPORTED_VERSION, "and is refused with code 8");
    free(h);
    free(b);
    satin_msg_destroy(&m);
}

/* ---- error text setters --------------------------------------------------- */

static void test_error_text(void)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_ERROR);
    satin_msg_set_error(m, "bad \xff byte \xe2\x82");
    is_str(m->error, "bad ? byte ??", "invalid UTF-8 in error text becomes '?'");
    satin_msg_set_error(m, NULL);
    is_str(m->error, "", "NULL error text is \"\"");
    satin_msg_set_errorf(m, "job %d: %s", 7, "gone");
    is_str(m->error, "job 7: gone", "errorf formats");

    /* 40000 two-byte characters: cut at a character boundary below 65535 */
    char *big = malloc(80001);
    for (int i = 0; i < 40000; i++) {
        big[2 * i] = (char)0xC3;
        big[2 * i + 1] = (char)0xA9;
    }
    big[80000] = '\0';
    satin_msg_set_error(m, big);
    is_i64(strlen(m->error), 65534, "long error text cut to whole characters");
    ok(satin_msg_check(m, NULL) == 0, "and it can be sent");
    free(big);
    satin_msg_destroy(&m);
}

/* ---- the bytes primitive (used by the peer messages) ---------------------- */

/* GRID_STATUS and GRID (PROTOCOL.md 6.15, 6.16): the bytes, a round trip,
 * every truncation, the limits both ways. */
static void test_grid(void)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_GRID_STATUS);
    m->request_id = 3;
    satin_msg *d = roundtrip(m, "GRID_STATUS");
    ok(d && d->flags == 0 && d->request_id == 3, "GRID_STATUS: flags 0, request id echoed");
    satin_msg_destroy(&d);
    satin_msg_destroy(&m);
    b_header(&H, 0x5354, SATIN_PROTO_VERSION, SATIN_MSG_GRID_STATUS, 0, 1);
    B.n = 0;
    reject(0, SATIN_PROTO_BAD_MESSAGE, "GRID_STATUS without its flags");
    b_u32(&B, 0x80000000u);
    d = accept(0, "GRID_STATUS with a reserved flag (kept, not refused)");
    ok(d && d->flags == 0x80000000u, "GRID_STATUS: the reserved bit read as sent");
    satin_msg_destroy(&d);
    b_u8(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "GRID_STATUS with a trailing byte");

    /* Two nodes: {node: "a0", workers: 2} and an empty one. */
    m = satin_msg_new(SATIN_MSG_GRID);
    satin_kvlist *a0 = satin_msg_add_job(m);
    satin_kvlist_add_str(a0, "node", "a0");
    satin_kvlist_add_i64(a0, "workers", 2);
    satin_msg_add_job(m);
    unsigned char *h, *b;
    size_t hl, bl;
    static const unsigned char want[] = {
        0x00, 0x02,                                     /* nnodes 2 */
        0x00, 0x02,                                     /* nodes[0]: 2 items */
        0x00, 0x04, 'n', 'o', 'd', 'e', 0x03, 0x00, 0x02, 'a', '0',
        0x00, 0x07, 'w', 'o', 'r', 'k', 'e', 'r', 's', 0x01, 0, 0, 0, 0, 0, 0, 0, 2,
        0x00, 0x00,                                     /* nodes[1]: empty */
    };
    ok(satin_msg_encode(m, &h, &hl, &b, &bl) == 0 && h[3] == 16 && bl == sizeof want &&
           memcmp(b, want, sizeof want) == 0,
       "GRID: the bytes of PROTOCOL.md 6.16");
    free(h);
    free(b);
    d = roundtrip(m, "GRID");
    ok(d && d->njobs == 2 && strcmp(satin_kvlist_str(&d->jobs[0], "node"), "a0") == 0 &&
           d->jobs[1].n == 0,
       "GRID: two nodes, as they were");
    satin_msg_destroy(&d);
    truncate_all(m, "GRID");
    satin_msg_destroy(&m);

    b_header(&H, 0x5354, SATIN_PROTO_VERSION, SATIN_MSG_GRID, 0, 1);
    B.n = 0;
    b_u16(&B, 3);
    b_u16(&B, 0);
    b_u16(&B, 0);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "GRID: 3 nodes, 2 there");
    B.n = 0;
    b_u16(&B, 1);
    b_u16(&B, 2);
    b_str(&B, "x"); b_u8(&B, SATIN_KV_I64); b_u64(&B, 1);
    b_str(&B, "x"); b_u8(&B, SATIN_KV_I64); b_u64(&B, 2);
    reject(0, SATIN_PROTO_BAD_MESSAGE, "GRID: a node with a repeated key");

    m = satin_msg_new(SATIN_MSG_GRID);
    size_t added = 0;
    while (satin_msg_add_job(m))
        added++;
    is_i64((int64_t)added, SATIN_PROTO_MAX_GRID_NODES, "GRID: at most 65535 nodes");
    unsigned char *hh, *bb;
    ok(satin_msg_encode(m, &hh, &hl, &bb, &bl) == 0 && bl == 2 + 2 * (size_t)added,
       "GRID: 65535 empty nodes encode");
    free(hh);
    free(bb);
    m->njobs++;   /* one more than the count can say */
    m->jobs = realloc(m->jobs, m->njobs * sizeof *m->jobs);
    satin_kvlist_init(&m->jobs[m->njobs - 1]);
    refuse(m, SATIN_PROTO_TOO_LARGE, "GRID with 65536 nodes");
    satin_msg_destroy(&m);
}

static void test_wire_bytes(void)
{
    unsigned char out[64];
    satin_wire_wr w;
    satin_wire_wr_init(&w, out, sizeof out, "T", NULL);
    ok(satin_wire_put_bytes(&w, "\0\1\2", 3, "blob") == 0 && w.len == 7, "bytes: written");
    ok(memcmp(out, "\0\0\0\3\0\1\2", 7) == 0, "bytes: u32 length + raw bytes");
    satin_wire_rd r;
    satin_proto_error err;
    const unsigned char *p;
    size_t n;
    satin_wire_rd_init(&r, out, 7, "T", &err);
    ok(satin_wire_bytes(&r, &p, &n, "blob") == 0 && n == 3 && p == out + 4 &&
       satin_wire_end(&r) == 0, "bytes: read back in place");
    out[0] = 0x80;   /* length 2^31 + 3 */
    satin_wire_rd_init(&r, out, 7, "T", &err);
    ok(satin_wire_bytes(&r, &p, &n, "blob") == -1 && p == NULL && n == 0 &&
       err.code == SATIN_PROTO_BAD_MESSAGE, "bytes: lying u32 length");
    is_str(err.text, "truncated T: blob needs 2147483651 bytes, 3 left", "bytes: the text");
    ok(satin_wire_u8(&r, out, "after") == -1, "reads after a failure fail too");
}

/* ---- garbage and mutations ------------------------------------------------ */

static void test_fuzz(void)
{
    static unsigned char h[32], b[4096];
    int accepted = 0, runs = 0;

    /* random frames; most get a plausible header so the bodies get parsed */
    for (int i = 0; i < 4000; i++, runs++) {
        size_t hl = xorshift() % 8 == 0 ? xorshift() % 20 : 16;
        for (size_t k = 0; k < sizeof h; k++)
            h[k] = (unsigned char)xorshift();
        if (xorshift() % 4 != 0) {
            h[0] = 0x53;
            h[1] = 0x54;
            h[2] = xorshift() % 16 ? 1 : (unsigned char)xorshift();
            h[3] = (unsigned char)(xorshift() % 14);
        }
        size_t bl = xorshift() % (xorshift() % 2 ? 64 : sizeof b);
        for (size_t k = 0; k < bl; k++)   /* small bytes often, to make short lengths */
            b[k] = (unsigned char)(xorshift() % 3 ? xorshift() % 8 : xorshift());
        accepted += fuzz_one(h, hl, b, bl);
    }

    /* mutations of valid messages of every type */
    satin_msg *seeds[16];
    size_t nseeds = 0;
    seeds[nseeds++] = full_submit();
    for (int t = SATIN_MSG_ACCEPTED; t <= SATIN_MSG_KINDS; t++) {
        satin_msg *m = satin_msg_new(t);
        m->job_id = 3;
        satin_msg_set_kind(m, "fib");
        satin_msg_set_error(m, "oops");
        fill_kvlist(&m->result);
        satin_kvlist_add_i64(&m->stats, "n", 1);
        fill_kvlist(&m->info);
        satin_msg_add_kind(m, "fib", "f");
        satin_msg_set_kind_module(m, "satin-kinds", "0.1.0");
        satin_msg_add_kind_param(m, "n", "1", 1, "h");
        satin_msg_add_kind(m, "uts", "u");
        satin_msg_set_kind_module(m, "satin-kinds", "0.1.0");
        if (t == SATIN_MSG_RESULT) {
            satin_msg_set_error(m, "");
            satin_msg_set_data_type(m, "text/plain");
            satin_msg_set_data(m, "abc", 3);
        }
        seeds[nseeds++] = m;
    }
    for (size_t s = 0; s < nseeds; s++) {
        unsigned char *eh, *eb;
        size_t ehl, ebl;
        satin_msg_encode(seeds[s], &eh, &ehl, &eb, &ebl);
        for (int i = 0; i < 2000; i++, runs++) {
            size_t bl = ebl < sizeof b ? ebl : sizeof b;
            memcpy(b, eb, bl);
            memcpy(h, eh, 16);
            int flips = 1 + (int)(xorshift() % 4);
            for (int f = 0; f < flips && bl; f++) {
                size_t at = xorshift() % bl;
                switch (xorshift() % 4) {
                case 0: b[at] ^= (unsigned char)(1u << (xorshift() % 8)); break;
                case 1: b[at] = (unsigned char)xorshift(); break;
                case 2: b[at] = (unsigned char)(b[at] + 1); break;
                default: bl = at; break;   /* cut */
                }
            }
            if (xorshift() % 16 == 0)
                h[3] = (unsigned char)(1 + xorshift() % 12);   /* body of another type */
            accepted += fuzz_one(h, 16, b, bl);
        }
        free(eh);
        free(eb);
        satin_msg_destroy(&seeds[s]);
    }
    ok(fuzz_bad == 0, "%d garbage/mutated frames: no crash, coherent answers (%d accepted)",
       runs, accepted);
    ok(accepted > 0 && accepted < runs, "the fuzzer reached both outcomes");
}

/* A job's parameters as one line: spaces, '%' and control characters
 * escaped in values, whole pairs only when cut. */
static void test_pairs_text(void)
{
    satin_kvlist l;
    satin_kvlist_init(&l);
    satin_kvlist_add_str(&l, "n", "30");
    satin_kvlist_add_str(&l, "tree", "T 3%\n");
    satin_kvlist_add_str(&l, "e", "");
    char line[64];
    satin_kvlist_pairs_text(&l, line, sizeof line);
    is_str(line, "n=30 tree=T%203%25%0A e=", "pairs text: space, percent sign and newline escaped");
    satin_kvlist_pairs_text(&l, line, 12);
    is_str(line, "n=30", "cut: whole pairs only");
    satin_kvlist_pairs_text(NULL, line, sizeof line);
    is_str(line, "", "no list: empty");
    satin_kvlist_free(&l);
}

int main(void)
{
    test_pairs_text();
    memset(name63, 'n', 63);
    memset(name64, 'l', 64);
    test_names();
    test_golden();
    test_roundtrip_submit();
    test_roundtrip_rest();
    test_header();
    test_size();
    test_truncation();
    test_body_rejections();
    test_encoder_limits();
    test_error_text();
    test_wire_bytes();
    test_grid();
    test_fuzz();
    return done_testing();
}
