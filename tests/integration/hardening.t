#!/usr/bin/env bash
# hardening.t - what another local user can no longer do.  A socket
# directory they made or may write is refused by satind and by clients (no
# daemon of theirs in place of ours); a client without permission is told so
# by name; satin-grid signals no pid it did not start, and refuses a run
# directory that is not the caller's alone; `security: none` warns at start
# and stays on loopback unless the file allows more.  The other user is a
# throw-away system account (needs root, useradd and setpriv); without them
# those checks are skipped with the reason.
set -u
build=${SATIN_BUILD:-$PWD/build}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
satind=$build/satind
submit=$build/satin-submit
grid=$repo/deploy/satin-grid
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-hardening.XXXXXX")
pids=()
user=""
cleanup() {
    local p
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    [ -n "$user" ] && userdel "$user" 2>/dev/null
    rm -rf "$tmpdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
. "$here/tap.sh"
unset SATIN_SOCKET
# The refusals run under `timeout`: a satind that wrongly starts must not
# hang the test.

# start_satind LOG ARGS...: satind in the foreground, its pid in $spid
start_satind() {
    local log=$1; shift
    "$@" --foreground </dev/null >"$log" 2>&1 &
    spid=$!
    pids+=("$spid")
}
# stop_satind PID: SIGTERM and wait for it
stop_satind() { kill -TERM "$1" 2>/dev/null; wait "$1" 2>/dev/null; }

# ---- the other user ---------------------------------------------------------------
why=""
if [ "$(id -u)" != 0 ]; then why="needs root to make a second user"
elif ! command -v useradd >/dev/null || ! command -v setpriv >/dev/null; then
    why="needs useradd and setpriv"
else
    name=satin-test-$$
    if useradd --system --no-create-home --shell /usr/sbin/nologin "$name" 2>"$tmpdir/useradd.err"
    then user=$name
    else why="useradd failed: $(head -n 1 "$tmpdir/useradd.err")"; fi
fi
if [ -n "$user" ]; then
    uid=$(id -u "$user") gid=$(id -g "$user")
    # An array, not a function: `CMD &` must make $! the daemon itself.
    as_other=(setpriv --reuid="$uid" --regid="$gid" --clear-groups)
    chmod 755 "$tmpdir"
fi

# ---- 1. socket directories --------------------------------------------------------
# $XDG_RUNTIME_DIR points the default directory into a shared, sticky place (as /tmp).
xdg=$tmpdir/shared
mkdir -m 1777 "$xdg"
def=$xdg/satin
if [ -n "$user" ]; then
    "${as_other[@]}" mkdir -m 0777 "$def"
    run timeout 10 env XDG_RUNTIME_DIR="$xdg" "$satind" --workers 1 --foreground
    is "$rc" 1 "satind refuses a default socket directory another user made"
    like "$err" "the socket directory $def belongs to uid $uid ($user), not to you: that user could replace the socket with one of their own; remove the directory or choose another --socket" "and names it, its owner and the fix"
    "${as_other[@]}" chmod 700 "$def"
    start_satind "$tmpdir/other.log" "${as_other[@]}" env XDG_RUNTIME_DIR="$xdg" "$satind" --workers 1
    other=$spid
    if wait_socket "$def/satind.sock" "$other" "the other user's satind to make its socket"; then
        pass "the other user's satind runs in its own directory"
    else sed 's/^/#   /' "$tmpdir/other.log"; fi
    run env XDG_RUNTIME_DIR="$xdg" "$submit" --status
    is "$rc" 69 "satin-submit does not connect to a daemon in another user's default directory"
    is "$err" "satin-submit: refusing to connect to satind at ipc://$def/satind.sock: the socket directory $def belongs to uid $uid ($user), not to you: that user could replace the socket with one of their own; remove the directory or give --socket" "and says why"
    stop_satind "$other"
    rm -rf "$def"
else
    for _ in 1 2 3 4 5; do skip "$why"; done
fi

mkdir -m 0777 "$def"
run timeout 10 env XDG_RUNTIME_DIR="$xdg" "$satind" --workers 1 --foreground
is "$rc" 1 "satind refuses a default socket directory of its own that others may write"
like "$err" "the socket directory $def has mode 0777: any local user may write it and replace the socket; run 'chmod 700 $def' (or remove it) or choose another --socket" "and says how to fix it"
chmod 0770 "$def"
run env XDG_RUNTIME_DIR="$xdg" "$submit" --status
like "$err" "the socket directory $def has mode 0770: its group may write it" "satin-submit refuses a group-writable default directory"
rmdir "$def"
ln -s "$tmpdir" "$def"
run timeout 10 env XDG_RUNTIME_DIR="$xdg" "$satind" --workers 1 --foreground
like "$err" "the socket directory $def is a symbolic link, not a directory of yours" "a symbolic link in place of the default directory is refused"
rm "$def"

start_satind "$tmpdir/own.log" env XDG_RUNTIME_DIR="$xdg" "$satind" --workers 1
if wait_socket "$def/satind.sock" "$spid" "satind to make its socket in a missing default directory"
then pass "satind makes a missing default directory"
else sed 's/^/#   /' "$tmpdir/own.log"; fi
is "$(stat -c %a "$def")" 700 "with mode 0700"
run env XDG_RUNTIME_DIR="$xdg" "$submit" --status
is "$rc" 0 "and satin-submit reaches it there"
stop_satind "$spid"

# An explicit --socket: a directory anyone may write is refused unless sticky.
mkdir -m 0777 "$tmpdir/open"
run timeout 10 "$satind" --workers 1 --foreground --socket "$tmpdir/open/s.sock"
is "$rc" 1 "an explicit socket in a directory anyone may write is refused"
like "$err" "the socket directory $tmpdir/open has mode 0777: any local user may write it and replace the socket; run 'chmod o-w $tmpdir/open'" "with the fix"
chmod 1777 "$tmpdir/open"
start_satind "$tmpdir/sticky.log" "$satind" --workers 1 --socket "$tmpdir/open/s.sock"
if wait_socket "$tmpdir/open/s.sock" "$spid" "satind to make its socket in a sticky directory"
then pass "a sticky one (like /tmp) is fine"
else sed 's/^/#   /' "$tmpdir/sticky.log"; fi
stop_satind "$spid"
# satind makes its default directory only: an explicit --socket names a
# place prepared for it, and root must not make directories anywhere.
run timeout 10 "$satind" --workers 1 --foreground --socket "$tmpdir/new/deeper/s.sock"
is "$rc" 1 "an explicit socket in a missing directory is refused"
like "$err" "the socket directory $tmpdir/new/deeper does not exist (satind makes only its default directory; create it, or choose another --socket)" "with a message that says so"
[ ! -e "$tmpdir/new" ] && pass "and no directory is made on its path" || fail "and no directory is made on its path"

if [ -n "$user" ]; then
    "${as_other[@]}" mkdir -m 0755 "$xdg/theirs"
    run timeout 10 "$satind" --workers 1 --foreground --socket "$xdg/theirs/s.sock"
    like "$err" "the socket directory $xdg/theirs belongs to uid $uid ($user), not to you" "an explicit socket in another user's directory is refused"
    # --socket-group: the default directory it makes lets that group through.
    mkdir -m 0755 "$tmpdir/grp"
    start_satind "$tmpdir/grp.log" env XDG_RUNTIME_DIR="$tmpdir/grp" "$satind" --workers 1 \
        --socket-group "$(id -gn "$user")"
    wait_socket "$tmpdir/grp/satin/satind.sock" "$spid"
    is "$(stat -c '%a %G' "$tmpdir/grp/satin")" "750 $(id -gn "$user")" "with --socket-group the default directory is 0750 and the group's"
    stop_satind "$spid"

    # ---- 4. a client without permission ---------------------------------------------
    mkdir -m 0755 "$tmpdir/pub"
    start_satind "$tmpdir/pub.log" "$satind" --workers 1 --socket "$tmpdir/pub/s.sock"
    wait_socket "$tmpdir/pub/s.sock" "$spid"
    run "${as_other[@]}" "$submit" --socket "$tmpdir/pub/s.sock" --status
    is "$rc" 69 "a user outside the socket's group cannot submit"
    is "$err" "satin-submit: cannot reach satind at ipc://$tmpdir/pub/s.sock: permission denied on $tmpdir/pub/s.sock (group $(id -gn) may use it)" "and is told why, not 'Connection refused'"
    stop_satind "$spid"
else
    for _ in 1 2 3 4; do skip "$why"; done
fi

# ---- 2. satin-grid down signals only what up started ------------------------------
sleep 300 &
victim=$!
pids+=("$victim")
ident() {   # PID: "STARTTIME EXE", as satin-grid records it
    local s e
    e=$(readlink "/proc/$1/exe") s=$(cat "/proc/$1/stat")
    s=${s##*) }
    set -- $s
    echo "${20} $e"
}
if [ -n "$user" ]; then
    planted=$xdg/satin-grid-0
    "${as_other[@]}" mkdir -m 0777 "$planted"
    "${as_other[@]}" sh -c "echo $victim >'$planted/x.pid'"
    run "$grid" down --run-dir "$planted"
    is "$rc" 1 "satin-grid down refuses a run directory another user made"
    is "$err" "satin-grid: run directory $planted belongs to uid $uid, not to you: its pid files could name any process; remove it or choose another --run-dir" "and says so"
    kill -0 "$victim" 2>/dev/null
    is "$?" 0 "the process its pid file names lives"
else
    for _ in 1 2 3; do skip "$why"; done
fi
mkdir -m 0755 "$tmpdir/g"
run "$grid" status --run-dir "$tmpdir/g"
is "$err" "satin-grid: run directory $tmpdir/g has mode 755, not 700: satin-grid keeps its pid files where nobody else may look or write; run 'chmod 700 $tmpdir/g' or choose another --run-dir" "a run directory of ours with another mode than 0700 is refused"
chmod 700 "$tmpdir/g"
echo "$victim" >"$tmpdir/g/x.pid"
"$grid" down --run-dir "$tmpdir/g"
kill -0 "$victim" 2>/dev/null
is "$?" 0 "a pid without the record of what it was at up is not signalled"
echo "$victim" >"$tmpdir/g/x.pid"
read -r start exe <<<"$(ident "$victim")"
echo "$((start + 1)) $exe" >"$tmpdir/g/x.proc"
"$grid" down --run-dir "$tmpdir/g"
kill -0 "$victim" 2>/dev/null
is "$?" 0 "nor one whose start time differs (a reused pid)"
echo "$victim" >"$tmpdir/g/x.pid"
echo "$start $build/satind" >"$tmpdir/g/x.proc"
"$grid" down --run-dir "$tmpdir/g"
kill -0 "$victim" 2>/dev/null
is "$?" 0 "nor one that runs another executable"
echo "$victim" >"$tmpdir/g/x.pid"
echo "$start $exe" >"$tmpdir/g/x.proc"
"$grid" down --run-dir "$tmpdir/g"
# down waits until its SIGTERM took effect: the process is gone now.
kill -0 "$victim" 2>/dev/null
is "$?" 1 "the process recorded at up, still running, is stopped"
wait "$victim" 2>/dev/null
is "$?" 143 "by SIGTERM"

# ---- 3. security: none ------------------------------------------------------------
cat >"$tmpdir/lan.yaml" <<'Y'
grid: lan
security: none
clusters:
  - name: A
    nodes:
      - {id: a0, endpoint: "tcp://192.0.2.7:7000"}
Y
run "$satind" --check-config "$tmpdir/lan.yaml"
is "$rc" 1 "--check-config refuses security: none on a non-loopback peer endpoint"
is "$err" "satind: $tmpdir/lan.yaml:6:28: endpoint tcp://192.0.2.7:7000 is not a loopback address, and security is none: anyone who can reach it could steal work and push records to run; use security: curve, or say 'allow_insecure_network: true' if the network is closed to strangers" "at the endpoint's line and column"
sed -i 's/^security: none$/security: none\nallow_insecure_network: true/' "$tmpdir/lan.yaml"
run "$satind" --check-config "$tmpdir/lan.yaml"
is "$rc" 0 "allow_insecure_network: true lets it through"

started=0
for _ in 1 2 3 4 5; do
    port=$(port_base 1)
    printf 'grid: lo\nsecurity: none\nclusters:\n  - name: A\n    nodes:\n      - {id: a0, endpoint: "tcp://127.0.0.1:%s"}\n' \
        "$port" >"$tmpdir/lo.yaml"
    start_satind "$tmpdir/lo.log" "$satind" --config "$tmpdir/lo.yaml" --node a0 --socket "$tmpdir/lo.sock"
    # A port somebody else holds makes it exit: another draw.
    if wait_until --alive "$spid" --quiet 60 "its socket" test -S "$tmpdir/lo.sock"; then
        started=1; break
    fi
    grep -q "Address already in use" "$tmpdir/lo.log" || break
done
is "$started" 1 "a node under security: none on loopback starts"
like "$(cat "$tmpdir/lo.log")" "warn: security is none: the peer endpoint tcp://127.0.0.1:$port of node a0 takes steal requests, records to run and results from any process that can reach it, without authentication" "and warns, naming its peer endpoint"
stop_satind "$spid"

echo "1..$n"
[ "$failures" = 0 ]
