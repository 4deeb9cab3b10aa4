#!/usr/bin/env bash
# demo.t - `make demo`'s script, deploy/demo.sh, as a newcomer runs it: it
# brings up etc/local-2x2.yaml (here with its ports moved), prints UTS seed-T3's exact size and fib
# 32's exact value, node a0's job list and the grid's status with all four
# nodes alive, and brings the grid down (it stops its own daemons by pid;
# no satind of its run is left).
set -u
build=${SATIN_BUILD:-$PWD/build}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-demo-test.XXXXXX")
trap 'rm -rf "$tmpdir"' EXIT
. "$here/tap.sh"

# etc/local-2x2.yaml with its ports moved (the demo's own are fixed, and
# another test or run may hold them meanwhile); a port somebody else holds
# ("Address already in use") is worth another draw, five in all.
for _ in 1 2 3 4 5; do
    moved_ports "$repo/etc/local-2x2.yaml" $(port_base) >"$tmpdir/local-2x2.yaml"
    run env SATIN_BUILD="$build" TMPDIR="$tmpdir" bash "$repo/deploy/demo.sh" "$tmpdir/local-2x2.yaml"
    [ "$rc" != 0 ] && [[ $err == *"Address already in use"* ]] || break
done
is "$rc" 0 "the demo exits 0"
like "$out" "nodes: 5529089" "UTS seed-T3 has its exact size"
like "$out" "value: 2178309" "fib 32 its exact value"
like "$out" "== satin-submit --list --all" "the job list is shown"
is "$(printf '%s\n' "$out" | awk '$1 == 1 && $3 == "uts" {print $4}')" ok "with a0's uts job, ok"
is "$(printf '%s\n' "$out" | awk '$1 ~ /^[ab][01]$/ && $2 ~ /^[AB]$/ {printf "%s:%s ", $1, $3}')" \
    "a0:alive a1:alive b0:alive b1:alive " "the grid's status lists the four nodes, alive"
like "$out" "== satin-grid down" "and the grid is brought down"
left=
for d in "$tmpdir"/satin-demo.*; do
    [ -d "$d" ] && left="$left $d"
done
is "$left" "" "its run directory is gone"
alive=
for c in /proc/[0-9]*/cmdline; do
    tr '\0' ' ' <"$c" 2>/dev/null | grep -qF "$tmpdir/satin-demo." && alive="$alive ${c//[^0-9]/}"
done
is "$alive" "" "no process of its run is left"

echo "1..$n"
[ "$failures" = 0 ]
