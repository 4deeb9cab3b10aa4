#!/usr/bin/env bash
# grid_status.t - satin-submit --status --grid: one node's view of the whole
# grid.  A 2x2 grid (failure time-outs of 1 s in a cluster and 1.5 s
# across) is asked from a0: every node with its exact id, cluster, index,
# workers and pid, alive and answering; the same facts in --json as in the
# table; after a job, each node's steal counters in the view lie between
# what its own --status said just before and just after; b1 killed with
# SIGKILL shows dead (with how long it has been silent and dead), a1
# frozen for a moment is listed without figures and comes back, b0
# stopped with SIGTERM shows that it left; satin-grid status shows the
# view; a daemon without a topology is a grid of one; --grid without
# --status or --list is a usage error (exit 2).  Bounded waits,
# never timing assertions.
set -u
. "$(dirname "$0")/grid_kit.sh" grid-status

topology() {   # topology BASE FILE
    cat >"$2" <<Y
grid: grid-status-test
policy: crs
security: none
failure_timeout: {lan_ms: 1000, wan_ms: 1500}
clusters:
  - name: A
    nodes:
      - {id: a0, endpoint: "tcp://127.0.0.1:$1", client: "ipc://$tmpdir/g/a0.sock", workers: 2}
      - {id: a1, endpoint: "tcp://127.0.0.1:$(($1 + 1))", client: "ipc://$tmpdir/g/a1.sock", workers: 1}
  - name: B
    nodes:
      - {id: b0, endpoint: "tcp://127.0.0.1:$(($1 + 2))", client: "ipc://$tmpdir/g/b0.sock", workers: 1}
      - {id: b1, endpoint: "tcp://127.0.0.1:$(($1 + 3))", client: "ipc://$tmpdir/g/b1.sock", workers: 3}
Y
}
grid_up topology
a0=ipc://$tmpdir/g/a0.sock

# view: a0's view as JSON into $out (and rc)
view() {
    run "$submit" --socket "$a0" --status --grid --json
}
# view_says EXPR WANT: a0's view (into $out) gives WANT for EXPR (for wait_until)
view_says() { view; [ "$(json_get "$1")" = "$2" ]; }
# facts EXPR: one line per node of the view in $out, EXPR over its entry v
facts() {
    json_get "'\\n'.join('%s ' % k + ' '.join(str(x) for x in ($1)) for k, v in d.items())"
}

run "$submit" --socket "$a0" --status --grid
is "$rc" 0 "--status --grid exits 0"
is "$(printf '%s\n' "$out" | head -n 1 | tr -s ' ')" \
    "NODE CLUSTER STATE SILENT_S WORKERS BUSY RUNNING PENDING QUEUED HELD STEALS STEALS_OK STEALS_FAILED WAN_MSGS WAN_BYTES NOTE" \
    "the table's header"
table=$out
is "$(printf '%s\n' "$table" | awk 'NR > 1 {print $1, $2, $3, $5, $6, $7, $8}')" "a0 A alive 2 0 0 0
a1 A alive 1 0 0 0
b0 B alive 1 0 0 0
b1 B alive 3 0 0 0" "one row per node, in file order: id, cluster, alive, workers, none busy, no jobs"
is "$(printf '%s\n' "$table" | awk 'NR > 1 {print $1, $NF}' | head -n 1)" "a0 asked" \
    "the node asked says so"
widths=$(printf '%s\n' "$table" | awk '{print index($0, "WORKERS") ? index($0, "WORKERS") + 6 : 0}' | head -n 1)
aligned=1
while read -r line; do
    [ "${line:$((widths - 1)):1}" = " " ] && aligned=0
done < <(printf '%s\n' "$table" | tail -n +2)
is "$aligned" 1 "the WORKERS column is aligned (its last digit under its title's last letter)"

view
is "$rc" 0 "--status --grid --json exits 0"
pids=$(for id in a0 a1 b0 b1; do echo "$id $(cat "$tmpdir/g/$id.pid")"; done)
is "$(facts 'v["node"], v["cluster"], v["index"], v["asked"], v["state"], v["answered"], v["workers"]')" \
    "a0 a0 A 0 1 alive 1 2
a1 a1 A 1 0 alive 1 1
b0 b0 B 2 0 alive 1 1
b1 b1 B 3 0 alive 1 3" "JSON: one member per node, in file order, with its id, cluster, index, state, workers"
is "$(facts 'v["pid"],')" "$pids" "each node's pid is the one in the run directory"
is "$(facts '"silent_s" in v, "dead_s" in v')" "a0 False False
a1 True False
b0 True False
b1 True False" "how long a node was silent: for the others, not for the node asked; none is dead"
# The same facts in the table as in the JSON (figures that move between
# two asks, steals and traffic, are compared after the job below).
is "$(printf '%s\n' "$table" | awk 'NR > 1 {print $1, $2, $3, $5}')" \
    "$(facts 'v["cluster"], v["state"], v["workers"]')" "the table says what the JSON says"

# A job with leaves of 50 ms: other nodes steal some of it.
run "$submit" --socket "$a0" --json synthetic depth=6 fanout=2 dist=const mean_us=50000
is "$rc" 0 "a job runs on the grid"
# steals NODE: "attempts successes failures" from the node's own --status
steals() {
    "$submit" --socket "ipc://$tmpdir/g/$1.sock" --json --status | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["steal_attempts_lan"] + d["steal_attempts_wan"],
      d["steal_successes_lan"] + d["steal_successes_wan"], d["steal_failures"])'
}
declare -A before after
for id in a0 a1 b0 b1; do before[$id]=$(steals "$id"); done
view
mid=$(facts 'v["steal_attempts"], v["steal_successes"], v["steal_failures"]')
for id in a0 a1 b0 b1; do after[$id]=$(steals "$id"); done
consistent=1
while read -r id a s f; do
    read -r a0_ s0 f0 <<<"${before[$id]}"
    read -r a1_ s1 f1 <<<"${after[$id]}"
    if ! [ "$a0_" -le "$a" ] || ! [ "$a" -le "$a1_" ] || ! [ "$s0" -le "$s" ] || ! [ "$s" -le "$s1" ] ||
        ! [ "$f0" -le "$f" ] || ! [ "$f" -le "$f1" ]; then
        consistent=0
        echo "# $id: before ${before[$id]}, view $a $s $f, after ${after[$id]}"
    fi
done <<<"$mid"
is "$consistent" 1 "each node's steals in the view lie between its own --status before and after"
gt "$(json_get 'sum(v["steal_successes"] for v in d.values())')" 0 "some steals succeeded"
gt "$(json_get 'sum(v["wan_msgs"] for v in d.values())')" 0 "messages crossed between the clusters"
ordered=$(json_get 'all(v["steal_successes"] + v["steal_failures"] <= v["steal_attempts"] for v in d.values())')
is "$ordered" True "no node has more steal outcomes than attempts"

# a1 frozen (SIGSTOP): the view still comes, within the wait, and lists a1
# as not answering, with how long it has been silent; thawed, it answers
# again and is alive.
a1pid=$(cat "$tmpdir/g/a1.pid")
kill -STOP "$a1pid"
view
kill -CONT "$a1pid"
is "$rc" 0 "a1 frozen: the view still comes"
is "$(json_get 'd["a1"]["answered"], "workers" in d["a1"], d["a1"]["state"] in ("alive", "suspected", "dead"),
    d["a1"]["silent_s"] >= 0, [v["answered"] for k, v in d.items() if k != "a1"]')" \
    "0 False True True [1, 1, 1]" "a1 is listed without figures, with its state and silence; the others answer"
wait_until 60 "a1 to be alive and answering again" \
    view_says 'd["a1"]["state"], d["a1"]["answered"]' "alive 1" &&
    pass "a1 thawed: alive and answering again"

# b1 killed: a0 finds it dead (its status requests tie it to b1 until it
# answers, so its silence counts) within a bounded wait.
kill -KILL "$(cat "$tmpdir/g/b1.pid")"
wait_until 60 "a0 to see b1 dead" view_says 'd["b1"]["state"]' dead &&
    pass "after kill -9, a0 sees b1 dead"
is "$(json_get 'd["b1"]["answered"], "pid" in d["b1"], d["b1"]["silent_s"] >= d["b1"]["dead_s"] >= 0')" \
    "0 False True" "with no figures of its own, silent for longer than it has been dead"
# With time-outs of 1 s a node starved of CPU for longer (a loaded
# machine) may be taken for dead a while and come back when it answers:
# the others answering and alive is a state to wait for, not a moment.
others_alive() {
    view
    [ "$(facts 'v["state"], v["answered"]' | grep -v '^b1')" = "a0 alive 1
a1 alive 1
b0 alive 1" ]
}
wait_until 60 "a0, a1 and b0 alive and answering in a0's view" others_alive &&
    pass "the other nodes still answer"
run "$submit" --socket "$a0" --status --grid
like "$(printf '%s\n' "$out" | grep '^b1 ')" "no answer; dead for" "the table says b1 gives no answer and since when it is dead"
is "$(printf '%s\n' "$out" | awk '$1 == "b1" {print $3, $5, $11}')" "dead - -" \
    "and shows no figures for it"

# b0 stopped with SIGTERM: it says it leaves, and a0 says it left.
b0pid=$(cat "$tmpdir/g/b0.pid")
kill -TERM "$b0pid"
wait_until 60 "b0 to exit after SIGTERM" ! kill -0 "$b0pid"
wait_until 60 "a0 to say that b0 left" view_says 'd["b0"]["state"]' left &&
    pass "after SIGTERM, a0 says b0 left"
is "$(json_get 'd["b0"]["answered"], d["b1"]["state"]')" "0 dead" "b0 no longer answers; b1 stays dead"

# satin-grid status: the processes, then a0's view (a1 alive in it: a wait,
# for the reason others_alive gives).
a1_alive_in_status() {
    run "$grid" status --run-dir "$tmpdir/g"
    [ "$(printf '%s\n' "$out" | sed '1,/^$/d' | awk '$1 == "a1" {print $3}')" = alive ]
}
wait_until 60 "a1 alive in satin-grid status's view" a1_alive_in_status
is "$rc" 0 "satin-grid status exits 0"
is "$(printf '%s\n' "$out" | sed '/^$/q' | awk 'NF {print $1, $2}')" "a0 running
a1 running
b0 stopped
b1 stopped" "satin-grid status lists the processes first"
is "$(printf '%s\n' "$out" | sed '1,/^$/d' | awk '{print $1, $3}')" "NODE STATE
a0 alive
a1 alive
b0 left
b1 dead" "then the grid as a0 sees it"
run "$grid" status --run-dir "$tmpdir/g" --json
is "$(json_get 'list(d), d["a0"]["asked"]')" "['a0', 'a1', 'b0', 'b1'] 1" \
    "satin-grid status --json: a0's view alone, as JSON"

# A daemon without a topology is a grid of one, named after its host
# (adopted: satin-grid down stops it with the grid).
"$build/satind" --workers 2 --socket "ipc://$tmpdir/solo.sock" --foreground 2>"$tmpdir/solo.log" &
solo=$!
adopt solo "$solo"
wait_until --alive "$solo" 60 "the daemon without a topology to answer" \
    "$submit" --socket "ipc://$tmpdir/solo.sock" --status
run "$submit" --socket "ipc://$tmpdir/solo.sock" --status --grid --json
is "$(json_get 'list(d) == [__import__("socket").gethostname()],
    [(v["cluster"], v["state"], v["asked"], v["answered"], v["workers"]) for v in d.values()]')" \
    "True [('', 'alive', 1, 1, 2)]" "a daemon without a topology: a grid of one, its host"

# Bad usage.
run "$submit" --socket "$a0" --grid
is "$rc" 2 "--grid without --status or --list: exit 2"
is "$err" "satin-submit: --grid only goes with --status or --list
Try 'satin-submit --help'." "and a clear message"
run "$submit" --socket "$a0" --cancel 1 --grid --json
is "$rc $(json_get 'd["error"]["code"], d["error"]["message"]')" \
    "2 usage --grid only goes with --status or --list" "--cancel --grid --json: the usage error as JSON"

echo "1..$n"
[ "$failures" -eq 0 ]
