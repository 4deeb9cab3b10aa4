/* peer.c - node-to-node transport over ZeroMQ (see peer.h). */
#include "peer.h"
#include "admission.h"
#include "delivery.h"
#include "log.h"
#include "pool.h"
#include "zframes.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include <zmq.h>

#define HEARTBEAT_IVL_MS 5000
#define HEARTBEAT_TIMEOUT_MS 30000
/* At most one HELLO per peer per second ahead of retransmissions. */
#define REGREET_NS 1000000000LL

struct satin_peers {
    const satin_roster *roster;  /* nodes are its slots; the wire uses the file's indexes */
    void *zctx;
    int self;                 /* our slot */
    int nslots;               /* the arrays' size */
    size_t max_message;
    void *router;
    void **dealer;            /* [nslots], NULL until first contact */
    int64_t *last_heard;      /* [nslots], 0 = never */
    satin_link_counters lan, wan;
    satin_security *sec;
    satin_delivery *delivery;  /* numbering, acknowledgements, retransmission */
    satin_admission *admission; /* what of the ROUTER's input reaches the engine */
    int64_t *greeted;          /* [nslots] ns: when we last sent that node a HELLO */
    int64_t *answered;         /* [nslots] ns: when we last answered its SATIN_HELLO_ASK */
    /* [nslots] The file we number what we send a node in: the one it
     * greeted us with (it may read an older or newer file than ours until
     * every node re-read it), NULL before its HELLO: our current one. */
    const satin_membership **speak;
    satin_peer_kinds *kinds;   /* what we tell of our modules and learn of theirs (not ours) */
};

/* The file we speak to `to` in, and our index there (the header's
 * sender, our routing id towards it). */
static const satin_membership *speaking(const satin_peers *p, int to)
{
    return p->speak[to] ? p->speak[to] : satin_roster_current(p->roster);
}

static int self_index(const satin_peers *p, int to)
{
    return satin_membership_index(speaking(p, to), p->self);
}

static const satin_topology *topo_of(const satin_peers *p)
{
    return satin_roster_topology(p->roster);
}

static const char *name_of(const satin_peers *p, int slot)
{
    return satin_roster_name(p->roster, slot);
}

static void grow(satin_peers *p)
{
    int n = satin_roster_nslots(p->roster);
    if (n <= p->nslots)
        return;
    p->dealer = realloc(p->dealer, (size_t)n * sizeof *p->dealer);
    p->last_heard = realloc(p->last_heard, (size_t)n * sizeof *p->last_heard);
    p->greeted = realloc(p->greeted, (size_t)n * sizeof *p->greeted);
    p->answered = realloc(p->answered, (size_t)n * sizeof *p->answered);
    p->speak = realloc(p->speak, (size_t)n * sizeof *p->speak);
    if (!p->dealer || !p->last_heard || !p->greeted || !p->answered || !p->speak)
        abort();
    for (int i = p->nslots; i < n; i++) {
        p->dealer[i] = NULL;
        p->last_heard[i] = 0;
        p->greeted[i] = 0;
        p->answered[i] = 0;
        p->speak[i] = NULL;
    }
    p->nslots = n;
    if (p->delivery)
        satin_delivery_grow(p->delivery, n);
}

static void set_int(void *s, int opt, int v)
{
    zmq_setsockopt(s, opt, &v, sizeof v);
}

/* ZeroMQ binds a tcp:// name only if it is an interface ("eth0"); the
 * topology names the host other nodes connect to, so a host name there is
 * resolved here and its address bound.  0 with the numeric endpoint in out. */
static int numeric_endpoint(const char *ep, char *out, size_t len)
{
    const char *host = ep + strlen("tcp://");
    const char *colon = strrchr(host, ':');
    if (strncmp(ep, "tcp://", 6) != 0 || !colon || host[0] == '[')
        return -1;
    char name[SATIN_ENDPOINT_MAX];
    snprintf(name, sizeof name, "%.*s", (int)(colon - host), host);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    char addr[NI_MAXHOST];
    if (getaddrinfo(name, NULL, &hints, &res) != 0 || !res)
        return -1;
    int rc = getnameinfo(res->ai_addr, res->ai_addrlen, addr, sizeof addr, NULL, 0,
                         NI_NUMERICHOST);
    int v6 = res->ai_family == AF_INET6;
    freeaddrinfo(res);
    if (rc != 0)
        return -1;
    snprintf(out, len, v6 ? "tcp://[%s]%s" : "tcp://%s%s", addr, colon);
    return 0;
}

/* This run's name in the delivery frames: a peer that sees it change knows
 * we restarted. */
static uint64_t new_epoch(void)
{
    uint64_t e = 0;
    if (getrandom(&e, sizeof e, 0) != (ssize_t)sizeof e)
        e = (uint64_t)satin_now_ns() ^ ((uint64_t)getpid() << 40);
    return e ? e : 1;
}

static int wire_send(void *ctx, int to, const unsigned char *frame, const void *hdr,
                     size_t hlen, const void *body, size_t blen, satin_shared_bytes *bytes,
                     int again);
static void greet_hook(void *ctx, int node);
static void greet_again_hook(void *ctx, int node);
static void answer_hook(void *ctx, int node);
static void greeted_hook(void *ctx, int node, const satin_membership *m,
                         const satin_msg *hello);

satin_peers *satin_peers_new(void *zctx, const satin_roster *roster, size_t max_message,
                             satin_security *sec, double request_rate)
{
    satin_peers *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    p->roster = roster;
    p->zctx = zctx;
    p->self = satin_roster_self(roster);
    p->max_message = max_message;
    grow(p);
    const satin_topology *topo = topo_of(p);
    int self = satin_roster_index(roster, p->self);
    p->sec = sec;
    p->delivery = satin_delivery_new(p->nslots, new_epoch(), wire_send, p);
    p->admission = satin_admission_new(roster, max_message, sec, p->delivery, request_rate,
                                       (satin_admission_hooks){p, greet_hook, greet_again_hook,
                                                               answer_hook, greeted_hook});
    p->router = zmq_socket(zctx, ZMQ_ROUTER);
    set_int(p->router, ZMQ_LINGER, 0);
    /* A reconnecting peer reuses its routing id (see dealer_for): the new
     * connection takes it over from the dead one. */
    set_int(p->router, ZMQ_ROUTER_HANDOVER, 1);
    int64_t maxmsg = (int64_t)max_message;
    zmq_setsockopt(p->router, ZMQ_MAXMSGSIZE, &maxmsg, sizeof maxmsg);
    satin_security_make_server(sec, p->router);
    const char *ep = topo->nodes[self].endpoint;
    char numeric[SATIN_ENDPOINT_MAX];
    int rc = zmq_bind(p->router, ep);
    if (rc < 0 && errno == ENODEV && numeric_endpoint(ep, numeric, sizeof numeric) == 0)
        rc = zmq_bind(p->router, numeric);
    if (rc < 0) {
        log_error("node %s: cannot bind peer endpoint %s: %s", topo->nodes[self].id, ep,
                  zmq_strerror(errno));
        zmq_close(p->router);
        p->router = NULL;
        satin_peers_destroy(&p);
        return NULL;
    }
    unsigned char digest[SATIN_TOPOLOGY_DIGEST_SIZE];
    char hex[16];
    satin_topology_digest(topo, digest);
    satin_topology_digest_hex(digest, hex, sizeof hex);
    log_info("node %s listening for peers on %s (grid %s: %d nodes, membership digest %s)",
             topo->nodes[self].id, ep, topo->name, topo->nnodes, hex);
    if (topo->security_none)
        log_warn("security is none: the peer endpoint %s of node %s%s takes steal requests, "
                 "records to run and results from any process that can reach it, without "
                 "authentication (for closed test networks only; use security: curve otherwise)",
                 ep, topo->nodes[self].id,
                 topo->allow_insecure_network ? ", on a network allowed by allow_insecure_network,"
                                              : "");
    return p;
}

void satin_peers_destroy(satin_peers **self)
{
    satin_peers *p = *self;
    if (!p)
        return;
    for (int i = 0; p->dealer && i < p->nslots; i++)
        if (p->dealer[i])
            zmq_close(p->dealer[i]);
    if (p->router)
        zmq_close(p->router);
    free(p->dealer);
    free(p->last_heard);
    free(p->greeted);
    free(p->answered);
    free(p->speak);
    satin_admission_destroy(&p->admission);
    satin_delivery_destroy(&p->delivery);
    free(p);
    *self = NULL;
}

void *satin_peers_socket(satin_peers *self)
{
    return self->router;
}

/* A node that left counts as wide-area: nothing more goes to it anyway. */
static int is_wan(const satin_peers *p, int node)
{
    const satin_node_def *n = satin_roster_node(p->roster, node);
    return !n || n->cluster != satin_roster_node(p->roster, p->self)->cluster;
}

static void *dealer_for(satin_peers *p, int to);
static void greet(satin_peers *p, int to);
static void greet_again(satin_peers *p, int to, unsigned flags);

/* A body this large goes to ZeroMQ without a copy: its message points
 * into the shared encoding and holds a reference until the bytes have left.
 * Below it, copying is cheaper than ZeroMQ's allocation and callback. */
#define ZERO_COPY_MIN 4096

/* The body frame, last: from the shared buffer when it is large.  0 when
 * ZeroMQ copied it, 1 when it took the buffer itself, -1 when not taken. */
static int send_body(void *s, const void *body, size_t blen, satin_shared_bytes *bytes)
{
    if (!bytes || blen < ZERO_COPY_MIN)
        return zmq_send(s, body, blen, ZMQ_DONTWAIT) < 0 ? -1 : 0;
    zmq_msg_t m;
    satin_shared_bytes_ref(bytes);
    if (zmq_msg_init_data(&m, (void *)(uintptr_t)body, blen, satin_shared_bytes_release,
                          bytes) < 0) {
        satin_shared_bytes_unref(&bytes);
        return -1;
    }
    if (zmq_msg_send(&m, s, ZMQ_DONTWAIT) < 0) {
        int e = errno;
        zmq_msg_close(&m);   /* not taken: still ours, and closing releases the reference */
        errno = e;
        return -1;
    }
    return 1;
}

/* satin_delivery's way onto the wire: [delivery frame][header][body], or
 * the delivery frame alone (an acknowledgement). */
static int wire_send(void *ctx, int to, const unsigned char *frame, const void *hdr,
                     size_t hlen, const void *body, size_t blen, satin_shared_bytes *bytes,
                     int again)
{
    satin_peers *p = ctx;
    satin_link_counters *c = is_wan(p, to) ? &p->wan : &p->lan;
    /* Unacknowledged long enough to be sent again: the peer may be a new
     * run that never heard our HELLO on this connection (ZeroMQ reconnected
     * to it silently), and would drop everything else.  Greet it first. */
    if (again && hdr)
        greet_again(p, to, 0);
    void *s = dealer_for(p, to);
    int rc = -1;
    if (s && !hdr)
        rc = zmq_send(s, frame, SATIN_DELIVERY_FRAME_SIZE, ZMQ_DONTWAIT) < 0 ? -1 : 0;
    else if (s)
        rc = zmq_send(s, frame, SATIN_DELIVERY_FRAME_SIZE, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0 ||
                     zmq_send(s, hdr, hlen, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0
                 ? -1
                 : send_body(s, body, blen, bytes);
    if (rc < 0) {
        c->send_failures++;
        log_debug("a message to node %s was not taken: %s", name_of(p, to),
                  s ? zmq_strerror(errno) : "no connection");
        return -1;
    }
    c->bytes_sent += SATIN_DELIVERY_FRAME_SIZE + hlen + blen;
    if (!hdr)
        c->acks_sent++;
    else if (again)
        c->retransmissions++;
    if (rc == 1)
        c->zero_copy_sends++;
    return 0;
}

/* The messages whose loss would lose work or leave a node waiting for
 * ever: numbered, acknowledged, sent again until they arrive.  The rest
 * have timeouts of their own (a steal request, an empty reply) or are
 * repeated anyway (load reports). */
static int is_numbered(const satin_msg *m)
{
    switch (m->type) {
    case SATIN_MSG_STEAL_REPLY:
        return m->njobrecs > 0;
    case SATIN_MSG_PUSH:
    case SATIN_MSG_PUSH_ACK:
    case SATIN_MSG_JOB_RESULT:
    case SATIN_MSG_JOB_CANCEL:
    case SATIN_MSG_VALUES:   /* behind the STEAL_REPLY whose records they go with */
    case SATIN_MSG_ORPHAN:   /* a result or a promise others wait for, or its withdrawal */
        return 1;
    default:
        return 0;
    }
}

/* ---- numbering: our slots inside, the file's indexes on the wire ---------------- */

typedef struct renumber {
    const satin_membership *m;
    int to_wire;                   /* 1: slots to m's indexes; 0: m's indexes to slots */
    int done, limit;               /* fields renumbered so far; stop at limit (-1: none) */
} renumber;

static int renumber_one(void *ctx, uint32_t *node)
{
    renumber *r = ctx;
    if (r->limit >= 0 && r->done >= r->limit)
        return -1;
    int v;
    if (r->to_wire)
        v = satin_membership_index(r->m, (int)*node);
    else
        v = *node < (uint32_t)r->m->topo->nnodes ? r->m->slot_of[*node] : -1;
    if (v < 0)
        return -1;
    *node = (uint32_t)v;
    r->done++;
    return 0;
}

/* The node numbers of a message read in `from`'s numbering, as our slots:
 * 0, or -1 when one names a node we do not know. */
static int to_slots(satin_msg *m, const satin_membership *from)
{
    renumber r = {from, 0, 0, -1};
    return satin_msg_each_node(m, renumber_one, &r);
}

/* Encodes m (numbered by our slots) in `in`'s numbering, header and body
 * in one shared buffer, and leaves m as it was (the engine may send the
 * same message to several peers).  -2 when m names a node `in` does not
 * list, -1 when the codec refuses it. */
static int encode_in(satin_peers *p, const satin_membership *in, satin_msg *m,
                     satin_shared_bytes **out, size_t *hlen, size_t *blen)
{
    *out = NULL;
    renumber there = {in, 1, 0, -1};
    int ok = satin_msg_each_node(m, renumber_one, &there) == 0;
    m->sender = (uint32_t)satin_membership_index(in, p->self);
    int rc = ok ? satin_msg_encoded_size(m, hlen, blen) : -2;
    if (rc == 0) {
        *out = satin_shared_bytes_new(*hlen + *blen);
        rc = satin_msg_encode_to(m, satin_shared_bytes_data(*out), *hlen, *blen);
        if (rc < 0)
            satin_shared_bytes_unref(out);
    }
    /* Back to slots: the fields renumbered, and no further. */
    renumber back = {in, 0, 0, there.done};
    satin_msg_each_node(m, renumber_one, &back);
    m->sender = (uint32_t)p->self;
    return rc;
}

static int send_msg(satin_peers *p, int to, satin_msg *m)
{
    satin_shared_bytes *bytes;
    size_t hlen, blen;
    satin_link_counters *c = is_wan(p, to) ? &p->wan : &p->lan;
    int rc0 = encode_in(p, speaking(p, to), m, &bytes, &hlen, &blen);
    if (rc0 == -2) {
        log_debug("a %s for node %s names a node its file does not list: not sent",
                  satin_msg_type_name(m->type), name_of(p, to));
        c->send_failures++;
        return -1;
    }
    if (rc0 < 0) {
        log_error("cannot encode a %s for node %s", satin_msg_type_name(m->type),
                  name_of(p, to));
        c->send_failures++;
        return -1;
    }
    int numbered = is_numbered(m);
    /* The buffer goes to delivery (kept until acknowledged) and, for a
     * large body, to ZeroMQ as it is: the record's bytes are copied once,
     * by the encoder. */
    int rc = satin_delivery_send_shared(p->delivery, to, numbered, bytes, hlen, blen,
                                        satin_now_ns());
    if (rc == 0 || numbered)
        c->msgs_sent++;
    /* A numbered message the transport could not take yet is queued, not lost. */
    return numbered ? 0 : rc;
}

/* The DEALER to `to`, opened (and greeted with HELLO) on first use. */
static void *dealer_for(satin_peers *p, int to)
{
    if (p->dealer[to])
        return p->dealer[to];
    if (satin_roster_index(p->roster, to) < 0 || self_index(p, to) < 0)
        return NULL;   /* it left: nothing goes to it */
    void *s = zmq_socket(p->zctx, ZMQ_DEALER);
    /* Linger a little so that results and replies sent just before a clean
     * stop still leave.  ZeroMQ heartbeats notice a dead connection (a peer
     * host gone without closing); they are sparse and patient on purpose:
     * every connection pays for them, and a node starved of CPU or behind a
     * congested link must not see its connections dropped and re-opened. */
    set_int(s, ZMQ_LINGER, 100);
    set_int(s, ZMQ_HEARTBEAT_IVL, HEARTBEAT_IVL_MS);
    set_int(s, ZMQ_HEARTBEAT_TIMEOUT, HEARTBEAT_TIMEOUT_MS);
    set_int(s, ZMQ_SNDHWM, 10000);
    /* A fixed routing id per sending node: when ZeroMQ silently re-opens a
     * connection (heartbeat timeout, a partition), the peer's ROUTER sees the
     * same id again, so the HELLO that bound it to this node still holds.
     * What the dropped connection still carried is lost: satin_delivery
     * sends the numbered messages among it again. */
    unsigned char rid[SATIN_NODE_RID_MAX];
    size_t rid_len = satin_node_rid(name_of(p, p->self), rid);
    zmq_setsockopt(s, ZMQ_ROUTING_ID, rid, rid_len);
    satin_security_make_client(p->sec, s, satin_roster_node(p->roster, to)->public_key);
    /* Through satin-wanem's relay when the topology emulates the wide-area
     * link to that node's cluster; policies never know. */
    char endpoint[SATIN_ENDPOINT_MAX];
    satin_topology_peer_endpoint(topo_of(p), satin_roster_index(p->roster, p->self),
                                 satin_roster_index(p->roster, to),
                                 endpoint, sizeof endpoint);
    if (zmq_connect(s, endpoint) < 0) {
        log_error("cannot connect to node %s at %s: %s", name_of(p, to), endpoint,
                  zmq_strerror(errno));
        zmq_close(s);
        return NULL;
    }
    p->dealer[to] = s;
    greet(p, to);
    return s;
}

/* HELLO, which binds our connection to our node index at the peer;
 * `flags` SATIN_HELLO_ASK asks it to greet us too. */
static void greet_flags(satin_peers *p, int to, unsigned flags)
{
    p->greeted[to] = satin_now_ns();
    satin_msg *hello = satin_msg_new(SATIN_MSG_HELLO);
    hello->flags = flags;
    const satin_membership *m = speaking(p, to);
    satin_msg_set_grid_name(hello, m->topo->name);
    hello->node_count = (uint32_t)m->topo->nnodes;
    satin_msg_set_node_id(hello, name_of(p, p->self));
    memcpy(hello->digest, m->digest, sizeof hello->digest);
    if (p->kinds)
        satin_peer_kinds_describe(p->kinds, hello);
    send_msg(p, to, hello);
    satin_msg_destroy(&hello);
}

static void greet(satin_peers *p, int to)
{
    greet_flags(p, to, 0);
}

/* HELLO once more, at most once per REGREET_NS per peer. */
static void greet_again(satin_peers *p, int to, unsigned flags)
{
    if (satin_now_ns() - p->greeted[to] > REGREET_NS)
        greet_flags(p, to, flags);
}

static void greet_hook(void *ctx, int node)
{
    greet(ctx, node);
}

/* Its messages came on a connection that did not greet us: we greet it,
 * and ask it to greet us (it may not know that we re-read our file). */
static void greet_again_hook(void *ctx, int node)
{
    greet_again(ctx, node, SATIN_HELLO_ASK);
}

/* It asked: at most once per REGREET_NS, whatever else we sent it. */
static void answer_hook(void *ctx, int node)
{
    satin_peers *p = ctx;
    int64_t now = satin_now_ns();
    if (now - p->answered[node] > REGREET_NS) {
        p->answered[node] = now;
        greet(p, node);
    }
}

/* ---- a new membership ------------------------------------------------------------ */

typedef struct rewrite_ctx {
    satin_peers *p;
    const satin_membership *from, *to;
} rewrite_ctx;

/* A message waiting for acknowledgement, numbered as `from`: numbered
 * again as `to` (a retransmission is read with the HELLO the peer last had
 * from us, which will be in `to`). */
static int rewrite_queued(void *ctx, int peer, const unsigned char *hdr, size_t hlen,
                          const unsigned char *body, size_t blen, satin_shared_bytes **out,
                          size_t *out_hlen, size_t *out_blen)
{
    (void)peer;
    rewrite_ctx *w = ctx;
    satin_proto_error err;
    satin_msg *m = satin_msg_decode_borrowed(hdr, hlen, body, blen, w->p->max_message, &err);
    int rc = m && to_slots(m, w->from) == 0 &&
             encode_in(w->p, w->to, m, out, out_hlen, out_blen) == 0;
    satin_msg_destroy(&m);
    return rc;
}

static void close_dealer(satin_peers *p, int slot)
{
    if (p->dealer[slot]) {
        zmq_close(p->dealer[slot]);
        p->dealer[slot] = NULL;
    }
}

/* We speak to `node` in `now` from here on, after `was`: what waits for its
 * acknowledgement is numbered anew, and it is greeted in `now`. */
static void change_speech(satin_peers *p, int node, const satin_membership *was,
                          const satin_membership *now)
{
    if (was == now)
        return;
    rewrite_ctx w = {p, was, now};
    satin_delivery_rewrite_peer(p->delivery, node, rewrite_queued, &w);
    if (p->dealer[node])
        greet(p, node);
}

/* Admission took a HELLO of `node` in membership m: we answer in it, and
 * learn its kinds. */
static void greeted_hook(void *ctx, int node, const satin_membership *m, const satin_msg *hello)
{
    satin_peers *p = ctx;
    if (p->kinds)
        satin_peer_kinds_heard(p->kinds, node, hello->node_id, hello);
    const satin_membership *was = speaking(p, node);
    p->speak[node] = m;
    change_speech(p, node, was, m);
}

void satin_peers_membership_changed(satin_peers *p, const satin_membership *before)
{
    grow(p);
    satin_admission_membership_changed(p->admission);
    for (int i = 0; i < before->topo->nnodes; i++) {
        int s = before->slot_of[i];
        const satin_node_def *was = &before->topo->nodes[i], *now = satin_roster_node(p->roster, s);
        /* A node that left, moved, or took another key is reached anew; one
         * that left is not reached at all. */
        if (!now || strcmp(was->endpoint, now->endpoint) != 0 ||
            strcmp(was->public_key, now->public_key) != 0)
            close_dealer(p, s);
        if (!now)
            satin_delivery_forget(p->delivery, s);
    }
    /* Every peer is spoken to in the new file from now on.  One that has
     * not read it yet drops our HELLO, then greets us in its own (its
     * retransmissions, or our messages on its connection, make it), and we
     * answer in that one (greeted_hook): so the grid converges on the new
     * file while nodes re-read it one by one, and never stops talking. */
    for (int s = 0; s < p->nslots; s++) {
        if (s == p->self || satin_roster_index(p->roster, s) < 0)
            continue;
        const satin_membership *was = p->speak[s] ? p->speak[s] : before;
        p->speak[s] = NULL;
        change_speech(p, s, was, satin_roster_current(p->roster));
    }
}

void satin_peers_set_kinds(satin_peers *p, satin_peer_kinds *kinds)
{
    p->kinds = kinds;
}

int satin_peers_send(satin_peers *p, int to, satin_msg *m)
{
    if (to < 0 || to >= p->nslots || to == p->self || satin_roster_index(p->roster, to) < 0)
        return -1;
    return send_msg(p, to, m);
}

int64_t satin_peers_tick(satin_peers *p)
{
    return satin_delivery_tick(p->delivery, satin_now_ns());
}

/* The frames' bytes and the connection's key, for admission. */
static void admit_ctx_fill(satin_admit_ctx *c, zmq_msg_t *part, int n, int extra)
{
    satin_admit_ctx_init(c, satin_now_ns());
    for (int i = 0; i < n; i++)
        c->frame[i] = (satin_wire_frame){zmq_msg_data(&part[i]), zmq_msg_size(&part[i])};
    c->nframes = n;
    c->extra = extra;
    c->key = satin_security_key_of(&part[n - 1]);
}

static void close_kept_frame(void *frame)
{
    zmq_msg_close(frame);
    free(frame);
}

/* The message's records point into its body frame (decoded borrowed): the
 * frame moves to the message and is closed with it. */
static void keep_body(satin_msg *m, zmq_msg_t *body)
{
    zmq_msg_t *kept = malloc(sizeof *kept);
    if (!kept)
        abort();
    zmq_msg_init(kept);
    zmq_msg_move(kept, body);
    if (satin_msg_keep(m, close_kept_frame, kept) < 0)
        abort();   /* a message just decoded keeps nothing yet */
}

satin_msg *satin_peers_recv(satin_peers *p, int *bad)
{
    *bad = 0;
    for (;;) {
        zmq_msg_t part[SATIN_ADMIT_FRAMES];
        int extra, n = satin_zframes_recv(p->router, part, SATIN_ADMIT_FRAMES, &extra);
        if (n == 0)
            return NULL;
        satin_admit_ctx c;
        admit_ctx_fill(&c, part, n, extra);
        satin_admit_verdict v = satin_admission_run(p->admission, &c);
        size_t bytes = satin_zframes_size(part, n);
        if (v == SATIN_ADMIT_ACCEPT && c.msg && n == SATIN_ADMIT_FRAMES)
            keep_body(c.msg, &part[n - 1]);
        satin_zframes_close(part, n);
        if (v == SATIN_ADMIT_ACCEPT || v == SATIN_ADMIT_CONSUMED)
            p->last_heard[c.node] = c.now;
        if (v == SATIN_ADMIT_ACCEPT && to_slots(c.msg, c.membership) < 0) {
            /* A node its file has and ours never had (it read a newer one). */
            satin_admission_reject(p->admission, SATIN_REJECT_UNKNOWN_INDEX,
                                   satin_msg_type_name(c.msg->type), "in its body");
            satin_msg_destroy(&c.msg);
            *bad = 1;
            continue;
        }
        if (v == SATIN_ADMIT_ACCEPT) {
            c.msg->sender = (uint32_t)c.node;
            satin_link_counters *lc = is_wan(p, c.node) ? &p->wan : &p->lan;
            lc->msgs_received++;
            lc->bytes_received += bytes;
            return c.msg;
        }
        if (v == SATIN_ADMIT_REJECT)
            *bad = 1;
        /* Keep reading: one bad message must not starve the good ones. */
    }
}

int satin_peers_alive(const satin_peers *p)
{
    int n = 0;
    for (int i = 0; i < p->nslots; i++)
        n += p->last_heard[i] != 0;
    return n;
}

uint64_t satin_peers_epoch(const satin_peers *p, int node)
{
    return satin_delivery_peer_epoch(p->delivery, node);
}

int64_t satin_peers_last_heard(const satin_peers *p, int node)
{
    return p->last_heard[node];
}

const satin_link_counters *satin_peers_counters(const satin_peers *p, int wan)
{
    return wan ? &p->wan : &p->lan;
}

uint64_t satin_peers_bad_messages(const satin_peers *p)
{
    return satin_admission_bad(p->admission);
}

uint64_t satin_peers_refused_messages(const satin_peers *p)
{
    return satin_admission_routine(p->admission);
}

const satin_admission *satin_peers_admission(const satin_peers *p)
{
    return p->admission;
}

const satin_delivery_counters *satin_peers_delivery(const satin_peers *p)
{
    return satin_delivery_counters_get(p->delivery);
}

size_t satin_peers_unacked(const satin_peers *p, int64_t heard_within_ns)
{
    int64_t now = satin_now_ns();
    size_t n = 0;
    for (int i = 0; i < p->nslots; i++)
        if (p->last_heard[i] && now - p->last_heard[i] <= heard_within_ns)
            n += satin_delivery_unacked(p->delivery, i);
    return n;
}

uint64_t satin_peers_rate_dropped(const satin_peers *p)
{
    return satin_admission_count(p->admission, SATIN_REJECT_RATE);
}

void satin_peers_note_bad(satin_peers *p, const char *what, int node)
{
    satin_admission_note_bad(p->admission, what, node);
}
