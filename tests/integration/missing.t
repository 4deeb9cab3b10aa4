#!/usr/bin/env bash
# missing.t - a node of the grid is gone (killed with SIGKILL): results do
# not wait for its statistics.  The statistics of a job come from the nodes
# that answer, and the result names the node that did not and why.  On the
# way, the steals' round trips are shown as percentiles, not buckets.
# Asserts outcomes, never times.
set -u
. "$(dirname "$0")/grid_kit.sh" missing

topology() {   # topology BASE FILE
    cat >"$2" <<Y
grid: missing-test
policy: rs
security: none
clusters:
  - name: A
    nodes:
      - {id: n0, endpoint: "tcp://127.0.0.1:$1", client: "ipc://$tmpdir/g/n0.sock", workers: 1}
      - {id: n1, endpoint: "tcp://127.0.0.1:$(($1 + 1))", client: "ipc://$tmpdir/g/n1.sock", workers: 1}
      - {id: n2, endpoint: "tcp://127.0.0.1:$(($1 + 2))", client: "ipc://$tmpdir/g/n2.sock", workers: 1}
Y
}
grid_up topology info
n0=(--socket "ipc://$tmpdir/g/n0.sock")

run "$submit" "${n0[@]}" --json --stats --timeout 60 fib n=20
is "$rc" 0 "fib 20 on the whole grid"
is "$(json_get 'd["stats"]["grid.nodes_reporting"]')" 3 "every node reports while all are up"
is "$(json_get 'd["stats"].get("grid.nodes_missing", "none")')" none "none is missing"
# The round trips of the steals timed (lan_sync_answered of them): their
# percentiles, each the middle of a bucket an eighth of an octave wide,
# stand in for the buckets, which neither the result nor a status shows.
cat >"$tmpdir/waits.py" <<'PY'
import json, math, sys
def check(s, p):
    if any("_hist." in k for k in s):
        return "buckets shown"
    n = s[p + "lan_sync_answered"]
    q = [s.get(p + "lan_wait_p%d_ms" % x) for x in (50, 90, 99)]
    if n == 0:
        return "ok" if q == [None] * 3 else "percentiles without samples"
    if None in q or not q[0] <= q[1] <= q[2]:
        return "percentiles %s for %d samples" % (q, n)
    k = [8 * math.log2(v * 1000) - 0.5 for v in q]
    return "ok" if all(abs(x - round(x)) < 1e-6 for x in k) else "not bucket middles: %s" % q
d = json.load(sys.stdin)
print(check(d["stats"] if "stats" in d else d, sys.argv[1]))
PY
is "$(printf '%s' "$out" | python3 "$tmpdir/waits.py" grid. 2>&1)" ok \
    "the job's steal round trips: percentiles consistent with the steals timed, no buckets"
run "$submit" "${n0[@]}" --json --status
is "$(printf '%s' "$out" | python3 "$tmpdir/waits.py" "" 2>&1)" ok \
    "the node's status: the same, over its life"

kill -KILL "$(cat "$tmpdir/g/n2.pid")"
# n2 counts as not answering once a request to it has gone unanswered for a
# second.  A first job makes sure one has, whatever the machine's speed:
# its statistics request to n2 goes unanswered, and its result comes once
# n2 is not waited for, or once the statistics deadline (a second) is past.
run "$submit" "${n0[@]}" --json --stats --timeout 60 fib n=12
is "$rc $(json_get 'd["result"]["value"], d["stats"]["grid.nodes_missing"]')" "0 144 n2" \
    "fib 12 just after n2 was killed: exact, n2 missing from its statistics"
run "$submit" "${n0[@]}" --json --stats --timeout 60 fib n=10
is "$rc" 0 "fib 10 with n2 gone"
is "$(json_get 'd["result"]["value"]')" 55 "its result is exact"
is "$(json_get 'd["stats"]["grid.nodes_reporting"]')" 2 "the two live nodes report"
is "$(json_get 'd["stats"]["grid.nodes_missing"]')" n2 "the result names the missing node"
is "$(json_get 'd["stats"]["grid.missing_why"]')" "it does not answer: not waited for" \
    "and says why it was not waited for"
echo "1..$n"
[ "$failures" = 0 ]
