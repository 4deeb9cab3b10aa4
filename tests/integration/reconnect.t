#!/usr/bin/env bash
# reconnect.t - a wide-area connection cut for longer than ZeroMQ's heartbeat
# timeout is re-opened silently; what comes over the new connection (results
# of stolen jobs) must still be believed, so the job ends exactly.  A 2x2 grid
# behind satin-wanem, a partition of 8 s (the heartbeat timeout is 5 s), then
# restore.  Asserts the result, never a time.
set -u
. "$(dirname "$0")/grid_kit.sh" reconnect
wanem=$build/satin-wanem

topology() {   # topology BASE FILE
    cat >"$2" <<Y
grid: reconnect
policy: rs
security: none
emulate: true
wan: {latency_ms: 10, bandwidth_kBps: 1000, shim_base_port: $(($1 + 10))}
clusters:
  - name: A
    nodes:
      - {id: a0, endpoint: "tcp://127.0.0.1:$1", workers: 1}
      - {id: a1, endpoint: "tcp://127.0.0.1:$(($1 + 1))", workers: 1}
  - name: B
    nodes:
      - {id: b0, endpoint: "tcp://127.0.0.1:$(($1 + 2))", workers: 1}
      - {id: b1, endpoint: "tcp://127.0.0.1:$(($1 + 3))", workers: 1}
Y
}
grid_up topology 50000
ep=$(head -1 "$tmpdir/ep")

# Four leaves of 12 s on one node: the other nodes steal three of them, and
# their results come back after the partition.
run "$submit" --socket "$ep" --no-wait --parsable synthetic depth=1 fanout=4 dist=const mean_us=12000000
job=$out
is "$rc" 0 "a job of four 12 s leaves submitted"
sleep 1
run "$wanem" ctl --control "$tmpdir/g/wanem.ctl" partition A B
is "$rc" 0 "clusters A and B partitioned"
sleep 8
run "$wanem" ctl --control "$tmpdir/g/wanem.ctl" restore A B
is "$rc" 0 "partition lifted after 8 s (longer than the 5 s heartbeat timeout)"
run "$submit" --socket "$ep" --json --timeout 120 --wait "$job"
is "$rc" 0 "the job finished"
is "$(json_get 'd["result"]["total_us"]')" 48000000 "total_us = 4 x 12 s exactly"
is "$(json_get 'd["stats"]["grid.bad_peer_messages"]')" 0 "no message was dropped as coming from an unknown connection"
echo "1..$n"
[ "$failures" = 0 ]
