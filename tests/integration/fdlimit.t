#!/usr/bin/env bash
# fdlimit.t - satind under `prlimit --nofile=256` and 332 client connections
# (raw sockets to its IPC socket that never speak): it must neither abort
# (ZeroMQ's accept asserts on EMFILE for IPC) nor spin, but stop listening
# before descriptors run out, log it, refuse clients at once meanwhile, and
# serve a fresh client again once the connections are gone.  Asserts log
# lines, results and a CPU-time ratio that only a spinning daemon can break
# (an idle one uses next to no CPU however loaded the machine is).
set -u
build=${SATIN_BUILD:-$PWD/build}
submit=$build/satin-submit
satind=$build/satind
pid=""
hold=""
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-fdlimit.XXXXXX")
cleanup() {
    if [ -n "$hold" ]; then kill "$hold" 2>/dev/null; wait "$hold" 2>/dev/null; fi
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
command -v prlimit >/dev/null || { echo "1..0 # skip prlimit is not installed"; exit 0; }

sock=$tmpdir/s.sock
S=(--socket "ipc://$sock")
prlimit --nofile=256 "$satind" --workers 1 --socket "ipc://$sock" --foreground --log-level info \
    </dev/null 2>"$tmpdir/satind.log" &
pid=$!
wait_socket "$sock" "$pid" ||
    { echo "Bail out! satind did not start"; sed 's/^/# /' "$tmpdir/satind.log"; exit 1; }
status() { "$submit" "${S[@]}" --json --status 2>/dev/null |
           python3 -c "import json,sys; print(json.load(sys.stdin).get('$1', ''))" 2>/dev/null; }
is "$(status fd_limit)" 256 "satind reads its open-file limit (STATUS fd_limit)"

# Opens N connections (a refused one is counted, not fatal), prints the
# counts, and holds them until it is killed (by its pid).
cat >"$tmpdir/conns.py" <<'PY'
import signal, socket, sys
path, n = sys.argv[1], int(sys.argv[2])
held, refused = [], 0
for _ in range(n):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        held.append(s)
    except OSError:
        refused += 1
        s.close()
print(len(held), refused, flush=True)
signal.pause()
PY
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
python3 "$tmpdir/conns.py" "$sock" 332 >"$tmpdir/conns.out" &
hold=$!
wait_until --alive "$hold" 120 "the 332 connections to be tried" test -s "$tmpdir/conns.out"
read -r opened refused <"$tmpdir/conns.out"
is "$((opened + refused))" 332 "332 connections tried ($opened taken, $refused refused)"
kill -0 "$pid" 2>/dev/null && pass "satind is still running" || fail "satind is still running"
like "$(cat "$tmpdir/satind.log")" \
    "file descriptors in use (RLIMIT_NOFILE): not listening for clients for now" \
    "it logs that it stopped listening at the open-file limit"

# Two seconds with the connections held: what a spinning I/O thread would
# burn is a full CPU; an idle daemon uses next to none.  The time is what is
# tested: a CPU-time ratio over a window.
t0=$(ticks); s0=$(date +%s%N)
sleep 2
t1=$(ticks); s1=$(date +%s%N)
hz=$(getconf CLK_TCK)
used_ms=$(( (t1 - t0) * 1000 / hz ))
wall_ms=$(( (s1 - s0) / 1000000 ))
[ "$((used_ms * 2))" -lt "$wall_ms" ] &&
    pass "satind used less than half a CPU while full (${used_ms} ms in ${wall_ms} ms)" ||
    fail "satind used less than half a CPU while full (${used_ms} ms in ${wall_ms} ms)"

kill "$hold"
wait "$hold" 2>/dev/null
hold=""
# Refused while it still pauses; served once it listens again.
served() { run "$submit" "${S[@]}" fib n=20; [ "$rc" = 0 ]; }
wait_until --alive "$pid" 60 "a fresh client to be served" served &&
    pass "once the connections are gone, a fresh client is served"
like "$out" "value: 6765" "with the right result"
like "$(cat "$tmpdir/satind.log")" "accepting client connections again" "and satind logged that it listens again"
[ "$(status client_pauses)" -ge 1 ] 2>/dev/null && pass "STATUS counts the pause (client_pauses)" ||
    fail "STATUS counts the pause (client_pauses)"
is "$(grep -c 'Too many open files' "$tmpdir/satind.log")" 0 "no 'Too many open files' from ZeroMQ"
echo "1..$n"
[ "$failures" = 0 ]
