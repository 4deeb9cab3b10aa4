#!/usr/bin/env bash
# service.t - satind as a service.  Under a (fake) systemd it says READY=1
# once it listens, keeps STATUS= up to date, pings WATCHDOG=1 when
# WATCHDOG_USEC is set, and says STOPPING=1 on SIGTERM (the notification
# socket is a Python datagram listener writing what it gets to a file).
# SIGHUP reopens --log-file after a rotation; --socket-group gives the IPC
# socket to a group, and an unknown group stops start-up.  Asserts what
# arrives, never when.
set -u
build=${SATIN_BUILD:-$PWD/build}
here=$(cd "$(dirname "$0")" && pwd)
satind=$build/satind
submit=$build/satin-submit
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-notify.XXXXXX")
pid=""
lpid=""
cleanup() {
    [ -n "$pid" ] && { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
    [ -n "$lpid" ] && { kill "$lpid" 2>/dev/null; wait "$lpid" 2>/dev/null; }
    rm -rf "$tmpdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
. "$here/tap.sh"

python3 -u -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a") as f:
    while True:
        f.write(s.recv(4096).decode().replace("\n", " | ") + "\n")
        f.flush()
' "$tmpdir/notify" "$tmpdir/got" &
lpid=$!
wait_until --alive "$lpid" 60 "the fake systemd to listen" test -S "$tmpdir/notify"

# notified TEXT: a notification contains TEXT
notified() { grep -qF -- "$1" "$tmpdir/got" 2>/dev/null; }

NOTIFY_SOCKET=$tmpdir/notify WATCHDOG_USEC=200000 \
    "$satind" --workers 1 --socket "ipc://$tmpdir/s.sock" --foreground --log-file "$tmpdir/satind.log" &
pid=$!
wait_until --alive "$pid" 60 "READY=1" notified "READY=1"
like "$(cat "$tmpdir/got")" "READY=1 | MAINPID=$pid | STATUS=standalone: 1 workers, clients on ipc://$tmpdir/s.sock" "READY=1 with the main pid and a status line"
wait_until 60 "a WATCHDOG=1 ping" notified "WATCHDOG=1" &&
    pass "WATCHDOG=1 pings arrive when WATCHDOG_USEC is set"
run "$submit" --socket "ipc://$tmpdir/s.sock" fib n=20
like "$out" "value: 6765" "a job runs"
wait_until 60 "the status to follow the job" notified "STATUS=0 job(s) running, 1 finished" &&
    pass "STATUS follows the jobs" || sed 's/^/# /' "$tmpdir/got"
like "$(cat "$tmpdir/satind.log")" "job 1 (fib) done" "--log-file gets the log"
mv "$tmpdir/satind.log" "$tmpdir/satind.log.1"
kill -HUP "$pid"
wait_until --alive "$pid" 60 "satind to reopen its log" test -s "$tmpdir/satind.log"
like "$(cat "$tmpdir/satind.log" 2>/dev/null)" "SIGHUP: log reopened; 0 job(s) running, 1 finished" "SIGHUP reopens the log file after a rotation"
kill -TERM "$pid"
wait "$pid"
rc=$?
pid=""
is "$rc" 0 "satind exits 0 on SIGTERM"
wait_until 60 "STOPPING=1" notified "STOPPING=1" && pass "after STOPPING=1"
like "$(cat "$tmpdir/satind.log")" "stopped" "the rest of the log went to the new file"

# ---- the socket's group --------------------------------------------------------------------------

run timeout 20 "$satind" --workers 1 --socket "ipc://$tmpdir/g.sock" --foreground --socket-group no-such-group-here
is "$rc" 1 "an unknown --socket-group stops start-up"
like "$err" "--socket-group: no group named 'no-such-group-here'" "and says why"
if [ "$(id -u)" = 0 ] && getent group daemon >/dev/null; then
    "$satind" --workers 1 --socket "ipc://$tmpdir/g.sock" --foreground --socket-group daemon 2>"$tmpdir/g.log" &
    pid=$!
    wait_socket "$tmpdir/g.sock" "$pid" "satind's socket with --socket-group daemon"
    is "$(stat -c '%a %G' "$tmpdir/g.sock")" "660 daemon" "--socket-group daemon: the socket is 0660, group daemon"
    kill -TERM "$pid"; wait "$pid"; pid=""
else
    skip "--socket-group needs root and a 'daemon' group"
fi
echo "1..$n"
[ "$failures" = 0 ]
