#!/usr/bin/env bash
# members.t - the grid's membership changes while jobs run, without a
# restart.  A CURVE grid (keys by satin-keygen; one worker per node,
# failure time-outs of 1 s in a cluster and 1.5 s across) runs uts T1L
# (102181082 nodes) from a0 while `satin-grid reload` applies an edited
# topology file (every node re-reads it on SIGHUP):
#   - b1 is added: it starts and takes records of the running job;
#   - a1 is removed: it refuses the file that lacks it and leaves (SIGTERM);
#   - a1 comes back with a new key pair, and the running nodes re-read the
#     file one at a time, a second apart (they speak different files
#     meanwhile);
#   - a file that does not load changes nothing.
# Every job must end with its exact result.  Asserts outcomes and what the
# nodes say, never times.
set -u
. "$(dirname "$0")/grid_kit.sh" members

keygen=$build/satin-keygen
mkdir -p "$tmpdir/keys"
for k in a0 a1 b0 b1; do
    "$keygen" --dir "$tmpdir/keys" "$k" >"$tmpdir/$k.line" 2>/dev/null ||
        { echo "Bail out! satin-keygen $k failed"; exit 1; }
done
pub() { sed -n 's/^public_key: "\(.*\)"$/\1/p' "$tmpdir/$1.line"; }

nodes="a0 a1 b0"
topology() {   # topology BASE FILE: the nodes of $nodes, ports from BASE
    {
        echo "grid: members-test"
        echo "policy: crs"
        echo "keys: keys"
        echo "failure_timeout: {lan_ms: 1000, wan_ms: 1500}"
        echo "clusters:"
        for c in a b; do
            echo "  - name: ${c^^}"
            echo "    nodes:"
            for node in $nodes; do
                [ "${node:0:1}" = "$c" ] || continue
                # a0 a1 at BASE, BASE+1; b0 b1 at BASE+2, BASE+3
                port=$(($1 + ${node:1:1})); [ "$c" = b ] && port=$((port + 2))
                echo "      - {id: $node, endpoint: \"tcp://127.0.0.1:$port\", client: \"ipc://$tmpdir/g/$node.sock\", workers: 1, public_key: \"$(pub "$node")\"}"
            done
        done
    } >"$2"
}
grid_up topology info
base=$(sed -n 's/.*id: a0, endpoint: "tcp:\/\/127.0.0.1:\([0-9]*\)".*/\1/p' "$tmpdir/t.yaml")

start_job() {
    start_t1l "ipc://$tmpdir/g/a0.sock" 180
}

reload() {   # reload: satin-grid reload; its output in $out, its status in $rc
    run "$grid" reload --run-dir "$tmpdir/g"
}

# logged NODE PATTERN [COUNT]: NODE's log has COUNT (default 1) lines
# matching PATTERN (grep -E); if not, prints what it says of the membership
# (for wait_until: its diagnostics on time-out)
logged() {
    [ "$(grep -cE -- "$2" "$tmpdir/g/$1.log")" -ge "${3:-1}" ] && return 0
    grep -E "SIGHUP|membership" "$tmpdir/g/$1.log"
    return 1
}
# wait_log NODE PATTERN [COUNT]: waits until logged NODE PATTERN [COUNT]
wait_log() { wait_until 60 "$1 to log '$2'" logged "$@"; }

# spread NODE: the job runs on a0 and NODE holds records of it
spread() {
    [ "$(status_of "ipc://$tmpdir/g/a0.sock" jobs_running)" -ge 1 ] 2>/dev/null &&
        [ "$(status_of "ipc://$tmpdir/g/$1.sock" records_held)" -ge 1 ] 2>/dev/null
}

# ---- a node added ----------------------------------------------------------------------------
start_job
wait_until 120 "the job to spread to a1" spread a1
keeper=$(keep_busy "ipc://$tmpdir/g/a0.sock")
nodes="a0 a1 b0 b1"
topology "$base" "$tmpdir/t.yaml"
reload
is "$rc" 0 "satin-grid reload applies the file with b1 added"
is "$out" "ipc://$tmpdir/g/b1.sock" "and prints the endpoint of the node it started"
for node in a0 a1 b0; do
    wait_log "$node" "membership applied"
    like "$(grep 'membership applied' "$tmpdir/g/$node.log")" \
        "membership applied: 1 change(s), 1 node(s) new to this run (grid members-test, 4 nodes)" \
        "$node took the new membership"
done
like "$(cat "$tmpdir/g/a0.log")" "node b1 added (cluster B, tcp://127.0.0.1:$((base + 3)))" \
    "a0's log names the node added"
gt "$(took_records b1 "$keeper" "ipc://$tmpdir/g/a0.sock")" 0 "b1 took records of the running jobs"
finish_t1l "b1 added mid-job"
run "$submit" --socket "ipc://$tmpdir/g/a0.sock" --json --status
is "$(json_get 'd["membership_changes"], d["grid_nodes"]')" "1 4" \
    "a0's STATUS counts the change and lists 4 nodes"
is "$(json_get 'd.get("peer.b1", "?").split()[0]')" alive "b1 is alive to a0"

# ---- a node removed --------------------------------------------------------------------------
start_job
wait_until 120 "the job to spread to a1, the node to be removed" spread a1
a1pid=$(cat "$tmpdir/g/a1.pid")
nodes="a0 b0 b1"
topology "$base" "$tmpdir/t.yaml"
reload
is "$rc" 0 "satin-grid reload applies the file without a1"
wait_log a1 "has no node 'a1'"
like "$(cat "$tmpdir/g/a1.log")" "has no node 'a1' (this node); keeping the topology in use" \
    "a1 refuses a file that lacks it"
# a1 runs records of the job: it lets them finish for its --stop-timeout
# (60 s) before it gives the rest back, and satin-grid waits that long.
wait_until 120 "a1 to stop" ! kill -0 "$a1pid" && pass "a1 was stopped (SIGTERM by its pid)"
like "$(cat "$tmpdir/g/a1.log")" "stopped" "and stopped cleanly"
for node in a0 b0 b1; do
    wait_log "$node" "node a1 removed"
    like "$(cat "$tmpdir/g/$node.log")" "node a1 removed" "$node's log names the node removed"
done
finish_t1l "a1 removed mid-job"
run "$submit" --socket "ipc://$tmpdir/g/a0.sock" --json --status
is "$(json_get '"peer.a1" in d, d["grid_nodes"]')" "False 3" "a0 lists a1 no more: 3 nodes"

# ---- a1 back with a new key, the nodes re-reading one at a time ------------------------------
"$keygen" --dir "$tmpdir/keys" --force a1 >"$tmpdir/a1.line" 2>/dev/null
start_job
keeper=$(keep_busy "ipc://$tmpdir/g/a0.sock")
wait_until 120 "the job to spread to b0" spread b0
nodes="a0 a1 b0 b1"
topology "$base" "$tmpdir/t.yaml"
# The time between two re-reads is what is tested: the grid runs on a
# while its nodes read different files.
for node in b1 a0 b0; do
    applied=$(grep -c "membership applied" "$tmpdir/g/$node.log")
    kill -HUP "$(cat "$tmpdir/g/$node.pid")"
    wait_log "$node" "membership applied" $((applied + 1))
    sleep 0.3
done
reload
is "$rc" 0 "satin-grid reload starts a1 again (the others have re-read the file already)"
like "$(grep 'membership applied' "$tmpdir/g/b1.log" | tail -n 1)" \
    "0 node(s) new to this run (grid members-test, 4 nodes)" \
    "b1 re-read the file: a1 is known to its run, back with its new key"
gt "$(took_records a1 "$keeper" "ipc://$tmpdir/g/a0.sock")" 0 "a1 took records of the running jobs"
finish_t1l "a1 back mid-job, the nodes re-reading one at a time"
run "$submit" --socket "ipc://$tmpdir/g/a0.sock" --json --status
is "$(json_get 'd["rejected.wrong_key"]')" 0 "no message came with a key its file did not list"

# ---- a file that does not load ----------------------------------------------------------------
cp "$tmpdir/t.yaml" "$tmpdir/good.yaml"
printf 'grid: members-test\nclusters:\n  - name: A\n    nodes: [\n  - : :\n' >"$tmpdir/t.yaml"
reload
is "$rc" 1 "satin-grid reload refuses a file that does not load"
like "$err" "t.yaml:5:" "naming its line"
run "$submit" --socket "ipc://$tmpdir/g/a0.sock" --json fib n=25
is "$(json_get 'd["result"]["value"]')" 75025 "the grid runs on as it was"
cp "$tmpdir/good.yaml" "$tmpdir/t.yaml"

echo "1..$n"
[ "$failures" = 0 ]
