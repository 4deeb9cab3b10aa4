#!/usr/bin/env bash
# conventions.t - what every one of the seven programs does alike: --help
# and -h print the help on stdout and exit 0, --version and -V print
# "PROGRAM VERSION" and exit 0, an unknown option exits 2 with a message on
# stderr and nothing on stdout; each man page is dated, passes mandoc's lint
# at warning level and documents every option its program's --help lists;
# satind's help gives the default socket's whole rule; and a refusal to
# start reaches the terminal with --log-file too (a --pidfile naming a
# running satind, a socket another daemon listens on), stopped by its pid.
set -u
build=${SATIN_BUILD:-$PWD/build}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-conventions.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null; rm -rf "$tmpdir"' EXIT
. "$here/tap.sh"

version=$(sed -n 's/^VERSION *:= *//p' "$repo/Makefile")
declare -A path=(
    [satind]=$build/satind [satin-submit]=$build/satin-submit [satin-keygen]=$build/satin-keygen
    [satin-wanem]=$build/satin-wanem [satin-sim]=$build/satin-sim
    [satin-grid]=$repo/deploy/satin-grid [satin-slurm]=$repo/deploy/slurm/satin-slurm)
declare -A page=(
    [satind]=satind.8 [satin-submit]=satin-submit.1 [satin-keygen]=satin-keygen.1
    [satin-wanem]=satin-wanem.1 [satin-sim]=satin-sim.1 [satin-grid]=satin-grid.1
    [satin-slurm]=satin-slurm.1)

for prog in satind satin-submit satin-keygen satin-grid satin-slurm satin-wanem satin-sim; do
    p=${path[$prog]}
    for h in --help -h; do
        run "$p" "$h"
        is "$rc:$([ -n "$out" ] && echo text):$err" "0:text:" "$prog $h: exit 0, the help on stdout"
    done
    for v in --version -V; do
        run "$p" "$v"
        is "$rc:${out%% (*}:$err" "0:$prog $version:" "$prog $v: '$prog $version', exit 0"
    done
    run "$p" --no-such-option
    is "$rc:$out" "2:" "$prog --no-such-option: exit 2, nothing on stdout"
    like "$err" "no-such-option" "and stderr names it"

    man=$repo/man/${page[$prog]}
    is "$(sed -n 's/^\.TH [^ ]* [18] "\([^"]*\)".*/\1/p' "$man" | grep -cE '^[0-9]{4}-[0-9]{2}-[0-9]{2}$')" 1 \
        "${page[$prog]} is dated"
    if command -v mandoc >/dev/null; then
        run mandoc -Tlint -W warning "$man"
        is "$rc:$out$err" "0:" "${page[$prog]}: mandoc -Tlint -W warning has nothing to say"
    else
        skip "mandoc is not installed"
    fi
    # Every option of the help's option lines, in the page as \-\-NAME.
    missing=
    for o in $("$p" --help 2>/dev/null | grep -E '^ {2,6}-' | grep -oE -- '--[A-Za-z][A-Za-z-]*' |
        sort -u); do
        grep -qF -- "$(sed 's/-/\\-/g' <<<"$o")" "$man" || missing+=" $o"
    done
    is "${missing:-none}" none "${page[$prog]} documents every option of $prog --help"
done

# satind's help: the whole rule of the default socket.
run "$build/satind" --help
like "$out" "Default: \$SATIN_SOCKET, else
                         \$XDG_RUNTIME_DIR/satin/satind.sock, else
                         /run/satin/satind.sock (root) or
                         /tmp/satin-UID/satind.sock" "satind --help gives the default socket's rule"

# Refusals to start, with the log in a file: on the terminal all the same.
sock=ipc://$tmpdir/s.sock
"$build/satind" --workers 1 --socket "$sock" --pidfile "$tmpdir/s.pid" --log-file "$tmpdir/s.log"
wait_until 60 "the detached satind's pid file" test -s "$tmpdir/s.pid"
pid=$(cat "$tmpdir/s.pid")
run "$build/satind" --workers 1 --socket "ipc://$tmpdir/t.sock" --pidfile "$tmpdir/s.pid" \
    --log-file "$tmpdir/t.log"
is "$rc" 1 "a --pidfile naming a running satind, with --log-file: exit 1"
like "$err" "satind: the pid file $tmpdir/s.pid names a running satind (pid $pid)" \
    "and the reason on the terminal"
like "$(cat "$tmpdir/t.log")" "names a running satind (pid $pid)" "and in the log"
run "$build/satind" --workers 1 --socket "$sock" --log-file "$tmpdir/u.log"
is "$rc" 1 "a socket another satind listens on, detaching, with --log-file: exit 1"
like "$err" "satind: another daemon is already listening on $tmpdir/s.sock" \
    "and the reason on the terminal"
run "$build/satind" --workers 1 --socket "$sock" --log-file "$tmpdir/u.log" --foreground
like "$rc:$err" "1:satind: another daemon is already listening" "the same in the foreground"
kill -TERM "$pid"
wait_until 60 "satind (pid $pid) to exit after SIGTERM" ! kill -0 "$pid"
pid=

echo "1..$n"
[ "$failures" = 0 ]
