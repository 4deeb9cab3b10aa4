#!/usr/bin/env bash
# netns_faults.t - nodes die on a grid of separate hosts, and jobs still end
# with their exact result.  Each node of a 2x2 grid (a0 a1 | b0 b1, one
# worker each, `security: curve`, failure time-outs of 1 s in a cluster and
# 1.5 s across) runs in a network namespace of its own, on a private
# address, its veth pair plugged into a bridge that lives in one more
# namespace (the switch); nothing of the root namespace's network changes.
# Clients reach the nodes through IPC sockets in the test's directory (the
# filesystem is shared).  uts T1L (102181082 nodes) runs from a0:
#   - b1 is killed (SIGKILL) while the job runs;
#   - b0's port on the switch goes down for longer than the failure
#     time-outs and comes back while a second job runs: the others take b0
#     for dead and run its records again, and find it back afterwards.
# Skips where namespaces, bridges or veth pairs cannot be made (not root, no
# iproute2, a kernel or container without them).  Asserts outcomes and what
# the nodes say, never times; at the end, that nothing of it is left.
set -u
build=${SATIN_BUILD:-$PWD/build}
here=$(cd "$(dirname "$0")" && pwd)
satind=$build/satind
submit=$build/satin-submit
keygen=$build/satin-keygen

skip_all() { echo "1..0 # SKIP $1"; exit 0; }

for f in "$satind" "$submit" "$keygen"; do
    [ -x "$f" ] || { echo "Bail out! $f is missing (build it, or set SATIN_BUILD)"; exit 1; }
done
command -v ip >/dev/null 2>&1 || skip_all "no ip command (install iproute2) to make network namespaces"
[ "$(id -u)" = 0 ] || skip_all "not root: making network namespaces, a bridge and veth pairs needs CAP_NET_ADMIN"

nodes=(a0 a1 b0 b1)
tag=satin$$                     # names unique per run (interface names stay under 16 bytes)
hub=$tag-hub                    # the switch's namespace
br=br-$tag                      # the bridge, in $hub
ns_of() { echo "$tag-$1"; }     # a node's namespace
port_of() { echo "v$$$1"; }     # a node's port on the switch (veth end in $hub); eth0 in the node
pids=()        # daemons not yet waited for (a reaped pid may be someone else's by now)
job_pid=       # the running satin-submit
made_ns=()

tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-netns.XXXXXX")
# teardown: the daemons by pid, the veth pairs and the bridge, then the
# namespaces (which would take their links with them anyway).
teardown() {
    local p ns node
    [ -z "$job_pid" ] || kill -KILL "$job_pid" 2>/dev/null
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    pids=()
    if [ "${#made_ns[@]}" -gt 0 ]; then
        for node in "${nodes[@]}"; do ip -n "$hub" link delete "$(port_of "$node")" 2>/dev/null; done
        ip -n "$hub" link delete "$br" 2>/dev/null
    fi
    for ns in "${made_ns[@]}"; do ip netns delete "$ns" 2>/dev/null; done
    made_ns=()
}
trap 'teardown; rm -rf "$tmpdir"' EXIT
trap 'exit 130' INT TERM
. "$here/tap.sh"
. "$here/peer_ties.sh"

# ---- the network -------------------------------------------------------------------------------

# A /24 in 10.213.0.0/16 that nothing here uses (the addresses live only in
# the test's namespaces, but a clash would confuse whoever reads `ip addr`).
used=$(ip -4 addr show 2>/dev/null; ip -4 route show table all 2>/dev/null)
net=
for i in $(seq 0 49); do
    x=$(( ($$ + i * 37) % 200 + 20 ))
    printf '%s\n' "$used" | grep -qE "(^|[^0-9.])10\.213\.$x\." && continue
    net=10.213.$x
    break
done
[ -n "$net" ] || skip_all "no free 10.213.X.0/24 for the test addresses"
addr_of() {
    local i
    for i in "${!nodes[@]}"; do [ "${nodes[$i]}" != "$1" ] || echo "$net.$((i + 11))"; done
}

mkns() {   # mkns NAME: a namespace with its loopback up, or a skip
    local e
    e=$(ip netns add "$1" 2>&1) || skip_all "cannot make a network namespace ($e)"
    made_ns+=("$1")
    e=$(ip -n "$1" link set lo up 2>&1) || skip_all "cannot bring up loopback in a network namespace ($e)"
}
mkns "$hub"
e=$(ip -n "$hub" link add "$br" type bridge forward_delay 0 2>&1) || skip_all "cannot make a bridge ($e)"
ip -n "$hub" link set "$br" up || skip_all "cannot bring the bridge up"
for node in "${nodes[@]}"; do
    ns=$(ns_of "$node")
    port=$(port_of "$node")
    mkns "$ns"
    e=$(ip -n "$hub" link add "$port" type veth peer name eth0 netns "$ns" 2>&1) ||
        skip_all "cannot make a veth pair ($e)"
    ip -n "$hub" link set "$port" master "$br" up &&
        ip -n "$ns" addr add "$(addr_of "$node")/24" dev eth0 &&
        ip -n "$ns" link set eth0 up || skip_all "cannot configure the veth pair of $node"
done
addrs=$(for node in "${nodes[@]}"; do
    ip -n "$(ns_of "$node")" -4 -o addr show dev eth0 | awk '{print $4}'
done | tr '\n' ' ')
is "$addrs" "$net.11/24 $net.12/24 $net.13/24 $net.14/24 " "4 namespaces on a bridge, addresses $net.11-14"

# ---- keys and topology -------------------------------------------------------------------------

mkdir -p "$tmpdir/keys"
for node in "${nodes[@]}"; do
    "$keygen" --dir "$tmpdir/keys" "$node" >"$tmpdir/$node.line" 2>/dev/null ||
        { echo "Bail out! satin-keygen $node failed"; exit 1; }
done
pub() { sed -n 's/^public_key: "\(.*\)"$/\1/p' "$tmpdir/$1.line"; }
node_line() {   # node_line ID
    echo "      - {id: $1, endpoint: \"tcp://$(addr_of "$1"):7100\", client: \"ipc://$tmpdir/$1.sock\", workers: 1, public_key: \"$(pub "$1")\"}"
}
{
    echo "grid: netns-faults"
    echo "policy: crs"
    echo "security: curve"
    echo "keys: keys"
    echo "failure_timeout: {lan_ms: 1000, wan_ms: 1500}"
    echo "clusters:"
    echo "  - name: A"
    echo "    nodes:"
    node_line a0
    node_line a1
    echo "  - name: B"
    echo "    nodes:"
    node_line b0
    node_line b1
} >"$tmpdir/t.yaml"
run "$satind" --check-config "$tmpdir/t.yaml"
is "$rc" 0 "the curve topology with the namespaces' addresses checks"

# ---- the grid ----------------------------------------------------------------------------------

declare -A pid
for node in "${nodes[@]}"; do
    # `ip netns exec` enters the namespace and execs: $! is satind itself.
    ip netns exec "$(ns_of "$node")" "$satind" --config "$tmpdir/t.yaml" --node "$node" \
        --socket "ipc://$tmpdir/$node.sock" --foreground --log-level info \
        </dev/null >"$tmpdir/$node.log" 2>&1 &
    pid[$node]=$!
    pids+=($!)
done
want_exe=$(readlink -f "$satind")
# node_up NODE: its pid runs satind, which made its socket
node_up() {
    [ "$(readlink "/proc/${pid[$1]}/exe" 2>/dev/null)" = "$want_exe" ] && [ -S "$tmpdir/$1.sock" ]
}
up=1
for node in "${nodes[@]}"; do
    if ! wait_until --alive "${pid[$node]}" 60 "$node to come up in its namespace" node_up "$node"; then
        up=0
        sed 's/^/#   /' "$tmpdir/$node.log"
    fi
done
is "$up" 1 "satind runs in each namespace, its pid the daemon's own"
[ "$up" = 1 ] || { echo "Bail out! the nodes did not come up in their namespaces"; exit 1; }

# status_of AT KEY: one value of a node's STATUS (0 when absent)
status_of() {
    "$submit" --socket "ipc://$tmpdir/$1.sock" --json --status 2>/dev/null |
        python3 -c "import json,sys; print(json.load(sys.stdin).get('$2', 0))" 2>/dev/null
}
# peer_state AT NODE: the first word of peer.NODE in AT's status
peer_state() {
    "$submit" --socket "ipc://$tmpdir/$1.sock" --json --status 2>/dev/null |
        python3 -c "import json,sys; print(json.load(sys.stdin).get('peer.$2', '?').split()[0])" 2>/dev/null
}
# state_is AT NODE STATE: peer_state AT NODE is STATE (for wait_until)
state_is() { [ "$(peer_state "$1" "$2")" = "$3" ]; }
# holds AT: AT runs records of another node
holds() { [ "$(status_of "$1" records_held)" -gt 0 ] 2>/dev/null; }
# The nodes greet each other once they have something to say (a steal, a
# heartbeat); a tiny job makes sure every link carried a message.
run "$submit" --socket "ipc://$tmpdir/a0.sock" fib n=20
like "$out" "value: 6765" "a small job runs on the grid"
heard=ok
for node in a1 b0 b1; do
    wait_until 60 "a0 to hear $node" state_is a0 "$node" alive || heard="$node is $(peer_state a0 "$node")"
done
is "$heard" ok "a0 hears a1, b0 and b1 over the bridge, under CURVE"

start_job() {
    "$submit" --socket "ipc://$tmpdir/a0.sock" --json --stats --timeout 60 uts tree=T1L \
        >"$tmpdir/job.json" 2>"$tmpdir/job.err" &
    job_pid=$!
}
finish_job() {   # finish_job LABEL
    wait "$job_pid"
    rc=$?
    job_pid=
    out=$(cat "$tmpdir/job.json")
    cp "$tmpdir/job.err" "$tmpdir/err"; cp "$tmpdir/job.json" "$tmpdir/out"
    is "$rc" 0 "$1: satin-submit exits 0"
    is "$(json_get 'd["status"], d["result"]["nodes"]')" "ok 102181082" "$1: the exact tree size"
    echo "# $1: $(json_get '" ".join("%s=%s" % (k, d["stats"].get(k)) for k in ("wall_s", "grid.records_redone", "grid.nodes_reporting"))')"
}

# ---- b1 dies -----------------------------------------------------------------------------------

start_job
# Killed while it runs records of another node (found_dead skips its checks
# when it holds none after all).
wait_until --quiet 30 "b1 to hold records of another node" holds b1
kill -KILL "${pid[b1]}"
{ wait "${pid[b1]}"; } 2>/dev/null    # (bash would report the kill on stderr)
pids=("${pid[a0]}" "${pid[a1]}" "${pid[b0]}")
# Who had records at b1 as it died: each must find it dead.
tied=$(tied_to "$tmpdir" b1 a0 a1 b0)
finish_job "b1 killed"
found_dead "$tmpdir" b1 "" "$tied"
run "$submit" --socket "ipc://$tmpdir/a0.sock" --json --status
is "$(json_get 'd["peer.a1"].split()[0], d["peer.b0"].split()[0]')" "alive alive" \
    "a0's status lists a1 and b0 as alive"

# ---- b0 cut off, then back ---------------------------------------------------------------------

ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
start_job
# b0 is cut off while it runs a record of another node's.
wait_until 60 "b0 to hold records of another node" holds b0
ip -n "$hub" link set "$(port_of b0)" down
t0=$(date +%s%N)
# a0 and a1 take b0 for dead after 1.5 s of silence, b0 them.  The port
# stays down 1.2 s more: a node logs at most one warning a second, and
# "is back" must not follow "is dead" closer than that.
# b0 runs a record of a0 or a1: that one takes it for dead.
# watcher_found: a0 or a1 (in $watcher) takes b0 for dead
watcher_found() {
    watcher=
    for at in a0 a1; do [ "$(peer_state "$at" b0)" = dead ] && watcher=$at; done
    [ -n "$watcher" ]
}
wait_until 60 "a node of cluster A to take b0 for dead while its port is down" watcher_found &&
    pass "$watcher takes b0 for dead while its port is down"
watcher=${watcher:-a0}
wait_until 60 "b0 to take a node of cluster A for dead while its port is down" \
    grep -Eq "node a[01] is dead" "$tmpdir/b0.log"
# The time is what is tested: past the log's rate limit, so that "is back"
# is logged.
sleep 1.2
ip -n "$hub" link set "$(port_of b0)" up
cut_ms=$(ms_since "$t0")
echo "# b0's port was down for $cut_ms ms"
finish_job "b0 cut off"
is "$(json_get 'd["stats"]["grid.records_redone"] > 0')" True "records b0 held ran again elsewhere"
# Once the link is up, TCP's retransmission back-off may hold the first
# segment for seconds: bounded, not timed.
wait_until 120 "$watcher to hear b0 again" state_is "$watcher" b0 alive &&
    pass "$watcher's status shows b0 alive once its port is up again"
wlog=$(cat "$tmpdir/$watcher.log")
like "$wlog" "node b0 is back" "$watcher's log says b0 is back"
# b0 greets a node it took for dead once per time-out: it may take one to hear them.
wait_until 120 "b0 to hear a0 again" state_is b0 a0 alive &&
    wait_until 120 "b0 to hear a1 again" state_is b0 a1 alive && pass "b0 hears a0 and a1 again too"
grep -Eq "node a[01] is dead" "$tmpdir/b0.log"
is "$?" 0 "b0's log says it took a node of cluster A for dead"
# The silence it reports for b0 should be the one that made b0 dead.
silence=$(printf '%s\n' "$wlog" | sed -n 's/.*node b0 is back after \([0-9.]*\) s of silence.*/\1/p' | tail -1)
is "$(awk -v s="${silence:-0}" 'BEGIN { print (s >= 1.5) ? 0 : 1 }')" 0 \
    "$watcher's log gives b0's silence as at least its 1.5 s time-out (says '${silence:-nothing}' s, port down $cut_ms ms)"
run "$submit" --socket "ipc://$tmpdir/a0.sock" uts tree=seed-T1
like "$out" "50045" "the grid computes after the partition healed"

# ---- nothing left ------------------------------------------------------------------------------

for node in a0 a1 b0; do
    if kill -0 "${pid[$node]}" 2>/dev/null; then pass "$node still runs"; else
        fail "$node still runs"; tail -20 "$tmpdir/$node.log" | sed 's/^/#   /'; fi
done
teardown
left=$(ip netns list 2>/dev/null | grep -F "$tag" | tr '\n' ' ')
is "$left" "" "no namespace of this test is left"
left=$(ip -o link show 2>/dev/null | grep -F -e "$tag" -e "v$$" | tr '\n' ' ')
is "$left" "" "no link of this test is left in the root namespace"

echo "1..$n"
[ "$failures" = 0 ]
