#!/usr/bin/env bash
# grid_cli.t - satin-grid's command line: --help on stdout with status 0,
# option values joined with '=' (--policy=crs) as well as given apart, a
# clear usage error (status 2) for an option without its value or an
# unknown argument; and a grid brought up with the '=' forms really runs
# the policy and log level they name.
set -u
. "$(dirname "$0")/grid_kit.sh" grid-cli

# ---- usage ---------------------------------------------------------------------------

run "$grid" --help
is "$rc" 0 "satin-grid --help exits 0"
like "$out" "satin-grid up FILE [--policy P] [--run-dir DIR] [--log-level L]" "and prints the usage on stdout"
is "$err" "" "with nothing on stderr"
run "$grid" up --help
is "$rc" 0 "satin-grid up --help exits 0 too"

run "$grid" up "$repo/etc/local-2x2.yaml" --policy
is "$rc" 2 "--policy without its value is a usage error (2)"
is "$err" "satin-grid: option --policy needs a value
Try 'satin-grid --help'." "and says which option lacks its value"
run "$grid" up "$repo/etc/local-2x2.yaml" --policy --run-dir "$tmpdir/x"
is "$rc" 2 "--policy followed by another option is a usage error"
is "$err" "satin-grid: option --policy needs a value
Try 'satin-grid --help'." "the next option is not taken for its value"
run "$grid" status --run-dir=
is "$rc" 2 "--run-dir= (empty) is a usage error"
is "$err" "satin-grid: option --run-dir needs a value
Try 'satin-grid --help'." "and says so"
run "$grid" status --frobnicate
is "$rc" 2 "an unknown argument is a usage error (2)"
is "$err" "satin-grid: unknown argument '--frobnicate'
Try 'satin-grid --help'." "and names it"
run "$grid" up
is "$rc" 2 "up without a FILE is a usage error"
[ ! -e "$tmpdir/x" ] && pass "no usage error made a run directory" || fail "no usage error made a run directory"

# ---- the '=' forms bring a grid up ---------------------------------------------------------

two() {   # two BASE FILE
    cat >"$2" <<Y
grid: grid-cli-test
policy: rs
security: none
clusters:
  - name: A
    nodes:
      - {id: a0, endpoint: "tcp://127.0.0.1:$1", workers: 1}
  - name: B
    nodes:
      - {id: b0, endpoint: "tcp://127.0.0.1:$(($1 + 1))", workers: 1}
Y
}
up=1
for _ in 1 2 3 4 5; do
    two $(port_base) "$tmpdir/t.yaml"
    run "$grid" up "$tmpdir/t.yaml" --policy=crs --run-dir="$tmpdir/g" --log-level=debug
    [ "$rc" = 0 ] && { up=0; break; }
    "$grid" down --run-dir "$tmpdir/g" >/dev/null 2>&1
done
is "$up" 0 "satin-grid up FILE --policy=crs --run-dir=DIR --log-level=debug starts the grid"
is "$out" "ipc://$tmpdir/g/a0.sock
ipc://$tmpdir/g/b0.sock" "it prints the nodes' endpoints in the run directory"
is "$(status_of "ipc://$tmpdir/g/a0.sock" policy) $(status_of "ipc://$tmpdir/g/b0.sock" policy)" "crs crs" \
    "both nodes run the policy --policy=crs named, not the file's rs"
# An idle daemon's first debug line comes after its first connect to the
# other node, which may wait out libzmq's reconnect interval.
wait_until 60 "a debug line in a0.log" log_has "$tmpdir/g/a0.log" " debug: " &&
    pass "--log-level=debug reached the daemons"
run "$grid" status --run-dir="$tmpdir/g"
is "$(printf '%s\n' "$out" | sed '/^$/q' | awk 'NF {print $1, $2}' | sort | tr '\n' ' ')" \
    "a0 running b0 running " "status --run-dir=DIR finds the grid"
is "$(printf '%s\n' "$out" | sed '1,/^$/d' | awk 'NR > 1 {print $1, $3}' | tr '\n' ' ')" \
    "a0 alive b0 alive " "and shows it as its first node sees it"
run "$grid" down --run-dir="$tmpdir/g"
is "$rc" 0 "down --run-dir=DIR stops it"
[ ! -e "$tmpdir/g/a0.pid" ] && pass "and removes its pid files" || fail "and removes its pid files"

echo "1..$n"
[ "$failures" -eq 0 ]
