#!/usr/bin/env bash
# jobs.t - the queue of jobs over --max-jobs: with one slot and a queue of
# two, a third and a fourth job are accepted as pending and a fifth is
# refused, naming both limits; STATUS counts them; a pending job starts when
# the running one ends, in the order they came, and its result is exact; one
# cancelled while it waits ends at once without running; at SIGTERM the
# waiting one is failed at once with a clear reason; --max-pending 0 refuses
# as before; --list shows the jobs and their states; --accounting writes one
# JSON line per finished job.  A slot is
# held by a 600 s leaf that the test cancels, never by
# a time that a slow machine could overrun.  Every satind started here is
# stopped by its pid.
set -u
build=${SATIN_BUILD:-$PWD/build}
here=$(cd "$(dirname "$0")" && pwd)
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-jobs.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$tmpdir"' EXIT
. "$here/tap.sh"
submit=$build/satin-submit
sock=ipc://$tmpdir/s.sock
# A leaf of LEAF_US microseconds (a job that holds its slot that long).
leaf() { echo synthetic depth=1 fanout=1 dist=const "mean_us=$1"; }

start() {
    "$build/satind" --workers 1 --socket "$sock" --foreground "$@" 2>"$tmpdir/log" &
    pid=$!
    wait_until --alive "$pid" 60 "satind to answer --status" "$submit" --socket "$sock" --status &&
        return 0
    echo "Bail out! satind did not start: $(cat "$tmpdir/log")"
    exit 1
}
stop() {
    kill -TERM "$pid"
    wait "$pid"
    rc=$?
    pid=
}
status_value() { "$submit" --socket "$sock" --status | awk -v k="$1" '$1 == k {print $2}'; }
pending_is() { [ "$(status_value jobs_pending)" = "$1" ]; }   # for wait_until

start --max-jobs 1 --max-pending 2 --accounting "$tmpdir/acct.jsonl"
run "$submit" --socket "$sock" --no-wait --parsable $(leaf 600000000)
is "$out" 1 "job 1 runs"
run "$submit" --socket "$sock" --no-wait --parsable $(leaf 1000)
is "$rc:$out" "0:2" "job 2 is accepted over --max-jobs 1"
run "$submit" --socket "$sock" --no-wait --parsable $(leaf 1000)
is "$rc:$out" "0:3" "job 3 too"
run "$submit" --socket "$sock" --no-wait --parsable $(leaf 1000)
isnt_zero=$([ "$rc" != 0 ] && echo refused)
is "$isnt_zero" refused "job 4 is refused: one running, two waiting"
like "$err" "too many jobs: 1 running (the limit is 1) and 2 waiting (the queue holds 2); try again later" \
    "naming both limits"
is "$(status_value jobs_running) $(status_value jobs_pending) $(status_value max_pending)" "1 2 2" \
    "STATUS: 1 running, 2 pending, a queue of 2"

# --list: the unfinished jobs as they came, with their parameters.
listing() {   # listing [--all]: "JOB KIND STATE PARAMS" per job
    "$submit" --socket "$sock" --list "$@" --json |
        python3 -c 'import json, sys
for j in json.load(sys.stdin)["jobs"]:
    print(j["job"], j["kind"], j["state"], " ".join("%s=%s" % kv for kv in j["params"].items()),
          j["run_s"] > 0, j["age_s"] > 0)'
}
is "$("$submit" --socket "$sock" --list --json | python3 -c 'import json, sys
print(" ".join(j["owner"] for j in json.load(sys.stdin)["jobs"]))')" "$(id -un) $(id -un) $(id -un)" \
    "--list: each job's owner is the uid that submitted it"
is "$(listing)" "1 synthetic running depth=1 fanout=1 dist=const mean_us=600000000 True True
2 synthetic pending depth=1 fanout=1 dist=const mean_us=1000 False True
3 synthetic pending depth=1 fanout=1 dist=const mean_us=1000 False True" \
    "--list: job 1 running, jobs 2 and 3 pending, with their parameters"
run "$submit" --socket "$sock" --list
like "$out" "  1  -                synthetic    running" "--list as a table (no name: -)"
run "$submit" --socket "$sock" --cancel 3
is "$rc:$out" "0:job 3 cancelled before it started" "job 3 cancelled while it waits: the daemon says it never started"
run "$submit" --socket "$sock" --wait 3
like "$err" "cancelled by request before it started" "it ended without running"
is "$(status_value jobs_pending)" 1 "one job waits"

run "$submit" --socket "$sock" --cancel 1
is "$rc" 0 "job 1, running, cancelled: its slot is free"
run "$submit" --socket "$sock" --wait 2
is "$rc" 0 "job 2 ran after job 1"
like "$out" "total_us: 1000" "its result is exact"
done1=$(grep -n "job 1 (synthetic) failed" "$tmpdir/log" | cut -d: -f1)
start2=$(grep -n "job 2 (synthetic) starts after" "$tmpdir/log" | cut -d: -f1)
[ -n "$done1" ] && [ -n "$start2" ] && [ "$done1" -lt "$start2" ] && pass "job 2 started when job 1 ended" ||
    fail "job 2 started when job 1 ended (log lines $done1, $start2)"
is "$(grep -c "job 3 (synthetic) starts" "$tmpdir/log")" 0 "job 3 never started"
is "$(listing --all)" "1 synthetic cancelled depth=1 fanout=1 dist=const mean_us=600000000 True True
2 synthetic ok depth=1 fanout=1 dist=const mean_us=1000 True True
3 synthetic cancelled depth=1 fanout=1 dist=const mean_us=1000 False True" \
    "--list --all: the finished jobs too, with how each ended; job 3 never ran"
is "$(listing)" "" "--list: nothing unfinished"
stop

# --accounting: one JSON line per finished job, in the order they ended.
out=$(python3 - "$tmpdir/acct.jsonl" <<'PY' 2>&1
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print(r["job"], r["owner"], r["owner_uid"], r["kind"], r["status"], r["params"]["mean_us"], r["params"]["depth"],
          r["started"] is not None, r["finished"] is not None, r["error"],
          r["result"].get("leaves", "-"), r["stats"].get("records_run", "-") if r["status"] == "ok" else "-",
          r["wait_s"] >= 0 and r["run_s"] >= 0)
PY
)
me="$(id -un) $(id -u)"
is "$out" "3 $me synthetic cancelled 1000 1 False True cancelled by request before it started - - True
1 $me synthetic cancelled 600000000 1 True True cancelled: by request - - True
2 $me synthetic ok 1000 1 True True None 1 2 True" \
    "--accounting: job 3 cancelled unstarted, job 1 cancelled running, job 2 ok with its result and statistics; each with its parameters and times"

# SIGTERM: the waiting job is told at once; the running one (600 s) is
# cancelled at the --stop-timeout.
start --max-jobs 1 --stop-timeout 1
run "$submit" --socket "$sock" --no-wait --parsable $(leaf 600000000)
# Submitted and waited for by the same client: its waiter is there as
# soon as the job is accepted.
"$submit" --socket "$sock" $(leaf 1000) >"$tmpdir/waiting.out" 2>&1 &
w2=$!
wait_until --alive "$w2" 60 "the second job to wait for the first" pending_is 1 &&
    pass "one job runs, one waits"
stop
is "$rc" 0 "satind stops cleanly"
wait "$w2"
isnt_zero=$([ "$?" != 0 ] && echo failed)
is "$isnt_zero" failed "the waiting job failed"
like "$(cat "$tmpdir/waiting.out")" "satind stopped before the job started; submit it again" \
    "and says why"
like "$(cat "$tmpdir/log")" "job 2 (synthetic) ended before it started" "it never ran"

start --max-jobs 1 --max-pending 0 --stop-timeout 1
run "$submit" --socket "$sock" --no-wait --parsable $(leaf 600000000)
run "$submit" --socket "$sock" --no-wait --parsable $(leaf 1000)
like "$err" "too many jobs: 1 running (the limit is 1) and 0 waiting (the queue holds 0)" \
    "--max-pending 0: refused as soon as the slots are taken"
stop

run "$build/satind" --max-pending -1 --socket "$sock" --foreground
is "$rc" 2 "--max-pending -1: a usage error"
like "$err" "--max-pending needs a whole number from 0 to 1000000" "says the range"

echo "1..$n"
[ "$failures" = 0 ]
