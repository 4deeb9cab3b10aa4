#!/usr/bin/env bash
# cancel.t - cancelling a deep job frees every node of the grid, under
# every policy: the cancel follows the job's records to the nodes that
# stole them, and on to the nodes those gave records to.  A 2x2 grid (one
# worker per node) runs fib n=60 (hours of work); once records have moved,
# the job is cancelled on its home node; then every node must hold no
# record of it, and its workers must stop running its invocations.
# Waits are bounded (wait_until); no time is asserted.
#
# A second hop needs a node that took records to be robbed in turn.  With
# one worker per node that is chance: when the three thieves all robbed a0
# first, every node is busy for hours and nothing moves on.  The setup is
# then tried again (a new job, the last one cancelled), up to five times.
set -u
. "$(dirname "$0")/grid_kit.sh" cancel

policy=
topology() {   # topology BASE FILE
    cat >"$2" <<Y
grid: cancel-test
policy: $policy
security: none
clusters:
  - name: A
    nodes:
      - {id: a0, endpoint: "tcp://127.0.0.1:$1", client: "ipc://$tmpdir/g/a0.sock", workers: 1}
      - {id: a1, endpoint: "tcp://127.0.0.1:$(($1 + 1))", client: "ipc://$tmpdir/g/a1.sock", workers: 1}
  - name: B
    nodes:
      - {id: b0, endpoint: "tcp://127.0.0.1:$(($1 + 2))", client: "ipc://$tmpdir/g/b0.sock", workers: 1}
      - {id: b1, endpoint: "tcp://127.0.0.1:$(($1 + 3))", client: "ipc://$tmpdir/g/b1.sock", workers: 1}
Y
}

sum_of() {   # sum_of KEY NODE...: one STATUS value summed over nodes
    local key=$1 node
    shift
    for node in "$@"; do
        "$submit" --socket "ipc://$tmpdir/g/$node.sock" --json --status 2>/dev/null
        echo
    done | python3 -c "
import json, sys
print(sum(json.loads(l).get('$key', 0) for l in sys.stdin if l.strip()))" 2>/dev/null
}
held_total() { sum_of records_held a0 a1 b0 b1; }
held_none() { [ "$(held_total)" = 0 ]; }

# moved_on: 0 once a node that took records gave some on, 1 when every
# thief holds a record it took from a0 (nothing moves on for hours), 2
# while neither is known yet.
moved_on() {
    [ "$(sum_of jobs_given a1 b0 b1)" -ge 1 ] && [ "$(held_total)" -ge 2 ] && return 0
    [ "$(sum_of jobs_given a0)" -ge 3 ] && [ "$(sum_of records_held a1)" -ge 1 ] &&
        [ "$(sum_of records_held b0)" -ge 1 ] && [ "$(sum_of records_held b1)" -ge 1 ] &&
        [ "$(sum_of jobs_given a1 b0 b1)" = 0 ] && return 1
    return 2
}
# known: moved_on's answer is 0 or 1 (left in $moved_state)
known() { moved_on; moved_state=$?; [ "$moved_state" != 2 ]; }

for policy in rs rp chs cls crs lifeline cluster-lifeline; do
    grid_up topology
    a0=(--socket "ipc://$tmpdir/g/a0.sock")
    # Until a node that only ever received records of the job has given
    # some of them on: the cancel must then travel two hops.
    moved=0
    for _ in 1 2 3 4 5; do
        run "$submit" "${a0[@]}" --no-wait --parsable fib n=60
        job=$out
        # Neither known yet after a while: this try is cancelled like one
        # where nothing moves on, and the setup is tried again.
        wait_until --quiet 30 "records to move on, or every thief to hold one of a0's" known &&
            [ "$moved_state" = 0 ] && { moved=1; break; }
        "$submit" "${a0[@]}" --cancel "$job" >/dev/null 2>&1
        "$submit" "${a0[@]}" --timeout 180 --wait "$job" >/dev/null 2>&1
        wait_until 60 "$policy: no node to hold a record of the try cancelled" held_none
    done
    is "$moved" 1 "$policy: records of the job moved on from the nodes that took them"
    run "$submit" "${a0[@]}" --cancel "$job"
    is "$rc" 0 "$policy: the job is cancelled on its home node"
    run "$submit" "${a0[@]}" --json --timeout 180 --wait "$job"
    like "$out" "cancelled" "$policy: its result says it was cancelled"
    wait_until 60 "$policy: no node to hold a record of it" held_none &&
        pass "$policy: no node holds a record of it any more"
    # Nothing of it runs: no node's invocation count moves any more.
    before=""; after=""
    for node in a0 a1 b0 b1; do
        before="$before $(status_of "ipc://$tmpdir/g/$node.sock" invocations_run)"
    done
    # The time is what is tested: half a second in which nothing may run.
    sleep 0.5
    for node in a0 a1 b0 b1; do
        after="$after $(status_of "ipc://$tmpdir/g/$node.sock" invocations_run)"
    done
    is "$after" "$before" "$policy: every worker of the grid stopped running it"
    "$grid" down --run-dir "$tmpdir/g" >/dev/null 2>&1
done
echo "1..$n"
[ "$failures" = 0 ]
