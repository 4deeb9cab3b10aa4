#!/usr/bin/env bash
# completion.t - the bash completion of deploy/completion/ under Debian's
# bash-completion: satind's options, policies, log levels and the node ids
# of the topology file on the line; satin-grid's subcommands and options;
# satin-submit's options, and the kinds and parameters of a real satind
# (started here, stopped by its pid); satin-keygen, satin-wanem, satin-sim,
# satin-trace (its modules' kinds) and satin-slurm; and every option any of the eight offers is one the
# program accepts (run with it, and a value when its help gives one, before
# an option nobody has: the parser must stop at that one, not at it).
set -u
build=${SATIN_BUILD:-$PWD/build}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-completion.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null; rm -rf "$tmpdir"' EXIT
. "$here/tap.sh"
[ -r /usr/share/bash-completion/bash_completion ] ||
    { echo "1..0 # SKIP Debian's bash-completion is not installed (make check installs it)"; exit 0; }

# The programs by their installed names, first in PATH.
mkdir "$tmpdir/bin"
ln -s "$build/satind" "$build/satin-submit" "$build/satin-keygen" "$build/satin-wanem" \
    "$build/satin-sim" "$build/satin-trace" "$repo/deploy/satin-grid" "$repo/deploy/slurm/satin-slurm" "$tmpdir/bin/"
PATH=$tmpdir/bin:$PATH
# shellcheck disable=SC1091
. /usr/share/bash-completion/bash_completion
programs="satind satin-submit satin-keygen satin-grid satin-slurm satin-wanem satin-sim satin-trace"
for f in $programs; do
    # shellcheck disable=SC1090
    . "$repo/deploy/completion/$f"
done

# complete WORD...: the candidates for the last word, sorted, on one line.
complete_line() {
    COMP_WORDS=("$@")
    COMP_CWORD=$(($# - 1))
    COMP_LINE="$*"
    COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    local fn
    fn=$(complete -p "$1" | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
    "$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}

is "$(complete_line satind --max-p)" "--max-pending" "satind --max-p: --max-pending"
is "$(complete_line satind --policy cl)" "cls cluster-lifeline" "satind --policy cl: its policies"
is "$(complete_line satind --log-level "")" "debug error info warn" "satind --log-level: the levels"
is "$(complete_line satind --config "$repo/etc/local-2x2.yaml" --node "")" "a0 a1 b0 b1" \
    "satind --config FILE --node: the file's node ids"
is "$(complete_line satin-grid "")" "--help --version down reload slurm status up" "satin-grid: its subcommands"
is "$(complete_line satin-grid up "$repo/etc/local-2x2.yaml" --p)" "--policy" \
    "satin-grid up FILE --p: --policy"
is "$(complete_line satin-grid up "$repo/etc/local-2x2.yaml" --policy r)" "rp rs" \
    "satin-grid --policy r: satind's policies"
is "$(complete_line satin-submit --can)" "--cancel" "satin-submit --can: --cancel"
is "$(complete_line satin-submit --status --gr)" "--grid" "satin-submit --status --gr: --grid"
is "$(complete_line satin-grid status --)" "--json --run-dir" "satin-grid status --: --json --run-dir"

is "$(complete_line satin-submit --co)" "" "satin-submit --co: nothing (it has no --config)"
is "$(complete_line satin-keygen --)" "--dir --force --help --version" "satin-keygen --: its options"
is "$(complete_line satin-wanem --check)" "--check-emulate" "satin-wanem --check: --check-emulate"
is "$(complete_line satin-sim --lan-b)" "--lan-bandwidth-MBps" "satin-sim --lan-b: --lan-bandwidth-MBps"
is "$(complete_line satin-sim --policy c)" "chs cls cluster-lifeline crs" "satin-sim --policy c: its policies"
is "$(complete_line satin-sim "")" "fib replay synthetic uts" "satin-sim: its kinds"
is "$(complete_line satin-trace --li)" "--list-kinds" "satin-trace --li: --list-kinds"
is "$(complete_line satin-trace -o t.trace f)" "fib" "satin-trace -o FILE f: the modules' kind fib"
is "$(complete_line satin-slurm "")" "--help --version run up" "satin-slurm: its commands"
is "$(complete_line satin-slurm up --st)" "--stop-timeout" "satin-slurm up --st: --stop-timeout"
is "$(complete_line satin-grid slurm run --clu)" "--cluster" "satin-grid slurm run --clu: satin-slurm's"
is "$(complete_line satin-grid --v)" "--version" "satin-grid --v: --version"

# Every option offered is accepted.  PREFIX... stands before it (a
# subcommand and what it needs); a value follows it when the program's help
# shows one (--opt WORD); the nonsense option after it must be what the
# parser stops at, or the option's own value, never the option itself.
accepted() {   # accepted PROG PREFIX... -- : checks each option `PROG PREFIX --` offers
    local prog=$1; shift
    local prefix=() bad=
    while [ "$1" != -- ]; do prefix+=("$1"); shift; done
    local help offered opt args
    help=$("$prog" "${prefix[@]}" --help 2>&1)
    offered=$(complete_line "$prog" "${prefix[@]}" --)
    for opt in $offered; do
        args=("${prefix[@]}" "$opt")
        grep -qE -- "(^|[^a-zA-Z-])$opt[ =][A-Z]" <<<"$help" && args+=(1)
        env -u SLURM_JOB_ID -u SLURM_JOB_NODELIST timeout 20 "$prog" "${args[@]}" \
            --no-such-option-xyz </dev/null >"$tmpdir/acc.out" 2>"$tmpdir/acc.err"
        local rc=$?
        if [ "$rc" = 124 ] ||
            grep -qiE -- "(unknown|unrecognized|unrecognised|invalid) (option|argument|command) '?$opt'?([^a-zA-Z-]|$)" \
                "$tmpdir/acc.err"; then
            bad+=" $opt($rc: $(head -c 120 "$tmpdir/acc.err"))"
        fi
    done
    is "${bad:-none}" none "$prog ${prefix[*]}: every option offered is accepted ($(wc -w <<<"$offered") of them)"
}
accepted satind --
accepted satin-submit --
accepted satin-keygen --
accepted satin-wanem --
accepted satin-sim --
accepted satin-trace --
accepted satin-grid --
accepted satin-grid up "$repo/etc/local-2x2.yaml" --
accepted satin-grid status --
accepted satin-grid reload --
accepted satin-grid down --
accepted satin-slurm --
accepted satin-slurm up --
accepted satin-slurm run --

sock=ipc://$tmpdir/s.sock
"$build/satind" --workers 1 --socket "$sock" --foreground 2>"$tmpdir/log" &
pid=$!
wait_until --alive "$pid" 60 "satind to answer --status" "$build/satin-submit" --socket "$sock" --status
is "$(complete_line satin-submit --socket "$sock" f)" "fib" "satin-submit --socket S f: the daemon's kind fib"
is "$(complete_line satin-submit --socket "$sock" fib "")" "n= threshold=" \
    "satin-submit --socket S fib: its parameters"
is "$(complete_line satin-submit --socket "$sock" --json uts tr)" "tree=" \
    "satin-submit --socket S --json uts tr: tree="
kill -TERM "$pid"
wait "$pid"
pid=
is "$(complete_line satin-submit --socket "$sock" f)" "" "no daemon there: no kinds, and no wait"

echo "1..$n"
[ "$failures" = 0 ]
