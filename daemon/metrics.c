/* metrics.c - the --metrics HTTP endpoint (see metrics.h). */
#include "metrics.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
/* Scrapers are few; a flood of connections must not take the daemon's
 * descriptors. */
#define CONNECTION_LIMIT 16
#define CONNECTION_TIMEOUT_S 10

struct satin_metrics {
    struct MHD_Daemon *httpd;
    pthread_mutex_t lock;     /* guards text: published by the control thread,
                               * read by libmicrohttpd's */
    char *text;
    size_t len;
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

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *body,
                             size_t len, const char *type)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
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
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
        static const char msg[] = "only GET /metrics here\n";
        return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, msg, sizeof msg - 1, "text/plain");
    }
    if (strcmp(url, "/metrics") != 0) {
        static const char msg[] = "not found: the metrics are at /metrics\n";
        return reply(c, MHD_HTTP_NOT_FOUND, msg, sizeof msg - 1, "text/plain");
    }
    pthread_mutex_lock(&m->lock);
    enum MHD_Result ok = reply(c, MHD_HTTP_OK, m->text ? m->text : "", m->text ? m->len : 0,
                               CONTENT_TYPE);
    pthread_mutex_unlock(&m->lock);
    return ok;
}

satin_metrics *satin_metrics_new(const char *spec, char *err, size_t errlen)
{
    bind_addr a;
    if (parse_spec(spec, &a, err, errlen) < 0)
        return NULL;
    satin_metrics *m = calloc(1, sizeof *m);
    if (!m)
        abort();
    pthread_mutex_init(&m->lock, NULL);
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

void satin_metrics_publish(satin_metrics *m, const char *text, size_t len)
{
    char *copy = malloc(len + 1);
    if (!copy)
        abort();
    memcpy(copy, text, len);
    copy[len] = '\0';
    pthread_mutex_lock(&m->lock);
    char *old = m->text;
    m->text = copy;
    m->len = len;
    pthread_mutex_unlock(&m->lock);
    free(old);
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
    free(m->text);
    free(m);
    *self = NULL;
}
