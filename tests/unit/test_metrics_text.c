/*
 * test_metrics_text.c - a node's status as Prometheus text: the exact text
 * for a small status (names from the table with the unit last, a HELP for
 * every family, _total on counters only, gauges, the lan/wan class
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
    satin_kvlist_add_i64(&l, "jobs_pending", 1);
    satin_kvlist_add_i64(&l, "jobs_finished", 3);
    satin_kvlist_add_i64(&l, "max_pending", 1024);
    satin_kvlist_add_str(&l, "policy", "crs");
    satin_kvlist_add_f64(&l, "failure_timeout_lan_ms", 3000);
    satin_kvlist_add_i64(&l, "steal_attempts_lan", 23);
    satin_kvlist_add_i64(&l, "steal_attempts_wan", 16);
    satin_kvlist_add_i64(&l, "wan_steals_in_flight_max", 1);
    satin_kvlist_add_f64(&l, "wan_wait_s", 0.25);
    satin_kvlist_add_f64(&l, "lan_wait_p50_ms", 0.125);
    satin_kvlist_add_i64(&l, "msgs_lan", 49);
    satin_kvlist_add_i64(&l, "job_bytes_in", 4096);
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
        "# HELP satin_workers Worker threads of this node.\n"
        "# TYPE satin_workers gauge\n"
        "satin_workers{node=\"a0\"} 2\n"
        "# HELP satin_jobs_pending Client jobs accepted and waiting for a slot (over --max-jobs) now.\n"
        "# TYPE satin_jobs_pending gauge\n"
        "satin_jobs_pending{node=\"a0\"} 1\n"
        "# HELP satin_jobs_finished_total Client jobs of this node that ended, ok or not.\n"
        "# TYPE satin_jobs_finished_total counter\n"
        "satin_jobs_finished_total{node=\"a0\"} 3\n"
        "# HELP satin_max_pending_jobs Client jobs allowed to wait for a slot (--max-pending).\n"
        "# TYPE satin_max_pending_jobs gauge\n"
        "satin_max_pending_jobs{node=\"a0\"} 1024\n"
        "# HELP satin_failure_timeout_seconds Silence after which a peer is taken for dead, by class of link.\n"
        "# TYPE satin_failure_timeout_seconds gauge\n"
        "satin_failure_timeout_seconds{node=\"a0\",class=\"lan\"} 3\n"
        "# HELP satin_steal_attempts_total Steal requests this node sent, by the victim's class of link.\n"
        "# TYPE satin_steal_attempts_total counter\n"
        "satin_steal_attempts_total{node=\"a0\",class=\"lan\"} 23\n"
        "satin_steal_attempts_total{node=\"a0\",class=\"wan\"} 16\n"
        "# HELP satin_steals_in_flight_max Most steal requests out at once, by class of link.\n"
        "# TYPE satin_steals_in_flight_max gauge\n"
        "satin_steals_in_flight_max{node=\"a0\",class=\"wan\"} 1\n"
        "# HELP satin_steal_wait_seconds_total Time synchronous steal requests waited for their reply, by class of link.\n"
        "# TYPE satin_steal_wait_seconds_total counter\n"
        "satin_steal_wait_seconds_total{node=\"a0\",class=\"wan\"} 0.25\n"
        "# HELP satin_steal_wait_p50_seconds Median wait of a synchronous steal request, by class of link.\n"
        "# TYPE satin_steal_wait_p50_seconds gauge\n"
        "satin_steal_wait_p50_seconds{node=\"a0\",class=\"lan\"} 0.000125\n"
        "# HELP satin_peer_messages_sent_total Peer messages sent, by class of link.\n"
        "# TYPE satin_peer_messages_sent_total counter\n"
        "satin_peer_messages_sent_total{node=\"a0\",class=\"lan\"} 49\n"
        "satin_peer_messages_sent_total{node=\"a0\",class=\"wan\"} 37\n"
        "# HELP satin_records_received_bytes_total Argument bytes of the records of other nodes started here.\n"
        "# TYPE satin_records_received_bytes_total counter\n"
        "satin_records_received_bytes_total{node=\"a0\"} 4096\n"
        "# HELP satin_peer_messages_rejected_total Peer messages rejected, by reason.\n"
        "# TYPE satin_peer_messages_rejected_total counter\n"
        "satin_peer_messages_rejected_total{node=\"a0\",reason=\"wrong_key\"} 2\n"
        "# HELP satin_policy_wan_backoffs_total Wide-area back-off timers the policy set (CRS).\n"
        "# TYPE satin_policy_wan_backoffs_total counter\n"
        "satin_policy_wan_backoffs_total{node=\"a0\"} 16\n"
        "# HELP satin_peer_up 1 while the peer is alive as this node sees it, else 0.\n"
        "# TYPE satin_peer_up gauge\n"
        "satin_peer_up{node=\"a0\",peer=\"a1\"} 1\n"
        "satin_peer_up{node=\"a0\",peer=\"b0\"} 0\n"
        "# HELP satin_uptime_seconds Seconds since satind started.\n"
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
           "# HELP satin_odd_key_x_total STATUS figure odd_key_x, not yet in satind's table of metrics.\n"
           "# TYPE satin_odd_key_x_total counter\n"
           "satin_odd_key_x_total 7\n",
           "no node id: no node label; quotes, backslashes and newlines escaped; other "
           "characters become _; a key the table lacks is a counter with the HELP that says so");
    free(text);
    satin_kvlist_free(&l);
}

int main(void)
{
    exact_text();
    no_node_and_escapes();
    return done_testing();
}
