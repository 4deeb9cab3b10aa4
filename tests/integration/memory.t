#!/usr/bin/env bash
# memory.t - a job that nests as deep as the worker stack allows (uts on an
# effectively endless tree: ~15,000 nested frames and as many records) fails
# with "recursion too deep", and afterwards the daemon gives the memory back:
# its resident size (VmRSS, /proc/PID/status) falls below 64 MiB again,
# although it rose above 128 MiB during the job (VmHWM), which shows the job
# did go deep.  Asserts memory, never times.  Sanitizer builds keep freed
# memory in quarantine and use larger frames: the bounds are skipped there.
set -u
build=${SATIN_BUILD:-$PWD/build}
submit=$build/satin-submit
satind=$build/satind
pid=""
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-memory.XXXXXX")
cleanup() {
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
    rm -rf "$tmpdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
. "$(dirname "$0")/tap.sh"
rc=0
: >"$tmpdir/out"; : >"$tmpdir/err"

for f in "$submit" "$satind"; do
    [ -x "$f" ] || { echo "Bail out! $f is missing (build it, or set SATIN_BUILD)"; exit 1; }
done
sanitized=0
nm "$satind" 2>/dev/null | grep -qE "__(asan|tsan)_init" && sanitized=1

sock=$tmpdir/s.sock
"$satind" --workers 2 --socket "ipc://$sock" --foreground 2>"$tmpdir/satind.log" &
pid=$!
wait_socket "$sock" "$pid" ||
    { echo "Bail out! satind did not start"; sed 's/^/# /' "$tmpdir/satind.log"; exit 1; }
S=(--socket "ipc://$sock")
kib() { sed -n "s/^$1:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$pid/status"; }
# rss_below: VmRSS below 64 MiB (in $rss, and on stdout, in KiB)
rss_below() { rss=$(kib VmRSS); echo "VmRSS $rss KiB"; [ "$rss" -lt 65536 ]; }
bounded() {   # bounded DESC: VmRSS below 64 MiB (waits for the workers to finish releasing)
    if [ "$sanitized" = 1 ]; then
        skip "$1: a sanitizer build ($(kib VmRSS) KiB)"
        return
    fi
    wait_until 60 "VmRSS to fall below 64 MiB: $1" rss_below && pass "$1 ($rss KiB)"
}

run "$submit" "${S[@]}" uts gen=std t=1 a=0 d=100000 b=4
is "$rc" 1 "the endless uts tree fails (exit 1)"
like "$err" "recursion too deep: the worker stack (256 MiB) is exhausted at nesting depth" \
    "with the depth guard's error"
hwm=$(kib VmHWM)
if [ "$sanitized" = 1 ]; then
    skip "the job went deep: a sanitizer build"
else
    gt "$hwm" 131072 "the job went deep: the daemon's peak resident size (KiB) passed 128 MiB"
fi
bounded "after it, the daemon's resident size is back below 64 MiB"

run "$submit" "${S[@]}" uts tree=T1
like "$out" "nodes: 4130071" "the daemon still runs a uts job exactly"
bounded "and stays below 64 MiB"
kill -0 "$pid" 2>/dev/null && pass "the daemon is alive" || fail "the daemon is alive"
echo "1..$n"
[ "$failures" = 0 ]
