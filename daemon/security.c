/* security.c - CurveZMQ keys and ZAP for one node (see security.h). */
#include "security.h"
#include "log.h"
#include "pool.h"

#include <czmq.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ZAUTH_LOG_ENDPOINT "inproc://satin-zauth-log"
#define REFUSAL_LOG_INTERVAL_S 60.0
#define REFUSAL_TABLE 256             /* keys remembered for rate limiting */
#define ZERO_KEY "0000000000000000000000000000000000000000"

typedef struct refusal {
    char key[41];
    satin_log_limit limit;
} refusal;

struct satin_security {
    const satin_topology *topo;
    int self;
    int enabled;
    zcert_t *cert;                /* this node's key pair */
    zactor_t *auth;               /* CZMQ's ZAP handler */
    void *log_sub;                /* zauth's log lines */
    char last_address[64];        /* from zauth's line before a verdict */
    refusal refusals[REFUSAL_TABLE];
    int nrefusals, next_evict;
    uint64_t refused;
};

void satin_security_set_max_sockets(void *zmq_ctx, int n)
{
    /* On the context itself, after zsys_init (which sets its own default)
     * and before the first socket: zsys_set_max_sockets would do the same
     * through a lock of CZMQ's that ThreadSanitizer cannot follow. */
    zmq_ctx_set(zmq_ctx, ZMQ_MAX_SOCKETS, n);
}

void *satin_security_context(void)
{
    zsys_handler_set(NULL);
    return zsys_init();
}

void satin_security_context_end(void)
{
    zsys_shutdown();
}

void satin_security_key_path(const satin_topology *t, int self, const char *given, char *buf,
                             size_t len)
{
    const char *creds = getenv("CREDENTIALS_DIRECTORY");
    const char *node = t && self >= 0 && self < t->nnodes ? t->nodes[self].id : "satind";
    if (given && *given)
        snprintf(buf, len, "%s", given);
    else if (creds && *creds)
        snprintf(buf, len, "%s/satind.key", creds);
    else if (t && t->keys_dir[0])
        snprintf(buf, len, "%s/%s.key", t->keys_dir, node);
    else
        snprintf(buf, len, "/etc/satin/keys/%s.key", node);
}

static zcert_t *load_key(const satin_topology *t, int self, const char *path, char *err,
                         size_t errlen)
{
    const char *node = t->nodes[self].id;
    struct stat st;
    if (stat(path, &st) < 0) {
        snprintf(err, errlen, "node %s: cannot use the secret key %s: %s (make one with "
                 "'satin-keygen %s', or give --key FILE)", node, path, strerror(errno), node);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "node %s: the secret key %s is not a regular file", node, path);
        return NULL;
    }
    /* A secret key others can read is no longer secret: refuse, as ssh does.
     * systemd's credentials directory is private to the service, and its ACL
     * mask shows in the group bits there: only "others" count in it. */
    const char *creds = getenv("CREDENTIALS_DIRECTORY");
    size_t clen = creds ? strlen(creds) : 0;
    int in_creds = clen && strncmp(path, creds, clen) == 0 && path[clen] == '/';
    if (st.st_mode & (in_creds ? 07 : 077)) {
        snprintf(err, errlen, "node %s: refusing the secret key %s: its mode %04o lets other "
                 "users read it (run 'chmod 600 %s')", node, path,
                 (unsigned)(st.st_mode & 07777), path);
        return NULL;
    }
    zcert_t *cert = zcert_load(path);
    if (!cert) {
        snprintf(err, errlen, "node %s: %s is not a key file (expected what satin-keygen "
                 "writes: a ZPL certificate with curve public-key and secret-key)", node, path);
        return NULL;
    }
    if (strcmp(zcert_secret_txt(cert), ZERO_KEY) == 0) {
        snprintf(err, errlen, "node %s: %s holds no secret key (is it the public .pub file?)",
                 node, path);
        zcert_destroy(&cert);
        return NULL;
    }
    if (strcmp(zcert_public_txt(cert), t->nodes[self].public_key) != 0) {
        snprintf(err, errlen, "node %s: the key pair in %s does not match the node's public_key "
                 "in %s (%s there, %s in the file)", node, path, t->path,
                 t->nodes[self].public_key, zcert_public_txt(cert));
        zcert_destroy(&cert);
        return NULL;
    }
    return cert;
}

/* The store zauth checks: every node's and every allowed client's public
 * key; the secret halves are not ours to know. */
static zcertstore_t *listed_keys(const satin_topology *t)
{
    zcertstore_t *store = zcertstore_new(NULL);
    byte pub[32], none[32] = {0};
    for (int i = 0; i < t->nnodes + t->nclients; i++) {
        const char *z85 = i < t->nnodes ? t->nodes[i].public_key
                                        : t->clients[i - t->nnodes].public_key;
        if (!zmq_z85_decode(pub, z85))
            continue;
        zcert_t *c = zcert_new_from(pub, none);
        zcertstore_insert(store, &c);
    }
    return store;
}

satin_security *satin_security_new(void *zctx, const satin_topology *t, int self,
                                   const char *key_path, char *err, size_t errlen)
{
    satin_security *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    s->topo = t;
    s->self = self;
    s->enabled = t && !t->security_none;
    if (!s->enabled)
        return s;
    if (satin_topology_check_keys(t, err, errlen) < 0 ||
        !(s->cert = load_key(t, self, key_path, err, errlen))) {
        satin_security_destroy(&s);
        return NULL;
    }
    /* zauth's verdicts reach us as log lines (it has no other hook); keep
     * them off stdout, where every accepted connection would print one. */
    zsys_set_logstream(NULL);
    zsys_set_logsender(ZAUTH_LOG_ENDPOINT);
    s->log_sub = zmq_socket(zctx, ZMQ_SUB);
    int zero = 0;
    zmq_setsockopt(s->log_sub, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(s->log_sub, ZMQ_SUBSCRIBE, "", 0);
    if (zmq_connect(s->log_sub, ZAUTH_LOG_ENDPOINT) < 0) {
        snprintf(err, errlen, "cannot follow the authenticator's log: %s", zmq_strerror(errno));
        satin_security_destroy(&s);
        return NULL;
    }
    s->auth = zactor_new(zauth, listed_keys(t));   /* zauth owns the store */
    if (!s->auth) {
        snprintf(err, errlen, "cannot start the ZAP authenticator");
        satin_security_destroy(&s);
        return NULL;
    }
    zstr_send(s->auth, "VERBOSE");
    zsock_wait(s->auth);
    return s;
}

/* zauth reads a new key list only from a directory (its "CURVE" command;
 * the store it was started with is its own, on its own thread).  So the
 * public keys go into a private directory, zauth loads them, and the
 * directory goes: a store whose directory is gone keeps what it loaded. */
int satin_security_set_topology(satin_security *s, const satin_topology *t, char *err,
                                size_t errlen)
{
    if (!satin_security_enabled(s)) {
        s->topo = t;
        return 0;
    }
    const char *tmp = getenv("TMPDIR");
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/satind-keys-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        snprintf(err, errlen, "cannot make a directory for the new public keys (%s): %s", dir,
                 strerror(errno));
        return -1;
    }
    int written = 0, rc = 0;
    byte pub[32], none[32] = {0};
    for (int i = 0; i < t->nnodes + t->nclients && rc == 0; i++) {
        const char *z85 = i < t->nnodes ? t->nodes[i].public_key
                                        : t->clients[i - t->nnodes].public_key;
        if (!zmq_z85_decode(pub, z85))
            continue;
        zcert_t *c = zcert_new_from(pub, none);
        snprintf(path, sizeof path, "%s/k%d", dir, written);
        if (!c || zcert_save_public(c, path) < 0) {
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
            rc = -1;
        } else {
            written++;
        }
        zcert_destroy(&c);
    }
    if (rc == 0) {
        zstr_sendx(s->auth, "CURVE", dir, NULL);
        zsock_wait(s->auth);
        s->topo = t;
    }
    for (int i = 0; i < written; i++) {
        snprintf(path, sizeof path, "%s/k%d", dir, i);
        unlink(path);
    }
    rmdir(dir);
    return rc;
}

void satin_security_destroy(satin_security **self)
{
    satin_security *s = *self;
    if (!s)
        return;
    zactor_destroy(&s->auth);
    if (s->log_sub) {
        zmq_close(s->log_sub);
        zsys_set_logsender(NULL);
    }
    zcert_destroy(&s->cert);
    free(s);
    *self = NULL;
}

int satin_security_enabled(const satin_security *s)
{
    return s && s->enabled;
}

void satin_security_make_server(satin_security *s, void *sock)
{
    if (!satin_security_enabled(s))
        return;
    int one = 1;
    zmq_setsockopt(sock, ZMQ_ZAP_DOMAIN, "satin", 5);
    zmq_setsockopt(sock, ZMQ_CURVE_SERVER, &one, sizeof one);
    zmq_setsockopt(sock, ZMQ_CURVE_SECRETKEY, zcert_secret_txt(s->cert), 40);
}

void satin_security_make_client(satin_security *s, void *sock, const char *server_key)
{
    if (!satin_security_enabled(s) || !server_key || strlen(server_key) != 40)
        return;
    zmq_setsockopt(sock, ZMQ_CURVE_SERVERKEY, server_key, 40);
    zmq_setsockopt(sock, ZMQ_CURVE_PUBLICKEY, zcert_public_txt(s->cert), 40);
    zmq_setsockopt(sock, ZMQ_CURVE_SECRETKEY, zcert_secret_txt(s->cert), 40);
}

const char *satin_security_key_of(void *zmq_message)
{
    const char *id = zmq_msg_gets((zmq_msg_t *)zmq_message, "User-Id");
    return id ? id : "";
}

int satin_security_key_matches(const satin_security *s, const char *z85, const char *listed)
{
    if (!satin_security_enabled(s))
        return 1;
    return z85 && listed && listed[0] && strcmp(listed, z85) == 0;
}

int satin_security_key_is_client(const satin_security *s, const char *z85)
{
    if (!satin_security_enabled(s))
        return 1;
    return satin_topology_client_of_key(s->topo, z85) >= 0;
}

void *satin_security_log_socket(satin_security *s)
{
    return s ? s->log_sub : NULL;
}

static refusal *refusal_for(satin_security *s, const char *key)
{
    for (int i = 0; i < s->nrefusals; i++)
        if (strcmp(s->refusals[i].key, key) == 0)
            return &s->refusals[i];
    refusal *r;
    if (s->nrefusals < REFUSAL_TABLE)
        r = &s->refusals[s->nrefusals++];
    else {
        r = &s->refusals[s->next_evict];
        s->next_evict = (s->next_evict + 1) % REFUSAL_TABLE;
    }
    memset(r, 0, sizeof *r);
    snprintf(r->key, sizeof r->key, "%s", key);
    return r;
}

static void on_line(satin_security *s, const char *line)
{
    const char *p;
    if ((p = strstr(line, "ipaddress="))) {
        snprintf(s->last_address, sizeof s->last_address, "%s", p + strlen("ipaddress="));
        return;
    }
    if ((p = strstr(line, "denied (CURVE) client_key="))) {
        char key[41];
        snprintf(key, sizeof key, "%s", p + strlen("denied (CURVE) client_key="));
        s->refused++;
        refusal *r = refusal_for(s, key);
        satin_log_limited(&r->limit, REFUSAL_LOG_INTERVAL_S, SATIN_LOG_WARN,
                          "refused a connection from %s with key %s: not a node or client of "
                          "grid %s", s->last_address[0] ? s->last_address : "?", key,
                          s->topo->name);
        return;
    }
    if (strstr(line, "zauth:"))
        return;                   /* allowed connections and commands */
    log_warn("czmq: %s", line);
}

void satin_security_on_log(satin_security *s)
{
    char buf[512];
    for (int i = 0; s && s->log_sub && i < 64; i++) {
        int n = zmq_recv(s->log_sub, buf, sizeof buf - 1, ZMQ_DONTWAIT);
        if (n < 0)
            return;
        buf[n < (int)sizeof buf - 1 ? n : (int)sizeof buf - 1] = '\0';
        on_line(s, buf);
    }
}

uint64_t satin_security_refused(const satin_security *s)
{
    return s ? s->refused : 0;
}
