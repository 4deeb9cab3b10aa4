/*
 * metrics_text.h - a node's status (the key/value list STATUS answers with)
 * in Prometheus' text exposition format, version 0.0.4.
 *
 * One rule turns every key into a metric, so that a counter added to the
 * status is scraped without a change here (satind(8), METRICS):
 *   - the name is satin_ plus the key, '.' and other characters Prometheus
 *     does not allow becoming '_';
 *   - a key with _lan or _wan at its end or inside, or lan_ / wan_ at its
 *     start, is one metric with the label class="lan" or "wan" (not a
 *     policy's own, policy.NAME: satin_policy_NAME_total);
 *   - rejected.REASON is satin_peer_messages_rejected_total{reason="REASON"};
 *   - a time in seconds (_s) is _seconds, one in milliseconds (_ms) is
 *     converted to _seconds;
 *   - a few keys are gauges (what is now, or a high-water mark); every other
 *     number is a counter and gets _total;
 *   - peer.NAME ("alive ...", "dead ...") is satin_peer_up{peer="NAME"} 1 or 0;
 *     version and policy go into satin_info{...} 1; other strings and pid
 *     are left out.
 * Every sample carries node="ID" when the node has an id.
 */
#ifndef SATIN_METRICS_TEXT_H
#define SATIN_METRICS_TEXT_H

#include "satin_kv.h"

#include <stddef.h>

/* The text for `status`, NUL-terminated, in a buffer the caller frees;
 * *len (may be NULL) is its length.  `node` may be NULL or "". */
char *satin_metrics_render(const satin_kvlist *status, const char *node, size_t *len);

#endif
