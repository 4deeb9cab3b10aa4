#!/usr/bin/env bash
# wan.t - a 2x2 grid behind satin-wanem (emulate: true, 20 ms one-way,
# 1000 KByte/s per direction), brought up with deploy/satin-grid once per
# policy (rs rp chs cls crs):
#   - UTS seed-T1, fib 27 and UTS seed-T3, submitted to different nodes, come
#     out exact under every policy;
#   - the shim's own counters (satin-wanem ctl stats) show bytes on both
#     wide-area links during the jobs: the traffic really crossed the shim;
#   - CRS: no node ever has more than one wide-area steal in flight
#     (STATUS wan_steals_in_flight_max <= 1 on every node, >= 1 on one);
#   - RS: the share of steal requests that go to the other cluster matches the
#     uniform choice among the other nodes (a 6-sigma binomial bound).
# Ports are drawn at random (see pick_base), never the fixed ones of the
# other tests; counts, never times, are asserted.
#
# Run from the repo root:
#   SATIN_BUILD=$PWD/build prove --exec '' tests/integration/wan.t
set -u

build=${SATIN_BUILD:-$PWD/build}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
submit=$build/satin-submit
satind=$build/satind
wanem=$build/satin-wanem
satin_grid=$repo/deploy/satin-grid
export SATIN_BUILD=$build           # satin-grid finds satind and satin-wanem through it

grid_dir=""     # run dir of the grid that is up, if any
downs=()        # background satin-grid down of the grids we are done with
run_dirs=()     # every run dir a grid was brought up in
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-wan-t.XXXXXX")

cleanup() {
    # satin-grid down stops the daemons, then the shim, by their recorded pids.
    # Again for every grid, in case a background one was interrupted (^C reaches
    # the whole process group); on a grid that is down it does nothing.
    local p d
    for p in "${downs[@]}"; do wait "$p" 2>/dev/null; done
    for d in "${run_dirs[@]}"; do "$satin_grid" down --run-dir "$d" >/dev/null 2>&1; done
    rm -rf "$tmpdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM    # so that the EXIT trap runs on ^C too

# ---- TAP (shared helpers) ----

. "$here/tap.sh"

for f in "$submit" "$satind" "$wanem" "$satin_grid"; do
    [ -x "$f" ] || { echo "Bail out! $f is missing (build it, or set SATIN_BUILD)"; exit 1; }
done

# ---- the topology ------------------------------------------------------------------
#
# 2 clusters x 2 nodes (N = 4: a0 a1 | b0 b1), one worker each.  With base B the
# peers listen on B..B+3 and shim_base_port is B+4, so the relays are at
# B+4 + c*4 + n (etc/README.md): A -> b0, b1 at B+6, B+7 and B -> a0, a1 at
# B+8, B+9 (B+4, B+5, B+10, B+11 are the unused same-cluster slots).  One grid
# takes 12 ports from B.
#
# B is drawn in 61000-64984 (the grid's last port at most 64995): clear of the
# fixed ports of the other tests (7101-7114, 7200-7263, 7321, the shim's
# default 20000-20239), of the range test_wanem.c draws from (30000-39999), and
# above Linux's ephemeral range (32768-60999 by default), so no outgoing
# connection of a busy machine (ZeroMQ reconnects a lot) holds one
# of our ports by chance.  Each grid gets a fresh B, never overlapping an
# earlier grid of this run (which may still be stopping in the background, and
# whose daemons must not reach the new ones), and a bind that fails anyway
# ("in use": someone else's) is retried with another B.
PORTS_PER_GRID=12
used_bases=()
pick_base() {
    local b u
    while :; do
        b=$((61000 + PORTS_PER_GRID * (RANDOM % 333)))
        for u in "${used_bases[@]}"; do [ "$u" = "$b" ] && continue 2; done
        used_bases+=("$b")
        echo "$b"
        return
    done
}

write_topology() {  # FILE BASE
    cat >"$1" <<EOF
grid: wan-t
security: none
emulate: true
wan:
  latency_ms: 20
  jitter_ms: 0
  bandwidth_kBps: 1000
  shim_host: 127.0.0.1
  shim_base_port: $(($2 + 4))
clusters:
  - name: A
    nodes:
      - {id: a0, endpoint: "tcp://127.0.0.1:$2", workers: 1}
      - {id: a1, endpoint: "tcp://127.0.0.1:$(($2 + 1))", workers: 1}
  - name: B
    nodes:
      - {id: b0, endpoint: "tcp://127.0.0.1:$(($2 + 2))", workers: 1}
      - {id: b1, endpoint: "tcp://127.0.0.1:$(($2 + 3))", workers: 1}
EOF
}

# ---- grids ----------------------------------------------------------------------------

eps=()
failures_at_up=0

bail_with_logs() {  # MESSAGE
    echo "Bail out! $1"
    sed 's/^/#   /' "$grid_dir/up.err"
    local l
    for l in "$grid_dir"/*.log; do
        [ -f "$l" ] && { echo "# $l:"; sed 's/^/#   /' "$l"; }
    done
    exit 1
}

# grid_up POLICY: brings a fresh grid up, fills eps[] (a0 a1 b0 b1)
grid_up() {
    local policy=$1 attempt base topo
    for attempt in 1 2 3 4 5; do
        pick_base >"$tmpdir/base"       # not $(...): used_bases must grow here
        base=$(cat "$tmpdir/base")
        grid_dir=$tmpdir/run-$policy-$attempt
        topo=$tmpdir/wan-$policy-$attempt.yaml
        mkdir -m 700 "$grid_dir"   # satin-grid runs only in a directory of ours alone
        run_dirs+=("$grid_dir")
        write_topology "$topo" "$base"
        # Into a file, not a pipe: the daemons inherit satin-grid's stdout, so a
        # $(...) or a pipe would wait for them to exit.
        if "$satin_grid" up "$topo" --policy "$policy" --run-dir "$grid_dir" \
                >"$grid_dir/endpoints" 2>"$grid_dir/up.err"; then
            mapfile -t eps <"$grid_dir/endpoints"
            if [ "${#eps[@]}" -ne 4 ]; then
                sed 's/^/#   /' "$grid_dir/endpoints"
                bail_with_logs "satin-grid up $topo --policy $policy printed ${#eps[@]} endpoints, not 4"
            fi
            echo "# $policy: grid up on ports $base-$((base + PORTS_PER_GRID - 1))"
            failures_at_up=$failures
            return 0
        fi
        # satin-grid brought the part that started down again.  Only a port
        # somebody else holds is worth another draw.
        grep -q "Address already in use" "$grid_dir/up.err" "$grid_dir"/*.log 2>/dev/null || break
        echo "# $policy: ports $base-$((base + PORTS_PER_GRID - 1)) taken, drawing others"
    done
    bail_with_logs "satin-grid up $topo --policy $policy failed"
}

# grid_down: the logs if a check failed, then satin-grid down in the background
# (a daemon takes a few seconds to stop; the next grid, on other ports, need
# not wait).  cleanup waits for it.
grid_down() {
    if [ "$failures" -gt "$failures_at_up" ]; then
        local l
        for l in "$grid_dir"/*.log; do echo "# $l:"; tail -n 20 "$l" | sed 's/^/#   /'; done
    fi
    "$satin_grid" down --run-dir "$grid_dir" >/dev/null 2>&1 </dev/null &
    downs+=($!)
    grid_dir=""
}

# wan_bytes: "A->B B->A", the bytes the shim has delivered on each link so far
wan_bytes() {
    "$wanem" ctl --control "$grid_dir/wanem.ctl" stats >"$tmpdir/wanem.stats" 2>&1 </dev/null ||
        { echo "error"; return 1; }
    awk '$1 == "A->B" || $1 == "B->A" {
             for (i = 2; i <= NF; i++) if ($i ~ /^bytes=/) b[$1] = substr($i, 7)
         }
         END { print (("A->B" in b) ? b["A->B"] : "none"), (("B->A" in b) ? b["B->A"] : "none") }' \
        "$tmpdir/wanem.stats"
}

# status_all: every node's STATUS as JSON in $tmpdir/status.0 .. status.3
status_all() {
    local i
    rm -f "$tmpdir"/status.*
    for i in "${!eps[@]}"; do
        "$submit" --socket "${eps[$i]}" --json --status >"$tmpdir/status.$i" 2>&1 </dev/null ||
            { sed 's/^/#   /' "$tmpdir/status.$i"; return 1; }
    done
}

# status_field KEY: that counter of each node, space-separated, a0 first
status_field() {
    python3 - "$1" "$tmpdir"/status.[0-9] <<'PY'
import json, sys
print(" ".join(str(json.load(open(f))[sys.argv[1]]) for f in sys.argv[2:]))
PY
}

# job NODE KEY WANT TAG KIND PARAMS...: submits, asserts status, result and policy
job() {
    local node=$1 key=$2 want=$3 tag=$4
    shift 4
    run "$submit" --socket "${eps[$node]}" --json --timeout 120 "$@"
    is "$(json_get 'd["status"], d["result"]["'"$key"'"], d["stats"]["grid.policy"]')" \
        "ok $want $policy" "$tag: $* on node $node = $want"
    # What crossed the wide area during the job, summed over the nodes (for the
    # log; not asserted: whether a 5 ms job is stolen across 20 ms is chance).
    [ "$rc" = 0 ] && echo "# $tag: $* $(json_get '"wall %.3f s, wide-area steals %s of %s tried, jobs moved (LAN+WAN) %s" % (d["stats"]["wall_s"], d["stats"]["grid.steal_successes_wan"], d["stats"]["grid.steal_attempts_wan"], d["stats"]["grid.jobs_received"])')" |
        sed '2,$s/^/#   /'    # a traceback, if any, stays a TAP comment
}

# ---- CRS: at most one wide-area steal in flight per node ------------------------
crs_in_flight() {
    if ! status_all; then fail "crs: STATUS of every node"; return; fi
    local maxes
    maxes=$(status_field wan_steals_in_flight_max)
    # Figure 3 of the paper: a node sends a wide-area steal only when it has
    # none out (stealing_remotely), so the high-water mark is 1 at most.  At
    # least one node must have stolen across the wide area at all, or the check
    # says nothing (seed-T3 and the idle back-off make every node do so).
    local desc="crs: wan_steals_in_flight_max per node (a0 a1 b0 b1) = $maxes: <= 1 on all, 1 on one at least"
    # shellcheck disable=SC2086  # one argument per node, split on purpose
    if python3 - $maxes <<'PY'
import sys
m = [int(x) for x in sys.argv[1:]]
sys.exit(0 if len(m) == 4 and max(m) <= 1 and max(m) >= 1 else 1)
PY
    then pass "$desc"; else fail "$desc"; fi
    echo "# crs: steal_attempts_wan per node: $(status_field steal_attempts_wan)"
}

# ---- RS: the share of wide-area steal requests -----------------------------------
#
# RS sends each request to a node drawn uniformly among the N-1 OTHER nodes
# (rs.c, satin_policy_pick over `others`).  Of these, N - N/C are in another
# cluster, so the expected wide-area share is
#     p = (N - N/C) / (N - 1) = (C-1)/C * N/(N-1)
# which is the paper's (C-1)/C only for large clusters.  Here C = 2, N = 4:
# p = 2/4 * 4/3 = 2/3 (not 1/2).  The draws are independent of everything else
# (victims are not chosen by outcome), so the wide-area count among n attempts
# is Binomial(n, p): standard deviation of the share sqrt(p(1-p)/n).  STATUS
# counts every attempt since the node started (idle ones too: the same draw),
# summed over the 4 nodes.  We ask for n >= 300 (running more seed-T3 jobs,
# at most RS_MAX_ROUNDS) and assert |share - 2/3| <= 6 sigma: a false alarm
# has probability ~2e-9, and with n >= 300 the band (at most [0.50, 0.83])
# still excludes 1/2 (a per-cluster draw) and 1 (always remote).
RS_MIN_ATTEMPTS=300
RS_MAX_ROUNDS=20
rs_share() {
    local round bad=0 lan=0 wan=0
    for round in $(seq 1 $RS_MAX_ROUNDS); do
        run "$submit" --socket "${eps[0]}" --json --timeout 120 uts tree=seed-T3
        [ "$(json_get 'd["status"], d["result"]["nodes"]')" = "ok 5529089" ] || {
            bad=$((bad + 1)); diag_last; }
        if ! status_all; then fail "rs: STATUS of every node"; return; fi
        lan=$(status_field steal_attempts_lan | awk '{print $1 + $2 + $3 + $4}')
        wan=$(status_field steal_attempts_wan | awk '{print $1 + $2 + $3 + $4}')
        [ $((lan + wan)) -ge $RS_MIN_ATTEMPTS ] && break
    done
    is "$bad" 0 "rs: uts tree=seed-T3 on node 0 = 5529089 in each of the $round run(s) for the count"
    local total=$((lan + wan))    # not n: tap.sh counts the tests in n
    if [ "$total" -lt $RS_MIN_ATTEMPTS ]; then
        fail "rs: at least $RS_MIN_ATTEMPTS steal attempts after $round runs of seed-T3 (got $total)"
        return
    fi
    local verdict
    verdict=$(python3 - "$lan" "$wan" <<'PY'
import math, sys
lan, wan = int(sys.argv[1]), int(sys.argv[2])
n = lan + wan
p = 2 / 3
share = wan / n
bound = 6 * math.sqrt(p * (1 - p) / n)
ok = abs(share - p) <= bound
print("%s %.3f %.3f %.3f %.1f" % ("ok" if ok else "no", share, p - bound, p + bound,
                                  (share - p) / math.sqrt(p * (1 - p) / n)))
PY
)
    local ok share lo hi z
    read -r ok share lo hi z <<<"$verdict"
    local desc="rs: $wan of $total steal requests ($share) went to the other cluster; expected 2/3, within [$lo, $hi] (6 sigma; here ${z} sigma)"
    if [ "$ok" = ok ]; then pass "$desc"; else fail "$desc"; fi
}

# ---- every policy ------------------------------------------------------------------

policies=(rs rp chs cls crs)
for pi in "${!policies[@]}"; do
    policy=${policies[$pi]}
    grid_up "$policy"

    before=$(wan_bytes)
    # Small jobs on two nodes of different clusters, the big one on a third;
    # which nodes rotates with the policy.
    job $((pi % 4)) nodes 50045 "$policy" uts tree=seed-T1
    job $(((pi + 2) % 4)) value 196418 "$policy" fib n=27
    job $(((pi + 1) % 4)) nodes 5529089 "$policy" uts tree=seed-T3
    after=$(wan_bytes)

    # Every job's statistics are collected from all 4 nodes (STATS_REQUEST and
    # STATS_REPLY across the wide area), and the grids steal across it, so both
    # directions carry bytes during the jobs whatever the policy.
    read -r ab0 ba0 <<<"$before"
    read -r ab1 ba1 <<<"$after"
    desc="$policy: the shim's A->B and B->A links carried bytes during the jobs (A->B $ab0 -> $ab1, B->A $ba0 -> $ba1)"
    if [[ "$ab0 $ba0 $ab1 $ba1" =~ ^[0-9]+\ [0-9]+\ [0-9]+\ [0-9]+$ ]] &&
            [ "$ab1" -gt "$ab0" ] && [ "$ba1" -gt "$ba0" ]; then
        pass "$desc"
    else
        fail "$desc"
        sed 's/^/#   /' "$tmpdir/wanem.stats"
    fi

    case $policy in
    crs) crs_in_flight ;;
    rs) rs_share ;;
    esac

    grid_down
done

# Every daemon and shim stopped: none of them reported a memory error, a leak or
# undefined behaviour on the way (only the sanitizer builds can; with the plain
# build this finds nothing).
for p in "${downs[@]}"; do wait "$p" 2>/dev/null; done
downs=()
logs=()
for d in "${run_dirs[@]}"; do for l in "$d"/*.log; do [ -f "$l" ] && logs+=("$l"); done; done
sanitizer_reports=$(grep -lE "ERROR: [A-Za-z]+Sanitizer|runtime error:" "${logs[@]}" </dev/null)
if [ -z "$sanitizer_reports" ]; then
    pass "no sanitizer report in the ${#logs[@]} logs of the ${#run_dirs[@]} grids"
else
    fail "no sanitizer report in the ${#logs[@]} logs of the ${#run_dirs[@]} grids"
    for l in $sanitizer_reports; do echo "# $l:"; head -n 40 "$l" | sed 's/^/#   /'; done
fi

echo "1..$n"
[ "$failures" -eq 0 ]
