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

# wait_until [--alive PID]... [--quiet] SECS WHAT CMD...: the one way a test
# waits for a state.  Runs CMD (a command, a function, `test ...`; `! CMD`
# waits for CMD to fail) until it succeeds or SECS seconds of wall time have
# passed.  On success it returns 0 and prints nothing; on time-out (or, with
# --alive, once a process PID has exited) it fails a check "waited for WHAT:
# timed out after SECS s" (or "...: process PID exited"), shows the
# condition, its last output and what diag_last shows, and returns 1.
# --quiet only returns 1, for a caller to whom that outcome is expected (a
# daemon that lost a port race and is started again).  SECS bounds a test
# that would otherwise never end: the wait ends as soon as the state is
# reached, so the bound is generous, never a speed.
wait_until() {
    # Its names are wu_*: a condition sees (and may set) the caller's.
    local wu_alive="" wu_quiet=0 wu_secs wu_what wu_deadline wu_neg=0 wu_now wu_t0 wu_why="" wu_p
    while :; do
        case $1 in
        --alive) wu_alive+=" $2"; shift 2 ;;
        --quiet) wu_quiet=1; shift ;;
        *) break ;;
        esac
    done
    wu_secs=$1 wu_what=$2
    shift 2
    if [ "$1" = "!" ]; then wu_neg=1; shift; fi
    wu_t0=${EPOCHREALTIME/./}
    wu_deadline=$((wu_t0 + ${wu_secs%.*} * 1000000))
    while :; do
        if "$@" >"$tmpdir/wait.out" 2>"$tmpdir/wait.err"; then
            [ "$wu_neg" = 0 ] && return 0
        else
            [ "$wu_neg" = 1 ] && return 0
        fi
        wu_now=${EPOCHREALTIME/./}
        for wu_p in $wu_alive; do
            kill -0 "$wu_p" 2>/dev/null ||
                { wu_why="process $wu_p exited after $(((wu_now - wu_t0) / 1000)) ms"; break 2; }
        done
        [ "$wu_now" -ge "$wu_deadline" ] && { wu_why="timed out after $wu_secs s"; break; }
        sleep 0.05
    done
    [ "$wu_quiet" = 1 ] && return 1
    fail "waited for $wu_what: $wu_why"
    echo "#   condition: $([ "$wu_neg" = 1 ] && printf '! ')$*"
    sed 's/^/#   its stdout: /' "$tmpdir/wait.out"
    sed 's/^/#   its stderr: /' "$tmpdir/wait.err"
    diag_last
    return 1
}

# wait_socket SOCK PID [WHAT]: waits until the daemon PID has made its
# socket file SOCK; fails a check naming WHAT (default "SOCK") when it died
# first or did not within a minute.
wait_socket() {
    wait_until --alive "$2" 60 "${3:-the socket $1 of process $2}" test -S "$1"
}

# port_base [N]: prints a port P such that P..P+N-1 (N: 16) are free on
# this host now, drawn from 10000..31999: below the kernel's range of
# ephemeral ports (32768 and up), where outgoing connections of any process
# (other tests' daemons among them) take their local ports, so that no
# connection can take one of them between this draw and the bind.  Another
# test's listener still may: callers draw again on "Address already in use".
port_base() {
    python3 - "${1:-16}" <<'PY'
import random, socket, sys
n = int(sys.argv[1])
for _ in range(200):
    base = random.randrange(10000, 32000 - n)
    socks = []
    try:
        for p in range(base, base + n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            socks.append(s)
            s.bind(("0.0.0.0", p))
    except OSError:
        continue
    finally:
        for s in socks:
            s.close()
    print(base)
    sys.exit(0)
sys.exit("no %d free ports in a row below 32000" % n)
PY
}

# log_has FILE TEXT: FILE has a line containing TEXT (for wait_until)
log_has() { grep -qF -- "$2" "$1" 2>/dev/null; }

# json_get EXPR [TEXT]: evaluates a Python expression over the JSON in TEXT
# (default $out) as d
json_get() {
    printf '%s' "${2-$out}" | python3 -c "import json,sys; d=json.load(sys.stdin); print($1)" 2>&1
}

# moved_ports FILE BASE: the topology FILE (one of etc/, whose ports are
# 71NN) with each port 71NN moved to BASE+NN: the same grid on ports that no
# other test, nor another run of this one, holds by design.
moved_ports() {
    local p args=()
    for p in $(grep -o '127\.0\.0\.1:71[0-9][0-9]' "$1" | cut -d: -f2 | sort -u); do
        args+=(-e "s/127\.0\.0\.1:$p\b/127.0.0.1:$(($2 + p - 7100))/")
    done
    sed "${args[@]}" "$1"
}
