#!/usr/bin/env bash
# dashboard.t - satind --metrics serves the dashboard: a 2x2 grid with a0
# serving it on loopback.  curl: the page and its files come from satind
# (a Content-Security-Policy of 'self', no address of elsewhere in them);
# /api/status has satin-submit --status --grid --json's schema, /api/jobs
# --list --grid --all --json's (every node's jobs), and another's parameters
# are not shown.  A real
# browser (Debian's chromium, headless) opens the page: the live table has
# the four nodes, alive, and after a submission the job's row; a screenshot
# is kept ($SATIN_BUILD/dashboard.png), with a profiled job's lifestory.  Off loopback (tcp://*:PORT) only
# /metrics is served without a token; with --dashboard-token every path
# needs it (Bearer or ?token=), and a token file others may read is refused.
set -u
. "$(dirname "$0")/grid_kit.sh" dashboard
pids=()
cleanup_extra() { for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done; }
trap 'cleanup_extra; "$grid" down --run-dir "$tmpdir/g" >/dev/null 2>&1; rm -rf "$tmpdir"' EXIT

topology() {   # topology BASE FILE
    {
        echo "grid: dashboard-test"
        echo "policy: crs"
        echo "security: none"
        echo "clusters:"
        local c k i=0
        for c in A B; do
            echo "  - name: $c"
            echo "    nodes:"
            for k in 0 1; do
                local id=${c,,}$k
                echo "      - {id: $id, endpoint: \"tcp://127.0.0.1:$(($1 + i))\", client: \"ipc://$tmpdir/g/$id.sock\", workers: 1}"
                i=$((i + 1))
            done
        done
    } >"$2"
}

mkdir -m 700 "$tmpdir/g"
base=$(port_base)
topology "$base" "$tmpdir/t.yaml"
"$build/satind" --config "$tmpdir/t.yaml" --node a0 --metrics tcp://127.0.0.1:0 --foreground \
    2>"$tmpdir/a0.log" &
adopt a0 $!
for id in a1 b0 b1; do
    "$build/satind" --config "$tmpdir/t.yaml" --node "$id" --foreground 2>"$tmpdir/$id.log" &
    adopt "$id" $!
done
a0=ipc://$tmpdir/g/a0.sock
port=
served_and_formed() {
    port=$(sed -n 's|.*serving the dashboard at http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$tmpdir/a0.log")
    [ -n "$port" ] && [ "$(status_of "ipc://$tmpdir/g/b1.sock" grid_nodes)" = 4 ]
}
wait_until 60 "a0 to say where it serves the dashboard, and b1 to see 4 nodes" served_and_formed
[ -n "$port" ] || { echo "Bail out! a0 did not say where it serves the dashboard: $(cat "$tmpdir/a0.log")"; exit 1; }
url=http://127.0.0.1:$port

# The page and its files, from satind.
run curl -s -S --max-time 5 -D "$tmpdir/h" -o "$tmpdir/index.html" -w '%{http_code}' "$url/"
is "$out" 200 "GET /: 200"
headers=$(tr -d '\r' <"$tmpdir/h")
like "$headers" "Content-Type: text/html; charset=utf-8" "the page is HTML"
like "$headers" "Content-Security-Policy: default-src 'self'" "and may load nothing but from satind"
files=
for f in dashboard.js dashboard.css; do
    curl -s --max-time 5 -o "$tmpdir/$f" -w '%{http_code} %{content_type}\n' "$url/$f" >>"$tmpdir/types"
    files+=" $tmpdir/$f"
done
is "$(cat "$tmpdir/types")" "200 text/javascript; charset=utf-8
200 text/css; charset=utf-8" "its script and style sheet, from satind"
is "$(cat "$tmpdir/index.html" $files | grep -cE '(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/')" 0 \
    "none of them names an address elsewhere"
is "$(cmp -s "$tmpdir/index.html" "$repo/daemon/dashboard/index.html" && echo same)" same \
    "the page is daemon/dashboard/index.html, compiled in"

# The data, under /api/: asked for, then gathered within a second or two.
api() { curl -s --max-time 5 -o "$tmpdir/$2" -w '%{http_code}' "$url/api/$1"; }
apis_answer() { [ "$(api status status.json)" = 200 ] && [ "$(api jobs jobs.json)" = 200 ]; }
wait_until 60 "/api/status and /api/jobs to answer 200" apis_answer
"$submit" --socket "$a0" --status --grid --json >"$tmpdir/grid.json"
out=$(python3 - "$tmpdir/status.json" "$tmpdir/grid.json" <<'PY'
import json, sys
api, cli = (json.load(open(p)) for p in sys.argv[1:3])
print(list(api), [api[n]["state"] for n in api])
print(all(sorted(api[n]) == sorted(cli[n]) for n in cli) and sorted(api) == sorted(cli))
PY
)
is "$out" "['a0', 'a1', 'b0', 'b1'] ['alive', 'alive', 'alive', 'alive']
True" "/api/status: the four nodes alive, with satin-submit --status --grid --json's keys"

# A profiled job first, for the page to draw its lifestory.
run "$submit" --socket "$a0" --profile "$tmpdir/p.csv" uts tree=T3
like "$out" "4112897 nodes" "a profiled job: uts T3, exact"
run "$submit" --socket "$a0" --no-wait --parsable synthetic depth=1 fanout=1 dist=const mean_us=600000000
job=$out
run "$submit" --socket "ipc://$tmpdir/g/b1.sock" --no-wait --parsable --name "on b1" \
    synthetic depth=1 fanout=1 dist=const mean_us=600000000
b1job=$out
both_jobs_listed() {
    api jobs jobs.json >/dev/null
    grep -q "\"job\":$job,.*\"state\":\"running\"" "$tmpdir/jobs.json" &&
        grep -q "\"name\":\"on b1\".*\"node\":\"b1\",\"state\":\"running\"" "$tmpdir/jobs.json"
}
wait_until 60 "/api/jobs to list a0's and b1's running jobs" both_jobs_listed
"$submit" --socket "$a0" --list --grid --all --json >"$tmpdir/list.json"
out=$(python3 - "$tmpdir/jobs.json" "$tmpdir/list.json" "$job" <<'PY'
import json, sys
api, cli = (json.load(open(p))["jobs"] for p in sys.argv[1:3])
job = int(sys.argv[3])
a = [j for j in api if j["job"] == job and j["node"] == "a0"][0]
c = [j for j in cli if j["job"] == job and j["node"] == "a0"][0]
print(a["kind"], a["node"], a["state"], a["params"], c["params"]["mean_us"])
print(sorted(a) == sorted(c))
print([(j["name"], j["node"], j["state"]) for j in api if j["node"] == "b1"])
PY
)
is "$out" "synthetic a0 running None 600000000
True
[('on b1', 'b1', 'running')]" "/api/jobs: the job running on a0, with --list --grid --json's keys, its parameters not shown to the page (another's); b1's named job"

# A real browser: the live table, then a job's row.
chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$chrome" ]; then
    browse() {   # browse OUT [--screenshot=FILE]: the DOM once the page has run a while
        rm -rf "$tmpdir/chrome"
        mkdir "$tmpdir/chrome"
        timeout 90 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
            --disable-background-networking --disable-component-update --disable-sync \
            --user-data-dir="$tmpdir/chrome" --window-size=1400,1300 --virtual-time-budget=6000 \
            "${@:2}" "$url/" >"$tmpdir/$1" 2>"$tmpdir/chrome.log"
    }
    browse dom.html --dump-dom
    is "$(grep -o '<body[^>]*data-ready="1"' "$tmpdir/dom.html" | wc -l)" 1 \
        "chromium: the page ran and drew the grid (data-ready)"
    is "$(grep -o '<tr class="node-row[^"]*" data-node="[a-z0-9]*" data-state="alive"' "$tmpdir/dom.html" |
          sed 's/.*data-node="\([a-z0-9]*\)".*/\1/' | tr '\n' ' ')" "a0 a1 b0 b1 " \
        "chromium: the live table has the four nodes, alive"
    like "$(grep -o "<tr class=\"job-row\" data-job=\"$job\" data-node=\"a0\"[^>]*>" "$tmpdir/dom.html")" \
        "data-state=\"running\"" "chromium: the submitted job's row, running on a0"
    like "$(grep -o "<tr class=\"job-row\" data-job=\"$b1job\" data-node=\"b1\"[^>]*>.*" "$tmpdir/dom.html" | head -c 400)" \
        "on b1" "chromium: and the job named 'on b1', from b1: the grid's jobs"
    like "$(grep -o '<select id="profile-pick"[^>]*>.*</select>' "$tmpdir/dom.html")" \
        "uts job 1</option>" "chromium: the profiled job offered for its lifestory"
    browse shot.out --screenshot="$tmpdir/dashboard.png"
    if [ -s "$tmpdir/dashboard.png" ]; then
        cp "$tmpdir/dashboard.png" "$build/dashboard.png"
        pass "chromium: a screenshot of the page, kept as $build/dashboard.png"
    else
        fail "chromium: a screenshot of the page"; sed 's/^/# /' "$tmpdir/chrome.log" | tail -5
    fi
else
    for _ in 1 2 3 4 5 6; do skip "chromium is not installed (make check installs Debian's)"; done
fi
"$submit" --socket "$a0" --cancel "$job" >/dev/null
"$submit" --socket "ipc://$tmpdir/g/b1.sock" --cancel "$b1job" >/dev/null

# Off loopback: without a token /metrics only; with one, everything needs it.
start_standalone() {   # start_standalone NAME ARGS...: its port in $p
    local name=$1; shift
    "$build/satind" --workers 1 --socket "ipc://$tmpdir/$name.sock" --foreground "$@" \
        </dev/null >/dev/null 2>"$tmpdir/$name.log" &
    pids+=($!)
    p=
    wait_until --alive $! 60 "satind $name to say where it serves the dashboard" dashboard_port "$name"
}
dashboard_port() {   # dashboard_port NAME: the port NAME's log says it serves on, in $p
    p=$(sed -n 's|.*serving the dashboard at http://[^:]*:\([0-9]*\)/.*|\1|p' "$tmpdir/$1.log")
    [ -n "$p" ]
}
code() { curl -s --max-time 5 -o /dev/null -w '%{http_code}' "$@"; }
start_standalone open --metrics 'tcp://*:0'
is "$(code "http://127.0.0.1:$p/metrics") $(code "http://127.0.0.1:$p/") $(code "http://127.0.0.1:$p/api/node")" \
    "200 403 403" "on every interface without a token: /metrics 200, the dashboard and /api/ 403"
printf 'correct-horse-battery-staple\n' >"$tmpdir/token"
chmod 644 "$tmpdir/token"
run "$build/satind" --workers 1 --socket "ipc://$tmpdir/bad.sock" --foreground --metrics 'tcp://*:0' \
    --dashboard-token "$tmpdir/token"
is "$rc" 2 "a token file others may read: satind refuses it (exit 2)"
like "$err" "lets others read it" "and says why"
chmod 600 "$tmpdir/token"
start_standalone locked --metrics 'tcp://*:0' --dashboard-token "$tmpdir/token"
is "$(code "http://127.0.0.1:$p/") $(code "http://127.0.0.1:$p/metrics") $(code "http://127.0.0.1:$p/?token=wrong-horse-battery-staple")" \
    "401 401 401" "with --dashboard-token: no token or a wrong one, 401 everywhere"
is "$(code "http://127.0.0.1:$p/?token=correct-horse-battery-staple") $(code -H 'Authorization: Bearer correct-horse-battery-staple' "http://127.0.0.1:$p/metrics")" \
    "200 200" "the right one, as ?token= or Bearer: 200"

echo "1..$n"
[ "$failures" = 0 ]
