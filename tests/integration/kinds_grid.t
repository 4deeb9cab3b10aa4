#!/usr/bin/env bash
# kinds_grid.t - a grid whose nodes do not load the same kinds (PROTOCOL.md
# 14.2).  Two clusters of two nodes under CRS.
#
# 1. b1 lacks the C++ module (partitions): the grid forms, a partitions job
#    on a0 ends with its exact result, records of it are stolen across both
#    clusters but none reaches b1; each side logs once what the other lacks
#    or has, naming it, and `--status --grid` shows it.
# 2. A rolling upgrade of the built-in module: while a job of it runs on a0,
#    b1, b0 and a1 are stopped with SIGTERM (the lossless leave), given
#    another build of it (satin-kinds-next.so) and started again, one by
#    one; the job ends exact, nodes of the two builds exchange no record of
#    its kinds, and once a0 is upgraded too the grid agrees again.
# Asserts outcomes and counters, never times.
set -u
. "$(dirname "$0")/grid_kit.sh" kinds
for f in "$build/tests/modules/partitions.so" "$build/tests/modules/satin-kinds-next.so"; do
    [ -e "$f" ] || { echo "Bail out! $f is missing (make builds it)"; exit 1; }
done

# kinds_dir NAME FILE...: a directory 0755 holding those modules, 0644
kinds_dir() {
    local d=$tmpdir/$1 f
    shift
    install -d -m 0755 "$d"
    for f in "$@"; do install -m 0644 "$f" "$d/"; done
    echo "$d"
}
chmod 0755 "$tmpdir"
ours=$build/kinds/satin-kinds.so
cxx=$build/tests/modules/partitions.so
next=$build/tests/modules/satin-kinds-next.so
version=$("$build/satind" --version | awk '{print $2}')
full=$(kinds_dir full "$ours" "$cxx")
plain=$(kinds_dir plain "$ours")

topology() {   # topology BASE FILE DIR_A0 DIR_A1 DIR_B0 DIR_B1
    cat >"$2" <<Y
grid: kinds-test
policy: crs
security: none
failure_timeout: {lan_ms: 60000, wan_ms: 60000}
clusters:
  - name: A
    nodes:
      - {id: a0, endpoint: "tcp://127.0.0.1:$1", workers: 1, kinds_dir: "$3"}
      - {id: a1, endpoint: "tcp://127.0.0.1:$(($1 + 1))", workers: 1, kinds_dir: "$4"}
  - name: B
    nodes:
      - {id: b0, endpoint: "tcp://127.0.0.1:$(($1 + 2))", workers: 1, kinds_dir: "$5"}
      - {id: b1, endpoint: "tcp://127.0.0.1:$(($1 + 3))", workers: 1, kinds_dir: "$6"}
Y
}

# start_node ID [ARGS...]: a satind of the topology, adopted by the grid in
# $tmpdir/g so that the exit trap stops it by its pid
start_node() {
    local id=$1 quiet=()
    shift
    [ "${1-}" = --quiet ] && { quiet=(--quiet); shift; }
    rm -f "$tmpdir/g/$id.sock"
    "$build/satind" --config "$tmpdir/t.yaml" --node "$id" --socket "ipc://$tmpdir/g/$id.sock" \
        --foreground --log-level info "$@" </dev/null >>"$tmpdir/g/$id.log" 2>&1 &
    adopt "$id" $!
    wait_until "${quiet[@]}" --alive $! 60 "$id's socket" test -S "$tmpdir/g/$id.sock"
}
# start_all DIR_A0 DIR_A1 DIR_B0 DIR_B1: the four nodes on ports no other
# test holds (a node that finds its port taken exits at once: draw again)
start_all() {
    local try id up
    for try in 1 2 3 4 5; do
        base=$(port_base)
        topology "$base" "$tmpdir/t.yaml" "$@"
        up=1
        for id in a0 a1 b0 b1; do start_node "$id" --quiet || { up=0; break; }; done
        [ "$up" = 1 ] && return 0
        "$grid" down --run-dir "$tmpdir/g" >/dev/null 2>&1
    done
    echo "Bail out! the grid did not come up: $(cat "$tmpdir"/g/*.log)"
    exit 1
}
stop_node() {   # stop_node ID: SIGTERM, and its exit
    local pid
    pid=$(cat "$tmpdir/g/$1.pid")
    kill -TERM "$pid"
    wait_until 60 "$1 to exit after SIGTERM" ! kill -0 "$pid"
    wait "$pid" 2>/dev/null
}
sock() { echo "ipc://$tmpdir/g/$1.sock"; }
logged() { grep -qF -- "$2" "$tmpdir/g/$1.log"; }   # logged NODE TEXT

mkdir -p "$tmpdir/g"

# ---- 1. b1 lacks the C++ module -----------------------------------------------------
start_all "$full" "$full" "$full" "$plain"
run "$submit" --socket "$(sock a0)" --json --stats --timeout 300 partitions n=90 threshold=18
is "$rc $(json_get 'd["status"], d["result"]["partitions"]')" "0 ok 56634173" \
    "partitions n=90 = 56634173 (p(90)) on the grid without b1's module"
gt "$(status_of "$(sock b0)" steal_successes_wan)" 0 "b0 stole records across the wide-area link"
gt "$(status_of "$(sock a1)" jobs_received)" 0 "a1 ran records of the job"
is "$(status_of "$(sock b1)" jobs_received)" 0 "b1, which lacks the kind, was given none of its records"
is "$(status_of "$(sock b1)" records_given_back)" 0 "so it had none to give back either"
for id in a0 a1 b0; do
    wait_until 60 "$id to log what b1 lacks" logged "$id" \
        "node b1's kind modules differ from this node's: it lacks module cxx-kinds 1.0: records of its kinds (partitions) stay off it" &&
        pass "$id logs that b1 lacks cxx-kinds 1.0, naming it"
done
wait_until 60 "b1 to log what a0 has" logged b1 \
    "node a0's kind modules differ from this node's: it has module cxx-kinds 1.0, which this node lacks" &&
    pass "b1 logs that a0 has a module it lacks, naming a0"
is "$(grep -c "node b1's kind modules differ" "$tmpdir/g/a0.log")" 1 "a0 says it once"
run "$submit" --socket "$(sock a0)" --status --grid
like "$out" "kinds differ" "--status --grid says the kinds differ"
like "$out" "a0 sees: b1: lacks cxx-kinds 1.0" "and which node lacks which module, as a0 sees it"
like "$out" "b1 sees: a0: has cxx-kinds 1.0 (not here)" "and as b1 sees it"
# The grid still runs the kinds every node has, b1 included.
run "$submit" --socket "$(sock b1)" --json --timeout 120 fib n=27
is "$rc $(json_get 'd["result"]["value"]')" "0 196418" "fib 27 from b1: 196418"
for id in a0 a1 b0 b1; do stop_node "$id"; done

# ---- 2. a rolling upgrade of satin-kinds -------------------------------------------
upgraded=$(kinds_dir upgraded "$next")
for id in a0 a1 b0 b1; do : >"$tmpdir/g/$id.log"; done
start_all "$plain" "$plain" "$plain" "$plain"
run "$submit" --socket "$(sock a0)" --no-wait --parsable synthetic depth=6 fanout=2 dist=const \
    mean_us=400000
job=$out
holds() { [ "$(status_of "$(sock "$1")" records_held)" -ge 1 ] 2>/dev/null; }
for id in b1 b0 a1; do
    stop_node "$id"
    is "$?" 0 "upgrade: $id left cleanly"
    # Its topology entry now names the new build's directory.
    sed -i "s|{id: $id, \(.*\)kinds_dir: \"$plain\"}|{id: $id, \1kinds_dir: \"$upgraded\"}|" "$tmpdir/t.yaml"
    start_node "$id" || break
    like "$(cat "$tmpdir/g/$id.log")" "loaded kind module satin-kinds $version-next" \
        "upgrade: $id runs the next build"
done
run "$submit" --socket "$(sock a0)" --json --stats --timeout 300 --wait "$job"
is "$rc $(json_get 'd["status"], d["result"]["leaves"], d["result"]["total_us"]')" \
    "0 ok 64 25600000" "upgrade: the job ran on through the upgrade, exact (64 leaves of 0.4 s)"
for id in a1 b0 b1; do
    is "$(status_of "$(sock "$id")" records_given_back)" 0 \
        "upgrade: $id, of the next build, was given no record of a0's (none to give back)"
done
wait_until 60 "a0 to log the other build" logged a0 "it has another build of module satin-kinds" &&
    pass "a0 logs that the upgraded nodes have another build of satin-kinds"
wait_until 60 "a1 to log a0's build" logged a1 "node a0's kind modules differ from this node's: it has another build of module satin-kinds" &&
    pass "a1 logs that a0 has the other build"
run "$submit" --socket "$(sock a1)" --status --grid
like "$out" "a0 sees: " "--status --grid shows the two builds"
stop_node a0
sed -i "s|{id: a0, \(.*\)kinds_dir: \"$plain\"}|{id: a0, \1kinds_dir: \"$upgraded\"}|" "$tmpdir/t.yaml"
start_node a0 || exit 1
run "$submit" --socket "$(sock a0)" --json --timeout 120 fib n=25
is "$rc $(json_get 'd["result"]["value"]')" "0 75025" "upgrade: fib 25 on the upgraded grid"
agree() {   # every node has the next build, and nobody sees a difference
    "$submit" --socket "$(sock a0)" --json --status --grid >"$tmpdir/grid.json" 2>&1 &&
        python3 - "$tmpdir/grid.json" "satin-kinds $version-next" <<'PY'
import json, sys
nodes = json.load(open(sys.argv[1]))
ok = len(nodes) == 4 and all(n.get("modules", "").startswith(sys.argv[2] + " ") and
                             n.get("kinds_differ") == "" for n in nodes.values())
sys.exit(0 if ok else 1)
PY
}
wait_until 60 "the grid to agree on its kinds" agree && pass "upgrade: every node has the next build"
for id in a0 a1 b0 b1; do stop_node "$id"; done
echo "1..$n"
[ "$failures" = 0 ]
