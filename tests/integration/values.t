#!/usr/bin/env bash
# values.t - a job's grid-wide values on a 2x2 grid (PROTOCOL.md 14.12d):
# tsp with bound=shared, where every job prunes by the shortest tour any
# node of the job has found, gives the optimum that bound=local and one
# sequential job on one node give, under every policy; whenever records of
# it moved, VALUES went with them, and none was refused; with bound=local
# no VALUES travel.  nqueens first=1 (a grid-wide "found" flag stops every
# job once one has a placement) answers with one placement the kind
# verified, under every policy.
# Asserts results and counters, never times.
set -u
. "$(dirname "$0")/grid_kit.sh" values

policy=crs
topology() {   # topology BASE FILE
    cat >"$2" <<Y
grid: values-test
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

# tsp_job BOUND [PARAM...]: "length explored sent refused given" of tsp n=15 seed=1 from a0
tsp_job() {
    local bound=$1
    shift
    run "$submit" --socket "ipc://$tmpdir/g/a0.sock" --json --timeout 300 tsp n=15 seed=1 \
        bound="$bound" "$@"
    json_get '"%d %d %d %d %d" % (d["result"]["length"], d["result"]["explored"],
        d["stats"]["grid.values_sent"], d["stats"]["grid.values_refused"],
        d["stats"]["grid.jobs_given"])'
}

grid_up topology
read -r want _ _ _ _ <<<"$(tsp_job local threshold=0)"
gt "$want" 0 "one sequential job on a0 (threshold=0): the shortest tour of n=15 seed=1 is $want"
grid_down() { "$grid" down --run-dir "$tmpdir/g" >/dev/null 2>&1; }
moved=0
for policy in rs rp chs cls crs lifeline cluster-lifeline; do
    [ "$policy" = crs ] || { grid_down; grid_up topology; }
    read -r len explored sent refused given <<<"$(tsp_job local)"
    is "$len $sent" "$want 0" "$policy, bound=local: the optimum, and no VALUES message ($explored nodes)"
    read -r len explored sent refused given <<<"$(tsp_job shared)"
    is "$len" "$want" "$policy, bound=shared: the optimum ($explored nodes, $given records moved)"
    # A record leaves with the values that hold something, and the root
    # holds a tour before it spawns: records that moved took VALUES along.
    is "$([ "$given" = 0 ] || [ "$sent" -gt 0 ] && echo yes)" yes \
        "$policy, bound=shared: records moved ($given), so VALUES were sent ($sent)"
    is "$refused" 0 "$policy, bound=shared: none refused"
    [ "$given" -gt 0 ] && moved=$((moved + 1))
    run "$submit" --socket "ipc://$tmpdir/g/a0.sock" --json --timeout 300 nqueens n=16 first=1
    is "$(json_get '"%d %d %d" % (d["result"]["solutions"], d["result"]["verified"],
        len(d["result"]["placement"].split(",")))')" "1 1 16" \
        "$policy, nqueens n=16 first=1: one placement of 16 queens, verified ($(json_get 'd["result"]["placement"]'))"
done
gt "$moved" 0 "records moved under some policy"

echo "1..$n"
[ "$failures" = 0 ]
