#!/usr/bin/env bash
# grid.t - whole grids on this machine, brought up with deploy/satin-grid:
# every policy (rs rp chs cls crs lifeline cluster-lifeline) on etc/single-4.yaml and
# etc/local-2x2.yaml (their ports moved to a base drawn at random, so that other
# tests and other runs can use theirs meanwhile) computes UTS, fib, N-queens and the
# kinds whose data travel with their records (array, matmul and raytracer with carry)
# exactly, with the jobs spread over the nodes;
# two clients on two nodes at once both get exact results; bad topology files
# are refused with FILE:LINE:COL messages; an idle grid does not flood the
# network (a message count, derived from the back-off, never a time).
#
# Run from the repo root:
#   SATIN_BUILD=$PWD/build prove --exec '' tests/integration/grid.t
set -u

build=${SATIN_BUILD:-$PWD/build}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
submit=$build/satin-submit
satind=$build/satind
satin_grid=$repo/deploy/satin-grid
export SATIN_BUILD=$build           # satin-grid finds satind through it

grid_dir=""     # run dir of the grid that is up, if any
bgpids=()       # background satin-submit processes
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-grid-t.XXXXXX")

cleanup() {
    local p
    for p in "${bgpids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    if [ -n "$grid_dir" ]; then
        "$satin_grid" down --run-dir "$grid_dir" >/dev/null 2>&1
    fi
    rm -rf "$tmpdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM    # so that the EXIT trap runs on ^C too

# ---- TAP (shared helpers) ----

. "$(dirname "$0")/tap.sh"

for f in "$submit" "$satind" "$satin_grid" "$build/bench/array_exact" "$build/bench/matmul_exact" \
         "$build/bench/raytracer_exact"; do
    [ -x "$f" ] || { echo "Bail out! $f is missing (build it, or set SATIN_BUILD)"; exit 1; }
done

# ---- bad topology files -----------------------------------------------------------
# The texts are those of daemon/topology.c (tests/unit/test_topology.c has them all).

bad_config() {  # NAME CONTENT EXPECTED-MESSAGE-AFTER-"FILE:"
    local f=$tmpdir/$1.yaml
    printf '%s' "$2" >"$f"
    run "$satind" --check-config "$f"
    is "$rc" 1 "--check-config $1.yaml exits 1"
    like "$out$err" "$f:$3" "and says $1.yaml:$3"
}
node0='      - id: a0
        endpoint: tcp://127.0.0.1:7101
'
bad_config unknown-key "grid: g
clusters:
  - name: A
    nodes:
$node0        workerz: 2
" "7:9: unknown key 'workerz' in a node (expected id, endpoint, client, workers, public_key, kinds_dir)"
bad_config duplicate-id "grid: g
clusters:
  - name: A
    nodes:
$node0      - id: a0
        endpoint: tcp://127.0.0.1:7102
" "7:13: duplicate node id 'a0' (first defined at 5:9)"
bad_config missing-endpoint "grid: g
clusters:
  - name: A
    nodes:
$node0      - id: a1
        workers: 1
" "7:9: missing 'endpoint' in node 'a1' (expected tcp://HOST:PORT)"
bad_config unknown-policy "grid: g
policy: xyz
clusters: [{name: A, nodes: [{id: a0, endpoint: 'tcp://127.0.0.1:7101'}]}]
" "2:9: unknown policy 'xyz' (expected rs, rp, chs, cls, crs, lifeline, cluster-lifeline)"
bad_config wrong-type "grid: g
clusters:
  - name: A
    nodes:
$node0        workers: two
" "7:18: 'workers' must be a whole number from 0 to 1024, not 'two'"

# ---- grids ----------------------------------------------------------------------------

eps=()
failures_at_up=0
# grid_up TOPOLOGY POLICY: brings the grid up on etc/TOPOLOGY.yaml with its
# ports moved (moved_ports), fills eps[] (first node first); a port somebody
# else holds ("Address already in use") is worth another draw, five in all.
grid_up() {
    local attempt
    for attempt in 1 2 3 4 5; do
        grid_dir=$tmpdir/run-$1-$2-$attempt
        mkdir -m 700 "$grid_dir"   # satin-grid runs only in a directory of ours alone
        moved_ports "$repo/etc/$1.yaml" $(port_base) >"$grid_dir/$1.yaml"
        # Into a file, not a pipe: the daemons inherit satin-grid's stdout, so a
        # $(...) or a pipe would wait for them to exit.
        "$satin_grid" up "$grid_dir/$1.yaml" --policy "$2" --run-dir "$grid_dir" \
            >"$grid_dir/endpoints" 2>"$grid_dir/up.err" && break
        "$satin_grid" down --run-dir "$grid_dir" >/dev/null 2>&1
        if [ "$attempt" = 5 ] || ! grep -q "Address already in use" "$grid_dir/up.err" "$grid_dir"/*.log 2>/dev/null; then
            echo "Bail out! satin-grid up etc/$1.yaml (moved) --policy $2 failed"
            sed 's/^/#   /' "$grid_dir/up.err"
            local l
            for l in "$grid_dir"/*.log; do
                [ -f "$l" ] && { echo "# $l:"; sed 's/^/#   /' "$l"; }
            done
            exit 1
        fi
    done
    mapfile -t eps <"$grid_dir/endpoints"
    if [ "${#eps[@]}" -ne 4 ]; then
        echo "Bail out! satin-grid up etc/$1.yaml printed ${#eps[@]} endpoints, not 4"
        sed 's/^/#   /' "$grid_dir/endpoints"
        exit 1
    fi
    failures_at_up=$failures
}

grid_down() {
    "$satin_grid" down --run-dir "$grid_dir" >/dev/null 2>&1
    if [ "$failures" -gt "$failures_at_up" ]; then
        local l
        for l in "$grid_dir"/*.log; do echo "# $l:"; tail -n 20 "$l" | sed 's/^/#   /'; done
    fi
    grid_dir=""
}

# msgs_sent_all: messages all nodes of the grid have sent to peers so far
# (STATUS msgs_lan + msgs_wan, summed); the nodes are asked at the same time.
msgs_sent_all() {
    local i pids=()
    for i in "${!eps[@]}"; do
        "$submit" --socket "${eps[$i]}" --json --status >"$tmpdir/status.$i" 2>&1 </dev/null &
        pids+=($!)
    done
    for i in "${pids[@]}"; do wait "$i"; done
    python3 - "$tmpdir"/status.* <<'PY'
import json, sys
total = 0
for f in sys.argv[1:]:
    d = json.load(open(f))
    total += d["msgs_lan"] + d["msgs_wan"]
print(total)
PY
}

# array_sum N SEED: the array kind's sum, summed in one plain loop by
# build/bench/array_exact (not through the kind), in hexadecimal.
array_sum() {
    "$build/bench/array_exact" "$1" "$2" 0 | cut -d' ' -f1
}

# mm_checksum N SEED: matmul's checksum, from a plain triple loop over the
# whole matrices by build/bench/matmul_exact (not through the kind).
mm_checksum() {
    "$build/bench/matmul_exact" "$1" "$2"
}

# rt_checksum W H DEPTH: the raytracer's checksum, the image rendered pixel
# by pixel in one loop by build/bench/raytracer_exact (no tiles, no jobs).
rt_checksum() {
    "$build/bench/raytracer_exact" "$1" "$2" "$3"
}

# The jobs and their one right answer: "KIND PARAMS|RESULT-KEY|VALUE".
# matmul and raytracer with carry: their blocks and pixels travel with the
# records and results from the root down (matmul: the root makes A and B, its
# block products of 150^3 get records of 360048 bytes; raytracer: the root
# assembles the whole image, its halves return 384000 bytes), so that a steal
# moves data, although whether one happens is the schedule's to decide.
jobs=(
    "uts tree=seed-T1|nodes|50045"
    "uts tree=seed-T2|nodes|53521"
    "uts tree=seed-T3|nodes|5529089"
    "uts tree=T1|nodes|4130071"
    "uts tree=T3|nodes|4112897"
    "fib n=30|value|832040"
    "nqueens n=10|solutions|724"
    "array n=400000 seed=7 carry=16384 leaf=2048|sum|$(array_sum 400000 7)"
    "matmul n=300 seed=3 leaf=40 carry=180000|checksum|$(mm_checksum 300 3)"
    "raytracer width=640 height=400 tile=256 carry=256000|checksum|$(rt_checksum 640 400 3)"
)

idle_test() {
    # Every node of local-2x2 is alone with one other member in its cluster,
    # so under CRS a back-off round is R = 1 failed local steal.  Idle, a node
    # makes "attempts": one synchronous local STEAL plus, when its previous
    # one has been answered, one asynchronous wide-area STEAL; each STEAL is
    # answered by one STEAL_REPLY from its victim.  So an attempt costs at
    # most 4 messages grid-wide.  After failure f the next attempt waits
    # min(backoff_min * 2^(f-1), backoff_max) = 1, 2, 4, ..., 64 ms, then
    # 100 ms for ever (policy.c, satin_backoff_fail), so in any window of T ms
    # a node makes at most 7 ramp attempts + T/100 + 1.  Add one HELLO per
    # new connection (3 per node).  For the 4 nodes:
    #     derived = 4 * (4 * (7 + ceil(T/100) + 1) + 3)
    # (about 4 * 4 * 20 = 320 for T = 2 s once the ramp is over).  The bound
    # is twice that, so that a harmless change (say a periodic HELLO as
    # heartbeat) does not break the test.  Without back-off an idle node
    # retries at once after every empty reply, one loopback round trip
    # (~0.1 ms) apart: thousands of messages per node per second.
    local before after t0 t1
    t0=$(date +%s%N)
    before=$(msgs_sent_all) || { fail "idle: STATUS of every node has msgs_lan/msgs_wan ($before)"; return; }
    sleep 2   # the window the count is bounded over: the time is what is tested
    after=$(msgs_sent_all) || { fail "idle: STATUS of every node has msgs_lan/msgs_wan ($after)"; return; }
    t1=$(date +%s%N)
    # The window, in whole 100 ms rounded up; it only widens the bound.
    local window_100ms=$(((t1 - t0) / 100000000 + 1))
    local derived=$((4 * (4 * (7 + window_100ms + 1) + 3)))
    local bound=$((2 * derived)) sent=$((after - before))
    local desc="idle local-2x2/crs: the 4 nodes sent $sent messages in $((window_100ms * 100)) ms or less (bound $bound)"
    if [ "$sent" -ge 0 ] && [ "$sent" -le "$bound" ]; then pass "$desc"; else fail "$desc"; fi
}

for topo in single-4 local-2x2; do
    # SATIN_GRID_POLICIES narrows the list (make check-tsan: see the Makefile).
    for policy in ${SATIN_GRID_POLICIES:-rs rp chs cls crs lifeline cluster-lifeline}; do
        grid_up "$topo" "$policy"
        tag="$topo/$policy"
        [ "$topo/$policy" = local-2x2/crs ] && idle_test

        i=0
        for j in "${jobs[@]}"; do
            IFS='|' read -r job key want <<<"$j"
            node=$((i % ${#eps[@]}))
            i=$((i + 1))
            # shellcheck disable=SC2086  # job is "KIND key=value", split on purpose
            run "$submit" --socket "${eps[$node]}" --json --timeout 120 $job
            is "$(json_get 'd["status"], d["result"]["'"$key"'"], d["stats"]["grid.policy"]')" \
                "ok $want $policy" "$tag: $job on node $node = $want"
        done

        # Two clients, two nodes, at the same time.
        "$submit" --socket "${eps[1]}" --json --timeout 120 uts tree=seed-T3 \
            >"$tmpdir/c1.out" 2>"$tmpdir/c1.err" </dev/null &
        p1=$!
        "$submit" --socket "${eps[3]}" --json --timeout 120 fib n=32 \
            >"$tmpdir/c2.out" 2>"$tmpdir/c2.err" </dev/null &
        p2=$!
        bgpids=("$p1" "$p2")
        wait "$p1"; rc=$?
        cp "$tmpdir/c1.out" "$tmpdir/out"; cp "$tmpdir/c1.err" "$tmpdir/err"; out=$(cat "$tmpdir/out")
        is "$rc $(json_get 'd["result"]["nodes"]')" "0 5529089" \
            "$tag: concurrent uts seed-T3 on node 1 = 5529089"
        wait "$p2"; rc=$?
        cp "$tmpdir/c2.out" "$tmpdir/out"; cp "$tmpdir/c2.err" "$tmpdir/err"; out=$(cat "$tmpdir/out")
        is "$rc $(json_get 'd["result"]["value"]')" "0 2178309" \
            "$tag: concurrent fib n=32 on node 3 = 2178309"
        bgpids=()

        grid_down
    done
done

echo "1..$n"
[ "$failures" -eq 0 ]
