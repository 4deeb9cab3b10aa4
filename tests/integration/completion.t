#!/usr/bin/env bash
# completion.t - the bash completion of deploy/completion/ under Debian's
# bash-completion: satind's options, policies, log levels and the node ids
# of the topology file on the line; satin-grid's subcommands and options;
# satin-submit's options, and the kinds and parameters of a real satind
# (started here, stopped by its pid).
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
ln -s "$build/satind" "$build/satin-submit" "$repo/deploy/satin-grid" "$tmpdir/bin/"
PATH=$tmpdir/bin:$PATH
# shellcheck disable=SC1091
. /usr/share/bash-completion/bash_completion
for f in satind satin-submit satin-grid; do
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
is "$(complete_line satin-grid "")" "--help down reload slurm status up" "satin-grid: its subcommands"
is "$(complete_line satin-grid up "$repo/etc/local-2x2.yaml" --p)" "--policy" \
    "satin-grid up FILE --p: --policy"
is "$(complete_line satin-grid up "$repo/etc/local-2x2.yaml" --policy r)" "rp rs" \
    "satin-grid --policy r: satind's policies"
is "$(complete_line satin-submit --can)" "--cancel" "satin-submit --can: --cancel"
is "$(complete_line satin-submit --status --gr)" "--grid" "satin-submit --status --gr: --grid"
is "$(complete_line satin-grid status --)" "--json --run-dir" "satin-grid status --: --json --run-dir"

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
