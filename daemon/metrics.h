/*
 * metrics.h - satind's Prometheus endpoint (--metrics): an HTTP server,
 * libmicrohttpd's, with a thread of its own, that answers GET /metrics with
 * the last text the control thread published (metrics_text.h).  The
 * control thread publishes at most a second apart and whenever a job ends,
 * so a scrape never waits for it and never touches its state.
 */
#ifndef SATIN_METRICS_H
#define SATIN_METRICS_H

#include <stddef.h>

typedef struct satin_metrics satin_metrics;

/* Starts serving at `spec`: tcp://ADDR:PORT with a numeric IPv4 address,
 * [IPv6] or localhost; a star for ADDR means every interface (said
 * outright, never a default); or PORT alone, on 127.0.0.1.  Port 0 takes a
 * free one (satin_metrics_port).  NULL with the reason in err. */
satin_metrics *satin_metrics_new(const char *spec, char *err, size_t errlen);
void satin_metrics_destroy(satin_metrics **self);

/* The text scrapes get from now on (copied). */
void satin_metrics_publish(satin_metrics *m, const char *text, size_t len);

/* The port it listens on; what it listens on, as tcp://ADDR:PORT. */
int satin_metrics_port(const satin_metrics *m);
const char *satin_metrics_endpoint(const satin_metrics *m);

/* Parses `spec` as satin_metrics_new does, without binding: 0, or -1 with
 * the reason in err (option checking before the daemon starts). */
int satin_metrics_check_spec(const char *spec, char *err, size_t errlen);

#endif
