#!/usr/bin/env bash
# missing.t - a node of the grid is gone (killed with SIGKILL): results do
# not wait for its statistics.  The statistics of a job come from the nodes
# that answer, and the result names the node that did not and why.
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
grid_up topology 31000 info
n0=(--socket "ipc://$tmpdir/g/n0.sock")

run "$submit" "${n0[@]}" --json --stats --timeout 60 fib n=20
is "$rc" 0 "fib 20 on the whole grid"
is "$(json_get 'd["stats"]["grid.nodes_reporting"]')" 3 "every node reports while all are up"
is "$(json_get 'd["stats"].get("grid.nodes_missing", "none")')" none "none is missing"

kill -KILL "$(cat "$tmpdir/g/n2.pid")"
# n0's idle steals to n2 go unanswered from now on; after a second n2
# counts as not answering.
sleep 2
run "$submit" "${n0[@]}" --json --stats --timeout 60 fib n=10
is "$rc" 0 "fib 10 with n2 gone"
is "$(json_get 'd["result"]["value"]')" 55 "its result is exact"
is "$(json_get 'd["stats"]["grid.nodes_reporting"]')" 2 "the two live nodes report"
is "$(json_get 'd["stats"]["grid.nodes_missing"]')" n2 "the result names the missing node"
is "$(json_get 'd["stats"]["grid.missing_why"]')" "it does not answer: not waited for" \
    "and says why it was not waited for"
echo "1..$n"
[ "$failures" = 0 ]
