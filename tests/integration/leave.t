#!/usr/bin/env bash
# leave.t - a leave fails no job, under every policy.  n1 holds a record of
# n0's job (a leaf that waits 1.5 s) when it gets SIGTERM with a stop
# time-out of 0: it gives the record back at once (JOB_RESULT RETURNED),
# tells n0 it has left and exits 0; n0 runs the record again itself, without
# waiting out a failure time-out or taking n1 for dead, and the job ends
# with its exact result.  (Before, the record was cancelled and the whole
# job failed on n0: "cancelled: satind is shutting down".)  Asserts
# outcomes and counters, never times.
set -u
. "$(dirname "$0")/grid_kit.sh" leave

# Two clusters of one node each: every steal is a wide-area one, so the
# cluster-aware policies take their wide-area paths.
topology() {   # topology BASE FILE
    cat >"$2" <<Y
grid: leave-test
policy: rs
security: none
failure_timeout: {lan_ms: 60000, wan_ms: 60000}
policy_params:
  rp_threshold: 1       # RP pushes from a queue of two: the job has four leaves
clusters:
  - name: A
    nodes:
      - {id: n0, endpoint: "tcp://127.0.0.1:$1", workers: 1}
  - name: B
    nodes:
      - {id: n1, endpoint: "tcp://127.0.0.1:$(($1 + 1))", workers: 1}
Y
}

# start_node ID POLICY [ARGS...]: a satind of the topology, adopted by the
# grid in $tmpdir/g so that the exit trap stops it by its pid.
start_node() {
    local id=$1 policy=$2
    shift 2
    rm -f "$tmpdir/g/$id.sock"
    "$build/satind" --config "$tmpdir/t.yaml" --node "$id" --socket "ipc://$tmpdir/g/$id.sock" \
        --policy "$policy" --foreground --log-level info "$@" </dev/null \
        >>"$tmpdir/g/$id.log" 2>&1 &
    adopt "$id" $!
    wait_socket "$tmpdir/g/$id.sock" $! "$id's socket"
}

# holds_record: n1 runs a record of n0's job
holds_record() { [ "$(status_of "ipc://$tmpdir/g/n1.sock" records_held)" -ge 1 ] 2>/dev/null; }

mkdir -p "$tmpdir/g"
base=$(port_base)
topology "$base" "$tmpdir/t.yaml"
for policy in rs rp chs cls crs lifeline cluster-lifeline; do
    : >"$tmpdir/g/n0.log"
    : >"$tmpdir/g/n1.log"
    start_node n0 "$policy" || break
    start_node n1 "$policy" --stop-timeout 0 || break
    n0pid=$(cat "$tmpdir/g/n0.pid") n1pid=$(cat "$tmpdir/g/n1.pid")
    run "$submit" --socket "ipc://$tmpdir/g/n0.sock" --no-wait --parsable \
        synthetic depth=1 fanout=4 dist=const mean_us=1500000
    job=$out
    wait_until --alive "$n1pid" 60 "$policy: n1 to hold a record of n0's job" holds_record &&
        pass "$policy: n1 holds a record of n0's job"
    kill -TERM "$n1pid"
    wait_until 60 "$policy: n1 to exit after SIGTERM" ! kill -0 "$n1pid" &&
        pass "$policy: n1 exits after SIGTERM"
    wait "$n1pid"
    is "$?" 0 "$policy: n1 exits 0"
    like "$(cat "$tmpdir/g/n1.log")" "stopped" "$policy: n1 stopped cleanly"
    run "$submit" --socket "ipc://$tmpdir/g/n0.sock" --json --stats --timeout 120 --wait "$job"
    is "$rc $(json_get 'd["status"], d["result"]["leaves"], d["result"]["total_us"]')" \
        "0 ok 4 6000000" "$policy: n0's job ends exact: 4 leaves of 1.5 s, none lost"
    gt "$(status_of "ipc://$tmpdir/g/n0.sock" records_taken_back)" 0 \
        "$policy: n0 ran the record n1 gave back"
    like "$(cat "$tmpdir/g/n0.log")" "node n1 is leaving and gave back record" \
        "$policy: n0 logged the record given back"
    like "$(cat "$tmpdir/g/n0.log")" "node n1 has left" "$policy: n0 heard that n1 left"
    is "$(status_of "ipc://$tmpdir/g/n0.sock" peers_dead)" 0 "$policy: n0 took nobody for dead"
    kill -TERM "$n0pid"
    wait_until 60 "$policy: n0 to exit" ! kill -0 "$n0pid" || break
    wait "$n0pid"
done
echo "1..$n"
[ "$failures" = 0 ]
