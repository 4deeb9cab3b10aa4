#!/usr/bin/env bash
# reconnect.t - wide-area connections that break (satin-wanem's `reset`:
# both ends see a reset, the bytes the link held are lost) are re-opened by
# ZeroMQ; what comes over the new connections must still be believed, and
# the results lost with the old ones must be sent again (numbered messages,
# daemon/delivery.c), so the job ends exactly.  A 2x2 grid behind
# satin-wanem: a partition holds the results of the leaves that cluster B
# stole, a reset throws them away, then the link is restored.  Asserts the
# result and that results really were lost and sent again; never a time.
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
grid_up topology
ep=$(head -1 "$tmpdir/ep")

# Eight leaves of 3 s on a0: every node steals (B over the WAN) and runs
# two, one after the other.
run "$submit" --socket "$ep" --no-wait --parsable synthetic depth=1 fanout=8 dist=const mean_us=3000000
job=$out
is "$rc" 0 "a job of eight 3 s leaves submitted"
# The partition comes once cluster B holds stolen leaves, however long a
# loaded machine takes to get them there (at most a minute).
b_sum() { echo $(( $(status_of "ipc://$tmpdir/g/b0.sock" "$1") + $(status_of "ipc://$tmpdir/g/b1.sock" "$1") )); }
b_some() { [ "$(b_sum "$1")" -gt 0 ]; }   # b_some KEY: cluster B counts some of KEY
wait_until 60 "cluster B to hold stolen leaves" b_some jobs_received
ctl() { "$wanem" ctl --control "$tmpdir/g/wanem.ctl" "$@"; }
run ctl partition A B
is "$rc" 0 "clusters A and B partitioned once B holds stolen leaves ($(b_sum jobs_received))"
# B's leaves end 3 s after they started: their results wait in the
# partition (waited for, not assumed after a fixed sleep).
wait_until 60 "cluster B to send results" b_some results_sent
sent=$(b_sum results_sent)
gt "$sent" 0 "cluster B has sent results since the partition began"
# A result counted as sent is in ZeroMQ's hands: its bytes reach the shim
# a moment later.
held_some() {
    run ctl stats B A
    held=$(sed -n 's/.* queued=\([0-9]*\).*/\1/p' <<<"$out")
    [ "${held:-0}" -gt 0 ]
}
wait_until 60 "the partition to hold bytes from B to A" held_some
gt "${held:-0}" 0 "bytes from B to A are held by the partition"
run ctl reset A B
gt "$(sed -n 's/^reset \([0-9]*\) connection.*/\1/p' <<<"$out")" 0 "the connections between A and B are broken"
# What the link held is dropped with them (and counted by the shim: bytes
# of the connections ZeroMQ opens again at once may be held anew, so the
# queue itself is not read here).
dropped=$(sed -n 's/.*, \([0-9]*\) held bytes\{0,1\} dropped$/\1/p' <<<"$out")
[ "${dropped:-0}" -ge "$held" ] && pass "and what they held is gone ($dropped bytes dropped, $held held before)" ||
    fail "and what they held is gone ($out; $held held before)"
run ctl restore A B
is "$rc" 0 "partition lifted"
run "$submit" --socket "$ep" --json --timeout 120 --wait "$job"
is "$rc" 0 "the job finished"
is "$(json_get 'd["result"]["total_us"]')" 24000000 "total_us = 8 x 3 s exactly"
is "$(json_get 'd["result"]["leaves"]')" 8 "8 leaves"
resent=$(json_get 'd["stats"]["grid.retransmissions"]')
gt "${resent:-0}" 0 "lost messages were sent again"
is "$(json_get 'd["stats"]["grid.bad_peer_messages"]')" 0 "no message was dropped as coming from an unknown connection"
echo "1..$n"
[ "$failures" = 0 ]
