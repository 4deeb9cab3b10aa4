/*
 * relay.c - listening sockets, relayed connections, and the pump that lets
 * held bytes go (see relay.h).
 *
 * A connection has two sockets, the one we accepted (side 0, the daemon
 * that connected) and ours to the node (side 1), and two flows: `up` reads
 * side 0 and writes side 1, `down` the reverse.  A flow reads as soon as
 * bytes arrive, stamps each chunk with the time it may leave (now +
 * latency + jitter, never before the chunk ahead), and the pump writes
 * what is due while the flow's link has tokens.  The flows of one link
 * with bytes held form a ring that the pump serves a share at a time, so
 * that connections sharing a link share its bandwidth.
 *
 * Closed connections are freed only at the next pump: events of the batch
 * being handled may still point at them.
 */
#include "relay.h"
#include "delayq.h"
#include "log.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define READ_SIZE 65536                  /* one read, one chunk at most */
#define QUEUE_BOUND (4u << 20)           /* stop reading a side with this much held */
#define READ_BUDGET (256u << 10)         /* per event: one busy socket must not starve the rest */
#define ACCEPT_PAUSE_NS 100000000        /* out of descriptors: try accepting again after 100 ms */
#define WARN_INTERVAL_NS 5000000000LL    /* repeated connect failures: one line per 5 s per node */

typedef struct lane lane;
typedef struct conn conn;

typedef struct flow {
    conn *c;
    lane *ln;
    int src, dst;                        /* sides: 0 accepted, 1 ours to the node */
    delayq q;
    int eof_in;                          /* the source's FIN is queued */
    int done;                            /* and went out (shutdown of dst) */
    int blocked;                         /* dst's send buffer is full: wait for EPOLLOUT */
    uint64_t sent;
    struct flow *prev, *next;            /* in its lane's ring of flows with bytes held */
    int listed;
} flow;

/* The watch comes first: the loop hands us a watch*, which is a side*. */
typedef struct side {
    satin_watch w;
    conn *c;
    int i;
} side;

struct conn {
    relay *r;
    side s[2];
    int fd[2];
    int connected;                       /* side 1's connect completed (and was logged) */
    flow up, down;
    uint64_t id;
    int from_cluster, to_node;
    int dead;
    conn *prev, *next;                   /* live connections; the graveyard uses next */
};

typedef struct listener {
    satin_watch w;
    relay *r;
    int from_cluster, to_node, port;
    int paused;
} listener;

struct lane {
    wan_link link;
    flow *head, *tail;                   /* the ring, head served next */
    int nflows;
    int active;                          /* in relay.active */
};

struct relay {
    satin_loop *loop;
    const satin_topology *t;
    int nc;
    lane *lanes;                         /* [from * nc + to] */
    int *active, nactive;                /* lanes with flows listed */
    listener *ls;
    int nls;
    struct sockaddr_storage *node_addr;  /* where each node is, resolved once */
    socklen_t *node_addrlen;
    int64_t *warned_ns;                  /* per node: the last connect failure logged */
    unsigned long *unlogged;             /* and those left out since */
    conn *live, *grave;
    int nlive;
    uint64_t next_id;
    int64_t resume_accept_ns;
    unsigned char buf[READ_SIZE];
};

static void on_side(satin_watch *w, uint32_t events);
static void conn_close(relay *r, conn *c, int reset, const char *why);

/* ---- names for the log ---------------------------------------------------------- */

static const char *cluster_name(const relay *r, int c)
{
    return r->t->clusters[c].name;
}

static const char *node_name(const relay *r, int n)
{
    return r->t->nodes[n].id;
}

/* ---- the rings of flows with bytes held -------------------------------------- */

static void flow_list(relay *r, flow *f)
{
    lane *ln = f->ln;
    if (f->listed)
        return;
    f->listed = 1;
    f->next = NULL;
    f->prev = ln->tail;
    if (ln->tail)
        ln->tail->next = f;
    else
        ln->head = f;
    ln->tail = f;
    ln->nflows++;
    if (!ln->active) {
        ln->active = 1;
        r->active[r->nactive++] = (int)(ln - r->lanes);
    }
}

static void flow_unlist(flow *f)
{
    lane *ln = f->ln;
    if (!f->listed)
        return;
    if (f->prev)
        f->prev->next = f->next;
    else
        ln->head = f->next;
    if (f->next)
        f->next->prev = f->prev;
    else
        ln->tail = f->prev;
    f->prev = f->next = NULL;
    f->listed = 0;
    ln->nflows--;
}

/* A flow that had its turn goes to the back of the ring (if it is still
 * in it: a flow that sent everything, or whose connection closed, is not). */
static void requeue(relay *r, flow *f)
{
    if (!f->listed || !f->next)
        return;
    flow_unlist(f);
    flow_list(r, f);
}

/* ---- a connection's sockets ---------------------------------------------------- */

static int wants_read(const flow *f)
{
    return !f->eof_in && f->q.bytes < QUEUE_BOUND;
}

/* The events each socket needs now: reading while its flow is under the
 * bound, writing while the flow into it is blocked, and on side 1 the
 * connect's completion. */
static void conn_update(relay *r, conn *c)
{
    uint32_t m0 = 0, m1 = 0;
    if (c->dead)
        return;
    if (wants_read(&c->up))
        m0 |= EPOLLIN;
    if (c->down.blocked)
        m0 |= EPOLLOUT;
    if (!c->connected) {
        m1 = EPOLLOUT;
    } else {
        if (wants_read(&c->down))
            m1 |= EPOLLIN;
        if (c->up.blocked)
            m1 |= EPOLLOUT;
    }
    if (satin_loop_set(r->loop, &c->s[0].w, m0) < 0 || satin_loop_set(r->loop, &c->s[1].w, m1) < 0)
        conn_close(r, c, 1, strerror(errno));
}

static void conn_close(relay *r, conn *c, int reset, const char *why)
{
    flow *fl[2] = {&c->up, &c->down};
    if (c->dead)
        return;
    c->dead = 1;
    for (int i = 0; i < 2; i++) {
        flow_unlist(fl[i]);
        fl[i]->ln->link.queued -= delayq_clear(&fl[i]->q);
        fl[i]->ln->link.open--;
    }
    for (int i = 0; i < 2; i++) {
        satin_loop_remove(r->loop, &c->s[i].w);
        if (reset) {
            /* An error on one side is a reset on the other, as a WAN
             * connection that broke would look. */
            struct linger lg = {1, 0};
            setsockopt(c->fd[i], SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
        }
        close(c->fd[i]);
        c->fd[i] = -1;
    }
    if (c->prev)
        c->prev->next = c->next;
    else
        r->live = c->next;
    if (c->next)
        c->next->prev = c->prev;
    r->nlive--;
    c->next = r->grave;
    r->grave = c;
    /* One that never reached its node was not announced (connect_failed()
     * speaks for those, without flooding the log). */
    satin_log(c->connected ? SATIN_LOG_INFO : SATIN_LOG_DEBUG,
         "connection %llu %s -> %s closed (%s): %llu bytes up, %llu down",
         (unsigned long long)c->id, cluster_name(r, c->from_cluster), node_name(r, c->to_node),
         why, (unsigned long long)c->up.sent, (unsigned long long)c->down.sent);
}

static void conn_fail(relay *r, conn *c, const char *what, int err)
{
    char why[160];
    snprintf(why, sizeof why, "%s: %s", what, strerror(err));
    conn_close(r, c, 1, why);
}

/* Reads what the flow's source has, into its queue.  `drain`: the source
 * hung up, so read to its end whatever the bound says (the bytes would be
 * lost otherwise, and a hung-up socket is not watched again). */
static void flow_read(relay *r, flow *f, int drain)
{
    conn *c = f->c;
    size_t budget = READ_BUDGET;
    while (!f->eof_in && (drain || (f->q.bytes < QUEUE_BOUND && budget > 0))) {
        ssize_t n = recv(c->fd[f->src], r->buf, sizeof r->buf, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                conn_fail(r, c, f->src ? "reading from the node" : "reading from the client",
                          errno);
            return;
        }
        /* The latency counts from when the bytes are ours, never earlier. */
        int64_t due = satin_now_ns() + wan_link_delay_ns(&f->ln->link);
        if (delayq_push(&f->q, r->buf, (size_t)n, due) < 0) {
            conn_fail(r, c, "holding bytes", ENOMEM);
            return;
        }
        if (n == 0)
            f->eof_in = 1;
        f->ln->link.queued += (uint64_t)n;
        flow_list(r, f);
        budget = (size_t)n < budget ? budget - (size_t)n : 0;
    }
}

static void connect_failed(relay *r, conn *c, int err)
{
    int64_t now = satin_now_ns();
    int n = c->to_node;
    /* A node that is down makes every daemon retry every few hundred ms. */
    if (now - r->warned_ns[n] >= WARN_INTERVAL_NS) {
        if (r->unlogged[n])
            log_warn("cannot connect to node %s at %s: %s (and %lu more times since the last "
                      "report)",
                      node_name(r, n), r->t->nodes[n].endpoint, strerror(err), r->unlogged[n]);
        else
            log_warn("cannot connect to node %s at %s: %s", node_name(r, n),
                      r->t->nodes[n].endpoint, strerror(err));
        r->warned_ns[n] = now;
        r->unlogged[n] = 0;
    } else {
        r->unlogged[n]++;
    }
    conn_close(r, c, 1, "the node refused");
}

static void connected(relay *r, conn *c)
{
    c->connected = 1;
    log_info("connection %llu %s -> %s open", (unsigned long long)c->id,
              cluster_name(r, c->from_cluster), node_name(r, c->to_node));
}

static void on_side(satin_watch *w, uint32_t events)
{
    side *s = (side *)w;
    conn *c = s->c;
    relay *r = c->r;
    if (c->dead)
        return;
    if (s->i == 1 && !c->connected) {
        int err = 0;
        socklen_t len = sizeof err;
        if (getsockopt(c->fd[1], SOL_SOCKET, SO_ERROR, &err, &len) < 0)
            err = errno;
        if (err) {
            connect_failed(r, c, err);
            return;
        }
        connected(r, c);
        conn_update(r, c);
        return;
    }
    flow *in = s->i == 0 ? &c->up : &c->down;     /* reads this side */
    flow *out = s->i == 0 ? &c->down : &c->up;    /* writes to it */
    if (events & EPOLLOUT)
        out->blocked = 0;   /* the pump after this batch writes */
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        flow_read(r, in, (events & (EPOLLHUP | EPOLLERR)) != 0);
        if (c->dead)
            return;
    }
    if (events & EPOLLERR) {
        int err = 0;
        socklen_t len = sizeof err;
        getsockopt(c->fd[s->i], SOL_SOCKET, SO_ERROR, &err, &len);
        conn_fail(r, c, s->i ? "the node's socket" : "the client's socket", err ? err : EIO);
        return;
    }
    if (events & EPOLLHUP) {
        /* Gone both ways: no more events worth having from it (they would
         * repeat forever), and nothing more can be delivered to it. */
        satin_loop_remove(r->loop, w);
        if (out->q.head || (!out->done && out->eof_in)) {
            conn_close(r, c, 1, s->i ? "the node hung up" : "the client hung up");
            return;
        }
    }
    conn_update(r, c);
}

/* ---- opening ------------------------------------------------------------------- */

static void set_nodelay(int fd)
{
    int one = 1;
    /* Small messages go at once: the link's delay is ours to add, not Nagle's. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static void conn_open(relay *r, const listener *L, int cfd)
{
    int n = L->to_node, from = L->from_cluster, to = r->t->nodes[n].cluster;
    conn *c = calloc(1, sizeof *c);
    int sfd = socket(r->node_addr[n].ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (!c || sfd < 0) {
        log_warn("cannot relay a connection from cluster %s to node %s: %s",
                  cluster_name(r, from), node_name(r, n), strerror(!c ? ENOMEM : errno));
        free(c);
        if (sfd >= 0)
            close(sfd);
        close(cfd);
        return;
    }
    set_nodelay(cfd);
    set_nodelay(sfd);
    c->r = r;
    c->id = ++r->next_id;
    c->from_cluster = from;
    c->to_node = n;
    c->fd[0] = cfd;
    c->fd[1] = sfd;
    for (int i = 0; i < 2; i++) {
        c->s[i].c = c;
        c->s[i].i = i;
    }
    c->up = (flow){.c = c, .ln = &r->lanes[from * r->nc + to], .src = 0, .dst = 1};
    c->down = (flow){.c = c, .ln = &r->lanes[to * r->nc + from], .src = 1, .dst = 0};
    c->next = r->live;
    if (r->live)
        r->live->prev = c;
    r->live = c;
    r->nlive++;
    flow *fl[2] = {&c->up, &c->down};
    for (int i = 0; i < 2; i++) {
        fl[i]->ln->link.connections++;
        fl[i]->ln->link.open++;
    }
    int rc = connect(sfd, (const struct sockaddr *)&r->node_addr[n], r->node_addrlen[n]);
    if (rc < 0 && errno != EINPROGRESS) {
        connect_failed(r, c, errno);
        return;
    }
    if (rc == 0)
        connected(r, c);
    if (satin_loop_add(r->loop, &c->s[0].w, cfd, EPOLLIN, on_side) < 0 ||
        satin_loop_add(r->loop, &c->s[1].w, sfd, c->connected ? EPOLLIN : EPOLLOUT, on_side) < 0)
        conn_fail(r, c, "watching its sockets", errno);
}

static void on_listener(satin_watch *w, uint32_t events)
{
    listener *L = (listener *)w;
    relay *r = L->r;
    (void)events;
    for (int k = 0; k < 64; k++) {
        int fd = accept4(w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            conn_open(r, L, fd);
            continue;
        }
        if (errno == EINTR || errno == ECONNABORTED)
            continue;
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
            /* The connection waits in the backlog; the listener would keep
             * firing meanwhile, so it rests until the pump wakes it. */
            log_warn("cannot accept on relay port %d: %s (raise the limit on open files)",
                      L->port, strerror(errno));
            satin_loop_set(r->loop, w, 0);
            L->paused = 1;
            r->resume_accept_ns = satin_now_ns() + ACCEPT_PAUSE_NS;
        } else if (errno != EAGAIN && errno != EWOULDBLOCK) {
            log_warn("accept on relay port %d: %s", L->port, strerror(errno));
        }
        return;
    }
}

/* ---- the pump ------------------------------------------------------------------ */

#define SEND_NO_TOKENS (-1)

/* At most one share of the head chunk (or its FIN) out of one flow, if it
 * is due and the link allows.  Returns the bytes sent, 1 for a FIN, 0 for
 * nothing, SEND_NO_TOKENS when only the bucket held it back. */
static ssize_t flow_send(relay *r, flow *f, int64_t now)
{
    conn *c = f->c;
    wan_link *l = &f->ln->link;
    dq_chunk *h = f->q.head;
    if (!h || h->due_ns > now || !c->connected || f->blocked || l->partitioned)
        return 0;
    if (h->len == 0) {
        /* The sender's FIN, after every byte before it. */
        shutdown(c->fd[f->dst], SHUT_WR);
        f->done = 1;
        delayq_consume(&f->q, 0);
        flow_unlist(f);
        if (c->up.done && c->down.done)
            conn_close(r, c, 0, "both sides finished");
        else
            conn_update(r, c);
        return 1;
    }
    size_t want = h->len - h->off;
    if (want > l->quantum)
        want = l->quantum;
    /* Only a whole share: wan_link_ready_at() woke us for that much, and
     * dribbles of a few bytes would cost a system call each. */
    if (wan_link_tokens(l) < want)
        return SEND_NO_TOKENS;
    ssize_t n = send(c->fd[f->dst], h->data + h->off, want, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            f->blocked = 1;
            conn_update(r, c);
        } else if (errno != EINTR) {
            conn_fail(r, c, f->dst ? "writing to the node" : "writing to the client", errno);
        }
        return 0;
    }
    wan_link_spend(l, (size_t)n);
    l->bytes += (uint64_t)n;
    l->queued -= (uint64_t)n;
    f->sent += (uint64_t)n;
    delayq_consume(&f->q, (size_t)n);
    if ((size_t)n < want)
        f->blocked = 1;   /* the send buffer is full */
    if (!f->q.head)
        flow_unlist(f);
    conn_update(r, c);
    return n;
}

/* Serves a lane's flows in turn, a share each, until the bucket runs dry
 * or no flow has anything due; then says when the lane next needs the
 * pump, and whether it is stalled (bytes due but held by the bucket or a
 * partition).  A flow the bucket could not serve stays at the head of the
 * ring, so it is first when tokens come back: that is what makes
 * connections on one link share it fairly. */
static int64_t lane_pump(relay *r, lane *ln, int64_t now)
{
    wan_link *l = &ln->link;
    int64_t next = SATIN_LOOP_NEVER;
    int progress = 1, stalled = 0;
    wan_link_refill(l, now);
    while (progress && ln->head) {
        progress = 0;
        for (int k = ln->nflows; k > 0 && ln->head; k--) {
            flow *f = ln->head;
            ssize_t sent = flow_send(r, f, now);
            if (sent == SEND_NO_TOKENS) {
                progress = 0;
                break;
            }
            if (sent > 0)
                progress = 1;
            requeue(r, f);
        }
    }
    for (flow *f = ln->head; f; f = f->next) {
        dq_chunk *h = f->q.head;
        if (!h || !f->c->connected || f->blocked)
            continue;   /* the socket's events bring it back */
        if (h->due_ns > now) {
            if (h->due_ns < next)
                next = h->due_ns;
            continue;
        }
        stalled = 1;
        if (!l->partitioned) {
            size_t need = h->len - h->off;
            int64_t at = wan_link_ready_at(l, need < l->quantum ? need : l->quantum, now);
            if (at < next)
                next = at;
        }
    }
    wan_link_stall(l, stalled, now);
    return next;
}

int64_t relay_pump(void *arg, int64_t now)
{
    relay *r = arg;
    int64_t next = SATIN_LOOP_NEVER;
    while (r->grave) {
        conn *c = r->grave;
        r->grave = c->next;
        free(c);
    }
    if (r->resume_accept_ns != SATIN_LOOP_NEVER) {
        if (now >= r->resume_accept_ns) {
            for (int i = 0; i < r->nls; i++)
                if (r->ls[i].paused) {
                    r->ls[i].paused = 0;
                    satin_loop_set(r->loop, &r->ls[i].w, EPOLLIN);
                }
            r->resume_accept_ns = SATIN_LOOP_NEVER;
        } else {
            next = r->resume_accept_ns;
        }
    }
    int kept = 0;
    for (int i = 0; i < r->nactive; i++) {
        lane *ln = &r->lanes[r->active[i]];
        int64_t t = lane_pump(r, ln, now);
        if (t < next)
            next = t;
        if (ln->head) {
            r->active[kept++] = r->active[i];
        } else {
            ln->active = 0;
            wan_link_stall(&ln->link, 0, now);
        }
    }
    r->nactive = kept;
    return next;
}

/* ---- setting up ---------------------------------------------------------------- */

/* "tcp://HOST:PORT" into host (brackets of IPv6 removed) and port. */
static int split_endpoint(const char *ep, char *host, size_t hostlen, char *port, size_t portlen)
{
    const char *h = strncmp(ep, "tcp://", 6) == 0 ? ep + 6 : ep, *colon = strrchr(h, ':');
    if (!colon)
        return -1;
    size_t len = (size_t)(colon - h);
    if (len >= 2 && h[0] == '[' && h[len - 1] == ']')
        h++, len -= 2;
    if (len >= hostlen)
        return -1;
    memcpy(host, h, len);
    host[len] = '\0';
    snprintf(port, portlen, "%s", colon + 1);
    return 0;
}

static int resolve_nodes(relay *r, char *err, size_t errlen)
{
    for (int n = 0; n < r->t->nnodes; n++) {
        char host[SATIN_ENDPOINT_MAX], port[16];
        struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV}, *ai;
        const char *ep = r->t->nodes[n].endpoint;
        int rc;
        if (split_endpoint(ep, host, sizeof host, port, sizeof port) < 0) {
            snprintf(err, errlen, "node %s: cannot read endpoint %s", node_name(r, n), ep);
            return -1;
        }
        if ((rc = getaddrinfo(host, port, &hints, &ai)) != 0) {
            snprintf(err, errlen, "node %s: cannot resolve %s: %s", node_name(r, n), ep,
                     gai_strerror(rc));
            return -1;
        }
        memcpy(&r->node_addr[n], ai->ai_addr, ai->ai_addrlen);
        r->node_addrlen[n] = ai->ai_addrlen;
        freeaddrinfo(ai);
    }
    return 0;
}

static int listen_on(relay *r, const struct addrinfo *ai, int from, int to_node, int port,
                     char *err, size_t errlen)
{
    struct sockaddr_storage sa;
    int one = 1, fd;
    memcpy(&sa, ai->ai_addr, ai->ai_addrlen);
    if (sa.ss_family == AF_INET)
        ((struct sockaddr_in *)&sa)->sin_port = htons((uint16_t)port);
    else
        ((struct sockaddr_in6 *)&sa)->sin6_port = htons((uint16_t)port);
    fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "relay port %d: socket: %s", port, strerror(errno));
        return -1;
    }
    /* A restart must not wait for the last run's TIME_WAIT connections. */
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ai->ai_family == AF_INET6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    listener *L = &r->ls[r->nls];
    *L = (listener){.r = r, .from_cluster = from, .to_node = to_node, .port = port};
    if (bind(fd, (struct sockaddr *)&sa, ai->ai_addrlen) < 0 || listen(fd, SOMAXCONN) < 0 ||
        satin_loop_add(r->loop, &L->w, fd, EPOLLIN, on_listener) < 0) {
        snprintf(err, errlen,
                 "cannot listen on %s port %d (the relay from cluster %s to node %s): %s",
                 r->t->shim_host, port, cluster_name(r, from), node_name(r, to_node),
                 strerror(errno));
        close(fd);
        return -1;
    }
    r->nls++;
    return 0;
}

static int open_listeners(relay *r, char *err, size_t errlen)
{
    const satin_topology *t = r->t;
    char host[SATIN_NAME_MAX], port[16];
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV}, *ai0;
    int rc, naddr = 0, nrelays = 0;
    char ep[SATIN_ENDPOINT_MAX];
    snprintf(ep, sizeof ep, "tcp://%s:1", t->shim_host);
    if (split_endpoint(ep, host, sizeof host, port, sizeof port) < 0 ||
        (rc = getaddrinfo(host, port, &hints, &ai0)) != 0) {
        snprintf(err, errlen, "cannot resolve shim_host %s", t->shim_host);
        return -1;
    }
    /* Every address of the host (e.g. localhost as 127.0.0.1 and ::1), as
     * the daemons may connect to any of them. */
    for (const struct addrinfo *ai = ai0; ai; ai = ai->ai_next)
        naddr++;
    for (int n = 0; n < t->nnodes; n++)
        nrelays += t->nclusters - 1;
    r->ls = calloc((size_t)nrelays * (size_t)naddr + 1, sizeof *r->ls);
    if (!r->ls) {
        freeaddrinfo(ai0);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int c = 0; c < t->nclusters; c++) {
        for (int n = 0; n < t->nnodes; n++) {
            if (t->nodes[n].cluster == c)
                continue;
            int port_n = satin_topology_shim_port(t, c, n), bound = 0;
            for (const struct addrinfo *ai = ai0; ai; ai = ai->ai_next) {
                if (listen_on(r, ai, c, n, port_n, err, errlen) == 0) {
                    bound++;
                } else if (errno != EADDRNOTAVAIL && errno != EAFNOSUPPORT) {
                    freeaddrinfo(ai0);
                    return -1;
                }
            }
            if (!bound) {
                freeaddrinfo(ai0);
                return -1;
            }
        }
    }
    freeaddrinfo(ai0);
    return 0;
}

relay *relay_new(satin_loop *loop, const satin_topology *t, uint64_t seed, char *err,
                 size_t errlen)
{
    relay *r = calloc(1, sizeof *r);
    int64_t now = satin_now_ns();
    size_t nc = (size_t)t->nclusters, nn = (size_t)t->nnodes;
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    r->loop = loop;
    r->t = t;
    r->nc = t->nclusters;
    r->resume_accept_ns = SATIN_LOOP_NEVER;
    r->lanes = calloc(nc * nc, sizeof *r->lanes);
    r->active = calloc(nc * nc, sizeof *r->active);
    r->node_addr = calloc(nn, sizeof *r->node_addr);
    r->node_addrlen = calloc(nn, sizeof *r->node_addrlen);
    r->warned_ns = calloc(nn, sizeof *r->warned_ns);
    r->unlogged = calloc(nn, sizeof *r->unlogged);
    if (!r->lanes || !r->active || !r->node_addr || !r->node_addrlen || !r->warned_ns ||
        !r->unlogged) {
        snprintf(err, errlen, "out of memory");
        relay_free(&r);
        return NULL;
    }
    for (int a = 0; a < r->nc; a++)
        for (int b = 0; b < r->nc; b++) {
            satin_link_def d = satin_topology_link(t, a, b);
            wan_link_init(&r->lanes[a * r->nc + b].link, a, b, d.latency_ms, d.jitter_ms,
                          a == b ? 1 : d.bandwidth_kBps, seed, now);
        }
    for (size_t n = 0; n < nn; n++)
        r->warned_ns[n] = now - WARN_INTERVAL_NS;
    if (resolve_nodes(r, err, errlen) < 0 || open_listeners(r, err, errlen) < 0) {
        relay_free(&r);
        return NULL;
    }
    return r;
}

void relay_free(relay **rp)
{
    relay *r = *rp;
    if (!r)
        return;
    while (r->live)
        conn_close(r, r->live, 0, "shutting down");
    relay_pump(r, satin_now_ns());   /* frees the graveyard */
    for (int i = 0; i < r->nls; i++) {
        satin_loop_remove(r->loop, &r->ls[i].w);
        close(r->ls[i].w.fd);
    }
    free(r->ls);
    free(r->lanes);
    free(r->active);
    free(r->node_addr);
    free(r->node_addrlen);
    free(r->warned_ns);
    free(r->unlogged);
    free(r);
    *rp = NULL;
}

wan_link *relay_link(relay *r, int from, int to)
{
    if (from < 0 || to < 0 || from >= r->nc || to >= r->nc || from == to)
        return NULL;
    return &r->lanes[from * r->nc + to].link;
}

int relay_listeners(const relay *r)
{
    return r->nls;
}

int relay_open_connections(const relay *r)
{
    return r->nlive;
}

int relay_reset(relay *r, int a, int b, uint64_t *dropped)
{
    uint64_t held = relay_link(r, a, b)->queued + relay_link(r, b, a)->queued;
    int n = 0;
    for (conn *c = r->live, *next; c; c = next) {
        next = c->next;
        int to = r->t->nodes[c->to_node].cluster;
        if ((c->from_cluster == a && to == b) || (c->from_cluster == b && to == a)) {
            conn_close(r, c, 1, "reset from the control socket");
            n++;
        }
    }
    if (dropped)
        *dropped = held - (relay_link(r, a, b)->queued + relay_link(r, b, a)->queued);
    return n;
}
