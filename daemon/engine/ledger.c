/* ledger.c - remote work and who owns it (see ledger.h). */
#include "ledger.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Arrays grow by doubling; running out of memory aborts, as in satin_kv. */
static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return p;
    *cap = *cap ? *cap * 2 : 16;
    void *q = realloc(p, *cap * size);
    if (!q)
        abort();
    return q;
}

void satin_ledger_init(satin_ledger *l)
{
    memset(l, 0, sizeof *l);
    l->next_record = 1;
}

void satin_ledger_free(satin_ledger *l)
{
    free(l->given);
    for (size_t i = 0; i < l->nstandins; i++)
        satin_ledger_free_rec(&l->standins[i].rec);
    free(l->standins);
    free(l->pending);
    memset(l, 0, sizeof *l);
}

uint64_t satin_ledger_give(satin_ledger *l, void *record, const void *job, uint64_t origin,
                           int holder)
{
    l->given = grow(l->given, &l->capgiven, l->ngiven, sizeof *l->given);
    uint64_t id = l->next_record++;
    l->given[l->ngiven++] = (satin_given){.record_id = id, .record = record, .job = job,
                                          .origin = origin, .holder = holder};
    return id;
}

static void remove_given(satin_ledger *l, size_t i, satin_given *out)
{
    *out = l->given[i];
    l->ncancel_sent -= (size_t)out->cancel_sent;
    l->given[i] = l->given[--l->ngiven];
}

int satin_ledger_take_given(satin_ledger *l, uint64_t id, int holder, satin_given *out)
{
    for (size_t i = 0; i < l->ngiven; i++) {
        if (l->given[i].record_id != id)
            continue;
        if (l->given[i].holder != holder)
            return -2;
        remove_given(l, i, out);
        return 0;
    }
    return -1;
}

int satin_ledger_take_given_any(satin_ledger *l, uint64_t id, satin_given *out)
{
    for (size_t i = 0; i < l->ngiven; i++)
        if (l->given[i].record_id == id) {
            remove_given(l, i, out);
            return 0;
        }
    return -1;
}

void satin_ledger_mark_cancel_sent(satin_ledger *l, size_t i)
{
    if (!l->given[i].cancel_sent) {
        l->given[i].cancel_sent = 1;
        l->ncancel_sent++;
    }
}

int satin_ledger_cancels_owed(const satin_ledger *l)
{
    return l->ngiven > l->ncancel_sent;
}

void satin_ledger_own_arg(satin_msg_jobrec *rec)
{
    if (!rec || !rec->arg_borrowed)
        return;
    unsigned char *own = malloc(rec->arg_len ? rec->arg_len : 1);
    if (!own)
        abort();
    if (rec->arg_len)
        memcpy(own, rec->arg, rec->arg_len);
    rec->arg = own;
    rec->arg_borrowed = 0;
}

void satin_ledger_free_rec(satin_msg_jobrec **rec)
{
    if (!*rec)
        return;
    free((*rec)->kind);
    if (!(*rec)->arg_borrowed)
        free((*rec)->arg);
    free(*rec);
    *rec = NULL;
}

/* The ledger's copy of a stand-in's record: its fields and kind, and as its
 * argument the bytes the driver keeps, or else a copy of the record's. */
static satin_msg_jobrec *copy_rec(const satin_msg_jobrec *rec, const void *arg_kept)
{
    satin_msg_jobrec *c = malloc(sizeof *c);
    if (!c)
        abort();
    *c = *rec;
    c->kind = strdup(rec->kind ? rec->kind : "");
    if (!c->kind)
        abort();
    c->arg_borrowed = 1;   /* rec's bytes or the driver's, not the copy's own (yet) */
    if (arg_kept)
        c->arg = (unsigned char *)(uintptr_t)arg_kept;   /* never written through */
    else
        satin_ledger_own_arg(c);
    return c;
}

void satin_ledger_add_standin(satin_ledger *l, void *handle, int owner, uint64_t record_id,
                              const void *job, const satin_msg_jobrec *rec,
                              const void *arg_kept)
{
    satin_msg_jobrec *c = rec ? copy_rec(rec, arg_kept) : NULL;
    l->standins = grow(l->standins, &l->capstandins, l->nstandins, sizeof *l->standins);
    l->standins[l->nstandins++] = (satin_standin){handle, owner, record_id, job, c, 0, 0, 0};
}

int satin_ledger_take_standin(satin_ledger *l, void *handle, satin_standin *out)
{
    for (size_t i = 0; i < l->nstandins; i++)
        if (l->standins[i].handle == handle) {
            *out = l->standins[i];
            l->standins[i] = l->standins[--l->nstandins];
            return 0;
        }
    return -1;
}

const satin_standin *satin_ledger_find_standin(const satin_ledger *l, int owner,
                                               uint64_t record_id)
{
    for (size_t i = 0; i < l->nstandins; i++)
        if (l->standins[i].owner == owner && l->standins[i].record_id == record_id)
            return &l->standins[i];
    return NULL;
}

void satin_ledger_add_pending(satin_ledger *l, uint64_t id, int victim, unsigned flags,
                              int64_t sent_ns)
{
    l->pending = grow(l->pending, &l->cappending, l->npending, sizeof *l->pending);
    l->pending[l->npending++] = (satin_pending){id, victim, flags, sent_ns, 0, 0};
}

/* Removal keeps the order of sending, so that time-outs fire oldest first
 * and a run is the same from the same inputs. */
static void remove_pending(satin_ledger *l, size_t i, satin_pending *out)
{
    *out = l->pending[i];
    memmove(&l->pending[i], &l->pending[i + 1], (l->npending - i - 1) * sizeof *l->pending);
    l->npending--;
}

int satin_ledger_withdraw_pending(satin_ledger *l, uint64_t id)
{
    for (size_t i = 0; i < l->npending; i++)
        if (l->pending[i].id == id) {
            l->pending[i].withdrawn = 1;
            return 0;
        }
    return -1;
}

int satin_ledger_take_pending(satin_ledger *l, uint64_t id, satin_pending *out)
{
    for (size_t i = 0; i < l->npending; i++)
        if (l->pending[i].id == id) {
            remove_pending(l, i, out);
            return 0;
        }
    return -1;
}

int satin_ledger_take_pending_to(satin_ledger *l, int victim, satin_pending *out)
{
    for (size_t i = 0; i < l->npending; i++)
        if (l->pending[i].victim == victim) {
            remove_pending(l, i, out);
            return 0;
        }
    return -1;
}

int satin_ledger_take_expired(satin_ledger *l, int64_t before_ns, satin_pending *out)
{
    if (l->npending == 0 || l->pending[0].sent_ns > before_ns)
        return -1;
    remove_pending(l, 0, out);
    return 0;
}

int64_t satin_ledger_oldest_pending(const satin_ledger *l)
{
    return l->npending ? l->pending[0].sent_ns : INT64_MAX;
}
