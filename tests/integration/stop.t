#!/usr/bin/env bash
# stop.t - a node of a grid stopped (SIGTERM) while it runs records stolen
# from another node: it takes no more work, finishes what it holds, sends the
# results home and exits cleanly; the job on the other node ends exactly, with
# nothing lost.  Asserts outcomes, never times.
set -u
. "$(dirname "$0")/grid_kit.sh" stop

topology() {   # topology BASE FILE
    cat >"$2" <<Y
grid: stop-test
policy: rs
security: none
clusters:
  - name: A
    nodes:
      - {id: n0, endpoint: "tcp://127.0.0.1:$1", client: "ipc://$tmpdir/g/n0.sock", workers: 1}
      - {id: n1, endpoint: "tcp://127.0.0.1:$(($1 + 1))", client: "ipc://$tmpdir/g/n1.sock", workers: 1}
Y
}
grid_up topology 30000 info
n0=(--socket "ipc://$tmpdir/g/n0.sock")
n1=(--socket "ipc://$tmpdir/g/n1.sock")
n1pid=$(cat "$tmpdir/g/n1.pid")

# Four leaves of 3 s on n0 (one worker each): n1 steals some of them.
run "$submit" "${n0[@]}" --no-wait --parsable synthetic depth=1 fanout=4 dist=const mean_us=3000000
job=$out
is "$rc" 0 "a job of four 3 s leaves submitted to n0"
got=0
for _ in $(seq 100); do
    v=$("$submit" "${n1[@]}" --json --status 2>/dev/null |
        python3 -c 'import json,sys; print(json.load(sys.stdin).get("jobs_received", 0))' 2>/dev/null)
    [ "${v:-0}" -ge 1 ] 2>/dev/null && { got=1; break; }
    sleep 0.05
done
is "$got" 1 "n1 has stolen a leaf"
kill -TERM "$n1pid"
gone=0
for _ in $(seq 300); do
    kill -0 "$n1pid" 2>/dev/null || { gone=1; break; }
    sleep 0.1
done
is "$gone" 1 "n1 exits after SIGTERM"
like "$(cat "$tmpdir/g/n1.log")" "stopping (Terminated): 0 job(s) running, 1 record(s) of other nodes" "n1 waited for the record it held"
like "$(tail -1 "$tmpdir/g/n1.log")" "stopped" "and stopped cleanly"
run "$submit" "${n0[@]}" --json --timeout 120 --wait "$job"
is "$rc" 0 "the job on n0 finished"
is "$(json_get 'd["result"]["leaves"]')" 4 "all four leaves ran"
is "$(json_get 'd["result"]["total_us"]')" 12000000 "total_us = 4 x 3 s exactly: no leaf lost or run twice"
echo "1..$n"
[ "$failures" = 0 ]
