/*
 * test_metrics_text.c - a node's status as Prometheus text: the exact text
 * for a small status (names, _total on counters, gauges, the lan/wan class
 * label from a key's end, start or middle, seconds from _s and _ms, the
 * rejection reasons, peers up or down, satin_info), a family's samples kept
 * together though its keys are apart, label values escaped, and no node
 * label without a node id.
 */
#include "metrics_text.h"
#include "../tap.h"

#include <stdlib.h>
#include <string.h>

static void exact_text(void)
{
    satin_kvlist l;
    satin_kvlist_init(&l);
    satin_kvlist_add_str(&l, "version", "0.1.0");
    satin_kvlist_add_i64(&l, "pid", 4242);
    satin_kvlist_add_str(&l, "endpoint", "ipc:///run/satin/a0.sock");
    satin_kvlist_add_i64(&l, "workers", 2);
    satin_kvlist_add_i64(&l, "jobs_finished", 3);
    satin_kvlist_add_str(&l, "policy", "crs");
    satin_kvlist_add_f64(&l, "failure_timeout_lan_ms", 3000);
    satin_kvlist_add_i64(&l, "steal_attempts_lan", 23);
    satin_kvlist_add_i64(&l, "steal_attempts_wan", 16);
    satin_kvlist_add_i64(&l, "wan_steals_in_flight_max", 1);
    satin_kvlist_add_f64(&l, "wan_wait_s", 0.25);
    satin_kvlist_add_f64(&l, "lan_wait_p50_ms", 0.125);
    satin_kvlist_add_i64(&l, "msgs_lan", 49);
    satin_kvlist_add_i64(&l, "rejected.wrong_key", 2);
    satin_kvlist_add_i64(&l, "msgs_wan", 37);
    satin_kvlist_add_i64(&l, "policy.wan_backoffs", 16);
    satin_kvlist_add_str(&l, "peer.a1", "alive (heard 0.0 s ago)");
    satin_kvlist_add_str(&l, "peer.b0", "dead (silent 4.1 s)");
    satin_kvlist_add_f64(&l, "uptime_s", 2.5);
    size_t len;
    char *text = satin_metrics_render(&l, "a0", &len);
    const char *want =
        "# HELP satin_info The node's version and load-balancing policy.\n"
        "# TYPE satin_info gauge\n"
        "satin_info{node=\"a0\",version=\"0.1.0\",policy=\"crs\"} 1\n"
        "# TYPE satin_workers gauge\n"
        "satin_workers{node=\"a0\"} 2\n"
        "# TYPE satin_jobs_finished_total counter\n"
        "satin_jobs_finished_total{node=\"a0\"} 3\n"
        "# TYPE satin_failure_timeout_seconds gauge\n"
        "satin_failure_timeout_seconds{node=\"a0\",class=\"lan\"} 3\n"
        "# TYPE satin_steal_attempts_total counter\n"
        "satin_steal_attempts_total{node=\"a0\",class=\"lan\"} 23\n"
        "satin_steal_attempts_total{node=\"a0\",class=\"wan\"} 16\n"
        "# TYPE satin_steals_in_flight_max gauge\n"
        "satin_steals_in_flight_max{node=\"a0\",class=\"wan\"} 1\n"
        "# TYPE satin_wait_seconds_total counter\n"
        "satin_wait_seconds_total{node=\"a0\",class=\"wan\"} 0.25\n"
        "# TYPE satin_wait_p50_seconds gauge\n"
        "satin_wait_p50_seconds{node=\"a0\",class=\"lan\"} 0.000125\n"
        "# TYPE satin_msgs_total counter\n"
        "satin_msgs_total{node=\"a0\",class=\"lan\"} 49\n"
        "satin_msgs_total{node=\"a0\",class=\"wan\"} 37\n"
        "# TYPE satin_peer_messages_rejected_total counter\n"
        "satin_peer_messages_rejected_total{node=\"a0\",reason=\"wrong_key\"} 2\n"
        "# TYPE satin_policy_wan_backoffs_total counter\n"
        "satin_policy_wan_backoffs_total{node=\"a0\"} 16\n"
        "# TYPE satin_peer_up gauge\n"
        "satin_peer_up{node=\"a0\",peer=\"a1\"} 1\n"
        "satin_peer_up{node=\"a0\",peer=\"b0\"} 0\n"
        "# TYPE satin_uptime_seconds gauge\n"
        "satin_uptime_seconds{node=\"a0\"} 2.5\n";
    is_str(text, want, "a node's status: the exact text");
    is_i64((int64_t)len, (int64_t)strlen(want), "and its length");
    free(text);
    satin_kvlist_free(&l);
}

static void no_node_and_escapes(void)
{
    satin_kvlist l;
    satin_kvlist_init(&l);
    satin_kvlist_add_str(&l, "version", "1\"2\\3\n4");
    satin_kvlist_add_i64(&l, "odd-key.x", 7);
    char *text = satin_metrics_render(&l, NULL, NULL);
    is_str(text,
           "# HELP satin_info The node's version and load-balancing policy.\n"
           "# TYPE satin_info gauge\n"
           "satin_info{version=\"1\\\"2\\\\3\\n4\"} 1\n"
           "# TYPE satin_odd_key_x_total counter\n"
           "satin_odd_key_x_total 7\n",
           "no node id: no node label; quotes, backslashes and newlines escaped; other "
           "characters become _");
    free(text);
    satin_kvlist_free(&l);
}

int main(void)
{
    exact_text();
    no_node_and_escapes();
    return done_testing();
}
