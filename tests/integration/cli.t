#!/usr/bin/env bash
# cli.t - satin-submit against a real satind: results with their parameters,
# JSON (errors included), decimal-only integer parameters, the exit codes
# (0 ok, 1 job failed, 2 usage/bad parameters, 3 cancel of a finished job,
# 4 unknown job, 69 unreachable or shutting down, 74 output not written,
# 75 limits reached, 124 timeout), --no-wait/--wait, --cancel, --timeout on the connect wait, an
# interrupted wait that names its job, --list-kinds, --status, and a daemon
# stopped by SIGTERM: a running job finishes, new ones are refused, and one
# that outlasts --stop-timeout is cancelled.  Asserts outcomes, never times.
#
# Run from the repo root:  SATIN_BUILD=$PWD/build prove --exec '' tests/integration/cli.t
set -u

build=${SATIN_BUILD:-$PWD/build}
submit=$build/satin-submit
satind=$build/satind

pid=""        # the satind we started
bgpid=""      # the background satin-submit of the shutdown test
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-cli.XXXXXX")

pid2=""       # the satind of the limits test
cleanup() {
    if [ -n "$bgpid" ]; then kill "$bgpid" 2>/dev/null; wait "$bgpid" 2>/dev/null; fi
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
    if [ -n "$pid2" ]; then kill "$pid2" 2>/dev/null; wait "$pid2" 2>/dev/null; fi
    rm -rf "$tmpdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM    # so that the EXIT trap runs on ^C too

# ---- TAP (shared helpers) ----

. "$(dirname "$0")/tap.sh"

# ---- start a daemon -------------------------------------------------------------

for f in "$submit" "$satind"; do
    [ -x "$f" ] || { echo "Bail out! $f is missing (build it, or set SATIN_BUILD)"; exit 1; }
done
sock=$tmpdir/s.sock
ep=ipc://$sock
"$satind" --workers 2 --socket "$ep" --foreground --log-level info 2>"$tmpdir/satind.log" &
pid=$!
if ! wait_socket "$sock" "$pid" "satind to make its socket"; then
    echo "Bail out! satind did not create $sock"
    sed 's/^/# /' "$tmpdir/satind.log"
    exit 1
fi
S=(--socket "$ep")

# running: the daemon reports a running job (for wait_until)
running() {
    local n_run
    n_run=$("$submit" "${S[@]}" --json --status 2>/dev/null |
            python3 -c 'import json,sys; print(json.load(sys.stdin).get("jobs_running", 0))' 2>/dev/null)
    [ "${n_run:-0}" -ge 1 ] 2>/dev/null
}

# ---- results ----------------------------------------------------------------------

run "$submit" "${S[@]}" fib n=30
is "$rc" 0 "fib n=30 exits 0"
like "$out" "832040" "fib n=30 prints 832040"
like "$out" "value: 832040" "result lines are 'key: value'"
is "$err" "" "no progress on stderr when it is not a terminal"

run "$submit" "${S[@]}" --json uts tree=seed-T1
is "$rc" 0 "--json uts tree=seed-T1 exits 0"
is "$(json_get 'd["status"], d["result"]["nodes"]')" "ok 50045" \
    "JSON has \"status\":\"ok\" and \"nodes\":50045"
is "$(json_get 'd["kind"], d["result"]["leaves"] > 0, d["result"]["depth"] > 0, d["error"]')" \
    "uts True True None" "JSON has kind, leaves, depth and a null error"
is "$(json_get 'd["job"] > 0, "wall_s" in d["stats"], "nodes_per_s" in d["stats"]')" \
    "True True True" "JSON has the job id and the stats"

run "$submit" "${S[@]}" fib n=20 threshold=5
is "$rc" 0 "fib n=20 threshold=5 exits 0"
if printf '%s\n' "$out" | grep -qE '^fib job [0-9]+ \(n=20 threshold=5\) done in [0-9.]+ s$'; then
    pass "the summary line is 'fib job N (n=20 threshold=5) done in T s'"
else fail "the summary line is 'fib job N (n=20 threshold=5) done in T s'"; diag_last; fi
like "$out" "(n=20 threshold=5) done" "the summary line names n=20 threshold=5"
run "$submit" "${S[@]}" --json fib n=20
is "$(json_get 'd["params"], d["result"]["value"]')" "{'n': '20'} 6765" \
    "JSON has the parameters submitted with the result"

run "$submit" "${S[@]}" nqueens n=8
is "$rc" 0 "nqueens n=8 exits 0"
like "$out" "solutions: 92" "nqueens n=8 has 92 solutions"

run "$submit" "${S[@]}" --stats fib n=20
is "$rc" 0 "--stats exits 0"
like "$out" "records_run" "--stats prints the statistics table"

# ---- errors -------------------------------------------------------------------------

run "$submit" "${S[@]}" nosuch
is "$rc" 2 "unknown kind exits 2"
like "$err" "unknown job kind 'nosuch'" "the daemon's message reaches stderr"
like "$err" "satin-submit: " "with the satin-submit prefix"

run "$submit" "${S[@]}" fib n=abc
is "$rc" 2 "bad parameter exits 2"
like "$err" "parameter n=abc is not an integer" "the daemon's message for n=abc"

# Integers are decimal digits: no octal, hex or blanks (base 0 read n=010 as 8).
run "$submit" "${S[@]}" fib n=010
is "$rc" 2 "fib n=010 is refused (exit 2), not run as fib(8)"
is "$err" "satin-submit: fib: parameter n=010 has a leading zero (a whole number from 0 to 92, in decimal digits)" \
    "n=010: the message names the parameter"
is "$out" "" "n=010: nothing on stdout"
run "$submit" "${S[@]}" fib n=0x10
is "$rc" 2 "fib n=0x10 is refused (exit 2), not run as fib(16)"
is "$err" "satin-submit: fib: parameter n=0x10 is not an integer (a whole number from 0 to 92, in decimal digits)" \
    "n=0x10: the message names the parameter"
run "$submit" "${S[@]}" fib "n= 10"
is "$rc" 2 "fib 'n= 10' is refused (exit 2)"
like "$err" "parameter n= 10 is not an integer" "'n= 10': the message names the parameter"
run "$submit" "${S[@]}" fib n=-3
is "$rc" 2 "fib n=-3 is refused: fib takes no negative numbers"
like "$err" "parameter n=-3 is out of range [0, 92]" "n=-3: the message gives the range"
run "$submit" "${S[@]}" integrate f=poly a=-2 b=1
is "$rc" 0 "integrate a=-2: a kind whose range has negative numbers takes them"

# --json: a refused submission is an error object on stdout too.
run "$submit" "${S[@]}" --json nosuch
is "$rc" 2 "--json unknown kind exits 2"
is "$(json_get 'd["error"]["code"], d["error"]["message"].startswith("unknown job kind")')" \
    "unknown_kind True" "--json unknown kind: {\"error\": {\"code\": \"unknown_kind\", ...}}"
run "$submit" "${S[@]}" --json fib n=0x10
is "$rc" 2 "--json bad parameter exits 2"
is "$(json_get 'd["error"]["code"], d["error"]["message"]')" \
    "bad_params fib: parameter n=0x10 is not an integer (a whole number from 0 to 92, in decimal digits)" \
    "--json bad parameter: code bad_params and the daemon's message"
run "$submit" "${S[@]}" --json fib n
is "$(json_get 'd["error"]["code"]')" "usage" "--json parameter without '=': code usage"
run "$submit" --socket "ipc://$tmpdir/nobody-here.sock" --json fib n=3
is "$rc" 69 "--json unreachable exits 69"
is "$(json_get 'd["error"]["code"], d["error"]["message"]')" \
    "unreachable cannot reach satind at ipc://$tmpdir/nobody-here.sock: No such file or directory" \
    "--json unreachable: code unreachable and the reason"
run "$submit" "${S[@]}" --json --wait 0
is "$(json_get 'd["error"]["code"]')" "usage" "--json usage error: code usage"
run "$submit" "${S[@]}" --wait 0 --json
is "$(json_get 'd["error"]["code"], d["error"]["message"]')" "usage '0' is not a job id (a positive integer)" \
    "--json after the faulty option: still a JSON error"

run "$submit" "${S[@]}" fib n
is "$rc" 2 "a parameter without '=' exits 2 before anything is sent"
like "$err" "not key=value" "and says why"

run "$submit" "${S[@]}"
is "$rc" 2 "no kind is a usage error (exit 2)"

if [ -w /dev/full ]; then
    "$submit" "${S[@]}" fib n=5 >/dev/full 2>"$tmpdir/err"
    is "$?" 74 "a result that cannot be written exits 74"
    like "$(cat "$tmpdir/err")" "satin-submit: cannot write output: No space left on device" "and says why"
else
    for _ in 1 2; do skip "no /dev/full"; done
fi

run "$submit" "${S[@]}" --frobnicate fib n=3
is "$rc" 2 "an unknown option is a usage error (exit 2)"

run "$submit" --socket "ipc://$tmpdir/nobody-here.sock" fib n=3
is "$rc" 69 "unreachable socket exits 69"
like "$err" "cannot reach satind at ipc://$tmpdir/nobody-here.sock" "and names the endpoint"

# --timeout bounds the connect wait: a tcp endpoint nobody listens on is
# retried for S seconds, not the default 5.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
run "$submit" --socket "tcp://127.0.0.1:$port" --timeout 0.4 fib n=3
is "$rc" 69 "--timeout 0.4 to a closed tcp port exits 69"
is "$err" "satin-submit: cannot reach satind at tcp://127.0.0.1:$port: Connection refused (retried for 0.4 s)" \
    "the connect wait was bounded by --timeout 0.4"
run "$submit" --socket "tcp://127.0.0.1:$port" --timeout 9 --status
like "$err" "(retried for 5 s)" "a --timeout above 5 s leaves the connect wait at 5 s"

: >"$tmpdir/stale.sock"
run "$submit" --socket "$tmpdir/stale.sock" fib n=3
is "$rc" 69 "a socket path nobody listens on exits 69"

# ---- timeout, cancel, wait ---------------------------------------------------------------

run "$submit" "${S[@]}" --timeout 0.2 fib n=45
is "$rc" 124 "--timeout 0.2 on fib n=45 exits 124"
like "$err" "keeps running" "the message says the job keeps running"
slow=$(printf '%s' "$err" | grep -o 'job [0-9][0-9]*' | head -n 1 | cut -d' ' -f2)
if [[ $slow =~ ^[0-9]+$ ]]; then pass "the message names the job id ($slow)"; else
    fail "the message names the job id"; diag_last; fi
if [ -n "$slow" ]; then
    run "$submit" "${S[@]}" --cancel "$slow"
    is "$rc" 0 "--cancel $slow exits 0"
    is "$out" "job $slow cancelled" "and says the job is cancelled"
    run "$submit" "${S[@]}" --json --wait "$slow"
    is "$rc" 1 "--wait for the cancelled job exits 1"
    # PROTOCOL.md 6.7 says the error is "cancelled"; a daemon may add why.
    is "$(json_get 'd["status"], d["error"].startswith("cancelled"), d["result"], d["params"]')" \
        "error True {} None" "its JSON says \"status\":\"error\" with the daemon's text (params unknown to --wait)"
    run "$submit" "${S[@]}" --cancel "$slow"
    is "$rc" 3 "--cancel of the job cancelled before exits 3"
    is "$out" "job $slow had already finished (error: cancelled: by request); nothing to cancel" \
        "and says it had already finished, with its state"
else
    fail "no job id to cancel"
fi

run "$submit" "${S[@]}" --no-wait --parsable fib n=12
done_id=$out
run "$submit" "${S[@]}" --wait "$done_id"
run "$submit" "${S[@]}" --cancel "$done_id"
is "$rc" 3 "--cancel of a job that finished ok exits 3"
is "$out" "job $done_id had already finished (ok); nothing to cancel" \
    "and says it had already finished ok"
run "$submit" "${S[@]}" --json --cancel "$done_id"
is "$(json_get 'd["job"] == '"$done_id"', d["status"], d["state"], d["error"]')" \
    "True already_finished ok None" "--json: status already_finished, state ok"
run "$submit" "${S[@]}" --wait "$done_id"
is "$rc" 0 "the finished job's result is still ok after the --cancel"
like "$out" "value: 144" "and still its value"

run "$submit" "${S[@]}" --cancel 987654321
is "$rc" 4 "--cancel of an unknown job exits 4"
like "$err" "no job 987654321 on this daemon" "and says the daemon does not know it"
run "$submit" "${S[@]}" --wait 987654321
is "$rc" 4 "--wait for an unknown job exits 4"
run "$submit" "${S[@]}" --json --cancel 987654321
is "$(json_get 'd["error"]["code"]')" "unknown_job" "--json: code unknown_job"

# Interrupted while waiting, with stdout not a terminal: stderr names the
# job, which keeps running and can be collected.
"$submit" "${S[@]}" fib n=50 >"$tmpdir/int.out" 2>"$tmpdir/int.err" </dev/null &
bgpid=$!
wait_until 60 "fib n=50 to show as running" running
kill -INT "$bgpid"
wait "$bgpid"
rc=$?
bgpid=""
cp "$tmpdir/int.out" "$tmpdir/out"; cp "$tmpdir/int.err" "$tmpdir/err"
out=$(cat "$tmpdir/out"); err=$(cat "$tmpdir/err")
is "$rc" 130 "SIGINT while waiting: satin-submit dies of it (130)"
int_id=$(printf '%s' "$err" | sed -n 's/^satin-submit: interrupted; job \([0-9][0-9]*\) still running.*/\1/p')
is "$err" "satin-submit: interrupted; job $int_id still running on satind at $ep (satin-submit --socket $ep --wait $int_id to collect it, --cancel $int_id to stop it)" \
    "stderr names the job and how to collect it"
is "$out" "" "nothing on stdout"
if [ -n "$int_id" ]; then
    run "$submit" "${S[@]}" --cancel "$int_id"
    is "$rc" 0 "the interrupted job was still running (--cancel exits 0)"
else
    fail "no job id in the interrupt message"
fi

run "$submit" "${S[@]}" --no-wait --parsable fib n=25
is "$rc" 0 "--no-wait --parsable exits 0"
id=$out
if [[ $id =~ ^[0-9]+$ ]]; then pass "--parsable prints just the job id ($id)"; else
    fail "--parsable prints just the job id"; diag_last; fi
run "$submit" "${S[@]}" --wait "$id"
is "$rc" 0 "--wait $id exits 0"
like "$out" "75025" "--wait $id prints the result of fib n=25"

# ---- kinds and status ------------------------------------------------------------------------

run "$submit" "${S[@]}" --list-kinds
is "$rc" 0 "--list-kinds exits 0"
kinds=$(printf '%s\n' "$out" | awk '/^[^ ]/ {print $1}' | sort | tr '\n' ' ')
for k in fib integrate nqueens uts; do
    like " $kinds" " $k " "--list-kinds lists $k"
done
run "$submit" "${S[@]}" --json --list-kinds
is "$(json_get 'sorted(k["name"] for k in d["kinds"])')" \
    "['array', 'fib', 'ida', 'integrate', 'knapsack', 'matmul', 'nchoosek', 'nqueens', 'primefactors', 'raytracer', 'replay', 'setcover', 'synthetic', 'tsp', 'uts']" \
    "--json --list-kinds names every built-in kind"

run "$submit" "${S[@]}" --status
is "$rc" 0 "--status exits 0"
[ -n "$out" ] && pass "--status prints the daemon's state" || fail "--status prints the daemon's state"

run "$submit" "${S[@]}" fib n=10
is "$rc" 0 "the daemon still answers after all that"
like "$out" "value: 55" "fib n=10 is 55"

# ---- SIGTERM: a graceful stop ----------------------------------------------------------------------

# Four leaves that wait 0.5 s each, on 2 workers: about 1 s of work.
"$submit" "${S[@]}" synthetic depth=1 fanout=4 mean_us=500000 >"$tmpdir/bg.out" 2>"$tmpdir/bg.err" </dev/null &
bgpid=$!
# An early SIGTERM would test the refusal of new work instead.
wait_until 60 "the synthetic job to show as running" running
kill -TERM "$pid"
wait_until 60 "satind to log that it is stopping" log_has "$tmpdir/satind.log" "stopping ("
run "$submit" "${S[@]}" fib n=10
is "$rc" 69 "a submission during the stop is refused (exit 69)"
like "$err" "shutting down" "and says that satind is shutting down"
wait "$bgpid"
rc=$?
bgpid=""
is "$rc" 0 "the running job finishes after SIGTERM"
grep -q "total_us: 2000000" "$tmpdir/bg.out" && pass "with its whole result (4 leaves of 0.5 s)" || { fail "with its whole result (4 leaves of 0.5 s)"; sed 's/^/# /' "$tmpdir/bg.out" "$tmpdir/bg.err"; }
wait "$pid"
rc=$?
pid=""
is "$rc" 0 "satind exits 0 once the job is done"
grep -q "stopping (Terminated): 1 job(s) running" "$tmpdir/satind.log" && pass "the log says what it waits for" || fail "the log says what it waits for"

# ---- SIGTERM past --stop-timeout -----------------------------------------------------------------

"$satind" --workers 2 --socket "$ep" --foreground --stop-timeout 1 2>>"$tmpdir/satind.log" &
pid=$!
wait_socket "$sock" "$pid"
"$submit" "${S[@]}" fib n=50 >"$tmpdir/bg.out" 2>"$tmpdir/bg.err" </dev/null &
bgpid=$!
wait_until 60 "fib n=50 to show as running" running
kill -TERM "$pid"
wait "$bgpid"
rc=$?
bgpid=""
cp "$tmpdir/bg.out" "$tmpdir/out"
cp "$tmpdir/bg.err" "$tmpdir/err"
is "$rc" 1 "a job still running after --stop-timeout ends with an error"
shut=$(grep -ci 'shut' "$tmpdir/bg.err")
[ "$shut" -ge 1 ] && pass "its error mentions the shutdown" || { fail "its error mentions the shutdown"; diag_last; }
wait "$pid"
rc=$?
pid=""
is "$rc" 0 "satind exits 0 after SIGTERM"

# ---- the daemon's limits: exit 75 ------------------------------------------------------------------

# --max-pending 0: no queue, so a job past --max-jobs is refused (jobs.t
# covers the queue).
"$satind" --workers 1 --socket "$ep" --foreground --max-jobs 1 --max-pending 0 \
    2>>"$tmpdir/satind.log" &
pid2=$!
wait_socket "$sock" "$pid2"
run "$submit" "${S[@]}" --no-wait --parsable fib n=50
long=$out
run "$submit" "${S[@]}" fib n=3
is "$rc" 75 "a job past --max-jobs is refused with exit 75"
is "$err" "satin-submit: too many jobs: 1 running (the limit is 1) and 0 waiting (the queue holds 0); try again later" \
    "with the daemon's reason"
run "$submit" "${S[@]}" --json fib n=3
is "$(json_get 'd["error"]["code"]')" "limit_reached" "--json: code limit_reached"
"$submit" "${S[@]}" --cancel "$long" >/dev/null 2>&1
kill -TERM "$pid2"
wait "$pid2"
rc=$?
pid2=""
is "$rc" 0 "that satind exits 0 too"

if [ "$failures" -gt 0 ]; then
    echo "# satind log:"
    sed 's/^/#   /' "$tmpdir/satind.log"
fi
echo "1..$n"
[ "$failures" -eq 0 ]
