#!/bin/sh
# test.sh MODULE - the kind's answers, on the programs a Satin grid install
# puts on PATH: traced on one worker (satin-trace), then run by a satind of
# two workers that loads it, which this script starts and stops by its pid.
# Prints TAP; exits 1 when a check fails.
set -u
module=${1:-./langford.so}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kind-test.XXXXXX")
pid=""
cleanup() {
    if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
n=0 failed=0
check() {   # check DESCRIPTION COMMAND...: ok when COMMAND succeeds
    desc=$1
    shift
    n=$((n + 1))
    if "$@"; then echo "ok $n - $desc"; else echo "not ok $n - $desc"; failed=$((failed + 1)); fi
}

# A module loads only from a directory nobody else may write.
chmod 0755 "$tmp"
mkdir -m 0755 "$tmp/kinds"
install -m 0644 "$module" "$tmp/kinds/"

# Known answers: L(2,n) for n = 3, 7, 8, 11 (OEIS A014552); none for n = 5.
for case in 3:1 5:0 7:26 8:150 11:17792; do
    want=${case#*:} nn=${case%:*}
    satin-trace --kinds-dir "$tmp/kinds" -o "$tmp/l.trace" langford "n=$nn" >"$tmp/out" 2>&1
    check "satin-trace: langford n=$nn has $want pairings" grep -q "result: pairings=$want\$" "$tmp/out"
done
quiet() { "$@" >/dev/null 2>&1; }
check "satin-trace --check reads the tree it wrote" quiet satin-trace --check "$tmp/l.trace"

satind --foreground --workers 2 --kinds-dir "$tmp/kinds" --socket "ipc://$tmp/s.sock" \
    2>"$tmp/satind.log" &
pid=$!
tries=0
until satin-submit --socket "ipc://$tmp/s.sock" --status >/dev/null 2>&1; do
    tries=$((tries + 1))
    if [ "$tries" -gt 600 ] || ! kill -0 "$pid" 2>/dev/null; then
        echo "Bail out! satind did not come up: $(cat "$tmp/satind.log")"
        exit 1
    fi
    sleep 0.1   # polling for the daemon's socket, at most 60 s
done
satin-submit --socket "ipc://$tmp/s.sock" --list-kinds >"$tmp/kinds.txt" 2>&1
check "satind lists the kind" grep -q "^langford" "$tmp/kinds.txt"
satin-submit --socket "ipc://$tmp/s.sock" --timeout 120 langford n=11 >"$tmp/run.txt" 2>&1
check "satind: langford n=11 has 17792 pairings" grep -q "pairings.*17792" "$tmp/run.txt"
satin-submit --socket "ipc://$tmp/s.sock" langford n=40 >"$tmp/bad.txt" 2>&1
check "satind refuses n=40 with the kind's own message" grep -q "n=40 is out of range" "$tmp/bad.txt"
kill -TERM "$pid"
wait "$pid"
check "satind stops cleanly" test "$?" = 0
pid=""
echo "1..$n"
[ "$failed" = 0 ]
