#!/usr/bin/env bash
# hostile.t - a record whose argument no parser made, pushed by a process that greets as a
# listed node: satind checks it with its kind's check before it runs it (include/satin/satin.h).
# Node n0 of a two-node grid (security: none) runs; n1 is listed but never started, and
# peer-probe speaks as n1.  The record is the one that crashed satind before kinds checked
# their arguments: fib n=100000000 threshold=2^62, whose sequential recursion ran off the end
# of the worker's stack.  Checks: n0 survives it, refuses it (records_refused goes up by
# exactly one, and the log names the kind, the sender and the reason), runs a well-formed fib
# record pushed the same way, and still gives exact results to clients.  Asserts outcomes and
# counters, never times.
set -u
build=${SATIN_BUILD:-$PWD/build}
here=$(cd "$(dirname "$0")" && pwd)
satind=$build/satind
submit=$build/satin-submit
probe=$build/tests/integration/peer-probe
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-hostile.XXXXXX")
pid=""
cleanup() {
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
    rm -rf "$tmpdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
. "$here/tap.sh"

for f in "$satind" "$submit" "$probe"; do
    [ -x "$f" ] || { echo "Bail out! $f is missing (build it, or set SATIN_BUILD)"; exit 1; }
done

base=$(port_base)
cat >"$tmpdir/t.yaml" <<EOF
grid: hostile-test
policy: rs
security: none
clusters:
  - name: A
    nodes:
      - {id: n0, endpoint: "tcp://127.0.0.1:$base", client: "ipc://$tmpdir/n0.sock", workers: 2}
      - {id: n1, endpoint: "tcp://127.0.0.1:$((base + 1))", workers: 1}
EOF

"$satind" --config "$tmpdir/t.yaml" --node n0 --foreground 2>"$tmpdir/n0.log" &
pid=$!
wait_socket "$tmpdir/n0.sock" "$pid" "n0's client socket" ||
    { echo "Bail out! n0 did not come up"; sed 's/^/# /' "$tmpdir/n0.log"; exit 1; }

S=(--socket "ipc://$tmpdir/n0.sock")
counter() {   # counter KEY: one of n0's counters, -1 when it cannot be read
    "$submit" "${S[@]}" --json --status 2>/dev/null |
        python3 -c "import json,sys; print(json.load(sys.stdin).get('$1', -1))" 2>/dev/null || echo -1
}
at_least() { [ "$(counter "$1")" -ge "$2" ] 2>/dev/null; }   # at_least KEY N: n0's counter

is "$(counter records_refused)" 0 "n0 has refused no record yet"
received=$(counter jobs_received)

# ---- the hostile record ------------------------------------------------------------------------

run "$probe" "tcp://127.0.0.1:$base" "$tmpdir/t.yaml" 1 fib 100000000 4611686018427387904
is "$rc:$out" "0:handshake succeeded" "peer-probe as n1 pushed fib n=100000000 threshold=2^62"
wait_until --alive "$pid" 60 "n0 to refuse the record (records_refused 1)" at_least records_refused 1 &&
    pass "n0 survives the record and refuses it"
is "$(counter records_refused)" 1 "exactly one record refused for the one pushed"
is "$(counter jobs_received)" "$received" "and none started"
like "$(cat "$tmpdir/n0.log")" \
    "refused a fib record of node n1 (16 argument bytes): fib: n=100000000 is out of range 0..92" \
    "the log names the kind, the sender and the reason"

# ---- a well-formed record pushed the same way runs ----------------------------------------------

run "$probe" "tcp://127.0.0.1:$base" "$tmpdir/t.yaml" 1 fib 20 10
is "$rc:$out" "0:handshake succeeded" "peer-probe as n1 pushed fib n=20 threshold=10"
wait_until --alive "$pid" 60 "n0 to start that one (jobs_received + 1)" \
    at_least jobs_received $((received + 1)) && pass "n0 ran that one"
is "$(counter records_refused)" 1 "records_refused is still 1"

# ---- and clients still get exact results -------------------------------------------------------

run "$submit" "${S[@]}" fib n=30 threshold=10
like "$out" "value: 832040" "fib 30 on n0 afterwards: exact"
run "$submit" "${S[@]}" --json uts tree=seed-T1
is "$(json_get 'd["result"]["nodes"]')" 50045 "UTS seed-T1 on n0 afterwards: exact (50045 nodes)"

kill -TERM "$pid"
wait "$pid"
is "$?" 0 "n0 stops with exit 0"
pid=""

echo "1..$n"
[ "$failures" = 0 ]
