#!/usr/bin/env bash
# moves.t - records that came from another node move on, on real daemons
# (CLS, one worker per node).  Cluster A = a0 (its coordinator) and a1;
# cluster B = b0.  a0's only worker is held by a 3 s leaf of its own, b0
# runs eight 1 s leaves.  a0 prefetches b0's queued leaves; they can only
# run elsewhere while a0's worker is busy, and a0 has no other work to give
# (a leaf spawns nothing), so whatever idle a1 gets came to a0 from b0:
# before records that arrived could move on, a1 got nothing.  The results
# travel back a1 -> a0 -> b0.  Asserts exact results and counters (a
# result for every record given), never a time; the leaves only need to
# outlast an idle node's back-off (100 ms at most).
set -u
. "$(dirname "$0")/grid_kit.sh" moves

topology() {   # topology BASE FILE
    cat >"$2" <<Y
grid: moves
policy: cls
security: none
clusters:
  - name: A
    nodes:
      - {id: a0, endpoint: "tcp://127.0.0.1:$1", workers: 1}
      - {id: a1, endpoint: "tcp://127.0.0.1:$(($1 + 1))", workers: 1}
  - name: B
    nodes:
      - {id: b0, endpoint: "tcp://127.0.0.1:$(($1 + 2))", workers: 1}
Y
}
grid_up topology
sock() { echo "ipc://$tmpdir/g/$1.sock"; }

run "$submit" --socket "$(sock a0)" --no-wait --parsable synthetic depth=0 fanout=1 dist=const mean_us=3000000
is "$rc" 0 "a0: one 3 s leaf of its own"
job_a=$out
run "$submit" --socket "$(sock b0)" --no-wait --parsable synthetic depth=1 fanout=8 dist=const mean_us=1000000
is "$rc" 0 "b0: eight 1 s leaves"
job_b=$out

run "$submit" --socket "$(sock b0)" --json --timeout 120 --wait "$job_b"
is "$(json_get 'd["status"], d["result"]["leaves"], d["result"]["total_us"]')" "ok 8 8000000" \
    "b0's job: 8 leaves, 8 s of waits exactly"
run "$submit" --socket "$(sock a0)" --json --timeout 120 --wait "$job_a"
is "$(json_get 'd["status"], d["result"]["leaves"], d["result"]["total_us"]')" "ok 1 3000000" \
    "a0's own job: exact"

for node in a0 a1 b0; do
    for key in jobs_given jobs_received results_sent; do
        eval "${node}_$key=\$(status_of \"\$(sock $node)\" $key)"
    done
done
# shellcheck disable=SC2154  # set by the eval above
{
    gt "$a0_jobs_received" 0 "coordinator a0 prefetched jobs from b0"
    gt "$a1_jobs_received" 0 "idle member a1 got jobs that a0 had received (a0 has nothing else to give)"
    # Records may move on again: a1 usually runs all it gets, but a node
    # starved of CPU can have one taken from it before its worker does (the
    # counts below must hold whatever moved where).
    echo "# a1 gave on $a1_jobs_given of the $a1_jobs_received record(s) it got"
    given=$((a0_jobs_given + a1_jobs_given + b0_jobs_given))
    is "$((a0_jobs_received + a1_jobs_received + b0_jobs_received))" "$given" \
        "every record given was received ($given)"
    is "$((a0_results_sent + a1_results_sent + b0_results_sent))" "$given" \
        "and its result sent back"
    for node in a0 a1 b0; do
        eval "got=\$${node}_jobs_received sent=\$${node}_results_sent"
        is "$sent" "$got" "$node: a result for each of the $got record(s) it got"
    done
}
echo "1..$n"
[ "$failures" = 0 ]
