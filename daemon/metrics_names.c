/*
 * metrics_names.c - what each STATUS figure is called in Prometheus, its
 * type and its HELP line (metrics_text.h says how a key becomes the base
 * looked up here).  Prometheus' rules: the unit last and in base units
 * (seconds, bytes), _total on counters and nowhere else, whole words.
 * The texts follow daemon/engine/README.md's counter tables.
 */
#include "metrics_text.h"

#include <string.h>

#define G 1   /* a gauge: what is now, a limit or a high-water mark */
#define C 0   /* a counter: only ever grows while the daemon runs */

static const satin_metric_name names[] = {
    /* the daemon's own */
    {"workers", "workers", G, "Worker threads of this node."},
    {"jobs_running", "jobs_running", G, "Client jobs running on this node now."},
    {"jobs_pending", "jobs_pending", G, "Client jobs accepted and waiting for a slot (over --max-jobs) now."},
    {"jobs_finished", "jobs_finished", C, "Client jobs of this node that ended, ok or not."},
    {"invocations_run", "invocations_run", C, "Records this node's workers ran (queued spawns, job roots, other nodes' records; a spawn run in place is a call, not counted)."},
    {"requests", "client_requests", C, "Client requests this node answered."},
    {"bad_messages", "client_messages_rejected", C, "Client messages rejected as malformed."},
    {"fd_limit", "open_files_limit", G, "The soft limit on open files (RLIMIT_NOFILE) satind runs with."},
    {"client_pauses", "client_listen_pauses", C, "Times the client endpoint stopped listening near the open-file limit."},
    {"max_record_bytes", "max_record_bytes", G, "Largest job record or spawned argument accepted (--max-record)."},
    {"max_jobs", "max_jobs", G, "Client jobs allowed to run at once (--max-jobs)."},
    {"max_pending", "max_pending_jobs", G, "Client jobs allowed to wait for a slot (--max-pending)."},
    {"grid_nodes", "grid_nodes", G, "Nodes of the topology this node reads."},
    {"grid_self", "grid_node_index", G, "This node's index in its topology file."},
    {"records_held", "records_held", G, "Records of other nodes running here now."},
    {"topology_reloads_refused", "topology_reloads_refused", C, "SIGHUP re-reads of the topology that were refused."},
    {"membership_changes", "membership_changes", C, "New grid memberships taken (SIGHUP)."},
    {"failure_timeout_seconds", "failure_timeout_seconds", G, "Silence after which a peer is taken for dead, by class of link."},
    {"uptime_seconds", "uptime_seconds", G, "Seconds since satind started."},
    /* steals (the engine's counters) */
    {"steal_attempts", "steal_attempts", C, "Steal requests this node sent, by the victim's class of link."},
    {"steal_attempts_sync", "steal_attempts_sync", C, "Steal requests sent with the SYNC flag."},
    {"steal_attempts_async", "steal_attempts_async", C, "Steal requests sent without the SYNC flag."},
    {"steal_successes", "steal_successes", C, "Steal requests answered with at least one record, by class of link."},
    {"steal_failures", "steal_failures", C, "Steal requests that ended without a record (empty reply or time-out)."},
    {"steal_timeouts", "steal_timeouts", C, "Steal requests with no reply within the steal time-out."},
    {"late_replies", "steal_late_replies", C, "Steal replies that came for a request no longer out."},
    {"steal_cancels", "steal_cancels", C, "Own steal requests withdrawn (STEAL_CANCEL sent)."},
    {"steals_in_flight_max", "steals_in_flight_max", G, "Most steal requests out at once, by class of link."},
    {"wait_seconds", "steal_wait_seconds", C, "Time synchronous steal requests waited for their reply, by class of link."},
    {"sync_answered", "steal_sync_replies", C, "Replies or time-outs that ended synchronous steal requests, by class of link."},
    {"wait_p50_seconds", "steal_wait_p50_seconds", G, "Median wait of a synchronous steal request, by class of link."},
    {"wait_p90_seconds", "steal_wait_p90_seconds", G, "90th percentile wait of a synchronous steal request, by class of link."},
    {"wait_p99_seconds", "steal_wait_p99_seconds", G, "99th percentile wait of a synchronous steal request, by class of link."},
    {"requests_served", "steal_requests_served", C, "Steal requests this node answered with a reply, with records or empty."},
    {"requests_forwarded", "steal_requests_forwarded", C, "Steal requests passed on to another node (CHS)."},
    {"steal_cancels_received", "steal_cancels_received", C, "STEAL_CANCEL messages that reached this node."},
    {"steal_cancels_forwarded", "steal_cancels_forwarded", C, "STEAL_CANCEL messages passed on (CHS)."},
    {"steal_requests_read", "steal_requests_read", C, "Steal requests the control thread read."},
    {"steal_serve_seconds", "steal_serve_seconds", C, "Time from reading a steal request to its reply handed to ZeroMQ."},
    {"steal_serve_cpu_seconds", "steal_serve_cpu_seconds", C, "CPU time the control thread spent serving steal requests."},
    {"steal_replies_read", "steal_replies_read", C, "Steal replies the control thread read."},
    {"steal_reply_take_seconds", "steal_reply_take_seconds", C, "Time from reading a steal reply to its records started."},
    /* records and results */
    {"jobs_given", "records_given", C, "Records given to other nodes in steal replies and pushes."},
    {"job_bytes_out", "records_given_bytes", C, "Argument bytes of the records given to other nodes."},
    {"jobs_received", "records_received", C, "Records of other nodes started here."},
    {"job_bytes_in", "records_received_bytes", C, "Argument bytes of the records of other nodes started here."},
    {"results_sent", "results_sent", C, "Results of other nodes' records sent home."},
    {"results_received", "results_received", C, "Results of records given away that came home."},
    {"pushes", "pushes_sent", C, "Records pushed to other nodes (RP, lifelines)."},
    {"pushes_received", "pushes_received", C, "PUSH messages received."},
    {"push_acks", "push_acknowledgements_received", C, "PUSH_ACK messages received."},
    {"load_reports", "load_reports_sent", C, "Load reports sent to a coordinator (CLS)."},
    {"prefetches", "prefetches", C, "Steal requests flagged PREFETCH (a CLS coordinator's)."},
    {"prefetch_successes", "prefetch_successes", C, "Prefetch requests answered with records."},
    {"idle_events", "idle_events", C, "Times the policy heard that the node is idle."},
    {"idle_seconds", "idle_seconds", C, "Time the node's workers spent idle, summed over workers."},
    {"remote_starts", "remote_starts", C, "Records of other nodes a worker took."},
    {"remote_start_wait_seconds", "remote_start_wait_seconds", C, "Time records of other nodes waited for a worker after they arrived."},
    {"profile_events", "profile_events", C, "Events the profile recorder kept."},
    /* failures */
    {"peers_dead", "peers_dead", C, "Times a peer was taken for dead."},
    {"peers_back", "peers_back", C, "Times a dead peer was heard again."},
    {"stalls", "stalls", C, "Times this node found it had not run for over a quarter of its shorter failure time-out."},
    {"heartbeats_sent", "heartbeats_sent", C, "HEARTBEAT messages sent on quiet links."},
    {"steals_to_dead", "steals_to_dead", C, "Steal requests ended at once because their victim was dead or leaving."},
    {"records_redone", "records_redone", C, "Records given away that ran again here because their holder died."},
    {"redo_results", "redo_results", C, "Re-runs whose result was the one that counted."},
    {"late_results_used", "late_results_used", C, "Results from a holder taken for dead that came before the re-run ended."},
    {"late_results_dropped", "late_results_dropped", C, "Results that came after the re-run's had counted."},
    {"results_held", "results_held", C, "Results kept for an owner that was dead when they were ready."},
    {"held_results_sent", "held_results_sent", C, "Held results sent when their owner came back."},
    {"held_results_dropped", "held_results_dropped", C, "Held results dropped when their owner restarted."},
    {"standins_parked", "standins_parked", C, "Records of a dead owner stopped here."},
    {"parked_resumed", "parked_resumed", C, "Parked records started again when their owner came back."},
    {"parked_dropped", "parked_dropped", C, "Parked records dropped when their owner restarted."},
    {"standins_orphaned", "standins_orphaned", C, "Records of a dead owner that ran on here (orphan saving)."},
    {"records_returned", "records_returned", C, "Records of other nodes given back unfinished when this node's stop time-out passed."},
    {"records_taken_back", "records_taken_back", C, "Records given away that their leaving holder gave back, run again here."},
    {"records_given_back", "records_given_back", C, "Records of other nodes sent home unrun: this node lacks their kind, or has another build of its module."},
    {"records_refused", "records_refused", C, "Records of other nodes not run because their task's check refused the argument."},
    /* grid-wide values (speculative search) */
    {"values_sent", "values_messages_sent", C, "VALUES messages sent: a job's grid-wide values that grew, to its neighbours."},
    {"values_sent_wan", "values_messages_sent_wan", C, "Of them, those sent to nodes of other clusters."},
    {"values_received", "values_messages_received", C, "VALUES messages received from peers."},
    {"values_grown", "values_messages_grown", C, "VALUES messages that made some value of a job here grow."},
    {"values_refused", "values_updates_refused", C, "Value updates refused: an undeclared name, another join than the declaration's, a set larger than its bound."},
    {"values_late", "values_messages_late", C, "VALUES messages for a job that no longer runs here."},
    /* orphans */
    {"orphans_told", "orphans_told", C, "Results this node told as orphans."},
    {"orphans_promised", "orphans_promised", C, "Records of a dead owner still running here, promised to every live node."},
    {"orphan_messages", "orphan_messages_sent", C, "ORPHAN messages sent."},
    {"orphans_received", "orphan_messages_received", C, "ORPHAN messages received from peers."},
    {"orphans_held", "orphans_held", G, "Orphan results and promises in this node's table now."},
    {"orphans_used", "orphans_used", C, "Invocations that took an orphan result instead of running."},
    {"orphans_waited", "orphans_waited", C, "Invocations that waited for a promised orphan result."},
    {"orphan_waits_given_up", "orphan_waits_given_up", C, "Orphan waits that ended with the record run here."},
    {"orphan_promises_void", "orphan_promises_void", C, "Orphan promises dropped because their holder died or stopped the record."},
    {"orphan_runs_saved", "orphan_invocations_saved", C, "Invocations the orphan results used here stood for."},
    {"orphans_expired", "orphans_expired", C, "Orphans dropped unused (too old, or pushed out by newer ones)."},
    /* the transport and delivery */
    {"msgs", "peer_messages_sent", C, "Peer messages sent, by class of link."},
    {"bytes", "peer_sent_bytes", C, "Bytes of peer messages sent, by class of link."},
    {"acks", "peer_acknowledgements_sent", C, "Delivery acknowledgements sent, by class of link."},
    {"retransmissions", "peer_retransmissions", C, "Peer messages sent again for want of an acknowledgement."},
    {"send_failures", "peer_send_failures", C, "Peer messages ZeroMQ would not take."},
    {"zero_copy_sends", "peer_zero_copy_sends", C, "Peer messages of 4 KiB or more handed to ZeroMQ without a copy."},
    {"duplicates_dropped", "peer_duplicates_dropped", C, "Peer messages dropped as duplicates."},
    {"out_of_order_dropped", "peer_out_of_order_dropped", C, "Peer messages dropped for coming past a gap."},
    {"peer_restarts", "peer_restarts", C, "Peers seen to start a new run (a new delivery epoch)."},
    {"unacked_max", "peer_unacknowledged_max", G, "Most peer messages waiting for an acknowledgement at once."},
    {"bad_peer_messages", "peer_messages_bad", C, "Peer messages rejected as malformed, forged or senseless."},
    {"peer_messages_refused", "peer_messages_refused", C, "Peer messages refused for what restarts and topology reloads cause."},
    {"peers_heard", "peers_heard", G, "Peers heard from since start."},
    {"peer_requests_dropped", "peer_requests_dropped", C, "Peer requests dropped by the --peer-rate limit."},
    {"connections_refused", "peer_connections_refused", C, "Connections whose CURVE key is not in the topology."},
    /* the policies' own (policy.NAME) */
    {"policy_backoffs", "policy_backoffs", C, "Idle back-off timers the policy set."},
    {"policy_wan_backoffs", "policy_wan_backoffs", C, "Wide-area back-off timers the policy set (CRS)."},
    {"policy_backoffs_cut", "policy_backoffs_cut", C, "Back-offs cut short because work appeared."},
    {"policy_walks_stopped", "policy_walks_stopped", C, "Steal requests ended with an empty reply because their cancel came first (CHS)."},
    {"policy_loads_received", "policy_loads_received", C, "Load reports the coordinator took in (CLS)."},
    {"policy_quiesces", "policy_quiesces", C, "Idle periods that ended quiesced (lifeline policies)."},
    {"policy_lifelines_noted", "policy_lifelines_noted", C, "Lifeline requests remembered (lifeline policies)."},
};

#undef G
#undef C

const satin_metric_name *satin_metric_name_of(const char *base)
{
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i].base, base) == 0)
            return &names[i];
    return NULL;
}
