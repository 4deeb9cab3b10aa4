# grid_kit.sh - shared by the shell tests that bring a small grid up with
# deploy/satin-grid (sourced, not run).  Sets build, repo, submit, grid;
# makes $tmpdir (its name from $1); on exit stops the grid of $tmpdir/g by
# its pids and removes $tmpdir; sources tap.sh.  status_of ENDPOINT KEY
# reads one value of a node's STATUS; adopt ID PID hands a satind the test
# started to the grid, for satin-grid down to stop; start_t1l and finish_t1l
# run the long job of the fault tests; keep_busy and took_records keep work
# on the grid until a node that joins late has taken some.
#
#   grid_up WRITE [LEVEL]
#                       draws a base of 16 free ports (tap.sh's port_base), runs
#                       `WRITE BASE FILE` to write the topology, and brings
#                       it up in $tmpdir/g (endpoints in $tmpdir/ep; the
#                       daemons log at LEVEL, default warn); five draws
#                       before it gives up (a port was taken) with a TAP
#                       bail-out.
build=${SATIN_BUILD:-$PWD/build}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
export SATIN_BUILD=$build            # satin-grid finds satind and satin-wanem through it
submit=$build/satin-submit
grid=$repo/deploy/satin-grid
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-$1.XXXXXX")
# SATIN_KEEP_TMP=1 keeps the directory (the nodes' logs) for a look after a failure.
trap '"$grid" down --run-dir "$tmpdir/g" >/dev/null 2>&1; [ -n "${SATIN_KEEP_TMP-}" ] || rm -rf "$tmpdir"' EXIT
trap 'exit 130' INT TERM
. "$here/tap.sh"

# status_of ENDPOINT KEY: one value of a node's STATUS (0 when absent)
status_of() {
    "$submit" --socket "$1" --json --status 2>/dev/null |
        python3 -c "import json,sys; print(json.load(sys.stdin).get('$2', 0))" 2>/dev/null
}

# start_t1l SOCKET [TIMEOUT]: uts T1L (102181082 nodes) submitted to the
# node at SOCKET in the background (job_pid), its JSON into $tmpdir/out.json;
# finish_t1l LABEL waits for it and checks that it ends 0 with the exact size.
start_t1l() {
    "$submit" --socket "$1" --json --stats --timeout "${2:-120}" uts tree=T1L \
        >"$tmpdir/out.json" 2>"$tmpdir/out.err" &
    job_pid=$!
}

finish_t1l() {
    wait "$job_pid"
    rc=$?
    out=$(cat "$tmpdir/out.json")
    is "$rc" 0 "$1: satin-submit exits 0"
    is "$(json_get 'd["status"], d["result"]["nodes"]')" "ok 102181082" "$1: the exact tree size"
}

# adopt ID PID: a satind the test started itself becomes node ID of the
# grid in $tmpdir/g, for satin-grid down to stop: ID.pid and ID.proc
# ("STARTTIME EXE", as satin-grid records them at up).
adopt() {
    local stat exe
    # Until the child has exec'd satind (what satin-grid down checks).
    wait_until --alive "$2" 60 "process $2 to be satind" is_satind "$2"
    exe=$(readlink "/proc/$2/exe")
    stat=$(cat "/proc/$2/stat") && stat=${stat##*) } && set -- "$1" "$2" $stat
    echo "$2" >"$tmpdir/g/$1.pid"
    echo "${22} $exe" >"$tmpdir/g/$1.proc"
}

# is_satind PID: process PID runs $build/satind (for wait_until)
is_satind() { [ "$(readlink "/proc/$1/exe")" = "$(readlink -f "$build/satind")" ]; }

grid_up() {
    local try base
    for try in 1 2 3 4 5; do
        base=$(port_base)
        "$1" "$base" "$tmpdir/t.yaml"
        "$grid" up "$tmpdir/t.yaml" --run-dir "$tmpdir/g" --log-level "${2:-warn}" >"$tmpdir/ep" 2>"$tmpdir/up.err" && return 0
        "$grid" down --run-dir "$tmpdir/g" >/dev/null 2>&1
    done
    echo "Bail out! the grid did not come up: $(cat "$tmpdir/up.err")"
    exit 1
}

# A job of 1 s leaves that keeps work on the grid while a node joins or
# comes back: on a fast machine T1L alone may be nearly done before that
# node is up.  keep_busy ENDPOINT submits it there and prints its id;
# took_records NODE KEEPER ENDPOINT waits (bounded) until NODE has received
# records of a running job, prints how many, and cancels the keeper; run
# it in $(...), and check the count: a wait that timed out prints 0.
keep_busy() {
    "$submit" --socket "$1" --no-wait --parsable synthetic depth=7 fanout=2 dist=const \
        mean_us=1000000
}
took_records() {
    local got
    wait_until --quiet 60 "$1 to receive records" received_some "$1"
    got=$(status_of "ipc://$tmpdir/g/$1.sock" jobs_received)
    "$submit" --socket "$3" --cancel "$2" >/dev/null 2>&1
    echo "${got:-0}"
}
# received_some NODE: NODE has received records from the others
received_some() { [ "$(status_of "ipc://$tmpdir/g/$1.sock" jobs_received)" -gt 0 ] 2>/dev/null; }
