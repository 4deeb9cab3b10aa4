#!/usr/bin/env bash
# sim.t - satin-sim, the program: a simulated 2x2 grid runs UTS and fib to
# their exact results under every policy, replays a traced nqueens and runs
# a synthetic tree to the total that bench/syn_exact computes; the same seed gives the same run
# (every figure but the wall time and the memory); a topology file's grid
# and links are used; bad usage and a job the kind refuses get their
# messages and exit 2.  No daemon: the simulator runs the engine in virtual
# time.
set -u
build=${SATIN_BUILD:-$PWD/build}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-sim.XXXXXX")
trap 'rm -rf "$tmpdir"' EXIT
. "$here/tap.sh"
sim=$build/satin-sim
[ -x "$sim" ] || { echo "Bail out! $sim is missing (build it, or set SATIN_BUILD)"; exit 1; }

for p in rs rp chs cls crs lifeline cluster-lifeline; do
    run "$sim" --clusters 2 --nodes 2 --policy "$p" --json uts tree=seed-T1
    is "$rc" 0 "$p: satin-sim exits 0"
    is "$(json_get 'd["status"], d["result"]["nodes"], d["sim"]["nodes"], d["sim"]["policy"]')" \
        "ok 50045 4 $p" "$p: UTS seed-T1 on a simulated 2x2 grid counts its 50045 nodes"
    gt "$(json_get 'd["stats"]["grid.jobs_received"]')" 0 "$p: records crossed nodes"
done

run "$sim" --clusters 2 --nodes 2 --workers 2 fib n=25 threshold=5
is "$rc" 0 "fib with two workers per node exits 0"
like "$out" "value: 75025" "fib(25) is exact"
like "$out" "on 2 cluster(s), 4 node(s), 2 worker(s) each; policy crs, seed 1" "and says what ran"

# The same seed: the same run.  The wall time and the memory are this machine's.
figures='{k: v for k, v in d["sim"].items() if k not in ("wall_s", "peak_rss_mb")}, d["stats"]'
run "$sim" --clusters 2 --nodes 4 --seed 9 --json uts tree=seed-T1
first=$(json_get "$figures")
run "$sim" --clusters 2 --nodes 4 --seed 9 --json uts tree=seed-T1
is "$(json_get "$figures")" "$first" "the same seed gives the same run, figure for figure"
run "$sim" --clusters 2 --nodes 4 --seed 10 --json uts tree=seed-T1
is "$(json_get 'd["result"]["nodes"]')" 50045 "another seed: the same result"
[ "$(json_get "$figures")" != "$first" ] && pass "and another run" || fail "and another run"

# A topology file: its clusters, policy and wide-area links.
cat >"$tmpdir/grid.yaml" <<Y
grid: sim-test
policy: chs
security: none
wan: {latency_ms: 50, bandwidth_kBps: 100}
clusters:
  - name: A
    nodes:
      - {id: a0, endpoint: "tcp://127.0.0.1:7000"}
      - {id: a1, endpoint: "tcp://127.0.0.1:7001"}
  - name: B
    nodes:
      - {id: b0, endpoint: "tcp://127.0.0.1:7002"}
Y
run "$sim" --topology "$tmpdir/grid.yaml" --json uts tree=seed-T1
is "$(json_get 'd["result"]["nodes"], d["sim"]["clusters"], d["sim"]["nodes"], d["sim"]["policy"]')" \
    "50045 2 3 chs" "a topology file's grid and policy"
# A job long enough (4130071 nodes) for work to cross the wide-area link.
run "$sim" --topology "$tmpdir/grid.yaml" --json uts tree=T1
slow=$(json_get 'd["sim"]["makespan_s"]')
run "$sim" --topology "$tmpdir/grid.yaml" --wan-latency-ms 1 --wan-bandwidth-kBps 100000 --json uts tree=T1
fast=$(json_get 'd["sim"]["makespan_s"]')
[ "$(python3 -c "print($fast < $slow)")" = True ] &&
    pass "its 50 ms links make the job slower than 1 ms ones ($slow s against $fast s)" ||
    fail "its 50 ms links make the job slower than 1 ms ones ($slow s against $fast s)"

# A real kind's tree, traced by bench/trace and replayed: every traced node
# runs, and the sequential time is the trace's waits at that scale.
"$build/bench/trace" --leaves 256 -o "$tmpdir/nq.trace" nqueens n=10 >/dev/null 2>&1
check=$("$build/bench/trace" --check "$tmpdir/nq.trace" --scale 2)
want_nodes=$(echo "$check" | tr ' ' '\n' | sed -n 's/^nodes=//p')
want_waits=$(echo "$check" | tr ' ' '\n' | sed -n 's/^waits_us=//p')
run "$sim" --clusters 2 --nodes 4 --json replay tree="$tmpdir/nq.trace" scale=2
is "$(json_get 'd["result"]["nodes"], round(d["sim"]["sequential_s"] * 1e6)')" \
    "$want_nodes $want_waits" "replay of a traced nqueens: its $want_nodes nodes, $want_waits us of work"

# uts's node cost measured here: the run says the number, and that number
# given again gives the same run (the run is deterministic given it).
run "$sim" --clusters 2 --nodes 2 --json --task-ns measure uts tree=seed-T1
is "$rc" 0 "--task-ns measure: exit 0"
measured=$(json_get 'd["sim"]["task_ns"]')
is "$(json_get 'd["result"]["nodes"], d["sim"]["task_ns_measured"]')" "50045 True" \
    "--task-ns measure: the exact result, and the cost is said to be measured ($measured ns a node)"
gt "$measured" 0 "a measured node costs at least 1 ns"
given='{k: v for k, v in d["sim"].items() if k not in ("wall_s", "peak_rss_mb", "task_ns_measured")}, d["stats"]'
measured_run=$(json_get "$given")
run "$sim" --clusters 2 --nodes 2 --json --task-ns "$measured" uts tree=seed-T1
is "$(json_get "$given")" "$measured_run" \
    "--task-ns $measured gives the measured run again, figure for figure"
run "$sim" --task-ns measure uts tree=seed-T1
like "$out" ": measured here, " "the text says what it measured"
like "$out" " uts nodes generated in " "and how"
run "$sim" --task-ns measure fib n=10
is "$rc" 2 "--task-ns measure with fib: exit 2"
like "$err" "--task-ns measure times uts's child generation; give this kind a number" "says why"

# A synthetic tree: the sum of its leaves' draws, as satind's synthetic kind
# returns it (bench/syn_exact draws them with the kind's own function), and
# those draws are the sequential time.
want=$("$build/bench/syn_exact" gamma 2000 0.5 9 4096 | cut -d' ' -f1)
run "$sim" --clusters 2 --nodes 4 --workers 2 --json synthetic depth=4 fanout=8 dist=gamma \
    shape=0.5 mean_us=2000 seed=9
is "$rc" 0 "synthetic: exit 0"
is "$(json_get 'd["result"]["total_us"], round(d["sim"]["sequential_s"] * 1e6), d["sim"]["tasks"]')" \
    "$want $want 4681" "synthetic depth=4 fanout=8 gamma: total_us $want, as the kind's, over its 4681 invocations"
run "$sim" --clusters 2 --nodes 4 synthetic depth=4 fanout=8 dist=uniform mean_us=100 seed=2
like "$out" "total_us: $("$build/bench/syn_exact" uniform 100 1 2 4096 | cut -d' ' -f1)" \
    "synthetic, uniform, in the text output"
run "$sim" synthetic depth=30 fanout=2
is "$rc" 2 "a synthetic tree the kind refuses: exit 2"
like "$err" "synthetic: fanout^depth = 2^30 leaves is more than the limit" "with the kind's message"

# Bad input.
run "$sim" --clusters 2 --nodes 2 uts tree=nosuch
is "$rc" 2 "a tree the uts kind does not know: exit 2"
like "$err" "uts: " "with the kind's own message"
run "$sim" nqueens n=8
is "$rc" 2 "a kind without a model: exit 2"
like "$err" "satin-sim runs the kinds fib, uts, replay and synthetic, not 'nqueens'" "says which it runs"
run "$sim" --policy nosuch fib n=10
is "$rc" 2 "an unknown policy: exit 2"
like "$err" "unknown policy 'nosuch' (one of rs, rp, chs, cls, crs, lifeline, cluster-lifeline" "lists the policies"
run "$sim" --clusters 0 fib n=10
is "$rc" 2 "--clusters 0: exit 2"
like "$err" "--clusters takes a number from 1" "says the range"
run "$sim" --topology "$tmpdir/grid.yaml" --nodes 3 fib n=10
is "$rc" 2 "--topology with --nodes: exit 2"
run "$sim" --clusters 2
is "$rc" 2 "no job: exit 2"
like "$err" "no job" "says so"
printf 'grid: x\nclusters: [\n' >"$tmpdir/bad.yaml"
run "$sim" --topology "$tmpdir/bad.yaml" fib n=10
is "$rc" 2 "a bad topology file: exit 2"
like "$err" "bad.yaml:" "naming the file and line"
run "$sim" --clusters 2 --nodes 2 --time-limit-s 0.000001 uts tree=seed-T1
is "$rc" 1 "a job past --time-limit-s: exit 1"
like "$out" "not done: the time limit came" "says so"

echo "1..$n"
[ "$failures" = 0 ]
