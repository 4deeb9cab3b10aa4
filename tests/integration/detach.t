#!/usr/bin/env bash
# detach.t - satind as a background daemon and its default sockets: without
# --foreground it returns once ready, writes --pidfile (removed at a clean
# exit, refused while it names a running satind, taken over when stale),
# and logs nothing more to the terminal it left (--log-file gets the log
# instead); two nodes of one topology on one host get sockets of their own
# by default (satind-ID.sock), which satin-submit --node finds.
set -u
build=${SATIN_BUILD:-$PWD/build}
satind=$build/satind
submit=$build/satin-submit
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-detach.XXXXXX")
pids=()      # every satind (and helper) we started, by pid
cleanup() {
    local p
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    rm -rf "$tmpdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
. "$(dirname "$0")/tap.sh"
unset SATIN_SOCKET

for f in "$submit" "$satind"; do
    [ -x "$f" ] || { echo "Bail out! $f is missing (build it, or set SATIN_BUILD)"; exit 1; }
done

# ---- a detached daemon with --pidfile ------------------------------------------------

sock=$tmpdir/d.sock
pidfile=$tmpdir/d.pid
"$satind" --workers 1 --socket "$sock" --pidfile "$pidfile" </dev/null >"$tmpdir/term.out" 2>"$tmpdir/term.err"
rc=$?
is "$rc" 0 "satind without --foreground returns 0 once ready"
dpid=$(cat "$pidfile" 2>/dev/null)
[[ $dpid =~ ^[0-9]+$ ]] && pids+=("$dpid")
is "$(readlink "/proc/$dpid/exe" 2>/dev/null)" "$(readlink -f "$satind")" "the pid file names the running satind"
[ -S "$sock" ] && pass "it listens on its socket" || fail "it listens on its socket"
before=$(cat "$tmpdir/term.err" "$tmpdir/term.out")

run "$satind" --workers 1 --socket "$tmpdir/d2.sock" --pidfile "$pidfile"
is "$rc" 1 "a second satind with the same --pidfile is refused"
is "$err" "satind: the pid file $pidfile names a running satind (pid $dpid); stop it first, or choose another --pidfile" \
    "and says which satind holds it"
[ ! -e "$tmpdir/d2.sock" ] && pass "the refused satind made no socket" || fail "the refused satind made no socket"
is "$(cat "$pidfile")" "$dpid" "the pid file still names the first"

# Events that log at the default level: a cancelled job, then the stop.
run "$submit" --socket "$sock" --no-wait --parsable fib n=50
run "$submit" --socket "$sock" --cancel "$out"
is "$rc" 0 "the detached daemon serves clients"
kill -TERM "$dpid"
wait_until 60 "the detached satind to exit after SIGTERM" ! kill -0 "$dpid" && pass "SIGTERM stops it"
is "$(cat "$tmpdir/term.err" "$tmpdir/term.out")" "$before" \
    "nothing was written to the terminal it left (the log went to syslog)"
[ ! -e "$pidfile" ] && pass "the pid file is removed at a clean exit" || fail "the pid file is removed at a clean exit"

# A pid file left by a daemon that died (no lock on it) is taken over.
sleep 300 &
other=$!
pids+=("$other")
echo "$other" >"$pidfile"
"$satind" --workers 1 --socket "$sock" --pidfile "$pidfile" --log-file "$tmpdir/d.log" \
    </dev/null >"$tmpdir/term.out" 2>"$tmpdir/term.err"
is "$?" 0 "a stale pid file (a pid that is no satind) does not stop a start"
dpid=$(cat "$pidfile" 2>/dev/null)
[[ $dpid =~ ^[0-9]+$ ]] && pids+=("$dpid")
is "$(readlink "/proc/$dpid/exe" 2>/dev/null)" "$(readlink -f "$satind")" "it now names the new satind"
kill -0 "$other" 2>/dev/null && pass "the process it named before is left alone" || fail "the process it named before is left alone"
before=$(cat "$tmpdir/term.err" "$tmpdir/term.out")
kill -TERM "$dpid"
wait_until 60 "the detached satind to exit after SIGTERM" ! kill -0 "$dpid"
grep -q "satind\[$dpid\] info: stopped" "$tmpdir/d.log" && pass "with --log-file the detached daemon logs there to the end" ||
    { fail "with --log-file the detached daemon logs there to the end"; sed 's/^/#   /' "$tmpdir/d.log"; }
is "$(cat "$tmpdir/term.err" "$tmpdir/term.out")" "$before" "and not to the terminal"

# ---- two nodes of one topology on one host: default sockets of their own -----------

ports=$(python3 -c 'import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
set -- $ports
cat >"$tmpdir/two.yaml" <<Y
grid: detach-test
policy: rs
security: none
clusters:
  - name: A
    nodes:
      - {id: a0, endpoint: "tcp://127.0.0.1:$1", workers: 1}
      - {id: a1, endpoint: "tcp://127.0.0.1:$2", workers: 1}
Y
xdg=$tmpdir/xdg
mkdir -m 0700 "$xdg"
for id in a0 a1; do
    env XDG_RUNTIME_DIR="$xdg" "$satind" --config "$tmpdir/two.yaml" --node "$id" --foreground \
        </dev/null >"$tmpdir/$id.log" 2>&1 &
    pids+=("$!")
    eval "pid_$id=$!"
done
for id in a0 a1; do
    eval "id_pid=\$pid_$id"
    wait_socket "$xdg/satin/satind-$id.sock" "$id_pid" "node $id's default socket satind-$id.sock" &&
        pass "node $id listens on satind-$id.sock by default" || sed 's/^/#   /' "$tmpdir/$id.log"
done
run env XDG_RUNTIME_DIR="$xdg" "$submit" --node a1 --json --status
is "$(json_get 'd["endpoint"], d["pid"]')" "ipc://$xdg/satin/satind-a1.sock $pid_a1" \
    "satin-submit --node a1 reaches node a1"
run env XDG_RUNTIME_DIR="$xdg" "$submit" --node a0 fib n=20
like "$out" "value: 6765" "satin-submit --node a0 runs a job on node a0"
kill -TERM "$pid_a0" "$pid_a1"
wait "$pid_a0" "$pid_a1"

echo "1..$n"
[ "$failures" -eq 0 ]
