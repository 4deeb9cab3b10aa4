/* peer.c - node-to-node transport over ZeroMQ (see peer.h). */
#include "peer.h"
#include "delivery.h"
#include "log.h"
#include "pool.h"

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
    const satin_topology *topo;
    void *zctx;
    int self;
    size_t max_message;
    void *router;
    void **dealer;            /* [nnodes], NULL until first contact */
    int64_t *last_heard;      /* [nnodes], 0 = never */
    /* Connections that said a good HELLO, by ROUTER routing id: a message
     * is believed only on a connection that greeted us as its sender. */
    struct conn { unsigned char rid[16]; size_t len; int node; } *conns;
    size_t nconns, capconns;
    satin_link_counters lan, wan;
    uint64_t bad;
    satin_log_limit bad_limit;
    satin_security *sec;
    /* Per-peer token buckets for requests. */
    double rate;
    double *tokens;           /* [nnodes] */
    int64_t *refilled;        /* [nnodes] ns */
    uint64_t rate_dropped;
    satin_log_limit rate_limit;
    satin_delivery *delivery;  /* numbering, acknowledgements, retransmission */
    int64_t *greeted;          /* [nnodes] ns: when we last sent that node a HELLO */
    satin_log_limit restart_limit;
    uint64_t restarts_logged;
    unsigned char digest[SATIN_TOPOLOGY_DIGEST_SIZE];  /* our membership (topology.h) */
    /* HELLOs of another membership: one line per node per interval, and
     * one for all the senders our topology has no index for. */
    satin_log_limit *foreign_limit;   /* [nnodes] */
    satin_log_limit stranger_limit;
};

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
                     size_t hlen, const void *body, size_t blen, int again);

satin_peers *satin_peers_new(void *zctx, const satin_topology *topo, int self,
                             size_t max_message, satin_security *sec, double request_rate)
{
    satin_peers *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    p->topo = topo;
    p->zctx = zctx;
    p->self = self;
    p->max_message = max_message;
    p->dealer = calloc((size_t)topo->nnodes, sizeof *p->dealer);
    p->last_heard = calloc((size_t)topo->nnodes, sizeof *p->last_heard);
    p->tokens = calloc((size_t)topo->nnodes, sizeof *p->tokens);
    p->refilled = calloc((size_t)topo->nnodes, sizeof *p->refilled);
    p->greeted = calloc((size_t)topo->nnodes, sizeof *p->greeted);
    p->foreign_limit = calloc((size_t)topo->nnodes, sizeof *p->foreign_limit);
    if (!p->dealer || !p->last_heard || !p->tokens || !p->refilled || !p->greeted ||
        !p->foreign_limit)
        abort();
    satin_topology_digest(topo, p->digest);
    p->sec = sec;
    p->rate = request_rate;
    for (int i = 0; i < topo->nnodes; i++)
        p->tokens[i] = request_rate;
    p->delivery = satin_delivery_new(topo->nnodes, new_epoch(), wire_send, p);
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
    char hex[16];
    satin_topology_digest_hex(p->digest, hex, sizeof hex);
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
    for (int i = 0; p->dealer && i < p->topo->nnodes; i++)
        if (p->dealer[i])
            zmq_close(p->dealer[i]);
    if (p->router)
        zmq_close(p->router);
    free(p->dealer);
    free(p->last_heard);
    free(p->tokens);
    free(p->refilled);
    free(p->greeted);
    free(p->foreign_limit);
    free(p->conns);
    satin_delivery_destroy(&p->delivery);
    free(p);
    *self = NULL;
}

void *satin_peers_socket(satin_peers *self)
{
    return self->router;
}

static int is_wan(const satin_peers *p, int node)
{
    return p->topo->nodes[node].cluster != p->topo->nodes[p->self].cluster;
}

static void *dealer_for(satin_peers *p, int to);
static void greet(satin_peers *p, int to);
static void greet_again(satin_peers *p, int to);

/* satin_delivery's way onto the wire: [delivery frame][header][body], or
 * the delivery frame alone (an acknowledgement). */
static int wire_send(void *ctx, int to, const unsigned char *frame, const void *hdr,
                     size_t hlen, const void *body, size_t blen, int again)
{
    satin_peers *p = ctx;
    satin_link_counters *c = is_wan(p, to) ? &p->wan : &p->lan;
    /* Unacknowledged long enough to be sent again: the peer may be a new
     * run that never heard our HELLO on this connection (ZeroMQ reconnected
     * to it silently), and would drop everything else.  Greet it first. */
    if (again && hdr)
        greet_again(p, to);
    void *s = dealer_for(p, to);
    int rc = -1;
    if (s && !hdr)
        rc = zmq_send(s, frame, SATIN_DELIVERY_FRAME_SIZE, ZMQ_DONTWAIT) < 0 ? -1 : 0;
    else if (s)
        rc = zmq_send(s, frame, SATIN_DELIVERY_FRAME_SIZE, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0 ||
                     zmq_send(s, hdr, hlen, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0 ||
                     zmq_send(s, body, blen, ZMQ_DONTWAIT) < 0
                 ? -1
                 : 0;
    if (rc < 0) {
        c->send_failures++;
        log_debug("a message to node %s was not taken: %s", p->topo->nodes[to].id,
                  s ? zmq_strerror(errno) : "no connection");
        return -1;
    }
    c->bytes_sent += SATIN_DELIVERY_FRAME_SIZE + hlen + blen;
    if (!hdr)
        c->acks_sent++;
    else if (again)
        c->retransmissions++;
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
        return 1;
    default:
        return 0;
    }
}

static int send_msg(satin_peers *p, int to, satin_msg *m)
{
    unsigned char *hdr = NULL, *body = NULL;
    size_t hlen, blen;
    satin_link_counters *c = is_wan(p, to) ? &p->wan : &p->lan;
    m->sender = (uint32_t)p->self;
    if (satin_msg_encode(m, &hdr, &hlen, &body, &blen) < 0) {
        log_error("cannot encode a %s for node %s", satin_msg_type_name(m->type),
                  p->topo->nodes[to].id);
        c->send_failures++;
        free(hdr);
        free(body);
        return -1;
    }
    int numbered = is_numbered(m);
    int rc = satin_delivery_send(p->delivery, to, numbered, hdr, hlen, body, blen,
                                 satin_now_ns());
    if (rc == 0 || numbered)
        c->msgs_sent++;
    free(hdr);
    free(body);
    /* A numbered message the transport could not take yet is queued, not lost. */
    return numbered ? 0 : rc;
}

/* The routing id every node's DEALERs use (see dealer_for). */
static void node_rid(int node, unsigned char rid[5])
{
    rid[0] = 'S';
    rid[1] = (unsigned char)(node >> 24);
    rid[2] = (unsigned char)(node >> 16);
    rid[3] = (unsigned char)(node >> 8);
    rid[4] = (unsigned char)node;
}

/* Delivery frames are believed only on a node's own connection (its fixed
 * routing id): a tool or an impostor speaking as that node elsewhere must
 * not acknowledge, or restart, the node's numbering. */
static int own_connection(int node, const zmq_msg_t *rid)
{
    unsigned char want[5];
    node_rid(node, want);
    return zmq_msg_size((zmq_msg_t *)rid) == sizeof want &&
           memcmp(zmq_msg_data((zmq_msg_t *)rid), want, sizeof want) == 0;
}

/* The DEALER to `to`, opened (and greeted with HELLO) on first use. */
static void *dealer_for(satin_peers *p, int to)
{
    if (p->dealer[to])
        return p->dealer[to];
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
    unsigned char rid[5];
    node_rid(p->self, rid);
    zmq_setsockopt(s, ZMQ_ROUTING_ID, rid, sizeof rid);
    satin_security_make_client(p->sec, s, to);
    /* Through satin-wanem's relay when the topology emulates the wide-area
     * link to that node's cluster; policies never know. */
    char endpoint[SATIN_ENDPOINT_MAX];
    satin_topology_peer_endpoint(p->topo, p->self, to, endpoint, sizeof endpoint);
    if (zmq_connect(s, endpoint) < 0) {
        log_error("cannot connect to node %s at %s: %s", p->topo->nodes[to].id, endpoint,
                  zmq_strerror(errno));
        zmq_close(s);
        return NULL;
    }
    p->dealer[to] = s;
    greet(p, to);
    return s;
}

/* HELLO, which binds our connection to our node index at the peer. */
static void greet(satin_peers *p, int to)
{
    p->greeted[to] = satin_now_ns();
    satin_msg *hello = satin_msg_new(SATIN_MSG_HELLO);
    satin_msg_set_grid_name(hello, p->topo->name);
    hello->node_count = (uint32_t)p->topo->nnodes;
    satin_msg_set_node_id(hello, p->topo->nodes[p->self].id);
    memcpy(hello->digest, p->digest, sizeof hello->digest);
    send_msg(p, to, hello);
    satin_msg_destroy(&hello);
}

/* HELLO once more, at most once per REGREET_NS per peer. */
static void greet_again(satin_peers *p, int to)
{
    if (satin_now_ns() - p->greeted[to] > REGREET_NS)
        greet(p, to);
}

int satin_peers_send(satin_peers *p, int to, satin_msg *m)
{
    if (to < 0 || to >= p->topo->nnodes || to == p->self)
        return -1;
    return send_msg(p, to, m);
}

int64_t satin_peers_tick(satin_peers *p)
{
    return satin_delivery_tick(p->delivery, satin_now_ns());
}

static struct conn *find_conn(satin_peers *p, const void *rid, size_t len)
{
    for (size_t i = 0; i < p->nconns; i++)
        if (p->conns[i].len == len && memcmp(p->conns[i].rid, rid, len) == 0)
            return &p->conns[i];
    return NULL;
}

static void bind_conn(satin_peers *p, const void *rid, size_t len, int node)
{
    struct conn *c = find_conn(p, rid, len);
    if (!c) {
        if (len > sizeof c->rid)
            return;
        if (p->nconns == p->capconns) {
            p->capconns = p->capconns ? 2 * p->capconns : 16;
            p->conns = realloc(p->conns, p->capconns * sizeof *p->conns);
            if (!p->conns)
                abort();
        }
        c = &p->conns[p->nconns++];
        memcpy(c->rid, rid, len);
        c->len = len;
    }
    c->node = node;
}

static void unbind_conn(satin_peers *p, const void *rid, size_t len)
{
    struct conn *c = find_conn(p, rid, len);
    if (c)
        *c = p->conns[--p->nconns];
}

/* Messages a peer can send unasked, which make us work. */
static int is_request(int type)
{
    return type == SATIN_MSG_HELLO || type == SATIN_MSG_STEAL || type == SATIN_MSG_LOAD ||
           type == SATIN_MSG_STATS_REQUEST || type == SATIN_MSG_STEAL_CANCEL;
}

static int take_token(satin_peers *p, int node)
{
    int64_t now = satin_now_ns();
    double t = p->tokens[node] + (double)(now - p->refilled[node]) / 1e9 * p->rate;
    p->refilled[node] = now;
    p->tokens[node] = t > p->rate ? p->rate : t;
    if (p->tokens[node] >= 1.0) {
        p->tokens[node] -= 1.0;
        return 1;
    }
    p->rate_dropped++;
    satin_log_limited(&p->rate_limit, 10.0, SATIN_LOG_WARN,
                      "node %s sends more than %.0f requests per second: dropping the excess",
                      p->topo->nodes[node].id, p->rate);
    return 0;
}

static int count_bad(satin_peers *p, const char *fmt, const char *a, const char *b)
{
    p->bad++;
    satin_log_limited(&p->bad_limit, 10.0, SATIN_LOG_WARN, fmt, a, b);
    return 1;
}

/* 1 when a HELLO's sender reads the topology we read: same grid, same
 * membership, and its id is the one our file has at its index. */
static int same_membership(const satin_peers *p, const satin_msg *m)
{
    return strcmp(m->grid_name, p->topo->name) == 0 &&
           m->node_count == (uint32_t)p->topo->nnodes &&
           memcmp(m->digest, p->digest, sizeof p->digest) == 0 &&
           m->sender < (uint32_t)p->topo->nnodes &&
           strcmp(m->node_id, p->topo->nodes[m->sender].id) == 0;
}

/* A HELLO from a node whose topology differs from ours.  It is decodable
 * whatever its node count, so the line can say who it is and how the files
 * differ; the sender stays isolated (its messages are dropped) until both
 * read the same file. */
static int foreign_hello(satin_peers *p, const satin_msg *m, const zmq_msg_t *rid)
{
    char how[200], theirs[16], ours[16];
    const satin_topology *t = p->topo;
    if (strcmp(m->grid_name, t->name) != 0)
        snprintf(how, sizeof how, "it is grid %s, we are grid %s", m->grid_name, t->name);
    else if (m->node_count != (uint32_t)t->nnodes)
        snprintf(how, sizeof how, "it lists %lu nodes, we list %d",
                 (unsigned long)m->node_count, t->nnodes);
    else if (m->sender >= (uint32_t)t->nnodes)
        snprintf(how, sizeof how, "it claims index %lu, we list %d nodes",
                 (unsigned long)m->sender, t->nnodes);
    else if (strcmp(m->node_id, t->nodes[m->sender].id) != 0)
        snprintf(how, sizeof how, "it is node %s at index %lu, where we list node %s",
                 m->node_id, (unsigned long)m->sender, t->nodes[m->sender].id);
    else
        snprintf(how, sizeof how,
                 "both list %d nodes, but clusters, node ids, endpoints or keys differ",
                 t->nnodes);
    satin_topology_digest_hex(m->digest, theirs, sizeof theirs);
    satin_topology_digest_hex(p->digest, ours, sizeof ours);
    satin_log_limit *lim = m->sender < (uint32_t)t->nnodes ? &p->foreign_limit[m->sender]
                                                           : &p->stranger_limit;
    p->bad++;
    satin_log_limited(lim, 10.0, SATIN_LOG_WARN,
                      "node %s's topology differs from ours: %s (membership digest %s, ours %s); "
                      "its messages are dropped until both read the same topology file",
                      m->node_id, how, theirs, ours);
    unbind_conn(p, zmq_msg_data((zmq_msg_t *)rid), zmq_msg_size((zmq_msg_t *)rid));
    return 1;
}

/* Logs each peer restart seen by the delivery layer once. */
static void note_restarts(satin_peers *p, int node)
{
    const satin_delivery_counters *dc = satin_delivery_counters_get(p->delivery);
    if (dc->peer_restarts == p->restarts_logged)
        return;
    p->restarts_logged = dc->peer_restarts;
    /* The new run knows none of our connections: our DEALER reconnected to
     * it without a HELLO, and it would drop what we send. */
    greet(p, node);
    satin_log_limited(&p->restart_limit, 10.0, SATIN_LOG_WARN,
                      "node %s restarted: messages queued for its previous run are dropped "
                      "(%llu so far); work it held for our jobs is lost",
                      p->topo->nodes[node].id, (unsigned long long)dc->discarded);
}

/* What the delivery layer says of a message from `node` carrying `st`
 * (SATIN_DELIVERY_TAKE or _DROP).  Frames are believed only on the node's
 * own connection; elsewhere the message is taken as unnumbered. */
static int take_stamp(satin_peers *p, int node, const zmq_msg_t *rid,
                      const satin_delivery_stamp *st, int bare)
{
    if (!own_connection(node, rid))
        return SATIN_DELIVERY_TAKE;
    int r = satin_delivery_receive(p->delivery, node, st, bare, satin_now_ns());
    note_restarts(p, node);
    return r;
}

/* A peer's delivery frame alone: its acknowledgement of what we sent. */
static int take_bare_ack(satin_peers *p, zmq_msg_t *rid, zmq_msg_t *frame)
{
    satin_delivery_stamp st;
    struct conn *c = find_conn(p, zmq_msg_data(rid), zmq_msg_size(rid));
    if (satin_delivery_stamp_decode(zmq_msg_data(frame), zmq_msg_size(frame), &st) < 0)
        return count_bad(p, "dropped a bad acknowledgement frame%s%s", "", "");
    if (!c || !own_connection(c->node, rid))
        return count_bad(p, "dropped an acknowledgement on a connection that is no node's own%s%s",
                         "", "");
    if (!satin_security_key_is_node(p->sec, satin_security_key_of(frame), c->node))
        return count_bad(p, "dropped an acknowledgement claiming to come from node %s%s: the connection's key is not that node's",
                         p->topo->nodes[c->node].id, "");
    take_stamp(p, c->node, rid, &st, 1);
    p->last_heard[c->node] = satin_now_ns();
    return 0;
}

satin_msg *satin_peers_recv(satin_peers *p, int *bad)
{
    *bad = 0;
    for (;;) {
        /* [routing id][delivery frame][header][body], or the first two. */
        zmq_msg_t part[4];
        int n = 0, more = 1, extra = 0;
        while (more) {
            zmq_msg_t scratch, *m = n < 4 ? &part[n] : &scratch;
            zmq_msg_init(m);
            if (zmq_msg_recv(m, p->router, ZMQ_DONTWAIT) < 0) {
                zmq_msg_close(m);
                break;
            }
            more = zmq_msg_more(m);
            if (n < 4)
                n++;
            else {
                extra++;
                zmq_msg_close(m);
            }
        }
        if (n == 0)
            return NULL;
        satin_msg *msg = NULL;
        satin_delivery_stamp st;
        int dropped = 0;
        if (n == 2 && !extra) {
            dropped = take_bare_ack(p, &part[0], &part[1]);
        } else if (n != 4 || extra) {
            dropped = count_bad(p, "dropped a peer message of the wrong shape%s%s", "", "");
        } else if (satin_delivery_stamp_decode(zmq_msg_data(&part[1]), zmq_msg_size(&part[1]),
                                               &st) < 0) {
            dropped = count_bad(p, "dropped a peer message with a bad delivery frame%s%s", "", "");
        } else {
            satin_proto_error err = {0};
            msg = satin_msg_decode(zmq_msg_data(&part[2]), zmq_msg_size(&part[2]),
                                   zmq_msg_data(&part[3]), zmq_msg_size(&part[3]),
                                   p->max_message, &err);
            if (!msg)
                dropped = count_bad(p, "dropped a bad peer message: %s%s", err.text, "");
            else if (satin_msg_is_peer(msg->type) && msg->type == SATIN_MSG_HELLO &&
                     msg->sender != (uint32_t)p->self && !same_membership(p, msg)) {
                dropped = foreign_hello(p, msg, &part[0]);
                satin_msg_destroy(&msg);
            } else if (satin_msg_is_peer(msg->type) && msg->sender >= (uint32_t)p->topo->nnodes) {
                char what[96];
                snprintf(what, sizeof what, "%s from node index %lu", satin_msg_type_name(msg->type),
                         (unsigned long)msg->sender);
                dropped = count_bad(p, "dropped a %s, an index our topology does not have%s: the sender reads another topology file (its HELLO says which)",
                                    what, "");
                satin_msg_destroy(&msg);
            } else if (!satin_msg_is_peer(msg->type)) {
                dropped = count_bad(p, "dropped a %s, a client message, on the peer socket%s",
                                    satin_msg_type_name(msg->type), "");
                satin_msg_destroy(&msg);
            } else if (msg->sender == (uint32_t)p->self) {
                dropped = count_bad(p, "dropped a %s claiming to come from node %s (this node)",
                                    satin_msg_type_name(msg->type), p->topo->nodes[p->self].id);
                satin_msg_destroy(&msg);
            } else if (!satin_security_key_is_node(p->sec, satin_security_key_of(&part[3]),
                                                   (int)msg->sender)) {
                /* zauth let the key in (it is listed) but it is not the key
                 * of the node this message claims to come from. */
                dropped = count_bad(p, "dropped a %s claiming to come from node %s: the connection's key is not that node's",
                                    satin_msg_type_name(msg->type), p->topo->nodes[msg->sender].id);
                satin_msg_destroy(&msg);
            } else if (msg->type == SATIN_MSG_HELLO) {
                int node = (int)msg->sender;
                const void *rid = zmq_msg_data(&part[0]);
                size_t rlen = zmq_msg_size(&part[0]);
                if (!take_token(p, node)) {
                    dropped = 1;
                } else {
                    bind_conn(p, rid, rlen, node);
                    p->last_heard[node] = satin_now_ns();
                    take_stamp(p, node, &part[0], &st, 0);
                }
                satin_msg_destroy(&msg);
            } else {
                struct conn *c = find_conn(p, zmq_msg_data(&part[0]), zmq_msg_size(&part[0]));
                if (!c || c->node != (int)msg->sender) {
                    dropped = count_bad(p, "dropped a %s claiming to come from node %s on a connection that did not greet us as that node",
                                        satin_msg_type_name(msg->type), p->topo->nodes[msg->sender].id);
                    /* On the node's own connection this is a node that greeted
                     * a previous run of ours: greet it, so that it sees our new
                     * epoch and greets us again. */
                    if (own_connection((int)msg->sender, &part[0]))
                        greet_again(p, (int)msg->sender);
                    satin_msg_destroy(&msg);
                } else if (take_stamp(p, c->node, &part[0], &st, 0) != SATIN_DELIVERY_TAKE) {
                    /* Seen before, or past a gap the sender will fill: not bad. */
                    p->last_heard[c->node] = satin_now_ns();
                    satin_msg_destroy(&msg);
                } else if (is_request(msg->type) && !take_token(p, c->node)) {
                    dropped = 1;
                    satin_msg_destroy(&msg);
                }
            }
        }
        size_t bytes = 0;
        for (int i = 0; i < n; i++) {
            bytes += zmq_msg_size(&part[i]);
            zmq_msg_close(&part[i]);
        }
        if (msg) {
            satin_link_counters *c = is_wan(p, (int)msg->sender) ? &p->wan : &p->lan;
            c->msgs_received++;
            c->bytes_received += bytes;
            p->last_heard[msg->sender] = satin_now_ns();
            return msg;
        }
        if (dropped)
            *bad = 1;
        /* Keep reading: one bad message must not starve the good ones. */
    }
}

int satin_peers_alive(const satin_peers *p)
{
    int n = 0;
    for (int i = 0; i < p->topo->nnodes; i++)
        n += p->last_heard[i] != 0;
    return n;
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
    return p->bad;
}

const satin_delivery_counters *satin_peers_delivery(const satin_peers *p)
{
    return satin_delivery_counters_get(p->delivery);
}

size_t satin_peers_unacked(const satin_peers *p, int64_t heard_within_ns)
{
    int64_t now = satin_now_ns();
    size_t n = 0;
    for (int i = 0; i < p->topo->nnodes; i++)
        if (p->last_heard[i] && now - p->last_heard[i] <= heard_within_ns)
            n += satin_delivery_unacked(p->delivery, i);
    return n;
}

uint64_t satin_peers_rate_dropped(const satin_peers *p)
{
    return p->rate_dropped;
}

void satin_peers_note_bad(satin_peers *p, const char *what, int node)
{
    count_bad(p, "dropped a peer message: %s (from node %s)", what,
              node >= 0 && node < p->topo->nnodes ? p->topo->nodes[node].id : "?");
}
