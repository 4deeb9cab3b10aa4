#!/usr/bin/env bash
# failover.t - the submitting node dies: satin-submit, given several
# endpoints, submits the same job again to the next one and prints exactly
# one, exact result.  A 2-node grid whose topology names the client
# endpoints (--topology): the node running the job is killed with SIGKILL.
# Then single daemons: one frozen with SIGSTOP (found by the heartbeat; its
# own run of the job finishes later and is never printed), one stopped with
# SIGTERM and --stop-timeout 0 (its job is cancelled as "shutting down"),
# and a list whose every node dies (exit 69, every reason named).  Also
# --status over several endpoints and the usage rules.  Asserts outcomes,
# never times; every process started here is stopped by its pid.
set -u
. "$(dirname "$0")/grid_kit.sh" failover
satind=$build/satind

mine=()     # pids of the single daemons and background submits started here
stop_mine() {
    local p
    for p in "${mine[@]}"; do
        kill -KILL "$p" 2>/dev/null   # stopped or not
        wait "$p" 2>/dev/null
    done
}
trap 'stop_mine; "$grid" down --run-dir "$tmpdir/g" >/dev/null 2>&1; rm -rf "$tmpdir"' EXIT

topology() {   # topology BASE FILE
    cat >"$2" <<Y
grid: failover-test
policy: rs
security: none
clusters:
  - name: A
    nodes:
      - {id: n0, endpoint: "tcp://127.0.0.1:$1", client: "ipc://$tmpdir/g/n0.sock", workers: 1}
      - {id: n1, endpoint: "tcp://127.0.0.1:$(($1 + 1))", client: "ipc://$tmpdir/g/n1.sock", workers: 1}
Y
}

# running_at ENDPOINT: the node there runs a job
running_at() { [ "$(status_of "$1" jobs_running)" -ge 1 ] 2>/dev/null; }

# bg_submit ARGS...: satin-submit in the background (bg = its pid), its
# output in $tmpdir/out and $tmpdir/err; bg_wait leaves rc, out and err.
bg_submit() {
    "$submit" "$@" >"$tmpdir/out" 2>"$tmpdir/err" </dev/null &
    bg=$!
    mine+=("$bg")
}
bg_wait() {
    wait "$bg"
    rc=$?
    out=$(cat "$tmpdir/out")
    err=$(cat "$tmpdir/err")
}

# daemon NAME [ARGS...]: a single satind at ipc://$tmpdir/NAME.sock (pid in
# pid_NAME), logging to $tmpdir/NAME.log.
daemon() {
    local name=$1 sock=$tmpdir/$1.sock
    shift
    "$satind" --workers 1 --socket "ipc://$sock" --foreground --log-level info "$@" \
        2>"$tmpdir/$name.log" &
    mine+=("$!")
    printf -v "pid_$name" %s "$!"
    wait_socket "$sock" "$!" && return 0
    echo "Bail out! satind $name did not create $sock"
    exit 1
}

# slay SIG NAME: signals the single daemon NAME and, unless it is only
# stopped, reaps it (quietly: bash would report the kill on stderr).
slay() {
    local var=pid_$2
    local pid=${!var}
    kill "-$1" "$pid"
    [ "$1" = STOP ] || wait "$pid" 2>/dev/null
}

job=(--json fib n=40)   # over a second on one worker: still running when killed
value=102334155
line() {   # line DEAD NEXT CAUSE: the re-submission line satin-submit prints
    echo "satin-submit: node at $1 stopped answering ($3); re-submitting job 1 to $2"
}

# ---- a grid node killed under a running job (--topology) --------------------------

grid_up topology info
e0=ipc://$tmpdir/g/n0.sock
e1=ipc://$tmpdir/g/n1.sock
bg_submit --topology "$tmpdir/t.yaml" "${job[@]}"
wait_until --alive "$bg" 60 "a job to run at $e0" running_at "$e0"
kill -KILL "$(cat "$tmpdir/g/n0.pid")"
bg_wait
is "$rc" 0 "a job whose node was killed ends well (--topology)"
is "$(json_get 'd["result"]["value"]')" "$value" "with the exact result"
is "$(wc -l <"$tmpdir/out")" 1 "printed once"
is "$err" "$(line "$e0" "$e1" "connection lost")" "stderr has exactly the re-submission line"

# ---- --status over several endpoints, one of them dead -----------------------------

run "$submit" --socket "$e0" --socket "$e1" --status
is "$rc" 69 "--status with a dead endpoint exits 69"
like "$out" "$e1:" "it still shows the live node, under its endpoint"
like "$out" "  jobs_finished" "with its table"
like "$err" "cannot reach satind at $e0" "and names the dead one on stderr"
run "$submit" --socket "$e0" --socket "$e1" --json --status
is "$(json_get '[("error" in x, x["endpoint"]) for x in d]')" \
    "[(True, '$e0'), (False, '$e1')]" "--json --status: one entry per endpoint"
# n1 may still hold records of n0's job, which nobody will collect: its
# graceful stop would wait for them.  Done with the grid: kill it too.
kill -KILL "$(cat "$tmpdir/g/n1.pid")"

# ---- a frozen node (SIGSTOP): the heartbeat gives it up ------------------------------

daemon s0
daemon s1
bg_submit --socket "$tmpdir/s0.sock" --socket "$tmpdir/s1.sock" "${job[@]}"
wait_until --alive "$bg" 60 "a job to run at ipc://$tmpdir/s0.sock" running_at "ipc://$tmpdir/s0.sock"
slay STOP s0
bg_wait
kill -CONT "$pid_s0"
is "$rc" 0 "a job whose node froze ends well"
is "$(json_get 'd["result"]["value"]')" "$value" "with the exact result"
is "$(wc -l <"$tmpdir/out")" 1 "printed once"
is "$err" "$(line "ipc://$tmpdir/s0.sock" "ipc://$tmpdir/s1.sock" "connection lost")" \
    "stderr has exactly the re-submission line"
# The frozen node still runs its copy once it thaws: a slow node can make a
# job run twice, but its result has no connection to come back on.
wait_until 120 "the thawed s0 to log its own copy done" log_has "$tmpdir/s0.log" "job 1 (fib) done" &&
    pass "the thawed node finished its own copy too"

# ---- a node stopping (SIGTERM, --stop-timeout 0): its job is cancelled ------------

daemon s2 --stop-timeout 0
bg_submit --socket "$tmpdir/s2.sock" --socket "$tmpdir/s1.sock" "${job[@]}"
wait_until --alive "$bg" 60 "a job to run at ipc://$tmpdir/s2.sock" running_at "ipc://$tmpdir/s2.sock"
slay TERM s2
bg_wait
is "$rc" 0 "a job cancelled by its node's shutdown ends well"
is "$(json_get 'd["result"]["value"]')" "$value" "with the exact result"
is "$err" "$(line "ipc://$tmpdir/s2.sock" "ipc://$tmpdir/s1.sock" "shutting down")" \
    "stderr has exactly the re-submission line"

# ---- every endpoint dies -------------------------------------------------------------

# A job that sleeps a minute: still running on the second node when that
# one is killed too, however slow this machine is.
bg_submit --socket "$tmpdir/s0.sock" --socket "$tmpdir/s1.sock" synthetic depth=0 fanout=1 \
    mean_us=60000000
wait_until --alive "$bg" 60 "a job to run at ipc://$tmpdir/s0.sock" running_at "ipc://$tmpdir/s0.sock"
slay KILL s0
wait_until --alive "$bg" 60 "a job to run at ipc://$tmpdir/s1.sock" running_at "ipc://$tmpdir/s1.sock"
slay KILL s1
bg_wait
is "$rc" 69 "when every node died: exit 69"
like "$err" "$(line "ipc://$tmpdir/s0.sock" "ipc://$tmpdir/s1.sock" "connection lost")" \
    "after moving the job once"
like "$err" "every endpoint failed: satind at ipc://$tmpdir/s0.sock stopped answering (connection lost); satind at ipc://$tmpdir/s1.sock stopped answering (connection lost)" \
    "the error names every node and why"

run "$submit" --socket "$tmpdir/s0.sock" --socket "$tmpdir/s1.sock" fib n=1
is "$rc" 69 "no node answering at all: exit 69"
like "$err" "every endpoint failed: cannot reach satind at ipc://$tmpdir/s0.sock" "naming them"

# ---- usage ------------------------------------------------------------------------------

run "$submit" --socket "$tmpdir/s0.sock" --socket "$tmpdir/s1.sock" --wait 1
is "$rc" 2 "--wait takes a single endpoint"
run "$submit" --socket "$tmpdir/s0.sock" --socket "$tmpdir/s1.sock" --no-wait fib n=1
is "$rc" 2 "--no-wait takes a single endpoint"
run "$submit" --topology "$repo/etc/local-2x2.yaml" fib n=1
is "$rc" 2 "a topology without client endpoints is a usage error"
like "$err" "give the nodes' endpoints with --socket" "saying what to do instead"

if [ "$failures" -gt 0 ]; then
    for f in "$tmpdir"/g/*.log "$tmpdir"/*.log; do
        echo "# $f:"
        sed 's/^/#   /' "$f"
    done
fi
echo "1..$n"
[ "$failures" = 0 ]
