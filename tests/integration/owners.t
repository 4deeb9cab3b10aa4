#!/usr/bin/env bash
# owners.t - a job belongs to whoever submitted it: over ipc:// that is the
# client's uid, which the kernel gives for its end of the socket.  root
# and the uid nobody share one satind (its socket in group nogroup);
# nobody sees root's job in --list, with its owner but not its parameters,
# and may neither wait on nor cancel it (exit 77, naming the owner); root,
# an admin, sees and cancels every job; each job's accounting record names
# its owner and uid.  Jobs are 600 s leaves the test cancels, never a
# timing.  The satind started here is stopped by its pid.
set -u
build=${SATIN_BUILD:-$PWD/build}
here=$(cd "$(dirname "$0")" && pwd)
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-owners.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$tmpdir"' EXIT
. "$here/tap.sh"

if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null || ! getent group nogroup >/dev/null ||
    ! getent passwd nobody >/dev/null; then
    echo "1..0 # SKIP needs root, setpriv, the user nobody and the group nogroup"
    exit 0
fi
nobody_uid=$(id -u nobody)
nogroup_gid=$(getent group nogroup | cut -d: -f3)
# nobody runs its own copy of satin-submit: the build tree may sit where
# other users cannot enter.
chmod 0755 "$tmpdir"
cp "$build/satin-submit" "$tmpdir/satin-submit"
chmod 0755 "$tmpdir/satin-submit"
sock=ipc://$tmpdir/s.sock
as_root() { "$tmpdir/satin-submit" --socket "$sock" "$@"; }
as_nobody() {
    setpriv --reuid="$nobody_uid" --regid="$nogroup_gid" --clear-groups \
        "$tmpdir/satin-submit" --socket "$sock" "$@"
}
leaf() { echo synthetic depth=1 fanout=1 dist=const "mean_us=$1"; }

"$build/satind" --workers 1 --socket "$sock" --socket-group nogroup --foreground \
    --accounting "$tmpdir/acct.jsonl" --log-level info 2>"$tmpdir/log" &
pid=$!
wait_until --alive "$pid" 60 "satind to answer root's --status" as_root --status

run as_root --no-wait --parsable $(leaf 600000000)
is "$rc:$out" "0:1" "root submits job 1"
run as_nobody --no-wait --parsable $(leaf 500000000)
is "$rc:$out" "0:2" "nobody submits job 2 through the same socket (group nogroup)"

listing() {   # listing AS: "JOB OWNER STATE PARAMS" per job
    "$@" --list --json | python3 -c 'import json, sys
for j in json.load(sys.stdin)["jobs"]:
    p = j["params"]
    print(j["job"], j["owner"], j["state"],
          "(hidden)" if p is None else " ".join("%s=%s" % kv for kv in p.items()))'
}
is "$(listing as_nobody)" "1 root running (hidden)
2 nobody running depth=1 fanout=1 dist=const mean_us=500000000" \
    "nobody's --list: root's job with its owner but not its parameters; its own whole"
is "$(listing as_root)" "1 root running depth=1 fanout=1 dist=const mean_us=600000000
2 nobody running depth=1 fanout=1 dist=const mean_us=500000000" \
    "root's --list: every job whole (root is an admin)"
run as_nobody --list
like "$out" "     1  -                synthetic    running   root" "the table has an OWNER column"
like "$out" "  -" "and a dash for parameters it may not see"

run as_nobody --cancel 1
is "$rc" 77 "nobody may not cancel root's job (exit 77)"
like "$err" "job 1 belongs to root: only its owner or an admin may cancel it" "naming the owner"
run as_nobody --wait 1
is "$rc" 77 "nor wait on it"
like "$err" "job 1 belongs to root: only its owner or an admin may wait on it" "naming the owner"
is "$(listing as_root | head -1)" "1 root running depth=1 fanout=1 dist=const mean_us=600000000" \
    "root's job still runs"
like "$(cat "$tmpdir/log")" "refused nobody: may not cancel job 1 of root" "the daemon logs the refusal"

run as_nobody --cancel 2
is "$rc" 0 "nobody cancels its own job"
run as_root --cancel 1
is "$rc" 0 "root cancels its own"
run as_nobody --no-wait --parsable $(leaf 1000)
run as_root --wait "$out"
is "$rc" 0 "root may wait on nobody's job 3 (an admin)"
like "$out" "total_us: 1000" "and gets its result"

kill -TERM "$pid"
wait "$pid"
is "$?" 0 "satind stops cleanly"
pid=
out=$(python3 - "$tmpdir/acct.jsonl" <<'PY' 2>&1
import json, sys
for line in sorted(open(sys.argv[1]), key=lambda l: json.loads(l)["job"]):
    r = json.loads(line)
    print(r["job"], r["owner"], r["owner_uid"], r["status"])
PY
)
is "$out" "1 root 0 cancelled
2 nobody $nobody_uid cancelled
3 nobody $nobody_uid ok" "the accounting records name each job's owner and uid"

echo "1..$n"
[ "$failures" = 0 ]
