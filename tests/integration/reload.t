#!/usr/bin/env bash
# reload.t - SIGHUP makes a grid node read its topology file again and say,
# in its log, whether the file is valid and how its membership differs; the
# node keeps the membership it started with either way, and goes on
# running jobs with its peer.  A 2-node grid; the file is rewritten and n0
# is sent SIGHUP by its pid for each case: a YAML error (the message names
# line and column), a file without n0, only the policy changed, new
# failure time-outs (applied), a node added and an endpoint changed.
# Waits are bounded by counts of polls.
set -u
. "$(dirname "$0")/grid_kit.sh" reload

# topology BASE FILE [POLICY [EXTRA_NODE [N1_PORT]]]
topology() {
    local extra=
    [ -n "${4:-}" ] && extra="      - {id: $4, endpoint: \"tcp://127.0.0.1:$(($1 + 2))\", client: \"ipc://$tmpdir/g/$4.sock\", workers: 1}"
    cat >"$2" <<Y
grid: reload-test
policy: ${3:-rs}
security: none
clusters:
  - name: A
    nodes:
      - {id: n0, endpoint: "tcp://127.0.0.1:$1", client: "ipc://$tmpdir/g/n0.sock", workers: 1}
      - {id: n1, endpoint: "tcp://127.0.0.1:${5:-$(($1 + 1))}", client: "ipc://$tmpdir/g/n1.sock", workers: 1}
$extra
Y
}

grid_up topology 33000 info
base=$(grep -o '127.0.0.1:[0-9]*' "$tmpdir/t.yaml" | head -1 | cut -d: -f2)
file=$tmpdir/t.yaml
pid=$(cat "$tmpdir/g/n0.pid")
log=$tmpdir/g/n0.log

# hup PATTERN: SIGHUP to n0, then until its log has one more line matching
# PATTERN (grep -E); leaves that line in $line.
hup() {
    local before
    before=$(grep -cE -- "$1" "$log")
    kill -HUP "$pid"
    line=
    for _ in $(seq 200); do
        if [ "$(grep -cE -- "$1" "$log")" -gt "$before" ]; then
            line=$(grep -E -- "$1" "$log" | tail -n 1)
            return 0
        fi
        sleep 0.05
    done
    echo "# no log line matching '$1' after SIGHUP"
    return 1
}

exact_job() {   # exact_job LABEL: fib n=25 on n0 gives 75025
    run "$submit" --socket "ipc://$tmpdir/g/n0.sock" --json fib n=25
    is "$(json_get 'd["result"]["value"]')" 75025 "$1"
}

# A YAML error: line 5 column 3 of the new file.
printf 'grid: reload-test\nclusters:\n  - name: A\n    nodes: [\n  - : :\n' >"$file"
hup "SIGHUP: .*keeping the topology in use"
like "$line" "error: SIGHUP: $file:" "a YAML error is refused"
like "$line" "keeping the topology in use" "and the node keeps its own"
like "$line" "$file:5:" "the message names the line"

topology "$base" "$file"
sed -i '/id: n0/d' "$file"
hup "SIGHUP: .*has no node"
like "$line" "has no node 'n0' (this node); keeping the topology in use" "a file without this node is refused"

topology "$base" "$file" crs
hup "SIGHUP: .*membership unchanged"
like "$line" "SIGHUP: $file re-read: valid, membership unchanged (grid reload-test, 2 nodes)" \
    "a file whose membership is the same is valid"

echo "failure_timeout: {lan_ms: 2000, wan_ms: 5000}" >>"$file"
hup "SIGHUP: .*failure_timeout"
like "$line" "membership unchanged (grid reload-test, 2 nodes); failure_timeout lan 3000 -> 2000 ms, wan 10000 -> 5000 ms, applied" \
    "new failure time-outs are applied"
is "$(status_of "ipc://$tmpdir/g/n0.sock" failure_timeout_lan_ms)" 2000 "STATUS shows the new LAN time-out"
is "$(status_of "ipc://$tmpdir/g/n0.sock" failure_timeout_wan_ms)" 5000 "and the new WAN one"

topology "$base" "$file" rs n2 $((base + 5))
hup "SIGHUP: .*not applied"
like "$line" "2 membership change(s) not applied" "a membership change is counted"
like "$line" "restart the grid's nodes to use them" "and says what applies it"
like "$(cat "$log")" "SIGHUP: $file: node n2 added (cluster A, tcp://127.0.0.1:$((base + 2)))" \
    "the node added is named"
like "$(cat "$log")" "SIGHUP: $file: node n1: endpoint tcp://127.0.0.1:$((base + 1)) -> tcp://127.0.0.1:$((base + 5))" \
    "the endpoint changed is named"

is "$(status_of "ipc://$tmpdir/g/n0.sock" topology_reloads_refused)" 3 \
    "STATUS counts the three reloads refused or not applied"
is "$(status_of "ipc://$tmpdir/g/n0.sock" grid_nodes)" 2 "n0 still runs with its 2 nodes"
exact_job "n0 still runs jobs exact"
run "$submit" --socket "ipc://$tmpdir/g/n0.sock" --json --status
is "$(json_get 'd.get("peer.n1", "?").split()[0]')" alive "its peer n1 is alive to it"
is "$(json_get 'd["rejected.other_grid"]')" 0 "the peers never saw each other as another grid"

echo "1..$n"
[ "$failures" = 0 ]
