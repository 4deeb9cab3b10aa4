#!/usr/bin/env bash
# reload.t - SIGHUP makes a grid node read its topology file again and say,
# in its log, whether the file is valid and how its membership differs;
# it takes a new membership unless the file is bad or asks what a running
# node cannot do, and goes on running jobs with its peer either way.  A
# 2-node grid; the file is rewritten and n0 is sent SIGHUP by its pid for
# each case: a YAML error (the message names line and column), a file
# without n0, only the policy changed, new failure time-outs (applied), a
# node added with n0's own endpoint moved (refused), a node added (applied,
# while n1 still reads the old file).  members.t changes the membership of
# a whole grid while jobs run.
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

grid_up topology info
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
    wait_until 60 "n0 to log a line matching '$1' after SIGHUP" more_lines "$1" "$before"
}
# more_lines PATTERN COUNT: n0's log has more than COUNT lines matching
# PATTERN; the last of them in $line
more_lines() {
    [ "$(grep -cE -- "$1" "$log")" -gt "$2" ] || return 1
    line=$(grep -E -- "$1" "$log" | tail -n 1)
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

# n0's own endpoint moved: n0 is bound to the old one, and refuses.
topology "$base" "$file" rs n2
sed -i "s/id: n0, endpoint: \"tcp:\/\/127.0.0.1:$base\"/id: n0, endpoint: \"tcp:\/\/127.0.0.1:$((base + 7))\"/" "$file"
hup "SIGHUP: .*not applied"
like "$line" "2 membership change(s) not applied: this node's endpoint changed (tcp://127.0.0.1:$base -> tcp://127.0.0.1:$((base + 7)))" \
    "a change this node cannot take while it runs is refused, and says why"
like "$line" "restart the grid's nodes to use them" "and says what applies it"
like "$(cat "$log")" "SIGHUP: $file: node n2 added (cluster A, tcp://127.0.0.1:$((base + 2)))" \
    "the node added is named"
is "$(status_of "ipc://$tmpdir/g/n0.sock" topology_reloads_refused)" 3 \
    "STATUS counts the three reloads refused"
is "$(status_of "ipc://$tmpdir/g/n0.sock" grid_nodes)" 2 "n0 still runs with its 2 nodes"

# A node added (not started): n0 takes the membership at once, n1 has not
# re-read the file and still understands n0 (n0 speaks n1's file to it).
topology "$base" "$file" rs n2
hup "SIGHUP: .*membership applied"
like "$line" "membership applied: 1 change(s), 1 node(s) new to this run (grid reload-test, 3 nodes)" \
    "a membership change is applied"
is "$(status_of "ipc://$tmpdir/g/n0.sock" membership_changes)" 1 "STATUS counts it"
is "$(status_of "ipc://$tmpdir/g/n0.sock" grid_nodes)" 3 "n0 runs with 3 nodes"
exact_job "n0 still runs jobs exact"
run "$submit" --socket "ipc://$tmpdir/g/n0.sock" --json --status
is "$(json_get 'd.get("peer.n1", "?").split()[0]')" alive "its peer n1 is alive to it"
is "$(json_get 'd["rejected.other_grid"]')" 0 "n0 never saw n1 as another grid"
# n0 greeted n1 in the new file first, which n1 dropped; n1 then asked n0
# to greet it in the old one: n0's silence may have made it suspected
# meanwhile, for up to one time-out.
n0_alive_to_n1() {
    run "$submit" --socket "ipc://$tmpdir/g/n1.sock" --json --status
    [ "$(json_get 'd.get("peer.n0", "?").split()[0]')" = alive ]
}
wait_until 60 "n1 to take n0 for alive again" n0_alive_to_n1 &&
    pass "and n0 is alive to n1, which reads the old file"

echo "1..$n"
[ "$failures" = 0 ]
