#!/usr/bin/env bash
# topology.t - two daemons whose topology files differ by one node: file A
# lists n0 and n1, file B lists n0, x and n1 (so n1 has index 2 in B, an
# index A does not have).  Each node must say, in its log, that the other's
# topology differs and how (node counts, membership digests), instead of
# silently dropping its messages; both still run jobs on their own.
# Asserts log lines and results, never times.
set -u
build=${SATIN_BUILD:-$PWD/build}
satind=$build/satind
submit=$build/satin-submit
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-topology.XXXXXX")
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    rm -rf "$tmpdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
. "$(dirname "$0")/tap.sh"
rc=0
: >"$tmpdir/out"; : >"$tmpdir/err"

base=$(port_base)
node() {   # node ID PORT
    echo "      - {id: $1, endpoint: \"tcp://127.0.0.1:$2\", workers: 1}"
}
{
    printf 'grid: topo-test\npolicy: rs\nsecurity: none\nclusters:\n  - name: A\n    nodes:\n'
    node n0 "$base"; node n1 $((base + 1))
} >"$tmpdir/a.yaml"
{
    printf 'grid: topo-test\npolicy: rs\nsecurity: none\nclusters:\n  - name: A\n    nodes:\n'
    node n0 "$base"; node x $((base + 2)); node n1 $((base + 1))
} >"$tmpdir/b.yaml"

"$satind" --config "$tmpdir/a.yaml" --node n0 --socket "ipc://$tmpdir/n0.sock" --foreground \
    --log-level info </dev/null 2>"$tmpdir/n0.log" &
pids+=($!)
"$satind" --config "$tmpdir/b.yaml" --node n1 --socket "ipc://$tmpdir/n1.sock" --foreground \
    --log-level info </dev/null 2>"$tmpdir/n1.log" &
pids+=($!)

# Idle nodes try to steal from each other, so each greets the other.
both_differ() { log_has "$tmpdir/n0.log" "topology differs" && log_has "$tmpdir/n1.log" "topology differs"; }
wait_until 60 "both nodes to log a topology mismatch" both_differ &&
    pass "both nodes log a topology mismatch"
digest_of() { sed -n 's/.*membership digest \([0-9a-f]*\)).*/\1/p' "$1" | head -1; }
da=$(digest_of "$tmpdir/n0.log")
db=$(digest_of "$tmpdir/n1.log")
is "${#da}" 12 "n0 logs its membership digest at start"
[ -n "$da" ] && [ "$da" != "$db" ] && pass "the two files have different digests ($da, $db)" ||
    fail "the two files have different digests ($da, $db)"
like "$(cat "$tmpdir/n0.log")" \
    "node n1's topology differs from ours: it lists 3 nodes, we list 2 (membership digest $db, ours $da)" \
    "n0 names n1 (an index its file does not have), both node counts and both digests"
like "$(cat "$tmpdir/n1.log")" \
    "node n0's topology differs from ours: it lists 2 nodes, we list 3 (membership digest $da, ours $db)" \
    "n1 names n0, both node counts and both digests"
is "$(grep -c "come from node ?" "$tmpdir/n0.log")" 0 "no drop line without a name"

run "$submit" --socket "ipc://$tmpdir/n0.sock" fib n=20
like "$out" "value: 6765" "n0 still runs jobs on its own"
run "$submit" --socket "ipc://$tmpdir/n1.sock" fib n=20
like "$out" "value: 6765" "n1 still runs jobs on its own"
echo "1..$n"
[ "$failures" = 0 ]
