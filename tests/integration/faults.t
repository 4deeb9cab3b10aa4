#!/usr/bin/env bash
# faults.t - nodes die while a job runs, and the job still ends with its
# exact result.  A 2x2 grid (one worker per node, failure time-outs of 1 s
# in a cluster and 1.5 s across) runs uts T1L (102181082 nodes) from a0:
#   - under every policy, b1 is killed (SIGKILL) at a seeded random moment;
#   - a1 and b1 are killed at once;
#   - b1 is killed and started again while the job runs (it joins at once);
#   - b1 leaves with SIGTERM while the job runs (nothing runs twice);
#   - behind satin-wanem, clusters A and B are partitioned for longer than
#     the time-out and b1 is killed meanwhile; the partition heals.
# Asserts outcomes and what the nodes say, never times.
set -u
. "$(dirname "$0")/grid_kit.sh" faults
. "$here/peer_ties.sh"

seed=${SATIN_FAULTS_SEED:-$RANDOM}
RANDOM=$seed
echo "# seed $seed (SATIN_FAULTS_SEED=$seed repeats these moments)"

policy=crs
emulate=false
topology() {   # topology BASE FILE
    cat >"$2" <<Y
grid: faults-test
policy: $policy
security: none
emulate: $emulate
wan: {latency_ms: 5, bandwidth_kBps: 10000, shim_base_port: $(($1 + 10))}
failure_timeout: {lan_ms: 1000, wan_ms: 1500}
clusters:
  - name: A
    nodes:
      - {id: a0, endpoint: "tcp://127.0.0.1:$1", client: "ipc://$tmpdir/g/a0.sock", workers: 1}
      - {id: a1, endpoint: "tcp://127.0.0.1:$(($1 + 1))", client: "ipc://$tmpdir/g/a1.sock", workers: 1}
  - name: B
    nodes:
      - {id: b0, endpoint: "tcp://127.0.0.1:$(($1 + 2))", client: "ipc://$tmpdir/g/b0.sock", workers: 1}
      - {id: b1, endpoint: "tcp://127.0.0.1:$(($1 + 3))", client: "ipc://$tmpdir/g/b1.sock", workers: 1}
Y
}

start_job() {
    start_t1l "ipc://$tmpdir/g/a0.sock"
}

# A moment 0.3..1.2 s into the job, from the seed.  The time is what is
# tested (a fault at a random moment), not a wait for a state.
pause() {
    sleep "0.$((3 + RANDOM % 10))" 2>/dev/null || sleep 1
}

# holds NODE: NODE runs records of another node.  Waited for before the
# kill, so that killing it leaves a node that had work with it: a random
# moment alone can fall between two records (RP pushes them one at a time)
# or, with cheap spawns, after the job.  A kill at a moment it holds none
# is still a fault to survive (found_dead skips its checks then).
holds() { [ "$(status_of "ipc://$tmpdir/g/$1.sock" records_held)" -gt 0 ] 2>/dev/null; }

grid_down() {
    "$grid" down --run-dir "$tmpdir/g" >/dev/null 2>&1
}

# cross_dead: a node of cluster A took b0 for dead, or b0 a node of A
cross_dead() {
    grep -q "node b0 is dead" "$tmpdir/g/a0.log" "$tmpdir/g/a1.log" ||
        grep -qE "node a[01] is dead" "$tmpdir/g/b0.log"
}

# orphans_delivered LABEL NODE...: every ORPHAN the nodes sent each other
# arrived (they send none to the dead).  Records of the dead may still run
# after the job, and tell their results later: wait for the counts to meet.
orphans_delivered() {
    local label=$1
    shift
    wait_until 60 "$label: the ORPHANs received to meet those sent" orphans_met "$@" &&
        pass "$label: every ORPHAN sent was received ($told told or promised, $used used)"
}
# orphans_met NODE...: the nodes received as many ORPHANs as they sent (the
# counts in sent, recv, told and used, and on stdout)
orphans_met() {
    local s r t u node
    sent=0 recv=0 told=0 used=0
    for node in "$@"; do
        run "$submit" --socket "ipc://$tmpdir/g/$node.sock" --json --status
        read -r s r t u <<<"$(json_get '"%d %d %d %d" % (d.get("orphan_messages", 0),
            d.get("orphans_received", 0), d.get("orphans_told", 0) + d.get("orphans_promised", 0),
            d.get("orphans_used", 0))')"
        sent=$((sent + s)) recv=$((recv + r)) told=$((told + t)) used=$((used + u))
    done
    echo "sent $sent, received $recv"
    [ "$sent" -eq "$recv" ]
}

for policy in rs rp chs cls crs lifeline cluster-lifeline; do
    grid_up topology warn
    start_job
    pause
    wait_until --quiet 30 "b1 to hold records of another node" holds b1
    kill -KILL "$(cat "$tmpdir/g/b1.pid")"
    # Who had records at b1 as it died: each must find it dead.  `holds`
    # makes this someone nearly always, but b1 may have sent its last
    # result back between that look and the kill.
    tied=$(tied_to "$tmpdir/g" b1 a0 a1 b0)
    finish_t1l "$policy, b1 killed"
    found_dead "$tmpdir/g" b1 "$policy: " "$tied"
    run "$submit" --socket "ipc://$tmpdir/g/a0.sock" --json --status
    is "$(json_get '" ".join(sorted(k for k in d if k.startswith("peer.")))')" "peer.a1 peer.b0 peer.b1" \
        "$policy: a0's status lists every peer"
    orphans_delivered "$policy" a0 a1 b0
    grid_down
done

policy=crs
grid_up topology warn
start_job
pause
kill -KILL "$(cat "$tmpdir/g/a1.pid")" "$(cat "$tmpdir/g/b1.pid")"
finish_t1l "a1 and b1 killed at once"
grid_down

grid_up topology info
start_job
pause
keeper=$(keep_busy "ipc://$tmpdir/g/a0.sock")
old=$(cat "$tmpdir/g/b1.pid")
kill -KILL "$old"
# Its port and socket are free once it is gone (satin-grid's child: not ours to wait for).
wait_until 60 "b1's killed run to be gone" ! kill -0 "$old"
rm -f "$tmpdir/g/b1.sock"
"$build/satind" --config "$tmpdir/t.yaml" --node b1 --socket "ipc://$tmpdir/g/b1.sock" \
    --foreground --log-level info </dev/null >"$tmpdir/g/b1.log" 2>&1 &
new=$!
if wait_socket "$tmpdir/g/b1.sock" "$new" "b1's new run to make its socket"; then
    adopt b1 "$new"; pass "b1 started again"
else
    kill -KILL "$new" 2>/dev/null; sed 's/^/#   /' "$tmpdir/g/b1.log"
fi
gt "$(took_records b1 "$keeper" "ipc://$tmpdir/g/a0.sock")" 0 \
    "b1's new run took records of the running jobs"
finish_t1l "b1 killed and started again"
cat "$tmpdir"/g/a0.log "$tmpdir"/g/a1.log "$tmpdir"/g/b0.log >"$tmpdir/all.log"
like "$(cat "$tmpdir/all.log")" "node b1 is dead" "the others saw b1's old run end"
grid_down

grid_up topology info
start_job
pause
b1=$(cat "$tmpdir/g/b1.pid")
kill -TERM "$b1"
finish_t1l "b1 left with SIGTERM"
job_out=$out
wait_until 60 "b1 to exit after SIGTERM" ! kill -0 "$b1"
like "$(tail -1 "$tmpdir/g/b1.log")" "stopped" "b1 stopped cleanly"
like "$(cat "$tmpdir/g/a0.log")" "node b1 is leaving" "a0 heard b1 leave"
is "$(json_get 'd["stats"]["grid.records_redone"]' "$job_out")" 0 \
    "nothing b1 held ran again: it finished its records before it left"
grid_down

emulate=true
grid_up topology info
start_job
pause
run "$build/satin-wanem" ctl --control "$tmpdir/g/wanem.ctl" partition A B
is "$rc" 0 "clusters A and B partitioned"
kill -KILL "$(cat "$tmpdir/g/b1.pid")"
# The partition lasts until a node across it is taken for dead (past the
# wide-area time-out), then heals.
wait_until 60 "a node across the partition to be taken for dead" cross_dead
run "$build/satin-wanem" ctl --control "$tmpdir/g/wanem.ctl" restore A B
is "$rc" 0 "the partition heals"
finish_t1l "b1 killed during a partition that then heals"
cat "$tmpdir"/g/a0.log "$tmpdir"/g/a1.log "$tmpdir"/g/b0.log >"$tmpdir/all.log"
like "$(cat "$tmpdir/all.log")" "is back after" "a node taken for dead in the partition was heard again"
grid_down

echo "1..$n"
[ "$failures" = 0 ]
