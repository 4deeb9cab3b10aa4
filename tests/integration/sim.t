#!/usr/bin/env bash
# sim.t - satin-sim, the program: a simulated 2x2 grid runs UTS and fib to
# their exact results under every policy, replays a traced nqueens and runs
# a synthetic tree to the total that bench/syn_exact computes; a node crashing
# half-way leaves fib's result exact; the same seed gives the same run
# (every figure but the wall time and the memory); a topology file's grid
# and links are used; bad usage and a job the kind refuses get their
# messages and exit 2; --csv rows carry the figures of --json, --lifestory
# files tile the run (and its PNG is drawn when gnuplot is, or can be,
# installed), progress lines come every N events and by default only on a
# terminal.  No daemon: the simulator runs the engine in virtual time.
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

# Past the wire's 65536 nodes: every node's messages go through (the codec
# takes the simulator's larger indexes), none is refused, none times out.
run "$sim" --clusters 1 --nodes 70000 --policy lifeline --json fib n=22
is "$rc" 0 "70000 nodes: exit 0"
is "$(json_get 'd["result"]["value"], d["sim"]["msgs_bad"], d["stats"]["grid.steal_timeouts"]')" \
    "17711 0 0" "70000 nodes: fib(22) exact, no message refused, no steal unanswered"

# --param: a policy's tunable over its default, echoed in the JSON with the
# others it reads; refused with the reason when the policy does not read it,
# the value is out of range or not decimal, or it breaks an order.
run "$sim" --clusters 1 --nodes 4 --policy cluster-lifeline --param wan_lifeline_jobs=8 \
    --param lifeline_w=3 --json fib n=15
is "$rc" 0 "--param: exit 0"
is "$(json_get 'd["result"]["value"], d["sim"]["policy_params"]["wan_lifeline_jobs"], d["sim"]["policy_params"]["lifeline_w"], d["sim"]["policy_params"]["lifeline_z"], d["sim"]["policy_params"]["steal_max_jobs"]')" \
    "610 8 3 0 1" "--param: fib(15) exact; the two given, the defaults of the rest"
run "$sim" --policy crs --param lifeline_w=1 fib n=10
is "$rc" 2 "--param of a tunable the policy does not read: exit 2"
like "$err" "policy crs has no tunable 'lifeline_w' (it reads backoff_min_ms, backoff_max_ms, steal_max_jobs)" \
    "names what it reads"
run "$sim" --policy lifeline --param lifeline_w=0x1 fib n=10
is "$rc" 2 "--param in hexadecimal: exit 2"
like "$err" "'lifeline_w' must be a whole number from 0 to 1e+06, not '0x1'" "says what it takes"
run "$sim" --policy crs --param backoff_min_ms=500 fib n=10
is "$rc" 2 "--param below another it must not be under: exit 2"
like "$err" "'backoff_max_ms' (100) must not be less than 'backoff_min_ms' (500)" "names both"
run "$sim" --policy crs --param backoff_min_ms fib n=10
is "$rc" 2 "--param without a value: exit 2"
like "$err" "'backoff_min_ms': expected NAME=VALUE" "says the form"

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

# A real kind's tree, traced by satin-trace and replayed: every traced node
# runs, and the sequential time is the trace's waits at that scale.
"$build/satin-trace" --leaves 256 -o "$tmpdir/nq.trace" nqueens n=10 >/dev/null 2>&1
check=$("$build/satin-trace" --check "$tmpdir/nq.trace" --scale 2)
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
# --csv: a row per run under one header, the same figures as --json.
csv=$tmpdir/runs.csv
run "$sim" --clusters 2 --nodes 2 --policy rs --seed 3 --json --csv "$csv" uts tree=seed-T1
json_rs=$out
cp "$tmpdir/nq.trace" "$tmpdir/nq,\"q\".trace"
run "$sim" --clusters 2 --nodes 4 --workers 2 --csv "$csv" replay tree="$tmpdir/nq,\"q\".trace" scale=2
is "$rc" 0 "--csv: a second run appends"
header=status,kind,params,topology,policy,clusters,nodes,workers,seed,lan_latency_us,lan_bandwidth_MBps,wan_latency_ms,wan_bandwidth_kBps,task_ns,result,makespan_s,sequential_s,speedup,efficiency,steal_attempts_lan,steal_successes_lan,steal_attempts_wan,steal_successes_wan,msgs_lan,bytes_lan,msgs_wan,bytes_wan,wan_msgs_per_s,idle_s,tasks,events,peak_events_waiting,wall_s,events_per_s,peak_rss_mb
is "$(head -1 "$csv")" "$header" "--csv: the header names the columns of the manual"
is "$(grep -c . "$csv")" 3 "one header, then one row per run"
is "$(python3 - "$csv" "$json_rs" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
d, r = json.loads(sys.argv[2]), rows[0]
s, st = d["sim"], d["stats"]
same = [r["status"] == d["status"], r["kind"] == "uts", r["params"] == "tree=seed-T1",
        r["policy"] == "rs", r["seed"] == "3", r["result"] == str(d["result"]["nodes"]),
        (r["clusters"], r["nodes"], r["workers"]) == ("2", "4", "1"),
        (r["wan_latency_ms"], r["wan_bandwidth_kBps"]) == ("10.000", "1000.000")]
for k in ("makespan_s", "sequential_s", "idle_s"):
    same.append(round(float(r[k]) * 1e9) == round(s[k] * 1e9))
for k in ("msgs_lan", "bytes_lan", "msgs_wan", "bytes_wan", "tasks", "events",
          "peak_events_waiting"):
    same.append(int(r[k]) == s[k])
for k in ("steal_attempts_lan", "steal_successes_lan", "steal_attempts_wan",
          "steal_successes_wan"):
    same.append(int(r[k]) == st["grid." + k])
same.append(abs(float(r["speedup"]) - s["speedup"]) < 1e-6)
same.append(abs(float(r["efficiency"]) - s["efficiency"]) < 1e-6)
same.append(abs(float(r["wan_msgs_per_s"]) - s["wan_msgs_per_s"]) < 1e-3)
q = rows[1]
same.append(q["params"] == 'tree=%s/nq,"q".trace scale=2' % sys.argv[1].rsplit("/", 1)[0])
same.append((q["status"], q["kind"], q["workers"]) == ("ok", "replay", "2"))
print(len(same), [i for i, x in enumerate(same) if not x])
PY
)" "27 []" "--csv: every figure as --json has it; a comma and a quote in a value survive"
printf 'a,b\n1,2\n' >"$tmpdir/other.csv"
run "$sim" --clusters 2 --nodes 2 --csv "$tmpdir/other.csv" fib n=10
is "$rc" 1 "--csv to a file of other columns: exit 1"
like "$err" "holds rows of other columns" "says why"
is "$(cat "$tmpdir/other.csv")" "$(printf 'a,b\n1,2')" "and leaves the file as it was"

run "$sim" --csv "$tmpdir/no/such/dir.csv" fib n=10
is "$rc" 2 "--csv to a file that cannot be opened: exit 2, before the run"
like "$err" "cannot write $tmpdir/no/such/dir.csv" "says which file"
run "$sim" --lifestory "$tmpdir/no/such/life.csv" fib n=10
is "$rc" 2 "--lifestory to a file that cannot be created: exit 2"

# --lifestory: each worker's states, tiling the run; the same seed, the same file.
life_check='
import csv, json, sys
d = json.loads(sys.argv[2])
end, work = round(d["sim"]["makespan_s"] * 1e9), round(d["sim"]["sequential_s"] * 1e9)
last, computing, bad = {}, 0, 0
for r in csv.DictReader(open(sys.argv[1])):
    key, a, b = (r["node"], r["worker"]), int(r["start_ns"]), int(r["end_ns"])
    bad += last.get(key, 0) != a or b <= a or r["state"] not in (
        "computing", "steal-lan", "steal-wan", "idle")
    last[key] = b
    computing += b - a if r["state"] == "computing" else 0
print(len(last), sorted(set(last.values())) == [end], bad, computing == work)
'
run "$sim" --clusters 2 --nodes 3 --workers 2 --policy crs --json --lifestory "$tmpdir/l1.csv" uts tree=seed-T1
is "$(python3 -c "$life_check" "$tmpdir/l1.csv" "$out")" "12 True 0 True" \
    "--lifestory: 6 nodes x 2 workers, intervals tiling [0, makespan], computing time = the work"
run "$sim" --clusters 2 --nodes 3 --workers 2 --policy crs --json --lifestory "$tmpdir/l2.csv" uts tree=seed-T1
cmp -s "$tmpdir/l1.csv" "$tmpdir/l2.csv" && pass "the same seed, the same lifestory byte for byte" ||
    fail "the same seed, the same lifestory byte for byte"
run "$sim" --clusters 2 --nodes 3 --lifestory-nodes 2 --policy crs --lifestory "$tmpdir/l3.csv" uts tree=seed-T1
is "$(tail -n +2 "$tmpdir/l3.csv" | cut -d, -f1 | sort -u | tr '\n' ' ')" "0 3 " \
    "--lifestory-nodes 2: two nodes spread over the grid (0 and 3 of 6)"
run "$sim" --lifestory "$tmpdir/l.txt" fib n=10
is "$rc" 2 "--lifestory to a file neither .csv nor .png: exit 2"
like "$err" "writes a .csv or a .png file" "says so"

# The PNG is gnuplot's: installed here if it can be (Debian), else this part is skipped.
if ! command -v gnuplot >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y gnuplot-nox >"$tmpdir/apt.log" 2>&1 || sed 's/^/# apt: /' "$tmpdir/apt.log" | tail -5
fi
if command -v gnuplot >/dev/null 2>&1; then
    run "$sim" --clusters 2 --nodes 4 --workers 2 --lifestory "$tmpdir/life.png" uts tree=T1
    is "$rc" 0 "--lifestory FILE.png: exit 0"
    is "$(python3 -c "
import struct, sys
b = open(sys.argv[1], 'rb').read()
print(b[:8] == b'\x89PNG\r\n\x1a\n', struct.unpack('>II', b[16:24]), len(b) > 10000)" "$tmpdir/life.png")" \
        "True (1300, 360) True" "a PNG of 1300 x 360 pixels, drawn"
else
    for _ in 1 2; do skip "gnuplot is not installed and could not be (not root, or no apt-get)"; done
fi

# Progress: lines on stderr every N events, none with --quiet, and by
# default only on a terminal.
run "$sim" --clusters 2 --nodes 2 --progress 10000 uts tree=seed-T1
events=$(echo "$out" | sed -n 's/.* tasks, \([0-9]*\) events in .*/\1/p')
is "$(grep -c '^satin-sim: [0-9]* events, [0-9]* tasks, [0-9.]* s virtual$' <<<"$err")" \
    "$((events / 10000))" "--progress 10000: a line every 10000 of the $events events"
run "$sim" --clusters 2 --nodes 2 --progress 10000 --quiet uts tree=seed-T1
is "$err" "" "--quiet: none"
run "$sim" --clusters 2 --nodes 2 uts tree=T1
is "$err" "" "stderr not a terminal: none by default"
is "$(python3 - "$sim" <<'PY'
import os, pty, subprocess, sys
master, slave = pty.openpty()
p = subprocess.run([sys.argv[1], "--clusters", "2", "--nodes", "4", "fib", "n=34"],
                   stdout=subprocess.PIPE, stderr=slave, text=True)
os.close(slave)
err = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    err += chunk
events = int(p.stdout.split(" events in ")[0].rsplit(" ", 1)[1])
print(err.decode().count(" s virtual") == events // 10000000, events >= 10000000)
PY
)" "True True" "stderr a terminal: a line every 10000000 events by default"

# Jitter and the control threads' cost per message: exact, reproducible,
# another run than without; a file's jitter is used.
net="--lan-jitter-us 20 --wan-jitter-ms 3 --msg-cpu-us 15,25"
run "$sim" --clusters 2 --nodes 4 --seed 9 $net --json uts tree=seed-T1
with=$(json_get "$figures")
is "$(json_get 'd["result"]["nodes"]')" 50045 "with jitter and a cost per message: the same result"
run "$sim" --clusters 2 --nodes 4 --seed 9 $net --json uts tree=seed-T1
is "$(json_get "$figures")" "$with" "and the same seed gives the same run"
[ "$with" != "$first" ] && pass "another run than without them" || fail "another run than without them"
run "$sim" --clusters 2 --nodes 4 --seed 9 --msg-cpu-us 0,0 --lan-jitter-us 0 --json uts tree=seed-T1
is "$(json_get "$figures")" "$first" "0 jitter and 0 us a message: the run without them"
sed 's/wan: {latency_ms: 50,/wan: {latency_ms: 50, jitter_ms: 20,/' "$tmpdir/grid.yaml" >"$tmpdir/jitter.yaml"
run "$sim" --topology "$tmpdir/jitter.yaml" --json uts tree=T1
jittery=$(json_get 'd["sim"]["makespan_s"]')
[ "$jittery" != "$slow" ] && pass "a file's jitter_ms is used ($jittery s against $slow s)" ||
    fail "a file's jitter_ms is used ($jittery s against $slow s)"
run "$sim" --msg-cpu-us 5,x fib n=10
is "$rc" 2 "--msg-cpu-us 5,x: exit 2"
like "$err" "--msg-cpu-us takes a number" "says what it takes"

# Crashes.  A node stops half-way through the crash-free run (the first of
# the nodes that holds a record of another when it dies): the result stays
# exact, the owners of what it held run it again, and the output says so.
want=$(python3 -c 'a, b = 0, 1
for _ in range(25): a, b = b, a + b
print(a)')
grid="--clusters 2 --nodes 3 --wan-latency-ms 2"
run "$sim" $grid --json fib n=25
plain=$(json_get 'd["sim"]["makespan_s"]')
half=$(python3 -c "print($plain / 2)")
crashed=
for node in c0n1 c0n2 c1n0 c1n1 c1n2; do
    run "$sim" $grid --crash "$node@$half" --failure-timeout-ms 50,200 --json fib n=25
    [ "$(json_get 'd["sim"]["records_lost"] > 0')" = True ] && { crashed=$node; break; }
done
[ -n "$crashed" ] && pass "at $half s, node $crashed holds another node's record" ||
    fail "at $half s, some node holds another node's record"
is "$rc" 0 "--crash $crashed@$half: exit 0"
is "$(json_get 'd["result"]["value"], d["sim"]["crashes"][0]["node"], d["sim"]["crashes"][0]["at_s"], d["sim"]["crashes"][0]["reached"]')" \
    "$want $crashed $half True" "fib(25) is still $want, and the crash is in the JSON"
gt "$(json_get 'd["stats"]["grid.records_redone"]')" 0 "records it held were run again"
gt "$(json_get 'd["stats"]["grid.peers_dead"]')" 0 "it was taken for dead"
is "$(json_get 'd["stats"]["grid.peers_back"], d["sim"]["failure_timeout_lan_ms"], d["sim"]["failure_timeout_wan_ms"]')" \
    "0 50 200" "no other node was, with the time-outs given"
is "$(json_get "d['sim']['makespan_s'] > $plain")" True "the crash costs time"
crash_run=$(json_get "$figures")
run "$sim" $grid --crash "$crashed@$half" --failure-timeout-ms 50,200 --json fib n=25
is "$(json_get "$figures")" "$crash_run" "the same crash gives the same run, figure for figure"
index=$(python3 -c "print(['c0n0','c0n1','c0n2','c1n0','c1n1','c1n2'].index('$crashed'))")
run "$sim" $grid --crash "$index@$half" --failure-timeout-ms 50,200 --json fib n=25
is "$(json_get "$figures")" "$crash_run" "a node given by its index ($index) is the same node"
run "$sim" $grid --crash "$crashed@$half" --failure-timeout-ms 50,200 fib n=25
like "$out" "value: $want" "the text output: the exact result"
like "$out" "crashes: $crashed at " "the crash"
like "$out" "failures (time-outs LAN 50.000 ms, WAN 200.000 ms): peers_dead " "and the failure counters"
run "$sim" $grid --crash "$crashed@$half" --json fib n=25
is "$(json_get 'd["result"]["value"], d["sim"]["failure_timeout_lan_ms"], d["sim"]["failure_timeout_wan_ms"]')" \
    "$want 3000 10000" "without --failure-timeout-ms, the engine's time-outs"
run "$sim" $grid --failure-timeout-ms 50 --json fib n=25
is "$(json_get 'd["result"]["value"], d["stats"]["grid.peers_dead"], d["sim"]["crashes"], d["sim"]["failure_timeout_wan_ms"]')" \
    "$want 0 [] 10000" "failure detection without a crash: the same result, nobody dead"
run "$sim" $grid --crash c1n2@0 --crash c1n1@1000 fib n=25
like "$out" "value: $want" "two crashes, one at submission: the exact result"
like "$out" "crashes: c1n2 at 0.000000 s, c1n1 at 1000.000000 s (not reached); lost there: " \
    "and the one after the job's end is said to be not reached"
run "$sim" $grid fib n=25
[[ "$out" != *failures* ]] && pass "without either option, no failure line" ||
    fail "without either option, no failure line"
run "$sim" --topology "$tmpdir/grid.yaml" --crash b0@0.0001 --json fib n=25
is "$(json_get 'd["result"]["value"], d["sim"]["crashes"][0]["node"]')" "$want b0" \
    "a topology file's node crashes by its id"
run "$sim" --topology "$tmpdir/grid.yaml" --crash a0@0.0001 fib n=25
is "$rc" 2 "its first node, where the job is submitted, cannot crash: exit 2"
like "$err" "a0 is the node the job is submitted to" "says so"
run "$sim" $grid --crash c0n0@0.001 fib n=25
is "$rc" 2 "a crash of the node the job is submitted to: exit 2"
like "$err" "c0n0 is the node the job is submitted to; the job and its result live there, so it cannot crash" \
    "says why"
run "$sim" $grid --crash 0@0.001 fib n=25
is "$rc" 2 "the same node by its index: exit 2"
run "$sim" $grid --crash c9n9@0.001 fib n=25
is "$rc" 2 "a crash of a node not in the grid: exit 2"
like "$err" "--crash c9n9@0.001: no node 'c9n9' in this grid (give a node's id, or its index from 0 to 5)" \
    "says which nodes there are"
run "$sim" $grid --crash 6@0.001 fib n=25
is "$rc" 2 "an index past the grid: exit 2"
run "$sim" $grid --crash c0n1 fib n=25
is "$rc" 2 "a crash without a time: exit 2"
like "$err" "--crash takes NODE@SECONDS, not 'c0n1'" "says the form"
run "$sim" $grid --crash c0n1@0.001 --crash 1@0.002 fib n=25
is "$rc" 2 "one node crashing twice: exit 2"
like "$err" "node c0n1 crashes once at most" "says so"
run "$sim" $grid --failure-timeout-ms 0 fib n=25
is "$rc" 2 "a failure time-out of 0: exit 2"

# Bad input.
run "$sim" --clusters 2 --nodes 2 uts tree=nosuch
is "$rc" 2 "a tree the uts kind does not know: exit 2"
like "$err" "uts: " "with the kind's own message"
# A kind without a model comes from the modules, traced here and replayed.
run "$sim" --clusters 2 --nodes 2 --json nqueens n=8
is "$rc $(json_get 'd["status"], d["traced"]["result"], d["result"]["nodes"] == d["traced"]["tasks"]')" \
    "0 ok solutions=92 True" "a kind without a model (nqueens) is traced, 92 solutions, and every traced task replayed"
run "$sim" langford n=8
is "$rc" 2 "a kind no module brings: exit 2"
like "$err" "no kind 'langford' in the modules loaded" "says so"
kd=$tmpdir/kd
mkdir -m 0775 "$kd"
run "$sim" --kinds-dir "$kd" nqueens n=8
is "$rc" 2 "a kinds directory its group may write: exit 2"
like "$err" "has mode 0775: its group may write it" "with the loader's message"
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
