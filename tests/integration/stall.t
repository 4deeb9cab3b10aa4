#!/usr/bin/env bash
# stall.t - a node's own stall is not its peers' death.  Two nodes, tied by
# a job (each runs a leaf of it), are both stopped (SIGSTOP) for longer
# than their failure time-out and then continued.  Each comes back to a
# peer that has been silent past the time-out, but the silence was its own:
# each notices that its loop was away (`stalls` in its STATUS), greets the
# other and waits a greeting round, the other answers, and nobody is taken
# for dead; the job ends exact.  (Before, each declared the other dead at
# once and saw it back a moment later.)
set -u
. "$(dirname "$0")/grid_kit.sh" stall

topology() {   # topology BASE FILE
    cat >"$2" <<Y
grid: stall-test
policy: rs
security: none
failure_timeout: {lan_ms: 4000, wan_ms: 4000}
clusters:
  - name: A
    nodes:
      - {id: n0, endpoint: "tcp://127.0.0.1:$1", client: "ipc://$tmpdir/g/n0.sock", workers: 1}
      - {id: n1, endpoint: "tcp://127.0.0.1:$(($1 + 1))", client: "ipc://$tmpdir/g/n1.sock", workers: 1}
Y
}
grid_up topology info
n0pid=$(cat "$tmpdir/g/n0.pid") n1pid=$(cat "$tmpdir/g/n1.pid")
ep0="ipc://$tmpdir/g/n0.sock" ep1="ipc://$tmpdir/g/n1.sock"

run "$submit" --socket "$ep0" --no-wait --parsable synthetic depth=1 fanout=2 dist=const \
    mean_us=6000000
job=$out
holds() { [ "$(status_of "$ep1" records_held)" -ge 1 ] 2>/dev/null; }
wait_until 60 "n1 to run a leaf of n0's job" holds && pass "n1 runs a leaf of n0's job"

kill -STOP "$n0pid" "$n1pid"
# The stall itself is what is tested: both nodes away for longer than the
# failure time-out (4 s); no state of theirs can be waited for meanwhile.
sleep 5
kill -CONT "$n0pid" "$n1pid"
stalled() { [ "$(status_of "$1" stalls)" -ge 1 ] 2>/dev/null; }
wait_until 60 "n0 to notice its stall" stalled "$ep0" && pass "n0 noticed that it did not run"
wait_until 60 "n1 to notice its stall" stalled "$ep1" && pass "n1 noticed that it did not run"
run "$submit" --socket "$ep0" --json --timeout 120 --wait "$job"
is "$rc $(json_get 'd["status"], d["result"]["leaves"], d["result"]["total_us"]')" \
    "0 ok 2 12000000" "the job ends exact: 2 leaves of 6 s"
is "$(status_of "$ep0" peers_dead)" 0 "n0 took nobody for dead"
is "$(status_of "$ep1" peers_dead)" 0 "n1 took nobody for dead"
like "$(cat "$tmpdir/g/n0.log")" "this node did not run for" "n0 logged its stall"
echo "1..$n"
[ "$failures" = 0 ]
