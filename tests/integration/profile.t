#!/usr/bin/env bash
# profile.t - satin-submit --profile on a real grid: a 2x2 grid (two
# workers per node but b1, which has one; policy CRS) runs uts T3 from a0
# with --profile FILE.csv, and again with FILE.png:
#   - the CSV has one set of rows per node of the grid (its 4 nodes, each
#     with its workers), and each worker's intervals tile its recorded
#     time, with no gap or overlap, within the job's wall time;
#   - the owner's computing time per worker is the busy time the job's own
#     statistics report for that worker (the same clock readings); the
#     grid's computing time is bounded by its workers times the wall time,
#     and other nodes computed only if records went to them;
#   - the PNG is a PNG of the size the plot asks for, and a column across
#     its plot crosses exactly 4 bands of state colours, one per node;
#   - a job without --profile makes no node record anything
#     (grid.profile_events 0) and carries no profile.* statistics;
#   - a peer that asks for profiles never recorded (ends of sessions never
#     opened, more sessions than a node keeps) and answers with a profile
#     that does not parse leaves the node running, that profile missing;
#   - a lone satind (no topology) profiles its own workers;
#   - a file that cannot be written is refused before the job is submitted.
# Asserts outcomes, never times.
set -u
. "$(dirname "$0")/grid_kit.sh" profile

topology() {   # topology BASE FILE
    cat >"$2" <<Y
grid: profile-test
policy: crs
security: none
clusters:
  - name: A
    nodes:
      - {id: a0, endpoint: "tcp://127.0.0.1:$1", client: "ipc://$tmpdir/g/a0.sock", workers: 2}
      - {id: a1, endpoint: "tcp://127.0.0.1:$(($1 + 1))", client: "ipc://$tmpdir/g/a1.sock", workers: 2}
  - name: B
    nodes:
      - {id: b0, endpoint: "tcp://127.0.0.1:$(($1 + 2))", client: "ipc://$tmpdir/g/b0.sock", workers: 2}
      - {id: b1, endpoint: "tcp://127.0.0.1:$(($1 + 3))", client: "ipc://$tmpdir/g/b1.sock", workers: 1}
Y
}
grid_up topology
a0=ipc://$tmpdir/g/a0.sock

# ---- usage ----
run "$submit" --socket "$a0" --profile "$tmpdir/x.svg" fib n=10
is "$rc" 2 "--profile to a file neither .csv nor .png: exit 2"
like "$err" "writes a .csv or a .png file" "says so"
run "$submit" --socket "$a0" --profile "$tmpdir/x.csv" --no-wait fib n=10
is "$rc" 2 "--profile with --no-wait: exit 2 (the profile comes with the result)"
run "$submit" --socket "$a0" --profile "$tmpdir/no/such/dir/p.csv" fib n=10
is "$rc" 74 "--profile into a directory that is not there: exit 74"
like "$err" "job not submitted" "before the job is submitted"

# ---- a job without a profile ----
run "$submit" --socket "$a0" --json --stats uts tree=T3
is "$rc" 0 "uts T3 without --profile: exit 0"
is "$(json_get 'd["result"]["nodes"], d["stats"]["grid.nodes_reporting"], d["stats"]["grid.profile_events"]')" \
   "4112897 4 0" "exact size, 4 nodes reporting, and no node recorded a profile event"
is "$(json_get '[k for k in d["stats"] if k.startswith("profile")]')" "[]" \
   "no profile.* statistics"

# ---- the CSV ----
run "$submit" --socket "$a0" --json --stats --profile "$tmpdir/p.csv" uts tree=T3
is "$rc" 0 "uts T3 with --profile p.csv: exit 0"
cp "$tmpdir/out" "$tmpdir/p.json"
is "$(json_get 'd["result"]["nodes"], d["stats"]["profile.nodes"], d["stats"]["grid.nodes_reporting"]')" \
   "4112897 4 4" "exact size, a profile from each of the 4 nodes"
is "$(json_get '"profile.missing" in d["stats"], [k for k in d["stats"] if k.startswith("profile.") and k[8:].isdigit()]')" \
   "False []" "none missing; the per-node texts are not printed among the statistics"
gt "$(json_get 'd["stats"]["grid.profile_events"]')" 0 "the nodes recorded events"
is "$err" "" "nothing on stderr (no truncation, nothing missing)"

# check_csv: one line per finding, "ok" when all is well
check_csv() {
    python3 - "$tmpdir/p.csv" "$tmpdir/p.json" <<'PY'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))
s = d["stats"]
wall = s["profile.wall_ns"]
bad = []
if rows[0] != ["node", "worker", "state", "start_ns", "end_ns", "node_id"]:
    bad.append("header %r" % rows[0])
states = {"computing", "steal-lan", "steal-wan", "idle"}
by = {}
names = {}
for r in rows[1:]:
    node, worker, state, a, b, name = int(r[0]), int(r[1]), r[2], int(r[3]), int(r[4]), r[5]
    if state not in states:
        bad.append("state %s" % state)
    if names.setdefault(node, name) != name:
        bad.append("node %d named %s and %s" % (node, names[node], name))
    by.setdefault((name, worker), []).append((a, b, state))
if sorted(names.values()) != ["a0", "a1", "b0", "b1"]:
    bad.append("nodes %r" % sorted(names.values()))
if sorted(by) != [(n, w) for n in ["a0", "a1", "b0", "b1"] for w in (0, 1) if (n, w) != ("b1", 1)]:
    bad.append("(node, worker) row sets %r" % sorted(by))
computing = {}
for (name, w), iv in by.items():
    iv.sort()
    if iv[0][0] < 0 or iv[-1][1] > wall:
        bad.append("%s/%d outside [0, %d]: %d..%d" % (name, w, wall, iv[0][0], iv[-1][1]))
    for k, (a, b, st) in enumerate(iv):
        if a >= b:
            bad.append("%s/%d empty or reversed interval %d..%d" % (name, w, a, b))
        if k and a != iv[k - 1][1]:
            bad.append("%s/%d gap or overlap at %d (previous ends %d)" % (name, w, a, iv[k - 1][1]))
        if k and st == iv[k - 1][2]:
            bad.append("%s/%d two %s intervals in a row at %d" % (name, w, st, a))
    computing[(name, w)] = sum(b - a for a, b, st in iv if st == "computing")
# The owner's workers: the job's own busy time, from the same clock readings.
for w in (0, 1):
    busy = round(s["worker.%d.busy_s" % w] * 1e9)
    if abs(computing[("a0", w)] - busy) > 1000:
        bad.append("a0/%d computing %d ns, the job's statistics say busy %d ns"
                   % (w, computing[("a0", w)], busy))
if abs(round(s["wall_s"] * 1e9) - wall) > 1000:
    bad.append("profile.wall_ns %d is not wall_s %r" % (wall, s["wall_s"]))
total = sum(computing.values())
if not 0 < total <= 7 * wall:
    bad.append("computing summed %d ns, not in (0, 7 x wall]" % total)
remote = sum(v for (n, w), v in computing.items() if n != "a0")
if (remote > 0) != (s["grid.jobs_received"] > 0):
    bad.append("other nodes computed %d ns, and received %d records"
               % (remote, s["grid.jobs_received"]))
print("\n".join(bad) if bad else "ok")
print("# a0's computing minus its busy time (ns): " +
      " ".join(str(computing[("a0", w)] - round(s["worker.%d.busy_s" % w] * 1e9)) for w in (0, 1)),
      file=sys.stderr)
print("# computing per worker (ms): " +
      " ".join("%s/%d %.3f" % (n, w, v / 1e6) for (n, w), v in sorted(computing.items())),
      file=sys.stderr)
PY
}
is "$(check_csv 2>"$tmpdir/check.err")" "ok" \
   "CSV: 4 nodes with their 7 workers, intervals tiling each worker's time within the wall time, the owner's computing time its busy time, the grid's bounded"
sed 's/^/# /' "$tmpdir/check.err"

# ---- the PNG ----
if ! command -v gnuplot >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y gnuplot-nox >"$tmpdir/apt.log" 2>&1 || sed 's/^/# apt: /' "$tmpdir/apt.log" | tail -5
fi
png_ran=0
if command -v gnuplot >/dev/null 2>&1; then
    png_ran=1
    run "$submit" --socket "$a0" --profile "$tmpdir/p.png" uts tree=T3
    is "$rc" 0 "uts T3 with --profile p.png: exit 0"
    like "$out" "4112897 nodes" "the result is printed as usual"
    # A PNG decoded by hand (zlib and the five row filters): its size, and
    # the state colours met going down the column in the middle of the plot.
    is "$(python3 - "$tmpdir/p.png" <<'PY'
import struct, sys, zlib
b = open(sys.argv[1], "rb").read()
if b[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit(print("not a PNG"))
pos, idat, ihdr = 8, b"", None
while pos < len(b):
    n, kind = struct.unpack(">I4s", b[pos:pos + 8])
    body = b[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        ihdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
w, h, depth, ctype = ihdr[:4]
bpp = {2: 3, 6: 4}.get(ctype)
if depth != 8 or bpp is None:
    sys.exit(print("PNG of depth %d, colour type %d" % (depth, ctype)))
raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        up, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + up) & 255
        elif f == 3: line[i] = (line[i] + (a + up) // 2) & 255
        elif f == 4:
            p = a + up - c
            pa, pb, pc = abs(p - a), abs(p - up), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
states = {(0x2c, 0xa0, 0x2c), (0xff, 0x7f, 0x0e), (0xd6, 0x27, 0x28), (0xd9, 0xd9, 0xd9)}
x = w // 2
# Bands: runs of state colours, a gap of fewer than 3 other pixels (a
# blended edge between two workers' bands) not ending one.
bands, run, gap = 0, 0, 3
for y in range(h):
    if tuple(rows[y][x * bpp:x * bpp + 3]) in states:
        if gap >= 3 and run == 0:
            bands += 1
        run, gap = 1, 0
    else:
        gap += 1
        if gap >= 3:
            run = 0
used = {tuple(r[i:i + 3]) for r in rows for i in range(0, stride, bpp)} & states
print(w, h, bands, len(used) >= 2)
PY
)" "1300 360 4 True" "a 1300 x 360 PNG; down its middle 4 bands of state colours (a row per node), in 2 colours or more"
else
    for _ in 1 2 3; do skip "gnuplot is not installed and could not be (not root, or no apt-get)"; done
fi

# ---- what other nodes send cannot hurt ----
# b1 is killed, and a peer-probe says it is b1 to a0: it asks a0 for
# profiles a0 never recorded (an end never begun, more starts than a0 keeps
# sessions, their ends), then answers a0's statistics round for the next
# job, ahead of it, with a profile that does not parse.  That job's result
# names b1 as missing from the profile, and a0 runs on.
kill -KILL "$(cat "$tmpdir/g/b1.pid")"
next=$(( $(json_get 'd["job"]' "$(cat "$tmpdir/p.json")") + 1 + png_ran ))
run "$build/tests/integration/peer-probe" "$(sed -n 's/.*id: a0, endpoint: "\([^"]*\)".*/\1/p' "$tmpdir/t.yaml")" \
    "$tmpdir/t.yaml" 3 profile "$next"
is "$rc" 0 "peer-probe as b1: the profile requests and the bad reply sent"
run "$submit" --socket "$a0" --json --stats --profile "$tmpdir/q.csv" uts tree=T3
is "$rc" 0 "the next job with --profile: exit 0"
is "$(json_get 'd["job"], d["result"]["nodes"], d["stats"]["profile.nodes"], d["stats"]["profile.missing"]')" \
   "$next 4112897 3 b1" "exact size; profiles of 3 nodes, b1's named missing"
like "$err" "no profile from node(s) b1" "satin-submit says so on stderr"
like "$(cat "$tmpdir/g/a0.log")" "node b1 sent an unreadable profile" "a0 logs the bad one"
is "$(python3 -c 'import csv,sys; print(sorted({r[5] for r in list(csv.reader(open(sys.argv[1])))[1:]}))' "$tmpdir/q.csv")" \
   "['a0', 'a1', 'b0']" "the CSV has the 3 other nodes' rows"
run "$submit" --socket "$a0" fib n=20
is "$rc" 0 "a0 still runs jobs"
like "$out" "6765" "with their results"

# ---- one daemon, no grid ----
"$build/satind" --workers 2 --socket "ipc://$tmpdir/solo.sock" --foreground 2>"$tmpdir/solo.log" &
solo=$!
adopt solo "$solo"
wait_socket "$tmpdir/solo.sock" "$solo" "the lone satind's socket"
run "$submit" --socket "ipc://$tmpdir/solo.sock" --json --stats --profile "$tmpdir/s.csv" fib n=32
is "$rc" 0 "a lone satind: fib 32 with --profile, exit 0"
cp "$tmpdir/out" "$tmpdir/s.json"
is "$(python3 - "$tmpdir/s.csv" "$tmpdir/s.json" <<'PY'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
s = json.load(open(sys.argv[2]))["stats"]
comp = [sum(int(r[4]) - int(r[3]) for r in rows if r[1] == str(w) and r[2] == "computing")
        for w in (0, 1)]
busy = [round(s["worker.%d.busy_s" % w] * 1e9) for w in (0, 1)]
print(s["profile.nodes"], sorted({(r[0], r[1], r[5]) for r in rows}),
      all(abs(c - b) <= 1000 for c, b in zip(comp, busy)))
PY
)" "1 [('0', '0', 'local'), ('0', '1', 'local')] True" \
   "its own profile: node 0 (local), both workers, computing as busy as its statistics say"

echo "1..$n"
[ "$failures" = 0 ]
