# tap.sh - TAP helpers shared by the shell integration tests (sourced, not run).
# The test sets $tmpdir before sourcing; each check prints one TAP line.
# `run CMD...` leaves rc, out and err for the checks that follow.

. "$(dirname "${BASH_SOURCE[0]}")/python.sh" "$tmpdir"

n=0
failures=0

# A check that fails before any `run` has no command to show.
diag_last() {
    echo "#   exit status: ${rc-(no command run yet)}"
    [ -f "$tmpdir/out" ] && sed 's/^/#   stdout: /' "$tmpdir/out"
    [ -f "$tmpdir/err" ] && sed 's/^/#   stderr: /' "$tmpdir/err"
    return 0
}
pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); failures=$((failures + 1)); echo "not ok $n - $1"; }
# skip REASON: a check that this run gave nothing to check (TAP "# skip")
skip() { n=$((n + 1)); echo "ok $n # skip $1"; }
# is GOT WANT DESC
is() {
    if [ "$1" = "$2" ]; then pass "$3"; else
        fail "$3"; echo "#          got: '$1'"; echo "#     expected: '$2'"; diag_last; fi
}
# like TEXT SUBSTRING DESC
like() {
    case $1 in
    *"$2"*) pass "$3" ;;
    *) fail "$3"; echo "#     does not contain '$2'"; diag_last ;;
    esac
}

# gt GOT MIN DESC: GOT is a whole number above MIN
gt() {
    if [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -gt "$2" ]; then pass "$3 ($1)"; else
        fail "$3"; echo "#     got '$1', expected more than $2"; diag_last; fi
}

# run CMD...: runs it, leaving rc, out (stdout) and err (stderr)
run() {
    "$@" >"$tmpdir/out" 2>"$tmpdir/err" </dev/null
    rc=$?
    out=$(cat "$tmpdir/out")
    err=$(cat "$tmpdir/err")
}

# wait_socket SOCK PID: waits (10 s at most) until the daemon PID has made
# its socket file SOCK; fails when it did not (it died, or is too slow).
wait_socket() {
    for _ in $(seq 100); do
        [ -S "$1" ] && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
    done
    [ -S "$1" ]
}

# json_get EXPR [TEXT]: evaluates a Python expression over the JSON in TEXT
# (default $out) as d
json_get() {
    printf '%s' "${2-$out}" | python3 -c "import json,sys; d=json.load(sys.stdin); print($1)" 2>&1
}
