#!/usr/bin/env bash
# modules.t - satind and its kinds directory.  A module for another kind API
# version, a directory its group may write and a second kind of a name
# already loaded: each makes satind refuse to start, exit 1 and say which
# file and why, before it binds its socket.  A directory holding the
# built-in kinds' module and a C++ one: satind starts, lists each kind with
# its module and version, and runs the C++ kind exactly; a client message
# cannot name a directory to load from (SUBMIT of a path is a kind it does
# not know).
set -u
build=${SATIN_BUILD:-$PWD/build}
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-modules.XXXXXX")
pid=""
cleanup() {
    if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
    rm -rf "$tmpdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
. "$(dirname "$0")/tap.sh"
submit=$build/satin-submit
chmod 0755 "$tmpdir"

# kinds_dir NAME MODULE...: a directory 0755 of the modules (fixtures of
# tests/modules/, or "satin-kinds"), each 0644
kinds_dir() {
    local d=$tmpdir/$1 m
    shift
    install -d -m 0755 "$d"
    for m in "$@"; do
        if [ "$m" = satin-kinds ]; then install -m 0644 "$build/kinds/satin-kinds.so" "$d/"
        else install -m 0644 "$build/tests/modules/$m.so" "$d/"; fi
    done
    echo "$d"
}

# refused NAME DIR WANT...: satind --kinds-dir DIR exits 1 at once, its
# message has every WANT, and it made no socket
refused() {
    local name=$1 dir=$2 w
    shift 2
    run timeout 60 "$build/satind" --foreground --workers 1 --kinds-dir "$dir" \
        --socket "ipc://$tmpdir/$name.sock"
    is "$rc" 1 "$name: satind refuses to start (exit 1)"
    for w in "$@"; do like "$err" "$w" "$name: it says '$w'"; done
    is "$(test -e "$tmpdir/$name.sock" && echo made || echo none)" none "$name: before binding its socket"
}

refused api "$(kinds_dir api satin-kinds wrong_api)" "wrong_api.so" \
    "built for kind API version 3; this program loads version 4" "rebuild the module"
d=$(kinds_dir groupw satin-kinds)
chmod 0775 "$d"
refused groupw "$d" "the kinds directory $d has mode 0775" "its group may write it" "chmod go-w $d"
refused dup "$(kinds_dir dup satin-kinds dup_fib)" "kind fib is also module dup-kinds's" \
    "dup_fib.so" "satin-kinds.so"
refused missing "$(kinds_dir missing missing_symbol)" "missing_symbol.so: cannot load it" \
    "satin__from_a_newer_runtime"

good=$(kinds_dir good satin-kinds partitions)
sock=ipc://$tmpdir/good.sock
"$build/satind" --foreground --workers 2 --kinds-dir "$good" --socket "$sock" \
    --log-level info 2>"$tmpdir/good.log" &
pid=$!
wait_until --alive "$pid" 60 "satind to answer" "$submit" --socket "$sock" --status
like "$(cat "$tmpdir/good.log")" "loaded kind module cxx-kinds 1.0 from $good/partitions.so" \
    "satind logs each module it loaded, with its file"
run "$submit" --socket "$sock" --list-kinds
like "$out" "partitions" "--list-kinds lists the C++ module's kind"
run "$submit" --socket "$sock" --json --timeout 60 partitions n=60
is "$rc $(json_get 'd["result"]["partitions"]')" "0 966467" "partitions n=60 = 966467 (p(60)), from the C++ module"
run "$submit" --socket "$sock" --json --timeout 60 partitions n=80 threshold=15
is "$rc $(json_get 'd["result"]["partitions"]')" "0 15796476" "partitions n=80 = 15796476 on 2 workers"
run "$submit" --socket "$sock" --timeout 60 "$good/partitions.so" n=1
is "$rc" 2 "a job naming a module's path is refused (exit 2: bad parameters)"
like "$err" "unknown job kind" "as a kind satind does not know"
kill -TERM "$pid"
wait "$pid"
is "$?" 0 "satind stops cleanly"
pid=""

# A job's data at and past the node's record limit (the daemon's own check:
# the blob kind makes its data whatever the limit).
blobs=$(kinds_dir blobs satin-kinds blob)
sock=ipc://$tmpdir/blobs.sock
"$build/satind" --foreground --workers 1 --kinds-dir "$blobs" --socket "$sock" \
    --max-record 65536 2>"$tmpdir/blobs.log" &
pid=$!
wait_until --alive "$pid" 60 "satind to answer" "$submit" --socket "$sock" --status
python3 -c 'import sys; sys.stdout.buffer.write(bytes(i * 131 % 251 for i in range(65536)))' \
    >"$tmpdir/blob.want"
run "$submit" --socket "$sock" --timeout 60 --output "$tmpdir/blob.got" blob bytes=65536
is "$rc" 0 "data of 65536 bytes, the record limit: the job ends well"
is "$(cmp "$tmpdir/blob.got" "$tmpdir/blob.want" && echo same)" same "and --output wrote them byte for byte"
run "$submit" --socket "$sock" --timeout 60 --output "$tmpdir/blob2.got" blob bytes=65537
is "$rc" 1 "data of 65537 bytes, one past the limit: the job fails (exit 1)"
like "$err" "blob: the job's data (65537 bytes of application/x-blob) exceed the record limit (65536 bytes, satind --max-record)" \
    "and the daemon says why, with both sizes"
is "$([ -e "$tmpdir/blob2.got" ] && echo written || echo none)" none "nothing was written"
run "$submit" --socket "$sock" --status
is "$rc" 0 "satind still answers"
kill -TERM "$pid"
wait "$pid"
is "$?" 0 "satind stops cleanly"
pid=""
echo "1..$n"
[ "$failures" = 0 ]
