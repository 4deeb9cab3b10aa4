/*
 * satin_client.c - libsatin: one DEALER connection to a satind (SGP/3).
 *
 * Every message is two frames, [16-byte header][body]; a DEALER adds no
 * envelope, and the daemon's ROUTER strips its identity frame, so what we
 * send and receive is exactly the protocol's two frames.
 *
 * Replies are matched by request id.  A conversation is a SUBMIT or WAIT
 * whose RESULT we still expect; replies for another live conversation that
 * arrive while we wait for something else are kept in a mailbox, everything
 * else that nobody waits for any more is dropped.
 *
 * A client with several endpoints (satin_client_new_multi) has one such
 * connection at a time; client_failover.c replaces it when its node dies
 * and submits the jobs again, and this file asks it whether an outcome
 * means that (failover_node_gone) wherever a call could see a dead node.
 *
 * Why the ZeroMQ set-up below: ZeroMQ connects lazily and retries forever,
 * which would turn "no daemon" into "hang".  So satin_client_new() checks
 * an ipc socket file exists, then waits (bounded) for the ZMTP handshake
 * to succeed, as reported by a socket monitor; the same monitor reports
 * the disconnect when a daemon goes away, which ends a wait instead of
 * hanging it, and every later call fails at once.  The ZMTP heartbeat
 * notices a peer whose host vanished without closing TCP.
 *
 * ZMQ_IMMEDIATE is deliberately left at 0.  With 1, libzmq (4.3.4) tears
 * down the pipe of a connection that drops, and a reply that arrived just
 * before the daemon closed is lost with it: a daemon that sends "cancelled:
 * satind is shutting down" and exits was seen as "lost connection" in over
 * half of the runs.  What IMMEDIATE would add (sends to a peer that is not
 * there fail) the handshake wait and the monitor already give us.
 */
#include "client_internal.h"
#include "satin_endpoint.h"
#include "satin_wire.h"
#include "zframes.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>
#include <zmq.h>
#include <czmq.h>

#define GRACE_MS        250                 /* replies still in flight after a disconnect */
#define HEARTBEAT_IVL   5000
#define HEARTBEAT_TTL   15000
/* ZeroMQ drops bigger frames unread; the codec refuses bigger messages.  A
 * RESULT's data may be as large as satind's --max-record (at most 1 GiB),
 * and its key/values and statistics come beside them. */
#define MAX_FRAME_BYTES (((size_t)1 << 30) + ((size_t)16 << 20))

/* ---- small helpers ----------------------------------------------------------- */

int64_t client_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Cuts a string that vsnprintf truncated back to a UTF-8 character boundary,
 * so that a long daemon text never ends in half a character. */
static void cut_utf8(char *s, size_t cap)
{
    size_t n = strlen(s);
    if (n + 1 < cap)
        return;
    size_t i = n;
    while (i > 0 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
        i--;
    if (i > 0 && ((unsigned char)s[i - 1] & 0x80)) {
        size_t start = i - 1;
        if (satin_wire_utf8_char((const unsigned char *)s + start, n - start) != n - start)
            s[start] = '\0';
    }
}

int client_fail(satin_client_error *err, int code, int proto_code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        err->proto_code = proto_code;
        va_start(ap, fmt);
        vsnprintf(err->text, sizeof err->text, fmt, ap);
        va_end(ap);
        cut_utf8(err->text, sizeof err->text);
    }
    return code;
}

void client_clear_error(satin_client_error *err)
{
    if (err) {
        err->code = SATIN_CLIENT_OK;
        err->proto_code = 0;
        err->text[0] = '\0';
    }
}

static void *grow(void *p, size_t *cap, size_t item)
{
    size_t n = *cap ? *cap * 2 : 8;
    void *q = realloc(p, n * item);
    if (!q)
        abort();   /* as in proto/: memory exhaustion is not an error to report */
    *cap = n;
    return q;
}

/* ---- conversations and the mailbox -------------------------------------------- */

static conv *conv_by_rid(satin_client *c, uint64_t rid)
{
    for (size_t i = 0; i < c->nconv; i++)
        if (c->convs[i].rid == rid)
            return &c->convs[i];
    return NULL;
}

conv *client_conv_by_id(satin_client *c, uint64_t id)
{
    for (size_t i = 0; i < c->nconv; i++)
        if (c->convs[i].id == id)
            return &c->convs[i];
    return NULL;
}

void client_conv_add(satin_client *c, const conv *cv)
{
    if (c->nconv == c->capconv)
        c->convs = grow(c->convs, &c->capconv, sizeof *c->convs);
    c->convs[c->nconv++] = *cv;
}

static void mail_drop(satin_client *c, uint64_t rid)
{
    size_t k = 0;
    for (size_t i = 0; i < c->nmail; i++) {
        if (c->mail[i]->request_id == rid)
            satin_msg_destroy(&c->mail[i]);
        else
            c->mail[k++] = c->mail[i];
    }
    c->nmail = k;
}

/* Ends the conversation of job `id` and throws away whatever it left in
 * the mailbox. */
static void conv_end(satin_client *c, uint64_t id)
{
    for (size_t i = 0; i < c->nconv; i++)
        if (c->convs[i].id == id) {
            mail_drop(c, c->convs[i].rid);
            satin_msg_destroy(&c->convs[i].record);
            free(c->convs[i].outcome);
            c->convs[i] = c->convs[--c->nconv];
            break;
        }
}

static void mail_put(satin_client *c, satin_msg *m)
{
    if (c->nmail == c->capmail)
        c->mail = grow(c->mail, &c->capmail, sizeof *c->mail);
    c->mail[c->nmail++] = m;
}

static satin_msg *mail_take(satin_client *c, uint64_t rid)
{
    for (size_t i = 0; i < c->nmail; i++)
        if (c->mail[i]->request_id == rid) {
            satin_msg *m = c->mail[i];
            memmove(&c->mail[i], &c->mail[i + 1], (c->nmail - i - 1) * sizeof *c->mail);
            c->nmail--;
            return m;
        }
    return NULL;
}

/* ---- the socket monitor ------------------------------------------------------- */

static int lost_error(satin_client *c, satin_client_error *err)
{
    c->lost = 1;
    return client_fail(err, SATIN_CLIENT_UNREACHABLE, 0, "lost connection to satind at %s",
                       c->endpoint);
}

/* Handles the monitor events that are waiting; -1 (c->lost set) when one
 * says the connection is gone. */
static int check_events(satin_client *c)
{
    int ev;
    uint32_t val;
    if (!c->mon)              /* a failover client that ran out of endpoints */
        c->lost = 1;
    while (!c->lost && satin_zmonitor_read(c->mon, &ev, &val))
        if (ev == ZMQ_EVENT_DISCONNECTED)
            c->lost = 1;
    return c->lost ? -1 : 0;
}

/* Waits until the ZMTP handshake with the daemon is done, so that the first
 * request goes out at once and "no daemon" is known before anything is sent. */
static int wait_connected(satin_client *c, int timeout_ms, satin_client_error *err)
{
    const char *ipc = satin_endpoint_ipc_path(c->endpoint);
    int64_t deadline = client_now_ms() + timeout_ms;
    int refused = 0;
    for (;;) {
        int ev;
        uint32_t val;
        while (satin_zmonitor_read(c->mon, &ev, &val)) {
            switch (ev) {
            case ZMQ_EVENT_HANDSHAKE_SUCCEEDED:
                return SATIN_CLIENT_OK;
            case ZMQ_EVENT_CONNECT_RETRIED:
                /* A socket file nobody listens on is left over from a daemon
                 * that died: no point in waiting for it. */
                if (ipc && access(ipc, F_OK) < 0)
                    /* satind removes its socket file when it stops, and
                     * while it refuses connections at its open-file limit. */
                    return client_fail(err, SATIN_CLIENT_UNREACHABLE, 0,
                                       "cannot reach satind at %s: no socket file (satind is not "
                                       "running, or refuses connections for now: see its log)",
                                       c->endpoint);
                if (ipc)
                    return client_fail(err, SATIN_CLIENT_UNREACHABLE, 0,
                                       "cannot reach satind at %s: %s", c->endpoint,
                                       strerror(ECONNREFUSED));
                refused = 1;
                break;
            case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH:
                return client_fail(err, SATIN_CLIENT_UNREACHABLE, 0,
                                   "cannot reach satind at %s: it refused our key (not one of the "
                                   "grid's clients)", c->endpoint);
            case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
            case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
                return client_fail(err, SATIN_CLIENT_UNREACHABLE, 0,
                                   "cannot reach satind at %s: handshake failed (%s)", c->endpoint,
                                   c->server_key[0] ? "is it the right node and server key?"
                                             : "does it want CURVE? give --key and --server-key");
            default:
                break;
            }
        }
        int64_t left = deadline - client_now_ms();
        if (left <= 0) {
            if (refused)
                return client_fail(err, SATIN_CLIENT_UNREACHABLE, 0,
                                   "cannot reach satind at %s: %s (retried for %g s)",
                                   c->endpoint, strerror(ECONNREFUSED), timeout_ms / 1000.0);
            return client_fail(err, SATIN_CLIENT_UNREACHABLE, 0,
                               "cannot reach satind at %s: no connection within %g s", c->endpoint,
                               timeout_ms / 1000.0);
        }
        zmq_pollitem_t it = {c->mon, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&it, 1, (long)left) < 0 && zmq_errno() != EINTR)
            return client_fail(err, SATIN_CLIENT_UNREACHABLE, 0, "cannot reach satind at %s: %s",
                               c->endpoint, zmq_strerror(zmq_errno()));
    }
}

/* ---- connect / destroy -------------------------------------------------------- */

static int set_int(void *sock, int opt, int v)
{
    return zmq_setsockopt(sock, opt, &v, sizeof v);
}

static int open_sockets(satin_client *c, satin_client_error *err)
{
    char mon_ep[96];
    int64_t maxmsg = MAX_FRAME_BYTES;
    c->ctx = zmq_ctx_new();
    if (!c->ctx)
        return client_fail(err, SATIN_CLIENT_UNREACHABLE, 0, "zmq_ctx_new: %s",
                           zmq_strerror(zmq_errno()));
    c->sock = zmq_socket(c->ctx, ZMQ_DEALER);
    c->mon = zmq_socket(c->ctx, ZMQ_PAIR);
    if (!c->sock || !c->mon)
        return client_fail(err, SATIN_CLIENT_UNREACHABLE, 0, "zmq_socket: %s",
                           zmq_strerror(zmq_errno()));
    /* Options are set before connecting: ZeroMQ reads most of them then.
     * A failover client wants a dead node noticed soon, and takes every
     * PROGRESS it asked for (no receive limit) so that a job nobody waits
     * for yet cannot fill the daemon's queue and have its RESULT dropped. */
    int failover = c->eps != NULL;
    set_int(c->mon, ZMQ_LINGER, 0);
    if (set_int(c->sock, ZMQ_LINGER, 0) < 0 || set_int(c->sock, ZMQ_IMMEDIATE, 0) < 0 ||
        set_int(c->sock, ZMQ_SNDTIMEO, SATIN_CLIENT_DEFAULT_TIMEOUT_MS) < 0 ||
        set_int(c->sock, ZMQ_HEARTBEAT_IVL,
                failover ? FAILOVER_HEARTBEAT_IVL_MS : HEARTBEAT_IVL) < 0 ||
        set_int(c->sock, ZMQ_HEARTBEAT_TIMEOUT,
                failover ? FAILOVER_HEARTBEAT_TIMEOUT_MS : HEARTBEAT_TTL) < 0 ||
        (failover && set_int(c->sock, ZMQ_RCVHWM, 0) < 0) ||
        zmq_setsockopt(c->sock, ZMQ_MAXMSGSIZE, &maxmsg, sizeof maxmsg) < 0)
        return client_fail(err, SATIN_CLIENT_UNREACHABLE, 0, "zmq_setsockopt: %s",
                           zmq_strerror(zmq_errno()));
    if (c->server_key[0] &&
        (zmq_setsockopt(c->sock, ZMQ_CURVE_SERVERKEY, c->server_key, 40) < 0 ||
         zmq_setsockopt(c->sock, ZMQ_CURVE_PUBLICKEY, c->public_key, 40) < 0 ||
         zmq_setsockopt(c->sock, ZMQ_CURVE_SECRETKEY, c->secret_key, 40) < 0))
        return client_fail(err, SATIN_CLIENT_INVALID, 0, "cannot use the CURVE keys: %s",
                           zmq_strerror(zmq_errno()));
    /* The monitor's PAIR must be connected before the DEALER connects, or
     * the first events are dropped. */
    snprintf(mon_ep, sizeof mon_ep, "inproc://satin-client-monitor-%p", (void *)c);
    if (zmq_socket_monitor(c->sock, mon_ep,
                           ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_CONNECT_RETRIED |
                               ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                               ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                               ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) < 0 ||
        zmq_connect(c->mon, mon_ep) < 0)
        return client_fail(err, SATIN_CLIENT_UNREACHABLE, 0, "zmq_socket_monitor: %s",
                           zmq_strerror(zmq_errno()));
    if (zmq_connect(c->sock, c->endpoint) < 0)
        return client_fail(err, SATIN_CLIENT_UNREACHABLE, 0, "cannot reach satind at %s: %s",
                           c->endpoint, zmq_strerror(zmq_errno()));
    return SATIN_CLIENT_OK;
}

static satin_client *client_new(const char *endpoint, const char *pub, const char *sec,
                                const char *srv, satin_client_error *err);

int client_read_key(const char *given, int want_secret, char pub[41], char sec[41],
                    satin_client_error *err)
{
    /* Z85 has '/' among its characters: a 40-character text that names no
     * file and decodes is a key, whatever it contains. */
    struct stat st;
    unsigned char bin[32];
    if (!want_secret && strlen(given) == 40 && stat(given, &st) < 0) {
        if (!zmq_z85_decode(bin, given))
            return client_fail(err, SATIN_CLIENT_INVALID, 0, "'%s' is not a Z85 public key", given);
        snprintf(pub, 41, "%s", given);
        return SATIN_CLIENT_OK;
    }
    if (stat(given, &st) < 0)
        return client_fail(err, SATIN_CLIENT_INVALID, 0, "%s: %s", given, strerror(errno));
    if (want_secret && (st.st_mode & 077))
        return client_fail(err, SATIN_CLIENT_INVALID, 0,
                           "refusing the secret key %s: its mode %04o lets other users read it "
                           "(run 'chmod 600 %s')", given, (unsigned)(st.st_mode & 07777), given);
    zcert_t *cert = zcert_load(given);
    if (!cert)
        return client_fail(err, SATIN_CLIENT_INVALID, 0,
                           "%s is not a key file (expected what satin-keygen writes)", given);
    snprintf(pub, 41, "%s", zcert_public_txt(cert));
    if (sec)
        snprintf(sec, 41, "%s", zcert_secret_txt(cert));
    zcert_destroy(&cert);
    if (want_secret && strcmp(sec, "0000000000000000000000000000000000000000") == 0)
        return client_fail(err, SATIN_CLIENT_INVALID, 0,
                           "%s holds no secret key (give the .key file, not the .pub)", given);
    return SATIN_CLIENT_OK;
}

satin_client *satin_client_new_curve(const char *endpoint, const char *key_file,
                                     const char *server_key, satin_client_error *err)
{
    satin_client_error e2;
    if (!err)
        err = &e2;
    char pub[41] = "", sec[41] = "", srv[41] = "";
    if (!key_file || !server_key || !*key_file || !*server_key) {
        client_fail(err, SATIN_CLIENT_INVALID, 0,
                    "CURVE needs both this client's key file and the daemon's public key");
        return NULL;
    }
    if (!endpoint || strncmp(endpoint, "tcp://", 6) != 0) {
        client_fail(err, SATIN_CLIENT_INVALID, 0,
                    "CURVE keys are for tcp:// endpoints (an ipc socket is guarded by its "
                    "file permissions)");
        return NULL;
    }
    if (client_read_key(key_file, 1, pub, sec, err) != SATIN_CLIENT_OK ||
        client_read_key(server_key, 0, srv, NULL, err) != SATIN_CLIENT_OK)
        return NULL;
    return client_new(endpoint, pub, sec, srv, err);
}

satin_client *satin_client_new(const char *endpoint, satin_client_error *err)
{
    return client_new(endpoint, "", "", "", err);
}

/* Who may use `path` by its mode: for "permission denied" messages. */
static void who_may(const struct stat *st, char *buf, size_t len)
{
    struct group *gr = getgrgid(st->st_gid);
    struct passwd *pw = getpwuid(st->st_uid);
    char gname[32], uname[32];
    if (gr)
        snprintf(gname, sizeof gname, "%s", gr->gr_name);
    else
        snprintf(gname, sizeof gname, "%u", (unsigned)st->st_gid);
    if (pw)
        snprintf(uname, sizeof uname, "%s", pw->pw_name);
    else
        snprintf(uname, sizeof uname, "%u", (unsigned)st->st_uid);
    if (st->st_mode & (S_IXGRP | S_IWGRP))
        snprintf(buf, len, "group %s may use it", gname);
    else
        snprintf(buf, len, "only user %s may use it", uname);
}

/* Before connecting to an ipc socket: that no other user could have put it
 * there in place of the daemon's (the directory rule satind applies too),
 * and plain words for what ZeroMQ would only report as "Connection refused"
 * or wait forever for: no socket (satind is not running), or no permission. */
static int check_ipc(satin_client *c, const char *path, satin_client_error *err)
{
    char dir[4096], text[1024], who[64];
    struct stat st;
    if (satin_endpoint_socket_dir(path, dir, sizeof dir) < 0)
        return client_fail(err, SATIN_CLIENT_INVALID, 0, "socket path %s is too long", path);
    int flags = satin_endpoint_is_default_dir(dir) ? SATIN_DIR_DEFAULT : 0;
    if (satin_endpoint_check_dir(dir, flags, text, sizeof text) < 0)
        return client_fail(err, SATIN_CLIENT_UNREACHABLE, 0,
                           "refusing to connect to satind at %s: %s", c->endpoint, text);
    if (stat(path, &st) < 0) {
        int e = errno;
        /* The first directory on the way that we may not enter. */
        if (e == EACCES && strlen(path) < sizeof dir) {
            strcpy(dir, path);
            for (char *s = strchr(dir + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = 0;
                struct stat ds;
                if (stat(dir, &ds) == 0 && access(dir, X_OK) < 0) {
                    who_may(&ds, who, sizeof who);
                    return client_fail(err, SATIN_CLIENT_UNREACHABLE, 0,
                                       "cannot reach satind at %s: permission denied on %s (%s)",
                                       c->endpoint, dir, who);
                }
                *s = '/';
            }
        }
        return client_fail(err, SATIN_CLIENT_UNREACHABLE, 0, "cannot reach satind at %s: %s",
                           c->endpoint, strerror(e));
    }
    if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) < 0 && errno == EACCES) {
        who_may(&st, who, sizeof who);
        return client_fail(err, SATIN_CLIENT_UNREACHABLE, 0,
                           "cannot reach satind at %s: permission denied on %s (%s)", c->endpoint,
                           path, who);
    }
    return SATIN_CLIENT_OK;
}

/* satin_client_set_connect_timeout(): read by every constructor, so atomic. */
static _Atomic int connect_timeout_ms = SATIN_CLIENT_DEFAULT_TIMEOUT_MS;

void satin_client_set_connect_timeout(int ms)
{
    connect_timeout_ms = ms > 0 ? ms : SATIN_CLIENT_DEFAULT_TIMEOUT_MS;
}

satin_client *client_alloc(void)
{
    satin_client *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    c->next_rid = 1;
    c->request_timeout_ms = SATIN_CLIENT_DEFAULT_TIMEOUT_MS;
    c->connect_timeout_ms = connect_timeout_ms;
    return c;
}

int client_connect(satin_client *c, const char *endpoint, satin_client_error *err)
{
    snprintf(c->endpoint, sizeof c->endpoint, "%s", endpoint);
    c->lost = 0;
    const char *path = satin_endpoint_ipc_path(c->endpoint);
    int rc = path ? check_ipc(c, path, err) : SATIN_CLIENT_OK;
    if (rc == SATIN_CLIENT_OK)
        rc = open_sockets(c, err);
    if (rc == SATIN_CLIENT_OK)
        rc = wait_connected(c, c->connect_timeout_ms, err);
    if (rc != SATIN_CLIENT_OK)
        client_disconnect(c);
    return rc;
}

void client_disconnect(satin_client *c)
{
    if (c->sock) {
        zmq_socket_monitor(c->sock, NULL, 0);
        zmq_close(c->sock);
    }
    if (c->mon)
        zmq_close(c->mon);
    if (c->ctx)
        zmq_ctx_term(c->ctx);
    c->sock = c->mon = c->ctx = NULL;
    for (size_t i = 0; i < c->nmail; i++)
        satin_msg_destroy(&c->mail[i]);
    c->nmail = 0;
}

static satin_client *client_new(const char *endpoint, const char *pub, const char *sec,
                                const char *srv, satin_client_error *err)
{
    char text[128], ep[CLIENT_ENDPOINT_MAX];
    satin_client *c = client_alloc();
    client_clear_error(err);
    snprintf(c->public_key, sizeof c->public_key, "%s", pub);
    snprintf(c->secret_key, sizeof c->secret_key, "%s", sec);
    snprintf(c->server_key, sizeof c->server_key, "%s", srv);
    if (!endpoint || !*endpoint)
        satin_endpoint_default(ep, sizeof ep);
    else if (satin_endpoint_normalise(endpoint, ep, sizeof ep, text, sizeof text) < 0) {
        client_fail(err, SATIN_CLIENT_INVALID, 0, "%s", text);
        satin_client_destroy(&c);
        return NULL;
    }
    if (client_connect(c, ep, err) != SATIN_CLIENT_OK)
        satin_client_destroy(&c);
    return c;
}

void satin_client_destroy(satin_client **self)
{
    satin_client *c = self ? *self : NULL;
    if (!c)
        return;
    client_disconnect(c);
    free(c->mail);
    for (size_t i = 0; i < c->nconv; i++) {
        satin_msg_destroy(&c->convs[i].record);
        free(c->convs[i].outcome);
    }
    free(c->convs);
    satin_endpoint_list_destroy(&c->eps);
    free(c->server_keys);
    explicit_bzero(c->secret_key, sizeof c->secret_key);
    free(c);
    *self = NULL;
}

const char *satin_client_endpoint(const satin_client *self)
{
    return self->endpoint;
}

uint64_t satin_client_node_job_id(satin_client *self, uint64_t job_id)
{
    if (!self->eps)
        return job_id;
    conv *cv = client_conv_by_id(self, job_id);
    return cv ? cv->job_id : 0;
}

void satin_client_set_request_timeout(satin_client *self, int ms)
{
    self->request_timeout_ms = ms > 0 ? ms : SATIN_CLIENT_DEFAULT_TIMEOUT_MS;
}

/* ---- sending and receiving ---------------------------------------------------- */

/* Sends `m` with the next request id (stored in m->request_id). */
static int send_msg(satin_client *c, satin_msg *m, satin_client_error *err)
{
    unsigned char *hdr, *body;
    size_t hlen, blen;
    satin_proto_error perr;
    m->request_id = c->next_rid++;
    if (satin_msg_encode(m, &hdr, &hlen, &body, &blen) < 0) {
        satin_msg_check(m, &perr);
        return client_fail(err, SATIN_CLIENT_INVALID, perr.code, "%s", perr.text);
    }
    int rc = zmq_send(c->sock, hdr, hlen, ZMQ_SNDMORE);
    /* ZeroMQ sends the frames of a message atomically: once the first one
     * is queued the second one cannot block or fail on its own.  A send
     * only blocks (up to ZMQ_SNDTIMEO) when the daemon stops reading and
     * the queue is full. */
    if (rc >= 0)
        rc = zmq_send(c->sock, body, blen, 0);
    int e = zmq_errno();
    free(hdr);
    free(body);
    if (rc < 0) {
        if (e == EAGAIN)
            return check_events(c) < 0
                       ? lost_error(c, err)
                       : client_fail(err, SATIN_CLIENT_UNREACHABLE, 0,
                                     "cannot send to satind at %s: it takes no messages",
                                     c->endpoint);
        return client_fail(err, SATIN_CLIENT_UNREACHABLE, 0, "cannot send to satind at %s: %s",
                           c->endpoint, zmq_strerror(e));
    }
    return SATIN_CLIENT_OK;
}

/* Reads one whole message without blocking.  1: *out is a decoded message;
 * 0: nothing to read; -1: a message was there but is bad (perr says why). */
static int recv_one(satin_client *c, satin_msg **out, satin_proto_error *perr)
{
    zmq_msg_t f[2];
    int extra, nframes = satin_zframes_recv(c->sock, f, 2, &extra);
    *out = NULL;
    if (nframes == 0)
        return 0;
    c->last_heard = client_now_ms();   /* any message, even a bad one, is a sign of life */
    if (nframes + extra != 2) {
        memset(perr, 0, sizeof *perr);
        perr->code = SATIN_PROTO_BAD_MESSAGE;
        snprintf(perr->text, sizeof perr->text, "message of %d frames (SGP/3 has 2)",
                 nframes + extra);
    } else {
        *out = satin_msg_decode(zmq_msg_data(&f[0]), zmq_msg_size(&f[0]), zmq_msg_data(&f[1]),
                                zmq_msg_size(&f[1]), MAX_FRAME_BYTES, perr);
    }
    satin_zframes_close(f, nframes);
    return *out ? 1 : -1;
}

/* Reads everything the socket holds until a message for `rid` turns up.
 * 1: *out is it; 0: none yet; <0: a satin_client_rc error, negated. */
static int drain(satin_client *c, uint64_t rid, satin_msg **out, satin_client_error *err)
{
    for (;;) {
        satin_msg *m;
        satin_proto_error perr;
        int r = recv_one(c, &m, &perr);
        if (r == 0)
            return 0;
        if (r < 0) {
            /* A bad message for some other, finished conversation costs
             * nothing; one that may be our reply ends the wait. */
            if (perr.have_header && perr.request_id != rid)
                continue;
            return -client_fail(err, SATIN_CLIENT_PROTOCOL, perr.code,
                                "bad message from satind: %s", perr.text);
        }
        /* An ERROR without a request id is the daemon's answer to a message
         * whose header it could not read: that can only be the one we wait on. */
        if (m->request_id == rid || (m->type == SATIN_MSG_ERROR && m->request_id == 0)) {
            *out = m;
            return 1;
        }
        /* Keep what another live conversation will ask for; progress of a
         * job nobody watches right now is stale by then. */
        if (m->type != SATIN_MSG_PROGRESS && conv_by_rid(c, m->request_id))
            mail_put(c, m);
        else
            satin_msg_destroy(&m);
    }
}

/* The next message for request `rid`, waiting until `deadline` (client_now_ms()
 * time; < 0: forever).  SATIN_CLIENT_TIMEOUT when it passes. */
static int next_reply(satin_client *c, uint64_t rid, int64_t deadline, satin_msg **out,
                      satin_client_error *err)
{
    *out = mail_take(c, rid);
    if (*out)
        return SATIN_CLIENT_OK;
    if (c->lost)
        return lost_error(c, err);
    for (;;) {
        int r = drain(c, rid, out, err);
        if (r != 0)
            return r > 0 ? SATIN_CLIENT_OK : -r;
        long left = -1;
        if (deadline >= 0) {
            int64_t l = deadline - client_now_ms();
            if (l <= 0)
                return client_fail(err, SATIN_CLIENT_TIMEOUT, 0, "timed out");
            left = (long)l;
        }
        zmq_pollitem_t it[2] = {{c->sock, 0, ZMQ_POLLIN, 0}, {c->mon, 0, ZMQ_POLLIN, 0}};
        if (zmq_poll(it, 2, left) < 0) {
            if (zmq_errno() == EINTR)
                continue;
            return client_fail(err, SATIN_CLIENT_UNREACHABLE, 0, "zmq_poll: %s",
                               zmq_strerror(zmq_errno()));
        }
        if ((it[1].revents & ZMQ_POLLIN) && check_events(c) < 0) {
            /* The monitor runs on its own socket: a reply the daemon sent
             * just before it went may still be on its way to ours. */
            int64_t grace = client_now_ms() + GRACE_MS;
            do {
                r = drain(c, rid, out, err);
                if (r != 0)
                    return r > 0 ? SATIN_CLIENT_OK : -r;
                zmq_poll(it, 1, GRACE_MS / 5);
            } while (client_now_ms() < grace);
            return lost_error(c, err);
        }
    }
}

/* Sends a short request and returns its reply (ERROR turned into
 * SATIN_CLIENT_REJECTED).  `m` is consumed. */
int client_request(satin_client *c, satin_msg *m, satin_msg **reply, satin_client_error *err)
{
    *reply = NULL;
    if (check_events(c) < 0)
        return lost_error(c, err);
    int rc = send_msg(c, m, err);
    const char *what = satin_msg_type_name(m->type);
    if (rc == SATIN_CLIENT_OK) {
        rc = next_reply(c, m->request_id, client_now_ms() + c->request_timeout_ms, reply, err);
        if (rc == SATIN_CLIENT_TIMEOUT)
            rc = client_fail(err, SATIN_CLIENT_UNREACHABLE, 0,
                             "satind at %s did not answer %s within %.1f s", c->endpoint, what,
                             c->request_timeout_ms / 1000.0);
    }
    if (rc == SATIN_CLIENT_OK && (*reply)->type == SATIN_MSG_ERROR) {
        rc = client_fail(err, SATIN_CLIENT_REJECTED, (*reply)->code, "%s", (*reply)->error);
        satin_msg_destroy(reply);
    }
    return rc;
}

/* A short request to the daemon in use, or for a failover client to the
 * first node that answers; `m` is consumed. */
static int request(satin_client *c, satin_msg *m, satin_msg **reply, satin_client_error *err)
{
    int rc = c->eps ? failover_request(c, m, reply, err) : client_request(c, m, reply, err);
    satin_msg_destroy(&m);
    return rc;
}

int client_unexpected(satin_msg **m, const char *request, satin_client_error *err)
{
    int rc = client_fail(err, SATIN_CLIENT_PROTOCOL, SATIN_PROTO_BAD_MESSAGE,
                         "satind answered %s with %s", request, satin_msg_type_name((*m)->type));
    satin_msg_destroy(m);
    return rc;
}

/* ---- submit ------------------------------------------------------------------- */

static int check_text(const char *s, const char *what, const char *name,
                      satin_client_error *err)
{
    if (!satin_wire_utf8_ok((const unsigned char *)s, strlen(s)))
        return client_fail(err, SATIN_CLIENT_INVALID, SATIN_PROTO_BAD_PARAMS,
                           "%s '%s' is not valid UTF-8", what, name);
    return SATIN_CLIENT_OK;
}

/* Splits "key=value" into the message; the limits of PROTOCOL.md 6.1 are
 * checked here so the user learns which argument is wrong. */
static int add_param(satin_msg *m, const char *kv, satin_client_error *err)
{
    const char *eq = strchr(kv, '=');
    if (!eq)
        return client_fail(err, SATIN_CLIENT_INVALID, SATIN_PROTO_BAD_PARAMS,
                           "parameter '%s' is not key=value", kv);
    size_t klen = (size_t)(eq - kv);
    if (klen == 0)
        return client_fail(err, SATIN_CLIENT_INVALID, SATIN_PROTO_BAD_PARAMS,
                           "parameter '%s' has an empty key", kv);
    if (klen > SATIN_PROTO_NAME_MAX)
        return client_fail(err, SATIN_CLIENT_INVALID, SATIN_PROTO_BAD_PARAMS,
                           "parameter key '%.*s...' is longer than %d bytes", 20, kv,
                           SATIN_PROTO_NAME_MAX);
    if (strlen(eq + 1) > SATIN_PROTO_STR_MAX)
        return client_fail(err, SATIN_CLIENT_INVALID, SATIN_PROTO_BAD_PARAMS,
                           "value of parameter '%.*s' is longer than %d bytes", (int)klen, kv,
                           SATIN_PROTO_STR_MAX);
    char key[SATIN_PROTO_NAME_MAX + 1];
    memcpy(key, kv, klen);
    key[klen] = '\0';
    if (check_text(kv, "parameter", kv, err) != SATIN_CLIENT_OK)
        return err ? err->code : SATIN_CLIENT_INVALID;
    if (satin_msg_param_value(m, key))
        return client_fail(err, SATIN_CLIENT_INVALID, SATIN_PROTO_BAD_PARAMS,
                           "parameter '%s' is given twice", key);
    if (satin_msg_add_param(m, key, eq + 1) < 0)
        return client_fail(err, SATIN_CLIENT_INVALID, SATIN_PROTO_BAD_PARAMS,
                           "too many parameters (at most %d)", SATIN_PROTO_MAX_PARAMS);
    return SATIN_CLIENT_OK;
}

static int build_submit(satin_msg *m, const char *kind, const char *const *params,
                        unsigned flags, satin_client_error *err)
{
    size_t klen = kind ? strlen(kind) : 0;
    if (klen == 0 || klen > SATIN_PROTO_NAME_MAX)
        return client_fail(err, SATIN_CLIENT_INVALID, SATIN_PROTO_UNKNOWN_KIND,
                           "job kind must be 1..%d bytes long", SATIN_PROTO_NAME_MAX);
    int rc = check_text(kind, "job kind", kind, err);
    if (rc != SATIN_CLIENT_OK)
        return rc;
    satin_msg_set_kind(m, kind);
    m->flags = ((flags & SATIN_CLIENT_PROGRESS) ? SATIN_FLAG_PROGRESS : 0) |
               ((flags & SATIN_CLIENT_PROFILE) ? SATIN_FLAG_PROFILE : 0);
    for (const char *const *p = params; p && *p; p++)
        if ((rc = add_param(m, *p, err)) != SATIN_CLIENT_OK)
            return rc;
    return SATIN_CLIENT_OK;
}

/* A job's name: 0..63 bytes of UTF-8 without control characters. */
static int check_job_name(const char *name, satin_client_error *err)
{
    if (strlen(name) > SATIN_PROTO_NAME_MAX)
        return client_fail(err, SATIN_CLIENT_INVALID, SATIN_PROTO_BAD_PARAMS,
                           "job name must be at most %d bytes long", SATIN_PROTO_NAME_MAX);
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            return client_fail(err, SATIN_CLIENT_INVALID, SATIN_PROTO_BAD_PARAMS,
                               "job name has a control character (byte 0x%02x)", *c);
    return check_text(name, "job name", name, err);
}

int satin_client_submit(satin_client *self, const char *kind, const char *const *params,
                        unsigned flags, uint64_t *job_id, satin_client_error *err)
{
    return satin_client_submit_named(self, kind, params, flags, NULL, job_id, err);
}

int satin_client_submit_named(satin_client *self, const char *kind, const char *const *params,
                              unsigned flags, const char *name, uint64_t *job_id,
                              satin_client_error *err)
{
    satin_msg *m = satin_msg_new(SATIN_MSG_SUBMIT), *reply;
    client_clear_error(err);
    *job_id = 0;
    int rc = name && *name ? check_job_name(name, err) : SATIN_CLIENT_OK;
    if (rc == SATIN_CLIENT_OK)
        rc = build_submit(m, kind, params, flags, err);
    if (rc == SATIN_CLIENT_OK)
        satin_msg_set_job_name(m, name);
    if (rc != SATIN_CLIENT_OK) {
        satin_msg_destroy(&m);
        return rc;
    }
    if (self->eps)
        return failover_submit(self, m, job_id, err);
    rc = client_request(self, m, &reply, err);
    satin_msg_destroy(&m);
    if (rc != SATIN_CLIENT_OK)
        return rc;
    if (reply->type != SATIN_MSG_ACCEPTED || reply->job_id == 0)
        return client_unexpected(&reply, "SUBMIT", err);
    /* From now on the job's PROGRESS and RESULT come with this request id. */
    client_conv_add(self, &(conv){.rid = reply->request_id, .id = reply->job_id,
                                  .job_id = reply->job_id});
    *job_id = reply->job_id;
    satin_msg_destroy(&reply);
    return SATIN_CLIENT_OK;
}

/* ---- the public value and kind lists ------------------------------------------- */

/* The public header repeats the wire's numbers so that it needs no codec
 * header; these keep the two copies equal. */
_Static_assert(SATIN_CLIENT_PROTOCOL_VERSION == SATIN_PROTO_VERSION, "protocol version");
#define SAME_CODE(name) ((int)SATIN_CLIENT_E_##name == (int)SATIN_PROTO_##name)
_Static_assert(SAME_CODE(BAD_MESSAGE) && SAME_CODE(UNKNOWN_KIND) && SAME_CODE(BAD_PARAMS) &&
               SAME_CODE(TOO_LARGE) && SAME_CODE(UNKNOWN_JOB) && SAME_CODE(SHUTTING_DOWN) &&
               SAME_CODE(LIMIT_REACHED) && SAME_CODE(UNSUPPORTED_VERSION) &&
               SAME_CODE(FORBIDDEN),
               "SGP/3 error codes");
#undef SAME_CODE

static char *dup_text(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d)
        abort();
    return d;
}

static void *alloc_items(size_t n, size_t size)
{
    if (n == 0)
        return NULL;
    void *p = calloc(n, size);
    if (!p)
        abort();
    return p;
}

/* Copied rather than taken over: the codec's list may change its layout
 * without the public one following. */
static void values_from_kvlist(satin_client_values *out, const satin_kvlist *in)
{
    out->n = in->n;
    out->items = alloc_items(in->n, sizeof *out->items);
    for (size_t i = 0; i < in->n; i++) {
        const satin_kv *kv = &in->items[i];
        satin_client_value *v = &out->items[i];
        v->name = dup_text(kv->name);
        switch (kv->type) {
        case SATIN_KV_I64: v->type = SATIN_CLIENT_I64; v->i64 = kv->i64; break;
        case SATIN_KV_F64: v->type = SATIN_CLIENT_F64; v->f64 = kv->f64; break;
        case SATIN_KV_STR: v->type = SATIN_CLIENT_STR; v->str = dup_text(kv->str); break;
        }
    }
}

const satin_client_value *satin_client_values_find(const satin_client_values *l,
                                                   const char *name)
{
    for (size_t i = 0; l && name && i < l->n; i++)
        if (strcmp(l->items[i].name, name) == 0)
            return &l->items[i];
    return NULL;
}

int satin_client_values_i64(const satin_client_values *l, const char *name, int64_t *out)
{
    const satin_client_value *v = satin_client_values_find(l, name);
    if (!v || v->type != SATIN_CLIENT_I64)
        return -1;
    *out = v->i64;
    return 0;
}

int satin_client_values_f64(const satin_client_values *l, const char *name, double *out)
{
    const satin_client_value *v = satin_client_values_find(l, name);
    if (!v || v->type != SATIN_CLIENT_F64)
        return -1;
    *out = v->f64;
    return 0;
}

const char *satin_client_values_str(const satin_client_values *l, const char *name)
{
    const satin_client_value *v = satin_client_values_find(l, name);
    return v && v->type == SATIN_CLIENT_STR ? v->str : NULL;
}

void satin_client_values_free(satin_client_values *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++) {
        free(l->items[i].name);
        free(l->items[i].str);
    }
    free(l->items);
    l->n = 0;
    l->items = NULL;
}

static void kinds_from_msg(satin_client_kinds *out, const satin_msg *m)
{
    out->n = m->nkinds;
    out->items = alloc_items(m->nkinds, sizeof *out->items);
    for (size_t i = 0; i < m->nkinds; i++) {
        const satin_msg_kind *mk = &m->kinds[i];
        satin_client_kind *k = &out->items[i];
        k->name = dup_text(mk->name);
        k->summary = dup_text(mk->summary);
        k->module = dup_text(mk->module);
        k->module_version = dup_text(mk->module_version);
        k->nparams = mk->nparams;
        k->params = alloc_items(mk->nparams, sizeof *k->params);
        for (size_t j = 0; j < mk->nparams; j++) {
            const satin_msg_kind_param *mp = &mk->params[j];
            satin_client_kind_param *p = &k->params[j];
            p->name = dup_text(mp->name);
            p->required = (mp->flags & SATIN_KIND_PARAM_REQUIRED) != 0;
            p->has_default = (mp->flags & SATIN_KIND_PARAM_HAS_DEFAULT) != 0;
            p->def = dup_text(p->has_default ? mp->def : "");
            p->help = dup_text(mp->help);
        }
    }
}

void satin_client_kinds_free(satin_client_kinds *kinds)
{
    if (!kinds)
        return;
    for (size_t i = 0; i < kinds->n; i++) {
        satin_client_kind *k = &kinds->items[i];
        for (size_t j = 0; j < k->nparams; j++) {
            free(k->params[j].name);
            free(k->params[j].def);
            free(k->params[j].help);
        }
        free(k->params);
        free(k->name);
        free(k->summary);
        free(k->module);
        free(k->module_version);
    }
    free(kinds->items);
    kinds->n = 0;
    kinds->items = NULL;
}

/* ---- wait --------------------------------------------------------------------- */

static void report_init(satin_job_report *r)
{
    memset(r, 0, sizeof *r);
}

void satin_job_report_free(satin_job_report *report)
{
    if (!report)
        return;
    free(report->error);
    free(report->data_type);
    free(report->data);
    satin_client_values_free(&report->result);
    satin_client_values_free(&report->stats);
    report_init(report);
}

/* The report of RESULT m, which gives it its data bytes. */
static int take_result(satin_msg *m, satin_job_report *r, satin_client_error *err)
{
    r->job_id = m->job_id;
    snprintf(r->kind, sizeof r->kind, "%s", m->kind);
    r->ok = m->status == SATIN_STATUS_OK;
    r->error = dup_text(m->error);
    r->data_type = dup_text(m->data_type);
    if (m->data_type[0] && !m->data_borrowed) {
        r->data = m->data;   /* the message is destroyed next: no copy of megabytes */
        r->data_len = m->data_len;
        m->data = NULL;
        m->data_len = 0;
    }
    values_from_kvlist(&r->result, &m->result);
    values_from_kvlist(&r->stats, &m->stats);
    if (r->ok)
        return SATIN_CLIENT_OK;
    return client_fail(err, SATIN_CLIENT_JOB_FAILED, 0, "%s", r->error);
}

/* The conversation that will bring job `id`'s RESULT: the SUBMIT's own, or
 * a new WAIT.  A failover client's ids are its own: it waits only for the
 * jobs it submitted. */
static int attach(satin_client *c, uint64_t id, int progress, satin_client_error *err)
{
    if (client_conv_by_id(c, id))
        return SATIN_CLIENT_OK;
    if (c->eps)
        return client_fail(err, SATIN_CLIENT_REJECTED, SATIN_PROTO_UNKNOWN_JOB,
                           "job %llu is not a job of this client that is still running",
                           (unsigned long long)id);
    if (check_events(c) < 0)
        return lost_error(c, err);
    satin_msg *m = satin_msg_new(SATIN_MSG_WAIT);
    m->job_id = id;
    m->flags = progress ? SATIN_FLAG_PROGRESS : 0;
    int rc = send_msg(c, m, err);
    if (rc == SATIN_CLIENT_OK)
        client_conv_add(c, &(conv){.rid = m->request_id, .id = id, .job_id = id});
    satin_msg_destroy(&m);
    return rc;
}

/* A failover client also stops waiting when its node has been silent too
 * long: it asked for PROGRESS, which a live node sends about once a second. */
static int64_t wait_deadline(const satin_client *c, int64_t deadline)
{
    if (!c->eps)
        return deadline;
    int64_t silent = c->last_heard + FAILOVER_SILENCE_MS;
    return deadline < 0 || silent < deadline ? silent : deadline;
}

/* For a failover client: whether what next_reply() gave (rc, and *m when
 * OK) means the node is gone; 1 with the cause in why. */
static int node_gone(const satin_client *c, int rc, const satin_msg *m,
                     const satin_client_error *err, char *why, size_t len)
{
    if (!c->eps)
        return 0;
    if (rc == SATIN_CLIENT_TIMEOUT) {   /* not the caller's deadline: silence */
        snprintf(why, len, "no reply for %d s", FAILOVER_SILENCE_MS / 1000);
        return 1;
    }
    if (rc != SATIN_CLIENT_OK)
        return failover_node_gone(rc, c->lost, err ? err->proto_code : 0, NULL, why, len);
    /* A stopping satind cancels its jobs ("cancelled: satind is shutting
     * down"), or past its drain deadline answers their waiters with ERROR. */
    if (m->type == SATIN_MSG_ERROR)
        return failover_node_gone(SATIN_CLIENT_REJECTED, 0, m->code, NULL, why, len);
    return m->type == SATIN_MSG_RESULT && m->status != SATIN_STATUS_OK &&
           failover_node_gone(SATIN_CLIENT_JOB_FAILED, 0, 0, m->error, why, len);
}

/* A failover client's job that ended here, not on a node: its report. */
static int settled(satin_client *c, conv *cv, satin_job_report *r, satin_client_error *err)
{
    r->job_id = cv->id;
    snprintf(r->kind, sizeof r->kind, "%s", cv->record ? cv->record->kind : "");
    r->ok = 0;
    r->error = dup_text(cv->outcome);
    r->data_type = dup_text("");
    int rc = client_fail(err, SATIN_CLIENT_JOB_FAILED, 0, "%s", r->error);
    conv_end(c, cv->id);
    return rc;
}

/* The job's RESULT (or the daemon's ERROR for a WAIT): the report. */
static int finish(satin_client *c, uint64_t id, satin_msg *m, satin_job_report *report,
                  satin_client_error *err)
{
    uint64_t node_job_id = client_conv_by_id(c, id)->job_id;
    conv_end(c, id);
    int rc;
    if (m->type == SATIN_MSG_RESULT && m->job_id == node_job_id) {
        rc = take_result(m, report, err);
        report->job_id = id;
    } else if (m->type == SATIN_MSG_ERROR)
        rc = client_fail(err, SATIN_CLIENT_REJECTED, m->code, "%s", m->error);
    else
        return client_unexpected(&m, "WAIT", err);
    satin_msg_destroy(&m);
    return rc;
}

int satin_client_wait(satin_client *self, uint64_t job_id, int timeout_ms,
                      satin_job_report *report, satin_progress_fn *progress, void *arg,
                      satin_client_error *err)
{
    report_init(report);
    client_clear_error(err);
    if (job_id == 0)
        return client_fail(err, SATIN_CLIENT_INVALID, 0, "job id 0 does not exist");
    int rc = attach(self, job_id, progress != NULL, err);
    if (rc != SATIN_CLIENT_OK)
        return rc;
    int64_t deadline = timeout_ms < 0 ? -1 : client_now_ms() + timeout_ms;
    for (;;) {
        /* Looked up each time: a failover gives the job a new request id. */
        conv *cv = client_conv_by_id(self, job_id);
        if (cv->outcome)
            return settled(self, cv, report, err);
        satin_msg *m = NULL;
        char why[128];
        rc = next_reply(self, cv->rid, wait_deadline(self, deadline), &m, err);
        if (rc == SATIN_CLIENT_TIMEOUT && deadline >= 0 && client_now_ms() >= deadline)
            return client_fail(err, SATIN_CLIENT_TIMEOUT, 0,
                               "job %llu did not finish within %.1f s",
                               (unsigned long long)job_id, timeout_ms / 1000.0);
        if (node_gone(self, rc, m, err, why, sizeof why)) {
            satin_msg_destroy(&m);
            client_clear_error(err);
            rc = failover_move(self, why, err);
            if (rc == SATIN_CLIENT_OK)
                continue;
        }
        if (rc != SATIN_CLIENT_OK) {
            conv_end(self, job_id);
            return rc;
        }
        if (m->type == SATIN_MSG_PROGRESS && m->job_id == cv->job_id) {
            if (progress)
                progress(job_id, m->elapsed_ms, m->jobs_run, arg);
            satin_msg_destroy(&m);
            continue;
        }
        return finish(self, job_id, m, report, err);
    }
}

/* ---- cancel, status, kinds ------------------------------------------------------ */

int satin_client_cancel(satin_client *self, uint64_t job_id, satin_client_error *err)
{
    return satin_client_cancel_job(self, job_id, NULL, err);
}

int satin_client_cancel_job(satin_client *self, uint64_t job_id, int *state,
                            satin_client_error *err)
{
    int ignored;
    if (!state)
        state = &ignored;
    client_clear_error(err);
    if (self->eps)
        return failover_cancel(self, job_id, state, err);
    satin_msg *m = satin_msg_new(SATIN_MSG_CANCEL), *reply;
    m->job_id = job_id;
    int rc = request(self, m, &reply, err);
    if (rc != SATIN_CLIENT_OK)
        return rc;
    if (reply->type != SATIN_MSG_OK || reply->job_id != job_id)
        return client_unexpected(&reply, "CANCEL", err);
    *state = reply->status;
    satin_msg_destroy(&reply);
    return SATIN_CLIENT_OK;
}

static int list_jobs(satin_client *self, unsigned flags, satin_client_values **jobs,
                     size_t *njobs, satin_client_error *err)
{
    satin_msg *reply, *m = satin_msg_new(SATIN_MSG_LIST);
    client_clear_error(err);
    *jobs = NULL;
    *njobs = 0;
    m->flags = flags;
    int rc = request(self, m, &reply, err);
    if (rc != SATIN_CLIENT_OK)
        return rc;
    if (reply->type != SATIN_MSG_JOBS)
        return client_unexpected(&reply, "LIST", err);
    *jobs = alloc_items(reply->njobs, sizeof **jobs);
    for (size_t i = 0; i < reply->njobs; i++)
        values_from_kvlist(&(*jobs)[i], &reply->jobs[i]);
    *njobs = reply->njobs;
    satin_msg_destroy(&reply);
    return SATIN_CLIENT_OK;
}

int satin_client_list(satin_client *self, int all, satin_client_values **jobs, size_t *njobs,
                      satin_client_error *err)
{
    return list_jobs(self, all ? SATIN_LIST_ALL : 0, jobs, njobs, err);
}

int satin_client_list_grid(satin_client *self, int all, satin_client_values **jobs,
                           size_t *njobs, satin_client_error *err)
{
    return list_jobs(self, SATIN_LIST_GRID | (all ? SATIN_LIST_ALL : 0), jobs, njobs, err);
}

void satin_client_jobs_free(satin_client_values *jobs, size_t njobs)
{
    for (size_t i = 0; jobs && i < njobs; i++)
        satin_client_values_free(&jobs[i]);
    free(jobs);
}

int satin_client_status(satin_client *self, satin_client_values *out, satin_client_error *err)
{
    satin_msg *reply;
    client_clear_error(err);
    memset(out, 0, sizeof *out);
    int rc = request(self, satin_msg_new(SATIN_MSG_STATUS), &reply, err);
    if (rc != SATIN_CLIENT_OK)
        return rc;
    if (reply->type != SATIN_MSG_STATUS_REPLY)
        return client_unexpected(&reply, "STATUS", err);
    values_from_kvlist(out, &reply->info);
    satin_msg_destroy(&reply);
    return SATIN_CLIENT_OK;
}

int satin_client_grid_status(satin_client *self, satin_client_values **nodes, size_t *nnodes,
                             satin_client_error *err)
{
    satin_msg *reply;
    client_clear_error(err);
    *nodes = NULL;
    *nnodes = 0;
    int rc = request(self, satin_msg_new(SATIN_MSG_GRID_STATUS), &reply, err);
    if (rc != SATIN_CLIENT_OK)
        return rc;
    if (reply->type != SATIN_MSG_GRID)
        return client_unexpected(&reply, "GRID_STATUS", err);
    *nodes = alloc_items(reply->njobs, sizeof **nodes);
    for (size_t i = 0; i < reply->njobs; i++)
        values_from_kvlist(&(*nodes)[i], &reply->jobs[i]);
    *nnodes = reply->njobs;
    satin_msg_destroy(&reply);
    return SATIN_CLIENT_OK;
}

int satin_client_list_kinds(satin_client *self, satin_client_kinds *kinds,
                            satin_client_error *err)
{
    satin_msg *reply;
    client_clear_error(err);
    memset(kinds, 0, sizeof *kinds);
    int rc = request(self, satin_msg_new(SATIN_MSG_LIST_KINDS), &reply, err);
    if (rc != SATIN_CLIENT_OK)
        return rc;
    if (reply->type != SATIN_MSG_KINDS)
        return client_unexpected(&reply, "LIST_KINDS", err);
    kinds_from_msg(kinds, reply);
    satin_msg_destroy(&reply);
    return SATIN_CLIENT_OK;
}

const char *satin_client_rc_name(int rc)
{
    switch (rc) {
    case SATIN_CLIENT_OK: return "ok";
    case SATIN_CLIENT_REJECTED: return "rejected";
    case SATIN_CLIENT_JOB_FAILED: return "job failed";
    case SATIN_CLIENT_UNREACHABLE: return "unreachable";
    case SATIN_CLIENT_TIMEOUT: return "timeout";
    case SATIN_CLIENT_PROTOCOL: return "protocol error";
    case SATIN_CLIENT_INVALID: return "invalid argument";
    default: return "unknown";
    }
}
