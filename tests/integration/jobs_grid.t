#!/usr/bin/env bash
# jobs_grid.t - the grid's jobs at once and jobs' names.  A 2x2 grid
# (failure time-outs of 1 s in a cluster, 1.5 s across): jobs named with
# --name on b1 and a1 and one without a name on a0; satin-submit --list
# --grid from a0 lists every node's jobs with their node and name (the
# table and --json alike), --list alone a0's; the name is in the result
# (text and JSON) and in --wait's; a name with a
# control character or of 64 bytes is refused; b0 frozen (SIGSTOP) is
# named as not answering, within about a second, and lists again once it
# thaws; nobody's --list --grid does not show root's parameters on any
# node (as root; skipped otherwise).
set -u
. "$(dirname "$0")/grid_kit.sh" jobs-grid

topology() {   # topology BASE FILE
    cat >"$2" <<Y
grid: jobs-grid-test
policy: crs
security: none
failure_timeout: {lan_ms: 1000, wan_ms: 1500}
clusters:
  - name: A
    nodes:
      - {id: a0, endpoint: "tcp://127.0.0.1:$1", client: "ipc://$tmpdir/g/a0.sock", workers: 1}
      - {id: a1, endpoint: "tcp://127.0.0.1:$(($1 + 1))", client: "ipc://$tmpdir/g/a1.sock", workers: 1}
  - name: B
    nodes:
      - {id: b0, endpoint: "tcp://127.0.0.1:$(($1 + 2))", client: "ipc://$tmpdir/g/b0.sock", workers: 1}
      - {id: b1, endpoint: "tcp://127.0.0.1:$(($1 + 3))", client: "ipc://$tmpdir/g/b1.sock", workers: 1}
Y
}
grid_up topology
ep() { echo "ipc://$tmpdir/g/$1.sock"; }
long=(synthetic depth=1 fanout=1 dist=const mean_us=600000000)

run "$submit" --socket "$(ep b1)" --no-wait --parsable --name "long on b1" "${long[@]}"
b1job=$out
run "$submit" --socket "$(ep a1)" --name "fib sweep" fib n=20
is "$rc" 0 "a named job on a1"
like "$out" "fib job 1 'fib sweep' (n=20) done in" "its result names it"
run "$submit" --socket "$(ep a1)" --json --name "fib sweep 2" fib n=21
is "$(json_get 'd["name"], d["state"], d["result"]["value"], d["stats"]["job_name"]')" \
    "fib sweep 2 ok 10946 fib sweep 2" "--json: the report's name, as --list has it"
run "$submit" --socket "$(ep a1)" --wait 1
like "$out" "fib job 1 'fib sweep' done in" "--wait names it too (from the result)"
"$submit" --socket "$(ep a0)" fib n=15 >/dev/null

# until b1's job runs, as the whole grid says
listing() {   # listing ARGS...: "NODE JOB NAME STATE PARAMS" per job of --list --grid --json
    "$submit" --socket "$(ep a0)" --list --grid "$@" --json | python3 -c 'import json, sys
d = json.load(sys.stdin)
for j in d["jobs"]:
    p = j["params"]
    print(j["node"], j["job"], repr(j["name"]), j["state"],
          "-" if p is None else " ".join("%s=%s" % kv for kv in p.items()))
print("unanswered", d["unanswered"])'
}
b1_running() { out=$(listing --all); [[ $out == *"b1 $b1job 'long on b1' running"* ]]; }
wait_until 60 "--list --grid --all to show b1's job running" b1_running
is "$out" "a0 1 '' ok n=15
a1 1 'fib sweep' ok n=20
a1 2 'fib sweep 2' ok n=21
b1 1 'long on b1' running depth=1 fanout=1 dist=const mean_us=600000000
unanswered []" "--list --grid --all from a0: every node's jobs, in topology order, with node and name"
is "$(listing)" "b1 1 'long on b1' running depth=1 fanout=1 dist=const mean_us=600000000
unanswered []" "--list --grid: the unfinished ones"
run "$submit" --socket "$(ep a0)" --list --grid
like "$out" "     1  long on b1       synthetic    running   $(id -un)" "the table: its name and kind"
like "$out" "b1" "and its node"
run "$submit" --socket "$(ep a0)" --list --all --json
is "$(json_get 'sorted({j["node"] for j in d["jobs"]})')" "['a0']" "--list without --grid: a0's alone"

# bad names
run "$submit" --socket "$(ep a0)" --name "$(printf 'a\tb')" fib n=3
is "$rc" 2 "a name with a control character: a usage error"
like "$err" "job name has a control character" "says why"
run "$submit" --socket "$(ep a0)" --name "$(printf 'x%.0s' $(seq 64))" fib n=3
is "$rc:$err" "2:satin-submit: job name must be at most 63 bytes long" "a 64-byte name: refused"
run "$submit" --socket "$(ep a0)" --status --name x
is "$rc" 2 "--name goes only with submitting"

# b0 frozen: named, not waited for long
b0pid=$(cat "$tmpdir/g/b0.pid")
kill -STOP "$b0pid"
run "$submit" --socket "$(ep a0)" --list --grid
kill -CONT "$b0pid"
is "$rc" 0 "b0 frozen: --list --grid still answers"
is "$err" "satin-submit: no list from b0 (dead, or no answer within a second)" "and says b0 did not answer"
like "$out" "long on b1" "with the others' jobs"
every_node_answers() { [ "$(listing | tail -1)" = "unanswered []" ]; }
wait_until 60 "every node to answer --list --grid once b0 is thawed" every_node_answers
is "$(listing | tail -1)" "unanswered []" "b0 thawed: every node answers again"

# another user's view (root only): parameters hidden on every node
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
    chmod 755 "$tmpdir" "$tmpdir/g"
    chmod 666 "$tmpdir/g"/*.sock
    out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$submit" --socket "$(ep a0)" \
        --list --grid --all --json 2>&1 | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(sorted({(j["node"], j["params"] is None) for j in d["jobs"]}))')
    is "$out" "[('a0', True), ('a1', True), ('b1', True)]" \
        "nobody's --list --grid: root's jobs on every node, without their parameters"
    chmod 700 "$tmpdir/g"
else
    skip "not root: no second user to ask as"
fi
"$submit" --socket "$(ep b1)" --cancel "$b1job" >/dev/null

echo "1..$n"
[ "$failures" = 0 ]
