#!/usr/bin/env bash
# demo.sh - `make demo`: start a local satind with 2 workers, run UTS seed-T3
# and fib 30 through satin-submit, print results and statistics, stop it.
set -euo pipefail
build=${SATIN_BUILD:-$(cd "$(dirname "$0")/.." && pwd)/build}
run=$(mktemp -d "${TMPDIR:-/tmp}/satin-demo.XXXXXX")
sock="ipc://$run/satind.sock"
pid=

stop() {
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid"
        wait "$pid" || true
    fi
    rm -rf "$run"
}
trap stop EXIT

"$build/satind" --workers 2 --socket "$sock" --foreground --log-level warn 2>"$run/satind.log" &
pid=$!
for _ in $(seq 100); do
    [ -S "$run/satind.sock" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$run/satind.log" >&2; exit 1; }
    sleep 0.1
done
[ -S "$run/satind.sock" ] || { echo "satind did not start:" >&2; cat "$run/satind.log" >&2; exit 1; }

echo "== satind (pid $pid, 2 workers) listening on $sock"
echo
echo "== satin-submit uts tree=seed-T3 --stats"
"$build/satin-submit" --socket "$sock" --stats uts tree=seed-T3
echo
echo "== satin-submit fib n=30 --stats"
"$build/satin-submit" --socket "$sock" --stats fib n=30
echo
echo "== stopping satind"
