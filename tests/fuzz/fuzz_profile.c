/*
 * fuzz_profile.c - libFuzzer target for the decoder of a node's profile
 * (proto/satin_profile.c), the text a peer sends in STATS_REPLY's counters
 * and the owner reads on its control thread.
 *
 * Input layout: the text itself (cut at its first NUL, as a kvlist str
 * cannot hold one).  A text the decoder takes must be sane (events in
 * time order within START..END, none after the truncation, worker numbers
 * below W) and must encode again to a text that decodes to the same
 * profile; one it refuses must come with a reason.
 */
#include "satin_profile.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same(const satin_profile *a, const satin_profile *b)
{
    if (a->n != b->n || a->workers != b->workers || a->start != b->start || a->end != b->end ||
        a->truncated != b->truncated || a->cluster != b->cluster || strcmp(a->node, b->node))
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->ev[i].t != b->ev[i].t || a->ev[i].what != b->ev[i].what ||
            a->ev[i].n != b->ev[i].n)
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = 0;
    satin_profile p, q;
    satin_profile_init(&p);
    satin_profile_init(&q);
    char err[128] = "";
    if (satin_profile_decode(text, &p, err, sizeof err) < 0) {
        if (!err[0])
            abort();   /* a refusal says why */
    } else {
        for (size_t i = 0; i < p.n; i++) {
            const satin_profile_event *e = &p.ev[i];
            if (e->t < p.start || e->t > p.end || (i && e->t < p.ev[i - 1].t) ||
                (p.truncated != SATIN_PROFILE_WHOLE && e->t > p.truncated) ||
                ((e->what == SATIN_PROFILE_BUSY || e->what == SATIN_PROFILE_FREE) &&
                 e->n >= (uint32_t)p.workers))
                abort();
        }
        /* It came in one str, so it goes out again whole. */
        char *again = malloc(SATIN_PROFILE_MAX_TEXT + 1);
        if (!again || satin_profile_encode(&p, again, SATIN_PROFILE_MAX_TEXT + 1) < 0 ||
            satin_profile_decode(again, &q, err, sizeof err) < 0 || !same(&p, &q))
            abort();
        free(again);
    }
    satin_profile_free(&p);
    satin_profile_free(&q);
    free(text);
    return 0;
}
