/*
 * metrics.h - satind's HTTP endpoint (--metrics): an HTTP server,
 * libmicrohttpd's, with a thread of its own, that answers GET /metrics with
 * the last text the control thread published (metrics_text.h), the
 * dashboard's files at / (compiled in: daemon/dashboard/), and its data
 * under /api/ (documents the control thread publishes, control_dashboard.c).
 * The control thread publishes at most a second apart and whenever a job
 * ends, so a request never waits for it and never touches its state.
 *
 * Who may ask: with a token (--dashboard-token), every path needs it, as
 * "Authorization: Bearer TOKEN" or ?token=TOKEN; without one, a server on
 * loopback serves everything, one on another address /metrics alone (403
 * for the rest).
 */
#ifndef SATIN_METRICS_H
#define SATIN_METRICS_H

#include <stddef.h>
#include <stdint.h>

typedef struct satin_metrics satin_metrics;

/* Starts serving at `spec`: tcp://ADDR:PORT with a numeric IPv4 address,
 * [IPv6] or localhost; a star for ADDR means every interface (said
 * outright, never a default); or PORT alone, on 127.0.0.1.  Port 0 takes a
 * free one (satin_metrics_port).  `token` NULL or "": none.  NULL with the
 * reason in err. */
satin_metrics *satin_metrics_new(const char *spec, const char *token, char *err, size_t errlen);
void satin_metrics_destroy(satin_metrics **self);

/* The text scrapes get from now on (copied). */
void satin_metrics_publish(satin_metrics *m, const char *text, size_t len);
/* The document GET `path` gets from now on, of content type `type` (a
 * string that lives as long as the server); copied.  At most 8 paths. */
void satin_metrics_publish_doc(satin_metrics *m, const char *path, const char *type,
                               const char *text, size_t len);
/* When the dashboard's data (/api/...) was last asked for (satin_now_ns), 0 never:
 * the control thread gathers it only while someone looks. */
int64_t satin_metrics_asked_ns(satin_metrics *m);

/* The port it listens on; what it listens on, as tcp://ADDR:PORT. */
int satin_metrics_port(const satin_metrics *m);
const char *satin_metrics_endpoint(const satin_metrics *m);

/* Parses `spec` as satin_metrics_new does, without binding: 0, or -1 with
 * the reason in err (option checking before the daemon starts). */
int satin_metrics_check_spec(const char *spec, char *err, size_t errlen);

#endif
