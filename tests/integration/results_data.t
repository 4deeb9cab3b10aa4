#!/usr/bin/env bash
# results_data.t - a job's data bytes travel back to the client (RESULT's
# data, PROTOCOL.md 6.4): the raytracer with image=1 on a 2x2 grid (CRS,
# one worker a node), its records stolen by the other nodes, returns its
# image; satin-submit --output writes it, a binary PPM (P6) whose bytes are
# those of the image rendered pixel by pixel in one plain loop
# (bench/raytracer_exact --ppm), and the checksum stays the exact one.
# --wait collects the same data; --json reports their type and length;
# jobs without data, files that cannot be written and images over the
# record limit fail with their exit statuses and messages; --list-kinds
# names each kind's module and version.  Asserts bytes and counters,
# never times.
set -u
. "$(dirname "$0")/grid_kit.sh" results-data
exact=$build/bench/raytracer_exact
[ -x "$exact" ] || { echo "Bail out! $exact is missing (make builds it)"; exit 1; }

topology() {   # topology BASE FILE
    cat >"$2" <<Y
grid: results-data
policy: crs
# Idle nodes ask for work every millisecond at most, so that a job of tens
# of milliseconds is stolen from whatever the schedule.
policy_params: {backoff_min_ms: 1, backoff_max_ms: 1}
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
}
grid_up topology
sock() { echo "ipc://$tmpdir/g/$1.sock"; }
# received: the records a1, b0 and b1 have received from other nodes so far
received() {
    local id sum=0 v
    for id in a1 b0 b1; do
        v=$(status_of "$(sock "$id")" jobs_received)
        sum=$((sum + ${v:-0}))
    done
    echo "$sum"
}

# The image: small tiles, so that there are many records to steal, and
# 3 levels of reflection (the default), as raytracer_exact renders it.
w=480 h=360
params=(raytracer width=$w height=$h tile=32 image=1)
header="P6
$w $h
255"
size=$((${#header} + 1 + 3 * w * h))
want_sum=$("$exact" --ppm "$tmpdir/exact.ppm" $w $h 3)
is "$(stat -c %s "$tmpdir/exact.ppm")" "$size" "raytracer_exact --ppm writes $size bytes for ${w}x$h"

before=$(received)
run "$submit" --socket "$(sock a0)" --json --timeout 120 --output "$tmpdir/a0.ppm" "${params[@]}"
is "$rc" 0 "image=1 on a0 with --output exits 0"
is "$(json_get 'd["status"], d["result"]["checksum"], d["result"]["pixels"]')" \
    "ok $want_sum $((w * h))" "the checksum in the key/values is the exact one, for $((w * h)) pixels"
is "$(json_get 'd["data"]["type"], d["data"]["length"], d["data"]["file"]')" \
    "image/x-portable-pixmap $size $tmpdir/a0.ppm" "--json: the data's type, length and file"
after=$(received)
gt "$((after - before))" 0 "records of the job were stolen by the other nodes"
is "$(head -c ${#header} "$tmpdir/a0.ppm")" "$header" "the file starts with the PPM header P6 $w $h 255"
if cmp "$tmpdir/a0.ppm" "$tmpdir/exact.ppm" >"$tmpdir/cmp.out" 2>&1; then
    pass "its bytes are those of the image rendered in one plain loop"
else
    fail "its bytes are those of the image rendered in one plain loop: $(cat "$tmpdir/cmp.out")"
fi

# The same job collected with --wait from another connection.
run "$submit" --socket "$(sock b1)" --no-wait --parsable "${params[@]}"
is "$rc" 0 "image=1 submitted to b1 without waiting"
job=$out
run "$submit" --socket "$(sock b1)" --timeout 120 --wait "$job" --output "$tmpdir/b1.ppm"
is "$rc" 0 "--wait $job --output exits 0"
like "$out" "data: $size bytes of image/x-portable-pixmap written to $tmpdir/b1.ppm" \
    "the text result says what was written where"
cmp -s "$tmpdir/b1.ppm" "$tmpdir/exact.ppm" && pass "--wait wrote the same image" ||
    fail "--wait wrote the same image"

# Without image=1 the result has no data, as before.
run "$submit" --socket "$(sock a1)" --json --timeout 120 raytracer width=$w height=$h tile=64
is "$(json_get 'd["result"]["checksum"], d["data"]')" "$want_sum None" \
    "image=0: the same checksum, no data"
run "$submit" --socket "$(sock a1)" --timeout 120 --output "$tmpdir/none.ppm" fib n=20
is "$rc" 74 "--output of a job without data exits 74"
like "$err" "returned no data: nothing written to $tmpdir/none.ppm" "and says so"
[ -e "$tmpdir/none.ppm" ] && fail "no file is made for a job without data" ||
    pass "no file is made for a job without data"

# Where nothing can be written: refused before the job is submitted.
run "$submit" --socket "$(sock a1)" --output "$tmpdir/missing/x.ppm" "${params[@]}"
is "$rc" 74 "--output into a missing directory exits 74"
like "$err" "cannot write $tmpdir/missing/x.ppm: No such file or directory" "naming the file and why"
like "$err" "job not submitted" "before the job is submitted"
run "$submit" --socket "$(sock a1)" --output "$tmpdir" "${params[@]}"
is "$rc $err" "74 satin-submit: cannot write $tmpdir: it is a directory; job not submitted" \
    "--output naming a directory exits 74"
run "$submit" --socket "$(sock a1)" --no-wait --output "$tmpdir/x.ppm" "${params[@]}"
is "$rc" 2 "--output with --no-wait is a usage error"
# A disk that is full (/dev/full): the data are lost, and the exit status says so.
run "$submit" --socket "$(sock a1)" --timeout 120 --output /dev/full "${params[@]}"
is "$rc" 74 "--output /dev/full exits 74"
like "$err" "cannot write /dev/full: No space left on device" "and says why"

# An image over the record limit is refused when submitted, naming the sizes.
run "$submit" --socket "$(sock a0)" raytracer width=1000 height=1000 image=1
is "$rc" 2 "image=1 of 1000x1000 is refused (exit 2)"
like "$err" "image=1 of 1000x1000 needs 3000024 bytes (3 a pixel), over the record limit (1048576 bytes, satind --max-record)" \
    "naming the bytes it needs and the limit"

# --list-kinds: each kind's module and version.
version=$("$build/satind" --version | awk '{print $2}')
run "$submit" --socket "$(sock a0)" --json --list-kinds
is "$(json_get '[(k["module"], k["module_version"]) for k in d["kinds"] if k["name"] == "raytracer"]')" \
    "[('satin-kinds', '$version')]" "--json --list-kinds: raytracer's module and version"
run "$submit" --socket "$(sock a0)" --list-kinds
like "$out" "raytracer     satin-kinds $version  ray-traced" "--list-kinds: the module column"
like "$out" "image=0" "--list-kinds: raytracer's image parameter, default 0"

echo "1..$n"
[ "$failures" -eq 0 ]
