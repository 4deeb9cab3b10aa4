/*
 * metrics_text.h - a node's status (the key/value list STATUS answers with)
 * in Prometheus' text exposition format, version 0.0.4.
 *
 * One rule turns every key into a base name (satind(8), METRICS):
 *   - '.' and other characters Prometheus does not allow become '_';
 *   - a key with _lan or _wan at its end or inside, or lan_ / wan_ at its
 *     start, is one metric with the label class="lan" or "wan" (not a
 *     policy's own, policy.NAME);
 *   - a time in seconds (_s) is _seconds, one in milliseconds (_ms) is
 *     converted to _seconds;
 * and metrics_names.c's table gives each base its metric's name (the unit
 * last, whole words), its type and its HELP: a gauge keeps the name, a
 * counter gets _total.  A key the table lacks is a counter named after its
 * base, with SATIN_METRIC_HELP_UNKNOWN as its HELP (tests/integration/
 * metrics.t fails on one, so that a figure added to the status is named).
 *   - rejected.REASON is satin_peer_messages_rejected_total{reason="REASON"};
 *   - peer.NAME ("alive ...", "dead ...") is satin_peer_up{peer="NAME"} 1 or 0;
 *     version and policy go into satin_info{...} 1; other strings and pid
 *     are left out.
 * Every sample carries node="ID" when the node has an id.
 */
#ifndef SATIN_METRICS_TEXT_H
#define SATIN_METRICS_TEXT_H

#include "satin_kv.h"

#include <stddef.h>

/* A STATUS figure's metric: `base` as the rule above makes it from the key. */
typedef struct satin_metric_name {
    const char *base;
    const char *family;   /* without satin_ and _total */
    int gauge;
    const char *help;
} satin_metric_name;

#define SATIN_METRIC_HELP_UNKNOWN "STATUS figure %s, not yet in satind's table of metrics."

/* The table's entry for `base`, or NULL. */
const satin_metric_name *satin_metric_name_of(const char *base);

/* The text for `status`, NUL-terminated, in a buffer the caller frees;
 * *len (may be NULL) is its length.  `node` may be NULL or "". */
char *satin_metrics_render(const satin_kvlist *status, const char *node, size_t *len);

#endif
