/* delivery.c - numbered, acknowledged peer messages (see delivery.h). */
#include "delivery.h"
#include "shared_bytes.h"

#include <stdlib.h>
#include <string.h>

typedef struct pending {
    uint64_t seq;
    satin_shared_bytes *bytes;  /* header then body, one allocation, shared with the transport */
    size_t hlen, blen;
    int64_t first_ns;
    int resent;               /* Karn: no round-trip sample from a resent message */
} pending;

typedef struct peer_state {
    /* towards the peer */
    uint64_t next_seq;
    pending *q;               /* unacknowledged, oldest first */
    size_t n, cap;
    int64_t timer_ns;         /* when the retransmission timer (re)started */
    int64_t srtt, rttvar, rto;
    int have_rtt;
    /* from the peer */
    uint64_t epoch, prev_epoch;
    uint64_t expected;        /* the next number we take */
    int owe_ack;
    int64_t ack_due;
} peer_state;

struct satin_delivery {
    int npeers;
    uint64_t epoch;
    satin_delivery_send_fn send;
    void *ctx;
    peer_state *peers;
    satin_delivery_counters c;
};

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (unsigned char)v;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

void satin_delivery_stamp_encode(const satin_delivery_stamp *s,
                                 unsigned char out[SATIN_DELIVERY_FRAME_SIZE])
{
    put_u64(out, s->epoch);
    put_u64(out + 8, s->seq);
    put_u64(out + 16, s->ack_epoch);
    put_u64(out + 24, s->ack);
}

int satin_delivery_stamp_decode(const void *frame, size_t len, satin_delivery_stamp *s)
{
    if (len != SATIN_DELIVERY_FRAME_SIZE)
        return -1;
    const unsigned char *p = frame;
    s->epoch = get_u64(p);
    s->seq = get_u64(p + 8);
    s->ack_epoch = get_u64(p + 16);
    s->ack = get_u64(p + 24);
    return s->epoch ? 0 : -1;
}

static void reset_sending(peer_state *ps)
{
    for (size_t i = 0; i < ps->n; i++)
        satin_shared_bytes_unref(&ps->q[i].bytes);
    ps->n = 0;
    ps->next_seq = 1;
    ps->have_rtt = 0;
    ps->srtt = ps->rttvar = 0;
    ps->rto = SATIN_DELIVERY_RTO_INITIAL_NS;
}

static void init_peer(peer_state *ps)
{
    reset_sending(ps);
    ps->expected = 1;
}

satin_delivery *satin_delivery_new(int npeers, uint64_t epoch, satin_delivery_send_fn send,
                                   void *ctx)
{
    satin_delivery *d = calloc(1, sizeof *d);
    if (!d)
        abort();
    d->npeers = npeers;
    d->epoch = epoch ? epoch : 1;
    d->send = send;
    d->ctx = ctx;
    d->peers = calloc((size_t)(npeers > 0 ? npeers : 1), sizeof *d->peers);
    if (!d->peers)
        abort();
    for (int i = 0; i < npeers; i++)
        init_peer(&d->peers[i]);
    return d;
}

void satin_delivery_destroy(satin_delivery **self)
{
    satin_delivery *d = *self;
    if (!d)
        return;
    for (int i = 0; i < d->npeers; i++) {
        reset_sending(&d->peers[i]);
        free(d->peers[i].q);
    }
    free(d->peers);
    free(d);
    *self = NULL;
}

/* The frame for a message to `ps` now: our run, its number, and what we
 * took from the peer so far. */
static void stamp_for(const satin_delivery *d, const peer_state *ps, uint64_t seq,
                      unsigned char frame[SATIN_DELIVERY_FRAME_SIZE])
{
    satin_delivery_stamp s = {
        .epoch = d->epoch,
        .seq = seq,
        .ack_epoch = ps->epoch,
        .ack = ps->epoch ? ps->expected - 1 : 0,
    };
    satin_delivery_stamp_encode(&s, frame);
}

static int transmit(satin_delivery *d, int peer, uint64_t seq, satin_shared_bytes *bytes,
                    size_t hlen, size_t blen, int again)
{
    peer_state *ps = &d->peers[peer];
    unsigned char frame[SATIN_DELIVERY_FRAME_SIZE];
    stamp_for(d, ps, seq, frame);
    const unsigned char *hdr = bytes ? satin_shared_bytes_data(bytes) : NULL;
    int rc = d->send(d->ctx, peer, frame, hdr, hlen, hdr ? hdr + hlen : NULL, blen, bytes,
                     again);
    if (rc == 0)
        ps->owe_ack = 0; /* the acknowledgement rode along */
    return rc;
}

int satin_delivery_send_shared(satin_delivery *d, int peer, int numbered,
                               satin_shared_bytes *bytes, size_t hlen, size_t blen,
                               int64_t now_ns)
{
    if (peer < 0 || peer >= d->npeers) {
        satin_shared_bytes_unref(&bytes);
        return -1;
    }
    if (!numbered) {
        int rc = transmit(d, peer, 0, bytes, hlen, blen, 0);
        satin_shared_bytes_unref(&bytes);
        return rc;
    }
    peer_state *ps = &d->peers[peer];
    if (ps->n == ps->cap) {
        ps->cap = ps->cap ? 2 * ps->cap : 8;
        ps->q = realloc(ps->q, ps->cap * sizeof *ps->q);
        if (!ps->q)
            abort();
    }
    pending *pm = &ps->q[ps->n];
    pm->seq = ps->next_seq++;
    pm->bytes = bytes;   /* the caller's reference, kept until acknowledged */
    pm->hlen = hlen;
    pm->blen = blen;
    pm->first_ns = now_ns;
    pm->resent = 0;
    if (ps->n++ == 0)
        ps->timer_ns = now_ns;
    if (ps->n > d->c.unacked_max)
        d->c.unacked_max = ps->n;
    d->c.numbered++;
    return transmit(d, peer, pm->seq, pm->bytes, hlen, blen, 0);
}

static void measured(peer_state *ps, int64_t sample)
{
    if (!ps->have_rtt) {
        ps->srtt = sample;
        ps->rttvar = sample / 2;
        ps->have_rtt = 1;
    } else {
        int64_t err = ps->srtt - sample;
        ps->rttvar += ((err < 0 ? -err : err) - ps->rttvar) / 4;
        ps->srtt += (sample - ps->srtt) / 8;
    }
}

static void take_ack(peer_state *ps, uint64_t ack, int64_t now_ns)
{
    /* Numbers we never sent: a confused or stale acknowledgement. */
    if (ack >= ps->next_seq || ps->n == 0 || ack < ps->q[0].seq)
        return;
    size_t k = 0;
    int64_t sample = -1;
    while (k < ps->n && ps->q[k].seq <= ack) {
        if (!ps->q[k].resent)
            sample = now_ns - ps->q[k].first_ns;
        satin_shared_bytes_unref(&ps->q[k].bytes);
        k++;
    }
    memmove(ps->q, ps->q + k, (ps->n - k) * sizeof *ps->q);
    ps->n -= k;
    if (sample >= 0)
        measured(ps, sample);
    int64_t rto = ps->have_rtt ? ps->srtt + 4 * ps->rttvar : SATIN_DELIVERY_RTO_INITIAL_NS;
    ps->rto = rto < SATIN_DELIVERY_RTO_MIN_NS   ? SATIN_DELIVERY_RTO_MIN_NS
              : rto > SATIN_DELIVERY_RTO_MAX_NS ? SATIN_DELIVERY_RTO_MAX_NS
                                                : rto;
    ps->timer_ns = now_ns;
}

static void owe(peer_state *ps, int64_t now_ns)
{
    if (!ps->owe_ack) {
        ps->owe_ack = 1;
        ps->ack_due = now_ns + SATIN_DELIVERY_ACK_DELAY_NS;
    }
}

int satin_delivery_receive(satin_delivery *d, int peer, const satin_delivery_stamp *st,
                           int bare, int64_t now_ns)
{
    if (peer < 0 || peer >= d->npeers || st->epoch == 0)
        return SATIN_DELIVERY_DROP;
    peer_state *ps = &d->peers[peer];
    if (st->epoch != ps->epoch) {
        /* Left behind by a run that has ended (an old connection's last
         * messages arriving after the new run's first ones). */
        if (st->epoch == ps->prev_epoch) {
            d->c.stale++;
            return SATIN_DELIVERY_DROP;
        }
        if (ps->epoch) {
            /* The peer restarted: what we queued for its previous run
             * answers questions nobody is asking any more. */
            d->c.peer_restarts++;
            d->c.discarded += ps->n;
            reset_sending(ps);
            ps->prev_epoch = ps->epoch;
        }
        ps->epoch = st->epoch;
        ps->expected = 1;
        ps->owe_ack = 0;
    }
    if (st->ack_epoch == d->epoch)
        take_ack(ps, st->ack, now_ns);
    if (bare)
        return SATIN_DELIVERY_DROP;
    if (st->seq == 0)
        return SATIN_DELIVERY_TAKE;
    /* Numbered: take only the next in sequence; anything else says where we
     * are, so that the sender can stop or go back. */
    owe(ps, now_ns);
    if (st->seq == ps->expected) {
        ps->expected++;
        return SATIN_DELIVERY_TAKE;
    }
    if (st->seq < ps->expected)
        d->c.duplicates++;
    else
        d->c.out_of_order++;
    return SATIN_DELIVERY_DROP;
}

static void retransmit_all(satin_delivery *d, int peer, int64_t now_ns)
{
    peer_state *ps = &d->peers[peer];
    for (size_t i = 0; i < ps->n; i++) {
        pending *pm = &ps->q[i];
        pm->resent = 1;
        d->c.retransmissions++;
        if (transmit(d, peer, pm->seq, pm->bytes, pm->hlen, pm->blen, 1) < 0)
            break; /* the transport is full: the rest waits for the next round */
    }
    ps->timer_ns = now_ns;
    ps->rto = ps->rto * 2 > SATIN_DELIVERY_RTO_MAX_NS ? SATIN_DELIVERY_RTO_MAX_NS : ps->rto * 2;
}

int64_t satin_delivery_tick(satin_delivery *d, int64_t now_ns)
{
    int64_t next = INT64_MAX;
    for (int i = 0; i < d->npeers; i++) {
        peer_state *ps = &d->peers[i];
        if (ps->n && ps->timer_ns + ps->rto <= now_ns)
            retransmit_all(d, i, now_ns);
        if (ps->owe_ack && ps->ack_due <= now_ns) {
            if (transmit(d, i, 0, NULL, 0, 0, 0) == 0)
                d->c.acks_alone++;
            else
                ps->ack_due = now_ns + SATIN_DELIVERY_ACK_DELAY_NS;
        }
        if (ps->n && ps->timer_ns + ps->rto < next)
            next = ps->timer_ns + ps->rto;
        if (ps->owe_ack && ps->ack_due < next)
            next = ps->ack_due;
    }
    return next;
}

size_t satin_delivery_unacked(const satin_delivery *d, int peer)
{
    return peer >= 0 && peer < d->npeers ? d->peers[peer].n : 0;
}

int64_t satin_delivery_rto(const satin_delivery *d, int peer)
{
    return peer >= 0 && peer < d->npeers ? d->peers[peer].rto : 0;
}

const satin_delivery_counters *satin_delivery_counters_get(const satin_delivery *d)
{
    return &d->c;
}

void satin_delivery_grow(satin_delivery *d, int npeers)
{
    if (npeers <= d->npeers)
        return;
    peer_state *p = realloc(d->peers, (size_t)npeers * sizeof *p);
    if (!p)
        abort();
    memset(p + d->npeers, 0, (size_t)(npeers - d->npeers) * sizeof *p);
    d->peers = p;
    for (int i = d->npeers; i < npeers; i++)
        init_peer(&d->peers[i]);
    d->npeers = npeers;
}

void satin_delivery_forget(satin_delivery *d, int peer)
{
    if (peer < 0 || peer >= d->npeers)
        return;
    d->c.discarded += d->peers[peer].n;
    for (size_t i = 0; i < d->peers[peer].n; i++)
        satin_shared_bytes_unref(&d->peers[peer].q[i].bytes);
    d->peers[peer].n = 0;
}

void satin_delivery_rewrite_peer(satin_delivery *d, int peer, satin_delivery_rewrite_fn fn,
                                 void *ctx)
{
    if (peer < 0 || peer >= d->npeers)
        return;
    for (size_t k = 0; k < d->peers[peer].n; k++) {
        pending *q = &d->peers[peer].q[k];
        satin_shared_bytes *out = NULL;
        size_t hlen = 0, blen = 0;
        const unsigned char *was = satin_shared_bytes_data(q->bytes);
        if (fn(ctx, peer, was, q->hlen, was + q->hlen, q->blen, &out, &hlen, &blen) == 1) {
            satin_shared_bytes_unref(&q->bytes);
            q->bytes = out;
            q->hlen = hlen;
            q->blen = blen;
        }
    }
}

uint64_t satin_delivery_peer_epoch(const satin_delivery *d, int peer)
{
    return peer >= 0 && peer < d->npeers ? d->peers[peer].epoch : 0;
}
