#!/usr/bin/env bash
# demo.sh - `make demo`: bring up a local grid of 2 clusters x 2 nodes
# (etc/local-2x2.yaml, policy CRS, one worker per node), run UTS seed-T3 and
# fib 32 on it, print the exact results with the LAN/WAN statistics, and bring
# the grid down (by pid, even when something fails).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
export SATIN_BUILD=${SATIN_BUILD:-$top/build}
run=$(mktemp -d "${TMPDIR:-/tmp}/satin-demo.XXXXXX")
trap '"$top/deploy/satin-grid" down --run-dir "$run"; rm -rf "$run"' EXIT

# demo.sh FILE: the same on another file of local-2x2's shape (tests/integration/demo.t
# moves its ports, so that the demo's test can run beside other tests).
topology=${1:-$top/etc/local-2x2.yaml}
echo "== satin-grid up ${1:-etc/local-2x2.yaml} (2 clusters x 2 nodes, policy crs; plain text on loopback: security none)"
mapfile -t nodes < <("$top/deploy/satin-grid" up "$topology" --run-dir "$run" --log-level warn)
printf '   %s\n' "${nodes[@]}"

show() {
    # The result lines, then the statistics that tell what the policy did.
    "$SATIN_BUILD/satin-submit" --socket "$1" --stats "${@:2}" |
        grep -E '^[a-z_]+: |done in|wall_s|jobs_(spawned|run)|grid\.(steal_attempts|steal_successes|jobs_given|msgs|bytes|wan_wait|idle)' |
        sed 's/^/   /'
}
echo
echo "== satin-submit uts tree=seed-T3   (to node a0; exact size 5529089)"
show "${nodes[0]}" uts tree=seed-T3
echo
echo "== satin-submit fib n=32           (to node b1; exact value 2178309)"
show "${nodes[3]}" fib n=32
echo
echo "== satin-submit --list --all      (the jobs node a0 keeps: owner, state, run time)"
"$SATIN_BUILD/satin-submit" --socket "${nodes[0]}" --list --all | sed 's/^/   /'
echo
echo "== satin-submit --status --grid   (the whole grid as node a0 sees it)"
"$SATIN_BUILD/satin-submit" --socket "${nodes[0]}" --status --grid | sed 's/^/   /'
echo
echo "== satin-grid down"
