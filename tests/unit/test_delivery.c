/* test_delivery.c - numbering, acknowledgement and retransmission of peer
 * messages, between two nodes joined by a wire that the test controls:
 * it delivers, drops, repeats or holds each frame. */
#include "../tap.h"
#include "delivery.h"

#include <stdlib.h>
#include <string.h>

#define MS 1000000LL
#define MAX_FRAMES 256

typedef struct frame {
    int to;
    satin_delivery_stamp st;
    int bare, again;
    char text[16];
} frame;

typedef struct side {
    satin_delivery *d;
    int self;
    int full;              /* the transport refuses everything */
    frame out[MAX_FRAMES];
    int nout;
} side;

static int wire(void *ctx, int peer, const unsigned char *f, const void *hdr, size_t hlen,
                const void *body, size_t blen, satin_shared_bytes *bytes, int again)
{
    side *s = ctx;
    (void)body, (void)blen, (void)bytes;
    if (s->full || s->nout == MAX_FRAMES)
        return -1;
    frame *fr = &s->out[s->nout++];
    memset(fr, 0, sizeof *fr);
    fr->to = peer;
    satin_delivery_stamp_decode(f, SATIN_DELIVERY_FRAME_SIZE, &fr->st);
    fr->bare = hdr == NULL;
    fr->again = again;
    if (hdr)
        snprintf(fr->text, sizeof fr->text, "%.*s", (int)hlen, (const char *)hdr);
    return 0;
}

static void side_init(side *s, int self, uint64_t epoch)
{
    memset(s, 0, sizeof *s);
    s->self = self;
    s->d = satin_delivery_new(2, epoch, wire, s);
}

/* A message whose header is `text`, with an empty body, as peer.c sends
 * one: encoded into a shared buffer whose reference delivery takes. */
static int send_header(satin_delivery *d, int peer, int numbered, const char *text, int64_t now)
{
    size_t n = strlen(text);
    satin_shared_bytes *b = satin_shared_bytes_new(n);
    memcpy(satin_shared_bytes_data(b), text, n);
    return satin_delivery_send_shared(d, peer, numbered, b, n, 0, now);
}

static int send_text(side *s, int numbered, const char *text, int64_t now)
{
    return send_header(s->d, 1 - s->self, numbered, text, now);
}

/* Hands frame i of `from` to `to`; returns TAKE or DROP. */
static int deliver(side *from, int i, side *to, int64_t now)
{
    frame *f = &from->out[i];
    return satin_delivery_receive(to->d, from->self, &f->st, f->bare, now);
}

/* Delivers every frame of `from` to `to` in order; returns how many were taken. */
static int deliver_all(side *from, side *to, int64_t now)
{
    int taken = 0;
    for (int i = 0; i < from->nout; i++)
        taken += deliver(from, i, to, now) == SATIN_DELIVERY_TAKE && !from->out[i].bare;
    from->nout = 0;
    return taken;
}

static void stamps(void)
{
    satin_delivery_stamp a = {0x0102030405060708ull, 9, 0xA0B0C0D0E0F00010ull, 7}, b;
    unsigned char f[SATIN_DELIVERY_FRAME_SIZE];
    satin_delivery_stamp_encode(&a, f);
    ok(f[0] == 0x01 && f[7] == 0x08 && f[15] == 9 && f[31] == 7, "the frame is four big-endian u64");
    ok(satin_delivery_stamp_decode(f, sizeof f, &b) == 0 && memcmp(&a, &b, sizeof a) == 0,
       "a frame decodes to what was encoded");
    ok(satin_delivery_stamp_decode(f, sizeof f - 1, &b) < 0, "a 31-byte frame is refused");
    memset(f, 0, 8);
    ok(satin_delivery_stamp_decode(f, sizeof f, &b) < 0, "epoch 0 is refused");
}

static void in_order_and_acks(void)
{
    side a, b;
    side_init(&a, 0, 111);
    side_init(&b, 1, 222);
    int64_t t = 1000 * MS;

    ok(send_text(&a, 0, "steal", t) == 0, "an unnumbered message goes");
    is_i64(a.out[0].st.seq, 0, "unnumbered: seq 0");
    is_i64(a.out[0].st.epoch, 111, "every frame carries the sender's epoch");
    is_i64(a.out[0].st.ack_epoch, 0, "nothing heard from the peer: no acknowledgement");
    is_i64(deliver_all(&a, &b, t), 1, "the receiver takes it");
    is_i64(satin_delivery_tick(b.d, t + 100 * MS), INT64_MAX, "an unnumbered message owes no acknowledgement");
    is_i64(b.nout, 0, "and none is sent");

    for (int i = 0; i < 3; i++)
        send_text(&a, 1, "result", t);
    is_i64(a.out[2].st.seq, 3, "numbered 1, 2, 3");
    is_i64(satin_delivery_unacked(a.d, 1), 3, "three wait for acknowledgement");
    is_i64(satin_delivery_tick(a.d, t), t + SATIN_DELIVERY_RTO_INITIAL_NS,
           "no round trip measured yet: the timer runs for the initial 3 s");
    is_i64(deliver_all(&a, &b, t + 10 * MS), 3, "all three are taken, in order");
    is_i64(satin_delivery_tick(b.d, t + 20 * MS), t + 10 * MS + SATIN_DELIVERY_ACK_DELAY_NS,
           "the acknowledgement waits ACK_DELAY for a message to ride on");
    is_i64(b.nout, 0, "nothing sent before that");
    satin_delivery_tick(b.d, t + 10 * MS + SATIN_DELIVERY_ACK_DELAY_NS);
    ok(b.nout == 1 && b.out[0].bare, "then one acknowledgement goes alone");
    is_i64(b.out[0].st.ack, 3, "it acknowledges 3");
    is_i64(b.out[0].st.ack_epoch, 111, "for the sender's epoch");
    deliver_all(&b, &a, t + 40 * MS);
    is_i64(satin_delivery_unacked(a.d, 1), 0, "the sender forgets them");
    is_i64(satin_delivery_rto(a.d, 1), SATIN_DELIVERY_RTO_MIN_NS,
           "a 40 ms round trip keeps the timeout at its minimum");
    is_i64(satin_delivery_tick(a.d, t + 50 * MS), INT64_MAX, "nothing is due any more");

    /* An acknowledgement rides on traffic the other way. */
    send_text(&a, 1, "push", t + 100 * MS);
    deliver_all(&a, &b, t + 100 * MS);
    send_text(&b, 1, "push_ack", t + 101 * MS);
    is_i64(b.out[0].st.ack, 4, "the reply carries the acknowledgement of 4");
    deliver_all(&b, &a, t + 102 * MS);
    is_i64(satin_delivery_unacked(a.d, 1), 0, "which clears the sender's queue");
    satin_delivery_tick(b.d, t + 200 * MS);
    is_i64(b.nout, 0, "no separate acknowledgement follows");
    is_i64(satin_delivery_counters_get(b.d)->acks_alone, 1, "one acknowledgement went alone in all");
    satin_delivery_tick(a.d, t + 200 * MS);
    ok(a.nout == 1 && a.out[0].bare && a.out[0].st.ack == 1,
       "the push_ack is acknowledged in turn");
    satin_delivery_destroy(&a.d);
    satin_delivery_destroy(&b.d);
}

static void loss_and_retransmission(void)
{
    side a, b;
    side_init(&a, 0, 111);
    side_init(&b, 1, 222);
    int64_t t = 5000 * MS;
    for (int i = 0; i < 5; i++)
        send_text(&a, 1, "rec", t);
    /* The connection drops the second one. */
    int took[5];
    for (int i = 0; i < 5; i++)
        took[i] = i == 1 ? -1 : deliver(&a, i, &b, t + MS);
    ok(took[0] == SATIN_DELIVERY_TAKE, "1 is taken");
    ok(took[2] == SATIN_DELIVERY_DROP && took[3] == SATIN_DELIVERY_DROP && took[4] == SATIN_DELIVERY_DROP,
       "3, 4 and 5 come past a gap and are dropped");
    is_i64(satin_delivery_counters_get(b.d)->out_of_order, 3, "counted as out of order");
    a.nout = 0;
    satin_delivery_tick(b.d, t + MS + SATIN_DELIVERY_ACK_DELAY_NS);
    is_i64(b.out[0].st.ack, 1, "the receiver acknowledges 1 only");
    deliver_all(&b, &a, t + 30 * MS);
    is_i64(satin_delivery_unacked(a.d, 1), 4, "2 to 5 stay queued");
    int64_t due = satin_delivery_tick(a.d, t + 30 * MS);
    is_i64(due, t + 30 * MS + SATIN_DELIVERY_RTO_MIN_NS, "the timer restarted with the progress");
    satin_delivery_tick(a.d, due - 1);
    is_i64(a.nout, 0, "nothing is sent again before the timeout");
    satin_delivery_tick(a.d, due);
    is_i64(a.nout, 4, "at the timeout 2 to 5 are sent again");
    ok(a.out[0].st.seq == 2 && a.out[3].st.seq == 5 && a.out[0].again, "with their numbers, marked as resent");
    is_i64(satin_delivery_rto(a.d, 1), 2 * SATIN_DELIVERY_RTO_MIN_NS, "the timeout doubled");
    /* Deliver the resent ones twice: the copies are dropped. */
    frame copy = a.out[2];
    is_i64(deliver_all(&a, &b, due + MS), 4, "the receiver takes 2, 3, 4, 5");
    ok(satin_delivery_receive(b.d, 0, &copy.st, 0, due + MS) == SATIN_DELIVERY_DROP,
       "a copy of 4 arriving later is dropped");
    is_i64(satin_delivery_counters_get(b.d)->duplicates, 1, "and counted as a duplicate");
    satin_delivery_tick(b.d, due + MS + SATIN_DELIVERY_ACK_DELAY_NS);
    deliver_all(&b, &a, due + 40 * MS);
    is_i64(satin_delivery_unacked(a.d, 1), 0, "all acknowledged");
    is_i64(satin_delivery_rto(a.d, 1), SATIN_DELIVERY_RTO_MIN_NS,
           "no sample from resent messages; the doubling is undone");
    is_i64(satin_delivery_counters_get(a.d)->retransmissions, 4, "4 retransmissions in all");

    /* A peer that never answers: the timeout doubles up to its cap. */
    send_text(&a, 1, "rec", t);
    int64_t now = t;
    int64_t expect = SATIN_DELIVERY_RTO_MIN_NS;
    int rounds = 0;
    while (satin_delivery_rto(a.d, 1) < SATIN_DELIVERY_RTO_MAX_NS && rounds < 20) {
        int64_t next = satin_delivery_tick(a.d, now);
        if (next != now + expect && rounds > 0)
            break;
        now = next;
        satin_delivery_tick(a.d, now);
        expect = expect * 2 > SATIN_DELIVERY_RTO_MAX_NS ? SATIN_DELIVERY_RTO_MAX_NS : expect * 2;
        rounds++;
    }
    is_i64(satin_delivery_rto(a.d, 1), SATIN_DELIVERY_RTO_MAX_NS, "the timeout reaches its cap");
    is_i64(rounds, 6, "after 6 doublings (1 s to 60 s)");
    a.nout = 0;

    /* A round trip of 3 s raises the timeout above the minimum. */
    satin_delivery *c = satin_delivery_new(2, 333, wire, &a);
    send_header(c, 1, 1, "x", 0);
    satin_delivery_stamp ack = {222, 0, 333, 1};
    satin_delivery_receive(c, 1, &ack, 1, 3000 * MS);
    is_i64(satin_delivery_rto(c, 1), 3000 * MS + 4 * 1500 * MS, "srtt + 4 rttvar after one 3 s sample");
    satin_delivery_stamp bogus = {222, 0, 333, 99};
    send_header(c, 1, 1, "y", 4000 * MS);
    satin_delivery_receive(c, 1, &bogus, 1, 4001 * MS);
    is_i64(satin_delivery_unacked(c, 1), 1, "an acknowledgement of numbers never sent is ignored");
    satin_delivery_stamp other = {222, 0, 444, 2};
    satin_delivery_receive(c, 1, &other, 1, 4001 * MS);
    is_i64(satin_delivery_unacked(c, 1), 1, "and one for another epoch of ours");
    satin_delivery_destroy(&c);
    satin_delivery_destroy(&a.d);
    satin_delivery_destroy(&b.d);
}

static void transport_full(void)
{
    side a, b;
    side_init(&a, 0, 111);
    side_init(&b, 1, 222);
    a.full = 1;
    ok(send_text(&a, 0, "steal", 0) < 0, "an unnumbered message the transport refuses fails");
    ok(send_text(&a, 1, "result", 0) < 0, "a numbered one reports it too");
    is_i64(satin_delivery_unacked(a.d, 1), 1, "but stays queued");
    a.full = 0;
    satin_delivery_tick(a.d, SATIN_DELIVERY_RTO_INITIAL_NS - 1);
    is_i64(a.nout, 0, "nothing goes before the initial timeout");
    satin_delivery_tick(a.d, SATIN_DELIVERY_RTO_INITIAL_NS);
    ok(a.nout == 1 && a.out[0].st.seq == 1 && a.out[0].again, "and goes at the timeout");
    is_i64(deliver_all(&a, &b, SATIN_DELIVERY_RTO_INITIAL_NS), 1, "and arrives");
    satin_delivery_destroy(&a.d);
    satin_delivery_destroy(&b.d);
}

static void restarts(void)
{
    side a, b, b2;
    side_init(&a, 0, 111);
    side_init(&b, 1, 222);
    for (int i = 0; i < 3; i++)
        send_text(&a, 1, "result", 0);
    deliver_all(&a, &b, MS);
    send_text(&a, 1, "result", 2 * MS);
    send_text(&a, 1, "result", 2 * MS);
    a.nout = 0;   /* never arrive: b stops */
    send_text(&b, 0, "steal", 2 * MS);
    deliver_all(&b, &a, 3 * MS);
    is_i64(satin_delivery_unacked(a.d, 1), 2, "two wait for a peer that stopped");

    /* b restarts: a new epoch, nothing remembered. */
    side_init(&b2, 1, 999);
    send_text(&b2, 0, "hello", 10 * MS);
    is_i64(deliver_all(&b2, &a, 10 * MS), 1, "the new run's first message is taken");
    is_i64(satin_delivery_counters_get(a.d)->peer_restarts, 1, "a new epoch: the peer restarted");
    is_i64(satin_delivery_counters_get(a.d)->discarded, 2, "what was queued for its previous run is dropped");
    is_i64(satin_delivery_unacked(a.d, 1), 0, "nothing waits any more");
    send_text(&a, 1, "push", 11 * MS);
    is_i64(a.out[0].st.seq, 1, "numbering towards it starts again at 1");
    is_i64(a.out[0].st.ack_epoch, 999, "acknowledging its new run");
    is_i64(deliver_all(&a, &b2, 12 * MS), 1, "and the new run takes it");

    /* A late message of the previous run is stale, not a new restart. */
    frame old = {.to = 0, .st = {222, 0, 111, 0}};
    ok(satin_delivery_receive(a.d, 1, &old.st, 0, 13 * MS) == SATIN_DELIVERY_DROP,
       "a message of the previous run arriving late is dropped");
    is_i64(satin_delivery_counters_get(a.d)->stale, 1, "as stale");
    is_i64(satin_delivery_counters_get(a.d)->peer_restarts, 1, "not taken for another restart");

    /* Now a restarts while b2 still numbers towards a's previous run. */
    send_text(&b2, 1, "result", 20 * MS);
    send_text(&b2, 1, "result", 20 * MS);
    b2.nout = 0;
    side a2;
    side_init(&a2, 0, 555);
    send_text(&b2, 1, "result", 30 * MS);
    is_i64(b2.out[0].st.seq, 3, "b2 goes on with number 3");
    is_i64(deliver_all(&b2, &a2, 31 * MS), 0, "the restarted node cannot take 3 as its first");
    satin_delivery_tick(a2.d, 31 * MS + SATIN_DELIVERY_ACK_DELAY_NS);
    ok(a2.nout == 1 && a2.out[0].bare && a2.out[0].st.epoch == 555, "it answers with an acknowledgement of its new run");
    deliver_all(&a2, &b2, 60 * MS);
    is_i64(satin_delivery_counters_get(b2.d)->peer_restarts, 1, "from which b2 learns that a restarted");
    is_i64(satin_delivery_unacked(b2.d, 0), 0, "and drops the three meant for a's previous run");
    send_text(&b2, 1, "push", 61 * MS);
    is_i64(b2.out[0].st.seq, 1, "its next numbered message is 1");
    is_i64(deliver_all(&b2, &a2, 62 * MS), 1, "which the new run takes");
    satin_delivery_destroy(&a.d);
    satin_delivery_destroy(&a2.d);
    satin_delivery_destroy(&b.d);
    satin_delivery_destroy(&b2.d);
}

/* Renumbers "result" to "RESULT", leaves the rest. */
static int shout(void *ctx, int peer, const unsigned char *hdr, size_t hlen,
                 const unsigned char *body, size_t blen, satin_shared_bytes **out,
                 size_t *out_hlen, size_t *out_blen)
{
    int *calls = ctx;
    (void)peer;
    (*calls)++;
    if (hlen != 6 || memcmp(hdr, "result", 6) != 0)
        return 0;
    *out = satin_shared_bytes_new(6 + blen);
    memcpy(satin_shared_bytes_data(*out), "RESULT", 6);
    if (blen)
        memcpy(satin_shared_bytes_data(*out) + 6, body, blen);
    *out_hlen = 6;
    *out_blen = blen;
    return 1;
}

/* The grid's membership changes (SIGHUP): more peers, messages waiting
 * for acknowledgement numbered again, and what waits for a peer that
 * left dropped. */
static void membership(void)
{
    side a, b;
    side_init(&a, 0, 111);
    side_init(&b, 1, 222);
    send_text(&a, 1, "result", 0);
    send_text(&a, 1, "push", 0);
    a.nout = 0;   /* lost on the way */
    int calls = 0;
    satin_delivery_rewrite_peer(a.d, 1, shout, &calls);
    is_i64(calls, 2, "every message waiting for peer 1 is passed to the rewrite");
    satin_delivery_tick(a.d, SATIN_DELIVERY_RTO_INITIAL_NS + MS);
    ok(a.nout == 2 && strcmp(a.out[0].text, "RESULT") == 0 && a.out[0].st.seq == 1 &&
           strcmp(a.out[1].text, "push") == 0 && a.out[1].st.seq == 2,
       "the retransmission carries the new bytes, with the same numbers");
    is_i64(deliver_all(&a, &b, SATIN_DELIVERY_RTO_INITIAL_NS + 2 * MS), 2, "and both are taken");

    satin_delivery_grow(a.d, 4);
    is_i64(send_header(a.d, 3, 1, "x", 0), 0, "a peer that joined is reachable");
    is_i64(satin_delivery_unacked(a.d, 3), 1, "its messages are numbered from 1 too");
    satin_delivery_forget(a.d, 3);
    is_i64(satin_delivery_unacked(a.d, 3), 0, "what waits for a peer that left is dropped");
    satin_delivery_destroy(&a.d);
    satin_delivery_destroy(&b.d);
}

/* A transport that sends without copying: it keeps a reference to each
 * message's buffer, as ZeroMQ does until the bytes have left. */
typedef struct holder {
    satin_shared_bytes *held[4];
    int n;
} holder;

static int holding_wire(void *ctx, int peer, const unsigned char *f, const void *hdr,
                        size_t hlen, const void *body, size_t blen, satin_shared_bytes *bytes,
                        int again)
{
    holder *h = ctx;
    (void)peer, (void)f, (void)hdr, (void)hlen, (void)body, (void)blen, (void)again;
    if (bytes && h->n < 4)
        h->held[h->n++] = satin_shared_bytes_ref(bytes);
    return 0;
}

/* One encoding, shared: the queue and the transport hold the same bytes,
 * and the transport's hold outlives the acknowledgement that frees the
 * queue's (the sanitizer builds would see a use after free). */
static void shared_buffers(void)
{
    holder h = {{NULL}, 0};
    satin_delivery *d = satin_delivery_new(2, 7, holding_wire, &h);
    satin_shared_bytes *b = satin_shared_bytes_new(8);
    memcpy(satin_shared_bytes_data(b), "hdr!body", 8);
    const unsigned char *where = satin_shared_bytes_data(b);
    is_i64(satin_delivery_send_shared(d, 1, 1, b, 4, 4, 0), 0, "a shared message is taken");
    is_i64(h.n, 1, "the transport is handed it once");
    ok(h.n == 1 && satin_shared_bytes_data(h.held[0]) == where,
       "it is handed the caller's buffer itself, not a copy");
    satin_delivery_stamp ack = {.epoch = 9, .seq = 0, .ack_epoch = 7, .ack = 1};
    satin_delivery_receive(d, 1, &ack, 1, 1000);
    is_i64((int64_t)satin_delivery_unacked(d, 1), 0, "acknowledged: the queue lets go of it");
    ok(h.n == 1 && memcmp(satin_shared_bytes_data(h.held[0]), "hdr!body", 8) == 0,
       "the transport's reference still reads the whole message");
    /* Unnumbered: the queue keeps nothing, the transport's is the last. */
    b = satin_shared_bytes_new(5);
    memcpy(satin_shared_bytes_data(b), "abcde", 5);
    is_i64(satin_delivery_send_shared(d, 1, 0, b, 5, 0, 2000), 0, "an unnumbered one too");
    ok(h.n == 2 && memcmp(satin_shared_bytes_data(h.held[1]), "abcde", 5) == 0,
       "its bytes live on with the transport's reference alone");
    is_i64(satin_delivery_send_shared(d, 5, 1, satin_shared_bytes_new(3), 3, 0, 3000), -1,
           "a peer out of range: refused, and the buffer released (no leak)");
    for (int i = 0; i < h.n; i++)
        satin_shared_bytes_unref(&h.held[i]);
    ok(h.held[0] == NULL, "unref clears the caller's pointer");
    satin_delivery_destroy(&d);
}

int main(void)
{
    shared_buffers();
    stamps();
    membership();
    in_order_and_acks();
    loss_and_retransmission();
    transport_full();
    restarts();
    return done_testing();
}
