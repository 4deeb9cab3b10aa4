/*
 * fuzz_proto.c - libFuzzer target for the wire codec (proto/satin_proto.h).
 *
 * Every message a daemon reads, from a client or from a peer, goes through
 * satin_msg_decode before anything else looks at it, so the decoder must
 * turn any bytes into either a message or an error code with a text.  What
 * it accepts must also survive the round trip the header promises: it
 * re-encodes to exactly the same two frames and decodes again to the same
 * fields.  A broken promise calls abort(), which libFuzzer reports as a
 * crash and keeps the input for.
 *
 * Input layout: a big-endian u16 P, then the header frame, then the body
 * frame.  The low 14 bits of P are the header frame's length (cut to what
 * is there, so every input means something); the top 2 bits pick the
 * max_size handed to the decoder, so that its size limits are exercised at
 * the default, at the smallest --max-record, below a header plus a little
 * body, and with no limit at all (a peer socket's limit is much larger than
 * any input here).
 *
 * Each frame is copied into a heap block of exactly its size: a read past
 * the header frame would otherwise land in the body bytes that follow it
 * in libFuzzer's buffer, unseen by AddressSanitizer.
 */
#include "fuzz_reply.h"
#include "satin_proto.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const size_t max_sizes[4] = {0, 1024, 40, SIZE_MAX};

/* ---- comparing two messages field by field -------------------------------- */

static int str_same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int bytes_same(const unsigned char *a, size_t alen, const unsigned char *b, size_t blen)
{
    if (alen != blen || !a != !b)
        return 0;
    return alen == 0 || memcmp(a, b, alen) == 0;
}

static int kvlist_same(const satin_kvlist *a, const satin_kvlist *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        const satin_kv *x = &a->items[i], *y = &b->items[i];
        /* f64 by its bits: NaN payloads and -0.0 must survive too. */
        if (!str_same(x->name, y->name) || x->type != y->type || x->i64 != y->i64 ||
            memcmp(&x->f64, &y->f64, sizeof x->f64) != 0 || !str_same(x->str, y->str))
            return 0;
    }
    return 1;
}

static int kinds_same(const satin_msg *a, const satin_msg *b)
{
    if (a->nkinds != b->nkinds)
        return 0;
    for (size_t i = 0; i < a->nkinds; i++) {
        const satin_msg_kind *x = &a->kinds[i], *y = &b->kinds[i];
        if (!str_same(x->name, y->name) || !str_same(x->summary, y->summary) ||
            x->nparams != y->nparams)
            return 0;
        for (size_t j = 0; j < x->nparams; j++)
            if (!str_same(x->params[j].name, y->params[j].name) ||
                !str_same(x->params[j].def, y->params[j].def) ||
                x->params[j].flags != y->params[j].flags ||
                !str_same(x->params[j].help, y->params[j].help))
                return 0;
    }
    return 1;
}

static int jobrecs_same(const satin_msg *a, const satin_msg *b)
{
    if (a->njobrecs != b->njobrecs)
        return 0;
    for (size_t i = 0; i < a->njobrecs; i++) {
        const satin_msg_jobrec *x = &a->jobrecs[i], *y = &b->jobrecs[i];
        if (x->owner != y->owner || x->record_id != y->record_id || x->job_id != y->job_id ||
            !str_same(x->kind, y->kind) || x->result_cap != y->result_cap ||
            !bytes_same(x->arg, x->arg_len, y->arg, y->arg_len))
            return 0;
    }
    return 1;
}

static int msg_same(const satin_msg *a, const satin_msg *b)
{
    if (a->type != b->type || a->version != b->version || a->sender != b->sender ||
        a->request_id != b->request_id || a->job_id != b->job_id || a->flags != b->flags ||
        a->status != b->status || a->code != b->code || a->elapsed_ms != b->elapsed_ms ||
        a->jobs_run != b->jobs_run || !str_same(a->kind, b->kind) ||
        !str_same(a->error, b->error) || a->nparams != b->nparams)
        return 0;
    for (size_t i = 0; i < a->nparams; i++)
        if (!str_same(a->params[i].key, b->params[i].key) ||
            !str_same(a->params[i].value, b->params[i].value))
            return 0;
    if (!kvlist_same(&a->result, &b->result) || !kvlist_same(&a->stats, &b->stats) ||
        !kvlist_same(&a->info, &b->info) || !kinds_same(a, b))
        return 0;
    if (!str_same(a->grid_name, b->grid_name) || a->node_count != b->node_count ||
        !str_same(a->node_id, b->node_id) || memcmp(a->digest, b->digest, sizeof a->digest) != 0 ||
        a->thief != b->thief || a->victim != b->victim || a->owner != b->owner ||
        a->max_jobs != b->max_jobs || a->record_id != b->record_id ||
        a->steal_id != b->steal_id || a->load != b->load || a->phase != b->phase ||
        !jobrecs_same(a, b) || !bytes_same(a->data, a->data_len, b->data, b->data_len) ||
        a->nrecord_ids != b->nrecord_ids)
        return 0;
    for (size_t i = 0; i < a->nrecord_ids; i++)
        if (a->record_ids[i] != b->record_ids[i])
            return 0;
    return 1;
}

/* ---- what the daemon relies on in a decoded message ----------------------- */

/* The header promises no NULL string where the type carries one; the
 * daemon dereferences them without looking (strcmp on a HELLO's grid
 * name, the kind of a SUBMIT, a record's argument bytes). */
static int strings_present(const satin_msg *m)
{
    switch (m->type) {
    case SATIN_MSG_SUBMIT:
        for (size_t i = 0; i < m->nparams; i++)
            if (!m->params[i].key || !m->params[i].value)
                return 0;
        return m->kind != NULL;
    case SATIN_MSG_RESULT:
        return m->kind && m->error;
    case SATIN_MSG_ERROR:
        return m->error != NULL;
    case SATIN_MSG_KINDS:
        for (size_t i = 0; i < m->nkinds; i++) {
            const satin_msg_kind *k = &m->kinds[i];
            if (!k->name || !k->summary)
                return 0;
            for (size_t j = 0; j < k->nparams; j++)
                if (!k->params[j].name || !k->params[j].def || !k->params[j].help)
                    return 0;
        }
        return 1;
    case SATIN_MSG_HELLO:
        return m->grid_name != NULL && m->node_id != NULL;
    case SATIN_MSG_STEAL_REPLY:
    case SATIN_MSG_PUSH:
        for (size_t i = 0; i < m->njobrecs; i++)
            if (!m->jobrecs[i].kind || !m->jobrecs[i].arg)
                return 0;
        return m->type != SATIN_MSG_PUSH || m->njobrecs == 1;
    case SATIN_MSG_JOB_RESULT:
        return m->error && m->data;
    default:
        return 1;
    }
}

/* A rejected message is answered with an ERROR quoting the decoder's text
 * (daemon/control.c): that reply must always be sendable. */
static void check_rejection(const satin_proto_error *err)
{
    if (err->code == SATIN_PROTO_OK ||
        strcmp(satin_proto_code_name(err->code), "unknown error") == 0 ||
        err->text[0] == '\0' || !memchr(err->text, '\0', sizeof err->text))
        abort();
    fuzz_error_reply_must_encode(err->have_header ? err->request_id : 0, err->code, err->text);
}

/* ---- the target ----------------------------------------------------------- */

static unsigned char *copy(const uint8_t *p, size_t n)
{
    unsigned char *d = malloc(n ? n : 1);
    if (!d)
        abort();
    if (n)
        memcpy(d, p, n);
    return d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    unsigned prefix = (unsigned)data[0] << 8 | data[1];
    size_t max_size = max_sizes[prefix >> 14];
    size_t hlen = prefix & 0x3FFF;
    data += 2;
    size -= 2;
    if (hlen > size)
        hlen = size;
    unsigned char *hdr = copy(data, hlen), *body = copy(data + hlen, size - hlen);
    size_t blen = size - hlen;

    satin_proto_error err;
    satin_msg *m = satin_msg_decode(hdr, hlen, body, blen, max_size, &err);
    if (!m) {
        check_rejection(&err);
    } else {
        if (err.code != SATIN_PROTO_OK || !strings_present(m) ||
            satin_msg_check(m, NULL) < 0)
            abort();
        /* The round trip: the same bytes, and the same message from them. */
        unsigned char *h2, *b2;
        size_t hl2, bl2;
        if (satin_msg_encode(m, &h2, &hl2, &b2, &bl2) < 0 ||
            !bytes_same(hdr, hlen, h2, hl2) || !bytes_same(body, blen, b2, bl2))
            abort();
        satin_msg *m2 = satin_msg_decode(h2, hl2, b2, bl2, max_size, NULL);
        if (!m2 || !msg_same(m, m2))
            abort();
        satin_msg_destroy(&m2);
        free(h2);
        free(b2);
        satin_msg_destroy(&m);
    }
    free(hdr);
    free(body);
    return 0;
}
