#!/usr/bin/env bash
# metrics.t - satind --metrics: two nodes in two clusters, a0 serving
# Prometheus metrics, b0 without them.  A real HTTP client (curl) scrapes
# a0 at /metrics: 200 with the exposition format's content type; the text
# parses with the Prometheus client library's own parser; after a job the
# counters equal the node's STATUS (jobs, steal attempts by class, WAN
# messages) and the peer is up.  Off by default (b0 listens on its peer
# port only), bound to 127.0.0.1 unless told otherwise; other paths get 404,
# POST 405; a bad address or a port in use stops satind with the reason;
# the port closes when the node stops.
set -u
. "$(dirname "$0")/grid_kit.sh" metrics
parser=/usr/bin/python3

topology() {   # topology BASE FILE
    cat >"$2" <<Y
grid: metrics-test
policy: crs
security: none
clusters:
  - name: A
    nodes:
      - {id: a0, endpoint: "tcp://127.0.0.1:$1", client: "ipc://$tmpdir/g/a0.sock", workers: 1}
  - name: B
    nodes:
      - {id: b0, endpoint: "tcp://127.0.0.1:$(($1 + 1))", client: "ipc://$tmpdir/g/b0.sock", workers: 1}
Y
}

mkdir -m 700 "$tmpdir/g"
base=$(port_base)
topology "$base" "$tmpdir/t.yaml"
"$build/satind" --config "$tmpdir/t.yaml" --node a0 --metrics tcp://127.0.0.1:0 --foreground \
    2>"$tmpdir/a0.log" &
adopt a0 $!
a0pid=$!
"$build/satind" --config "$tmpdir/t.yaml" --node b0 --foreground 2>"$tmpdir/b0.log" &
adopt b0 $!
b0pid=$!
a0=(--socket "ipc://$tmpdir/g/a0.sock")
# serving: a0 said where it serves metrics (in $port), and b0 sees both nodes
serving() {
    port=$(sed -n 's|.*serving Prometheus metrics at http://127\.0\.0\.1:\([0-9]*\)/metrics.*|\1|p' \
        "$tmpdir/a0.log")
    [ -n "$port" ] && [ "$(status_of "ipc://$tmpdir/g/b0.sock" grid_nodes)" = 2 ]
}
wait_until --alive "$a0pid" 60 "a0 to serve metrics and b0 to see both nodes" serving
[ -n "$port" ] || { echo "Bail out! a0 did not say where it serves metrics: $(cat "$tmpdir/a0.log")"; exit 1; }
url=http://127.0.0.1:$port/metrics

# Where each listens: a0 its peer port and the metrics port, on loopback;
# b0 its peer port only.
listening() { ss -Hltnp | grep "pid=$1," | awk '{print $4}' | sort | tr '\n' ' '; }
is "$(listening "$a0pid")" "$(printf '127.0.0.1:%s\n' "$base" "$port" | sort | tr '\n' ' ')" \
    "a0 listens on its peer port and, on 127.0.0.1, the metrics port"
is "$(listening "$b0pid")" "127.0.0.1:$((base + 1)) " "b0, without --metrics, on its peer port only"

run "$submit" "${a0[@]}" fib n=25 threshold=10
like "$out" "value: 75025" "a job on the grid: fib(25) exact"

# The control thread publishes within a second of a job's end.
scrape() { curl -s -S --max-time 5 -D "$tmpdir/headers" -o "$tmpdir/metrics" -w '%{http_code}' "$url"; }
published() { code=$(scrape); grep -q '^satin_jobs_finished_total{node="a0"} 1$' "$tmpdir/metrics"; }
wait_until 60 "the metrics to count the job" published
is "$code" 200 "GET /metrics: 200"
like "$(tr -d '\r' <"$tmpdir/headers")" "Content-Type: text/plain; version=0.0.4; charset=utf-8" \
    "with the exposition format's content type"
# What the node says in STATUS, read after the scrape (counters only grow).
"$submit" "${a0[@]}" --status --json >"$tmpdir/status.json"
out=$("$parser" - "$tmpdir/metrics" "$tmpdir/status.json" <<'PY' 2>&1
import json, sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
status = json.load(open(sys.argv[2]))
fams = {f.name: f for f in text_string_to_metric_families(text)}
def val(name, **labels):
    for fam in fams.values():
        for s in fam.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                return s.value
    raise KeyError((name, labels))
print("parsed", len(fams) > 40)
print("types", fams["satin_jobs_finished"].type, fams["satin_workers"].type)
print("jobs", int(val("satin_jobs_finished_total", node="a0")), status["jobs_finished"])
ok = val("satin_steal_attempts_total", node="a0", **{"class": "lan"}) <= status["steal_attempts_lan"] \
    and val("satin_steal_attempts_total", node="a0", **{"class": "wan"}) <= status["steal_attempts_wan"]
print("steals", ok)
print("wan", val("satin_peer_messages_sent_total", node="a0", **{"class": "wan"}) > 0)
print("pending", fams["satin_jobs_pending"].type, fams["satin_max_pending_jobs"].type)
print("peer", int(val("satin_peer_up", node="a0", peer="b0")))
print("info", int(val("satin_info", node="a0", policy="crs", version=status["version"])))
PY
)
is "$out" "parsed True
types counter gauge
jobs 1 1
steals True
wan True
pending gauge gauge
peer 1
info 1" "the Prometheus parser reads it: counters and gauges typed, the job counted as STATUS counts it, steals by class, WAN messages, b0 up, the policy"

# Prometheus' own linter: every family has a HELP, counters end in _total and
# nothing else does, units are base units and last.  And every family is one
# satind's table names (none with the HELP of a figure it lacks).
if command -v promtool >/dev/null; then
    run promtool check metrics <"$tmpdir/metrics"
    is "$rc:$out$err" "0:" "promtool check metrics: no complaint"
else
    skip "promtool is not installed (make check installs Debian's prometheus)"
fi
is "$(grep -c '^# HELP' "$tmpdir/metrics"):$(grep -c '^# TYPE' "$tmpdir/metrics")" \
    "$(grep -c '^# TYPE' "$tmpdir/metrics"):$(grep -c '^# TYPE' "$tmpdir/metrics")" "a HELP for every family"
is "$(grep '^# HELP' "$tmpdir/metrics" | grep 'not yet in satind' | cut -d' ' -f3)" "" \
    "every family is in satind's table of metrics"

is "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/other")" 404 "another path: 404"
is "$(curl -s -o /dev/null -w '%{http_code}' -X POST --data x "$url")" 405 "POST: 405"

# Bad addresses, and a port in use (a0's metrics port).
run "$build/satind" --metrics tcp://nowhere:9464 --socket "ipc://$tmpdir/x.sock" --foreground
is "$rc" 2 "--metrics with a host name: exit 2"
like "$err" "--metrics 'tcp://nowhere:9464': not a numeric IPv4 address" "says why"
run "$build/satind" --metrics 70000 --socket "ipc://$tmpdir/x.sock" --foreground
is "$rc" 2 "--metrics with a port out of range: exit 2"
like "$err" "the port must be a number from 0 to 65535" "says why"
run timeout 20 "$build/satind" --metrics "127.0.0.1:$port" --socket "ipc://$tmpdir/x.sock" --foreground
is "$rc" 2 "--metrics without tcp:// and with an address: exit 2"
run timeout 20 "$build/satind" --metrics "$port" --socket "ipc://$tmpdir/x.sock" --foreground
is "$rc" 1 "--metrics on a port in use: satind exits 1"
like "$err" "--metrics '$port': cannot listen there" "says so"

kill -TERM "$a0pid"
wait_until 60 "a0 to stop" ! kill -0 "$a0pid"
is "$(curl -s -o /dev/null -w '%{http_code}' "$url")" "000" "a0 stopped: the port is closed"

echo "1..$n"
[ "$failures" = 0 ]
