#!/usr/bin/env bash
# stop.t - a node of a grid stopped (SIGTERM) while it runs records stolen
# from another node: it takes no more work, finishes what it holds, sends the
# results home and exits cleanly; the job on the other node ends exactly, with
# nothing lost.  Then the node starts again (a new run, as systemd would
# restart it): the other node sees the restart, greets it again and numbers
# its messages for the new run afresh, and jobs that need both nodes,
# submitted to either, are exact.  Asserts outcomes, never times.
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
grid_up topology info
n0=(--socket "ipc://$tmpdir/g/n0.sock")
n1=(--socket "ipc://$tmpdir/g/n1.sock")
n1pid=$(cat "$tmpdir/g/n1.pid")

# Four leaves of 3 s on n0 (one worker each): n1 steals some of them.
run "$submit" "${n0[@]}" --no-wait --parsable synthetic depth=1 fanout=4 dist=const mean_us=3000000
job=$out
is "$rc" 0 "a job of four 3 s leaves submitted to n0"
stolen() { [ "$(status_of "ipc://$tmpdir/g/n1.sock" jobs_received)" -ge 1 ] 2>/dev/null; }
wait_until 60 "n1 to steal a leaf" stolen && pass "n1 has stolen a leaf"
kill -TERM "$n1pid"
wait_until 60 "n1 to exit after SIGTERM" ! kill -0 "$n1pid" && pass "n1 exits after SIGTERM"
like "$(cat "$tmpdir/g/n1.log")" "stopping (Terminated): 0 job(s) running, 1 record(s) of other nodes" "n1 waited for the record it held"
like "$(tail -1 "$tmpdir/g/n1.log")" "stopped" "and stopped cleanly"
run "$submit" "${n0[@]}" --json --timeout 120 --wait "$job"
is "$rc" 0 "the job on n0 finished"
is "$(json_get 'd["result"]["leaves"]')" 4 "all four leaves ran"
is "$(json_get 'd["result"]["total_us"]')" 12000000 "total_us = 4 x 3 s exactly: no leaf lost or run twice"

"$build/satind" --config "$tmpdir/t.yaml" --node n1 --socket "ipc://$tmpdir/g/n1.sock" --foreground \
    --log-level info </dev/null >"$tmpdir/g/n1.log" 2>&1 &
n1pid=$!
adopt n1 "$n1pid"
wait_socket "$tmpdir/g/n1.sock" "$n1pid" "the new n1's socket"
run "$submit" "${n1[@]}" --status
is "$rc" 0 "n1 started again"
run "$submit" "${n0[@]}" --json --timeout 120 synthetic depth=1 fanout=4 dist=const mean_us=2000000
is "$rc" 0 "a job of four 2 s leaves on n0 finished"
is "$(json_get 'd["result"]["total_us"]')" 8000000 "total_us = 4 x 2 s exactly"
gt "$(status_of "ipc://$tmpdir/g/n1.sock" jobs_received)" 0 "the restarted n1 ran leaves of n0"
is "$(status_of "ipc://$tmpdir/g/n0.sock" peer_restarts)" 1 "n0 saw n1 restart once"
like "$(cat "$tmpdir/g/n0.log")" "node n1 restarted" "and logged it"
run "$submit" "${n1[@]}" --json --timeout 120 synthetic depth=1 fanout=4 dist=const mean_us=2000000
is "$rc" 0 "a job of four 2 s leaves on the restarted n1 finished"
is "$(json_get 'd["result"]["total_us"]')" 8000000 "total_us = 4 x 2 s exactly"
gt "$(status_of "ipc://$tmpdir/g/n0.sock" jobs_received)" 0 "n0 ran leaves of the restarted n1"
# What n0 sent n1 before it learned of the restart came on a connection the
# new n1 had not been greeted on: dropped, and nothing else.
# (The log is rate-limited: it names the kinds of drop, not each one.)
refused=$(status_of "ipc://$tmpdir/g/n1.sock" peer_messages_refused)
is "$(grep 'dropped' "$tmpdir/g/n1.log" | grep -vc 'did not greet us')" 0 \
    "n1 dropped only messages sent before n0 greeted it again ($refused in all)"
is "$(status_of "ipc://$tmpdir/g/n1.sock" bad_peer_messages)" 0 \
    "and counted none as bad: a restart is no alert (they are peer_messages_refused)"
is "$(status_of "ipc://$tmpdir/g/n0.sock" bad_peer_messages)" 0 "n0 dropped nothing as bad"
echo "1..$n"
[ "$failures" = 0 ]
