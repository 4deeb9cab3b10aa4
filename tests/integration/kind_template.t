#!/usr/bin/env bash
# kind_template.t - a user's kind, as a user builds it: examples/kind-template
# is copied out of the tree and built against a `make install DESTDIR=...`
# tree alone (its header and satin-kind.pc; no path of the sources), its own
# test script passes on the installed programs, a 2x2 grid of the installed
# satind loads it with --kinds-dir and counts exactly with records stolen
# inside and across both clusters, and the installed satin-sim and
# satin-trace run it.  Every daemon started here is stopped by its pid.
#
# It never builds Satin itself: when the build in SATIN_BUILD is older than
# the sources it skips (build first), as install.t does.
set -u
build=${SATIN_BUILD:-$PWD/build}
repo=$(cd "$(dirname "$0")/../.." && pwd)
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-template.XXXXXX")
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    rm -rf "$tmpdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
. "$(dirname "$0")/tap.sh"
chmod 0755 "$tmpdir"
root=$tmpdir/root

mkbuild=$(realpath --relative-to="$repo" "$build" 2>/dev/null || echo "$build")
case $mkbuild in ../*) mkbuild=$build ;; esac
mk() {
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEFILES \
        make -s --no-print-directory -C "$repo" BUILD="$mkbuild" "$@"
}
products=("$build/satind" "$build/satin-sim" "$build/satin-trace" "$build/kinds/satin-kinds.so")
for f in "${products[@]}"; do
    [ -e "$f" ] || { echo "Bail out! $f is missing (build it, or set SATIN_BUILD)"; exit 1; }
done
if ! mk -q "${products[@]/#$build/$mkbuild}" 2>/dev/null; then
    echo "1..0 # SKIP the build in $build is older than the sources: run make first"
    exit 0
fi
command -v pkg-config >/dev/null || { echo "1..0 # SKIP pkg-config is not installed"; exit 0; }

run mk install PREFIX=/usr DESTDIR="$root"
is "$rc" 0 "make install PREFIX=/usr DESTDIR=... exits 0"
bin=$root/usr/bin

# ---- the template, built from the install tree only ---------------------------------
cp -r "$repo/examples/kind-template" "$tmpdir/template"
pcenv=(PKG_CONFIG_PATH="$root/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$root"
       PKG_CONFIG_LIBDIR="$root/usr/lib/pkgconfig")
run env "${pcenv[@]}" make -C "$tmpdir/template"
is "$rc" 0 "the template builds with make (pkg-config satin-kind)"
like "$out" "-I$root/usr/include" "its compile takes the installed include directory"
is "$(grep -c -- "$repo" <<<"$out")" 0 "and no path of the sources"
is "$(readelf -d "$tmpdir/template/langford.so" 2>&1 | grep -c 'NEEDED.*satin')" 0 \
    "the module needs no Satin library: the program that loads it has the kind API"

run env "${pcenv[@]}" PATH="$bin:$PATH" make -C "$tmpdir/template" test
is "$rc" 0 "the template's own test passes on the installed satin-trace and satind"
like "$out" "ok 8 - satind: langford n=11 has 17792 pairings" "(its checks ran, all ten)"
like "$out" "1..10" "(its plan)"
[ "$rc" = 0 ] || echo "$out" | sed 's/^/#   /'

kinds=$tmpdir/kinds
install -d -m 0755 "$kinds"
install -m 0644 "$root/usr/lib/satin/kinds/satin-kinds.so" "$tmpdir/template/langford.so" "$kinds/"

# ---- a 2x2 grid of the installed satind --------------------------------------------
start_grid() {   # start_grid BASE: four nodes, each --kinds-dir $kinds
    local id i=0
    cat >"$tmpdir/t.yaml" <<Y
grid: template-test
policy: crs
security: none
clusters:
  - name: A
    nodes:
      - {id: a0, endpoint: "tcp://127.0.0.1:$1", workers: 1}
      - {id: a1, endpoint: "tcp://127.0.0.1:$(($1 + 1))", workers: 1}
  - name: B
    nodes:
      - {id: b0, endpoint: "tcp://127.0.0.1:$(($1 + 2))", workers: 1}
      - {id: b1, endpoint: "tcp://127.0.0.1:$(($1 + 3))", workers: 1}
Y
    for id in a0 a1 b0 b1; do
        rm -f "$tmpdir/$id.sock"
        "$bin/satind" --config "$tmpdir/t.yaml" --node "$id" --kinds-dir "$kinds" \
            --socket "ipc://$tmpdir/$id.sock" --foreground --log-level info </dev/null \
            >"$tmpdir/$id.log" 2>&1 &
        pids+=($!)
        wait_until --quiet --alive $! 60 "$id's socket" test -S "$tmpdir/$id.sock" || return 1
    done
}
stop_grid() {   # the nodes started so far, by their pids
    local p
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    pids=()
}
status_of() {   # status_of NODE KEY
    "$bin/satin-submit" --socket "ipc://$tmpdir/$1.sock" --json --status 2>/dev/null |
        python3 -c "import json,sys; print(json.load(sys.stdin).get('$2', 0))" 2>/dev/null
}
# A port another test holds makes a node exit at once: draw the ports again.
up=0
for try in 1 2 3 4 5; do
    start_grid $(port_base) && { up=1; break; }
    stop_grid
done
[ "$up" = 1 ] || { echo "Bail out! the grid did not come up: $(cat "$tmpdir"/*.log)"; exit 1; }
like "$(cat "$tmpdir/a0.log")" "loaded kind module langford 1.0 from $kinds/langford.so" \
    "a0 loaded the user's module"
run "$bin/satin-submit" --socket "ipc://$tmpdir/a0.sock" --json --stats --timeout 300 \
    langford n=12 depth=5
is "$rc $(json_get 'd["status"], d["result"]["pairings"]')" "0 ok 108144" \
    "langford n=12 on the 2x2 grid: 108144 pairings (L(2,12))"
gt "$(status_of a1 jobs_received)" 0 "a1 ran records of it (stolen inside cluster A)"
wan=0
for id in a0 a1 b0 b1; do wan=$((wan + $(status_of "$id" steal_successes_wan))); done
gt "$wan" 0 "records were stolen across the wide-area link"
gt "$(( $(status_of b0 jobs_received) + $(status_of b1 jobs_received) ))" 0 \
    "cluster B ran records of a job submitted in cluster A"
run "$bin/satin-submit" --socket "ipc://$tmpdir/b1.sock" --list-kinds
like "$out" "langford" "--list-kinds lists the user's kind"

# ---- satin-sim and satin-trace -----------------------------------------------------
run "$bin/satin-sim" --kinds-dir "$kinds" --clusters 2 --nodes 2 --json --quiet langford n=11
is "$rc $(json_get 'd["status"], d["traced"]["result"]')" "0 ok pairings=17792" \
    "satin-sim runs the user's kind: traced here, 17792 pairings"
is "$(json_get 'd["result"]["nodes"] == d["traced"]["tasks"]')" True \
    "and its replay runs every traced task once"
run "$bin/satin-trace" --kinds-dir "$kinds" --leaves 64 -o "$tmpdir/l.trace" langford n=11
like "$out" "result: pairings=17792" "satin-trace runs it: 17792 pairings"
run "$bin/satin-trace" --check "$tmpdir/l.trace"
like "$out" "leaves=" "and the trace it wrote reads back"
run "$bin/satin-trace" --kinds-dir "$kinds" --list-kinds
like "$out" "langford       langford 1.0" "satin-trace --list-kinds names its module and version"
echo "1..$n"
[ "$failures" = 0 ]
