/* metrics.c - the --metrics HTTP endpoint and the dashboard (see metrics.h). */
#include "metrics.h"
#include "clock.h"
#include "dashboard_assets.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
/* Scrapers and dashboards are few; a flood of connections must not take the
 * daemon's descriptors. */
#define CONNECTION_LIMIT 16
#define CONNECTION_TIMEOUT_S 10
/* Nothing the page loads comes from elsewhere, and nothing may. */
#define PAGE_POLICY "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"

/* A document the control thread publishes: /metrics, /api/status, ... */
typedef struct document {
    char path[32];
    char *text;
    size_t len;
    const char *type;
} document;

#define DOCUMENTS_MAX 8

struct satin_metrics {
    struct MHD_Daemon *httpd;
    pthread_mutex_t lock;     /* guards docs and asked_ns: published by the control
                               * thread, read by libmicrohttpd's */
    document docs[DOCUMENTS_MAX];
    int ndocs;
    int64_t asked_ns;        /* the last request for the dashboard's data */
    char token[256];          /* "": none */
    int loopback;             /* bound to loopback addresses only */
    int port;
    char endpoint[96];
};

typedef struct bind_addr {
    struct sockaddr_storage ss;
    int v6;
    int port;
} bind_addr;

static int fail(char *err, size_t errlen, const char *spec, const char *why)
{
    snprintf(err, errlen, "--metrics '%s': %s (expected tcp://ADDR:PORT, e.g. tcp://127.0.0.1:9464, "
                          "or a port)", spec, why);
    return -1;
}

static int parse_port(const char *s, int *port)
{
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 5)
        return -1;
    long p = strtol(s, NULL, 10);
    if (p > 65535)
        return -1;
    *port = (int)p;
    return 0;
}

static int parse_spec(const char *spec, bind_addr *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char host[64];
    const char *port_text;
    if (strncmp(spec, "tcp://", 6) != 0) {
        snprintf(host, sizeof host, "127.0.0.1");
        port_text = spec;
    } else {
        const char *h = spec + 6, *colon;
        if (*h == '[') {
            const char *close = strchr(h, ']');
            if (!close || close[1] != ':')
                return fail(err, errlen, spec, "an IPv6 address goes in brackets before :PORT");
            colon = close + 1;
            if ((size_t)(close - h - 1) >= sizeof host)
                return fail(err, errlen, spec, "address too long");
            snprintf(host, sizeof host, "%.*s", (int)(close - h - 1), h + 1);
            out->v6 = 1;
        } else {
            colon = strrchr(h, ':');
            if (!colon || colon == h)
                return fail(err, errlen, spec, "no address and port");
            if ((size_t)(colon - h) >= sizeof host)
                return fail(err, errlen, spec, "address too long");
            snprintf(host, sizeof host, "%.*s", (int)(colon - h), h);
        }
        port_text = colon + 1;
    }
    if (parse_port(port_text, &out->port) < 0)
        return fail(err, errlen, spec, "the port must be a number from 0 to 65535");
    if (strcmp(host, "localhost") == 0)
        snprintf(host, sizeof host, "127.0.0.1");
    if (out->v6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&out->ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons((uint16_t)out->port);
        if (strcmp(host, "*") == 0)
            a->sin6_addr = in6addr_any;
        else if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
            return fail(err, errlen, spec, "not a numeric IPv6 address");
        return 0;
    }
    struct sockaddr_in *a = (struct sockaddr_in *)&out->ss;
    a->sin_family = AF_INET;
    a->sin_port = htons((uint16_t)out->port);
    if (strcmp(host, "*") == 0)
        a->sin_addr.s_addr = htonl(INADDR_ANY);
    else if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
        return fail(err, errlen, spec, "not a numeric IPv4 address, [IPv6], localhost or *");
    return 0;
}

int satin_metrics_check_spec(const char *spec, char *err, size_t errlen)
{
    bind_addr a;
    return parse_spec(spec, &a, err, errlen);
}

static enum MHD_Result reply_with(struct MHD_Connection *c, unsigned status, const void *body,
                                  size_t len, const char *type, int page)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    if (status == MHD_HTTP_UNAUTHORIZED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"satind\"");
    if (page) {
        MHD_add_response_header(r, "Content-Security-Policy", PAGE_POLICY);
        MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
        MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    }
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *body,
                             size_t len, const char *type)
{
    return reply_with(c, status, body, len, type, 0);
}

#define SAY(c, status, text) reply(c, status, text, sizeof text - 1, "text/plain; charset=utf-8")

/* Equal strings, in a time that does not depend on where they differ. */
static int same_secret(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char d = (unsigned char)(la != lb);
    for (size_t i = 0; i < la; i++)
        d |= (unsigned char)(a[i] ^ (i < lb ? b[i] : 0));
    return d == 0;
}

/* The request carries the token: "Authorization: Bearer TOKEN", or the page's
 * ?token=TOKEN (a browser opening the dashboard's address). */
static int has_token(struct MHD_Connection *c, const char *token)
{
    const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (auth && strncmp(auth, "Bearer ", 7) == 0 && same_secret(auth + 7, token))
        return 1;
    const char *q = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
    return q && same_secret(q, token);
}

static enum MHD_Result serve_document(satin_metrics *m, struct MHD_Connection *c, const char *url)
{
    pthread_mutex_lock(&m->lock);
    if (strncmp(url, "/api/", 5) == 0)
        m->asked_ns = satin_now_ns();
    for (int i = 0; i < m->ndocs; i++) {
        const document *d = &m->docs[i];
        if (strcmp(d->path, url) != 0)
            continue;
        enum MHD_Result ok = reply_with(c, MHD_HTTP_OK, d->text, d->len, d->type, url[1] == 'a');
        pthread_mutex_unlock(&m->lock);
        return ok;
    }
    pthread_mutex_unlock(&m->lock);
    if (strncmp(url, "/api/", 5) == 0)
        /* Asked for the first time: the control thread has it within a second. */
        return SAY(c, MHD_HTTP_SERVICE_UNAVAILABLE, "not gathered yet: ask again in a second\n");
    return SAY(c, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics, the dashboard at /\n");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_size, void **state)
{
    satin_metrics *m = cls;
    (void)version, (void)upload_data;
    /* A body (a POST's) is neither read nor wanted: answer at the first call. */
    if (*upload_size)
        *upload_size = 0;
    (void)state;
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return SAY(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD here\n");
    int metrics = strcmp(url, "/metrics") == 0;
    /* With a token every path needs it; without one, off loopback only the
     * metrics are served (as they were before the dashboard). */
    if (m->token[0] && !has_token(c, m->token))
        return SAY(c, MHD_HTTP_UNAUTHORIZED,
                   "this satind's HTTP endpoint needs its token (Authorization: Bearer TOKEN, "
                   "or ?token=TOKEN for the dashboard)\n");
    if (!m->token[0] && !m->loopback && !metrics)
        return SAY(c, MHD_HTTP_FORBIDDEN,
                   "the dashboard off loopback needs a token: satind --dashboard-token FILE\n");
    if (metrics || strncmp(url, "/api/", 5) == 0)
        return serve_document(m, c, url);
    const satin_asset *a = satin_dashboard_asset(strcmp(url, "/") == 0 ? "/index.html" : url);
    if (!a)
        return serve_document(m, c, url);
    return reply_with(c, MHD_HTTP_OK, a->data, a->len, a->type, 1);
}

static int is_loopback(const bind_addr *a)
{
    if (a->v6)
        return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)&a->ss)->sin6_addr);
    return (ntohl(((const struct sockaddr_in *)&a->ss)->sin_addr.s_addr) >> 24) == 127;
}

satin_metrics *satin_metrics_new(const char *spec, const char *token, char *err, size_t errlen)
{
    bind_addr a;
    if (parse_spec(spec, &a, err, errlen) < 0)
        return NULL;
    if (token && strlen(token) >= sizeof ((satin_metrics *)0)->token) {
        snprintf(err, errlen, "the dashboard's token is longer than %zu bytes",
                 sizeof ((satin_metrics *)0)->token - 1);
        return NULL;
    }
    satin_metrics *m = calloc(1, sizeof *m);
    if (!m)
        abort();
    pthread_mutex_init(&m->lock, NULL);
    snprintf(m->token, sizeof m->token, "%s", token ? token : "");
    m->loopback = is_loopback(&a);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ERROR_LOG |
                     (a.v6 ? MHD_USE_IPv6 : 0);
    m->httpd = MHD_start_daemon(flags, (uint16_t)a.port, NULL, NULL, on_request, m,
                                MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&a.ss,
                                MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNECTION_LIMIT,
                                MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT_S,
                                MHD_OPTION_END);
    if (!m->httpd) {
        snprintf(err, errlen, "--metrics '%s': cannot listen there (in use, or not an address "
                              "of this machine)", spec);
        pthread_mutex_destroy(&m->lock);
        free(m);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(m->httpd, MHD_DAEMON_INFO_BIND_PORT);
    m->port = info ? info->port : a.port;
    char host[INET6_ADDRSTRLEN] = "?";
    if (a.v6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&a.ss)->sin6_addr, host, sizeof host);
    else
        inet_ntop(AF_INET, &((struct sockaddr_in *)&a.ss)->sin_addr, host, sizeof host);
    snprintf(m->endpoint, sizeof m->endpoint, a.v6 ? "tcp://[%s]:%d" : "tcp://%s:%d", host,
             m->port);
    return m;
}

void satin_metrics_publish_doc(satin_metrics *m, const char *path, const char *type,
                               const char *text, size_t len)
{
    char *copy = malloc(len + 1);
    if (!copy)
        abort();
    memcpy(copy, text, len);
    copy[len] = '\0';
    pthread_mutex_lock(&m->lock);
    document *d = NULL;
    for (int i = 0; i < m->ndocs && !d; i++)
        if (strcmp(m->docs[i].path, path) == 0)
            d = &m->docs[i];
    if (!d && m->ndocs < DOCUMENTS_MAX) {
        d = &m->docs[m->ndocs++];
        snprintf(d->path, sizeof d->path, "%s", path);
    }
    char *old = NULL;
    if (d) {
        old = d->text;
        d->text = copy;
        d->len = len;
        d->type = type;
    } else
        old = copy;   /* more paths than documents: a programming error, dropped */
    pthread_mutex_unlock(&m->lock);
    free(old);
}

void satin_metrics_publish(satin_metrics *m, const char *text, size_t len)
{
    satin_metrics_publish_doc(m, "/metrics", CONTENT_TYPE, text, len);
}

int64_t satin_metrics_asked_ns(satin_metrics *m)
{
    pthread_mutex_lock(&m->lock);
    int64_t t = m->asked_ns;
    pthread_mutex_unlock(&m->lock);
    return t;
}

int satin_metrics_port(const satin_metrics *m)
{
    return m->port;
}

const char *satin_metrics_endpoint(const satin_metrics *m)
{
    return m->endpoint;
}

void satin_metrics_destroy(satin_metrics **self)
{
    satin_metrics *m = *self;
    if (!m)
        return;
    MHD_stop_daemon(m->httpd);
    pthread_mutex_destroy(&m->lock);
    for (int i = 0; i < m->ndocs; i++)
        free(m->docs[i].text);
    free(m);
    *self = NULL;
}
