#!/usr/bin/env bash
# journal.t - the accounting record in the journal: a private
# systemd-journald (in a mount namespace of the test's own, with a tmpfs on
# /run and volatile storage, so the machine's /run and journal are never
# touched) receives satind's record of each finished job, and journalctl
# reads back the SATIN_* fields of an ok job and of a cancelled one,
# equal to the --accounting file's.  journald and satind are stopped by
# pid inside the namespace.
set -u
build=${SATIN_BUILD:-$PWD/build}
here=$(cd "$(dirname "$0")" && pwd)
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-journal.XXXXXX")
trap 'rm -rf "$tmpdir"' EXIT
. "$here/tap.sh"

journald=
for f in /lib/systemd/systemd-journald /usr/lib/systemd/systemd-journald; do
    [ -x "$f" ] && { journald=$f; break; }
done
if [ "$(id -u)" != 0 ] || [ -z "$journald" ] || ! command -v unshare >/dev/null ||
    ! command -v journalctl >/dev/null; then
    echo "1..0 # SKIP needs root, unshare, systemd-journald and journalctl"
    exit 0
fi
if ! unshare --mount --propagation private sh -c 'mount -t tmpfs satin-journal-test /run' 2>/dev/null; then
    echo "1..0 # SKIP cannot make a mount namespace with a tmpfs on /run here"
    exit 0
fi

printf '[Journal]\nStorage=volatile\n' >"$tmpdir/journald.conf"
cat >"$tmpdir/inside.sh" <<'INSIDE'
# Runs in the private mount namespace: $1 the test's directory, $2 the build,
# $3 systemd-journald, $4 tap.sh (for wait_until, quiet: this prints no TAP).
set -u
dir=$1 build=$2 journald=$3
tmpdir=$dir
. "$4"
jd= sd=
trap '[ -n "$sd" ] && kill -KILL "$sd" 2>/dev/null; [ -n "$jd" ] && { kill -TERM "$jd"; wait "$jd"; }' EXIT
mount -t tmpfs -o mode=0755 satin-journal-test /run || { echo "no tmpfs on /run"; exit 1; }
mount --bind "$dir/journald.conf" /etc/systemd/journald.conf || { echo "no bind mount"; exit 1; }
mkdir -p /run/systemd/journal
"$journald" >"$dir/journald.out" 2>&1 &
jd=$!
wait_until --alive "$jd" --quiet 60 "journald" test -S /run/systemd/journal/socket ||
    { echo "journald did not start: $(cat "$dir/journald.out")"; exit 1; }
sock=ipc://$dir/s.sock
"$build/satind" --workers 1 --socket "$sock" --foreground --accounting "$dir/acct.jsonl" \
    2>"$dir/satind.log" &
sd=$!
wait_until --alive "$sd" --quiet 60 "satind" "$build/satin-submit" --socket "$sock" --status ||
    { echo "satind did not start: $(cat "$dir/satind.log")"; exit 1; }
"$build/satin-submit" --socket "$sock" fib n=20 >"$dir/job1.out" 2>&1
id=$("$build/satin-submit" --socket "$sock" --no-wait --parsable synthetic depth=1 fanout=1 \
    dist=const mean_us=600000000)
"$build/satin-submit" --socket "$sock" --cancel "$id" >/dev/null
"$build/satin-submit" --socket "$sock" --wait "$id" >/dev/null 2>&1
kill -TERM "$sd"; wait "$sd"; echo "satind exit $?"; sd=
# journald writes what it was sent before it reads more: a sync makes sure,
# and the wait covers a journalctl without --sync.
journalctl --sync 2>/dev/null
records() {
    journalctl --no-pager -o json SYSLOG_IDENTIFIER=satind SATIN_JOB_ID=1 SATIN_JOB_ID=2 \
        >"$dir/records.json"
    [ "$(wc -l <"$dir/records.json")" -ge 2 ]
}
wait_until --quiet 60 "both records" records
echo "records $(wc -l <"$dir/records.json")"
INSIDE

run unshare --mount --propagation private bash "$tmpdir/inside.sh" "$tmpdir" "$build" "$journald" \
    "$here/tap.sh"
is "$rc" 0 "the private journald and satind ran in their own mount namespace"
like "$out" "satind exit 0" "satind stopped cleanly"
like "$out" "records 2" "the journal holds satind's two records"
[ "$rc" = 0 ] || echo "$out" | sed 's/^/#   /'

fields() {   # fields JOB: the SATIN_* fields of its journal record, then the file's, one line each
    python3 - "$tmpdir" "$1" <<'PY'
import json, sys
d, job = sys.argv[1], sys.argv[2]
for line in open(d + "/records.json"):
    r = json.loads(line)
    if r.get("SATIN_JOB_ID") == job:
        print(" ".join("%s=%s" % (k, r[k]) for k in ("MESSAGE", "SATIN_KIND", "SATIN_PARAMS", "SATIN_STATUS",
                                                     "SATIN_ERROR", "SATIN_OWNER", "SATIN_OWNER_UID")))
        j = r
for line in open(d + "/acct.jsonl"):
    a = json.loads(line)
    if str(a["job"]) == job:
        print(" ".join("%s=%s" % (k, v) for k, v in (("kind", a["kind"]),
              ("params", " ".join("%s=%s" % kv for kv in a["params"].items())), ("status", a["status"]),
              ("error", a["error"] or ""), ("owner", a["owner"]), ("uid", a["owner_uid"]))))
        print("same submitted:", j["SATIN_SUBMITTED"] == a["submitted"],
              "same run time:", abs(float(j["SATIN_RUN_S"]) - a["run_s"]) < 1e-5)
PY
}
me=$(id -un) uid=$(id -u)
is "$(fields 1)" "MESSAGE=job 1 (fib) ok SATIN_KIND=fib SATIN_PARAMS=n=20 SATIN_STATUS=ok SATIN_ERROR= SATIN_OWNER=$me SATIN_OWNER_UID=$uid
kind=fib params=n=20 status=ok error= owner=$me uid=$uid
same submitted: True same run time: True" "job 1's journal record: its fields, equal to the accounting file's"
is "$(fields 2)" "MESSAGE=job 2 (synthetic) cancelled SATIN_KIND=synthetic SATIN_PARAMS=depth=1 fanout=1 dist=const mean_us=600000000 SATIN_STATUS=cancelled SATIN_ERROR=cancelled: by request SATIN_OWNER=$me SATIN_OWNER_UID=$uid
kind=synthetic params=depth=1 fanout=1 dist=const mean_us=600000000 status=cancelled error=cancelled: by request owner=$me uid=$uid
same submitted: True same run time: True" "job 2's, cancelled, too"
like "$(cat "$tmpdir/job1.out")" "value: 6765" "job 1's result was exact"

echo "1..$n"
[ "$failures" = 0 ]
