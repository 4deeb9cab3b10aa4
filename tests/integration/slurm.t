#!/usr/bin/env bash
# slurm.t - a grid started by Slurm.  Starts a private Slurm on this
# machine (munged, slurmctld and two slurmd, nodes n1 and n2 on loopback
# with ports of their own, each with this machine's CPUs; its own config,
# state, munge key and socket, so a system Slurm is left alone), installing
# Debian's slurm-wlm and munge when they are missing (on a machine run by
# systemd, installing munge also starts Debian's munge service), then:
#  - satin-slurm (and satin-grid slurm) outside an allocation says so;
#  - deploy/slurm/satin-grid.sbatch on two nodes: uts seed-T3, exact, on a
#    2-node grid; nothing left behind;
#  - a node whose peer port is taken: the job fails with satind's reason;
#  - a batch script that starts `satin-slurm up` in the background and
#    ends: every satind stops gracefully, nothing is left;
#  - the same template running a long job, scancel'ed: every satind stops
#    gracefully (its log ends "stopped"), no process of the job is left,
#    the run directory is gone;
#  - two sites: satin-site.sbatch keeps cluster A up on n1, then
#    satin-grid.sbatch on n2 joins as cluster B through the exchange
#    directory (A's node reloads its membership), its job exact on the
#    2-node grid; no secret key in the exchange; scancel stops A cleanly.
# Skips only where Slurm cannot be started at all (not root, no packages).
# Every daemon is stopped by its pid in the EXIT trap, every job cancelled.
# Waits are bounded (wait_until), never timed.
set -u
build=${SATIN_BUILD:-$PWD/build}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
export SATIN_BUILD=$build
launcher=$repo/deploy/slurm/satin-slurm

if [ "$(id -u)" != 0 ]; then
    echo "1..0 # SKIP slurmd must run as root to start jobs"
    exit 0
fi
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
   ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    if ! { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
              slurm-wlm munge >/dev/null 2>&1 ||
           { DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 &&
             DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
                 slurm-wlm munge >/dev/null 2>&1; }; }; then
        echo "1..0 # SKIP Slurm is not installed and apt-get could not install slurm-wlm and munge"
        exit 0
    fi
fi
for f in "$build/satind" "$build/satin-submit" "$build/satin-keygen"; do
    [ -x "$f" ] || { echo "Bail out! $f is missing (build it, or set SATIN_BUILD)"; exit 1; }
done

tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/satin-slurm.XXXXXX")
# munged wants every directory above its socket searchable by all.
chmod 711 "$tmpdir"
export SLURM_CONF=$tmpdir/slurm.conf
daemons=()

# stop_pid PID: SIGTERM, up to 10 s (its grace), then SIGKILL (our own
# children only).
stop_pid() {
    kill -TERM "$1" 2>/dev/null || return 0
    wait_until --quiet 10 "process $1 to stop" ! kill -0 "$1"
    kill -KILL "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}
no_jobs() { [ -z "$(sl squeue -h -o %A 2>/dev/null)" ]; }
cleanup() {
    # Our jobs first (every job of this private Slurm is ours), then the
    # daemons, newest first.
    if [ ${#daemons[@]} -gt 1 ] && kill -0 "${daemons[1]}" 2>/dev/null; then
        # shellcheck disable=SC2046
        sl scancel --quiet $(sl squeue -h -o %A 2>/dev/null) >/dev/null 2>&1 || true
        wait_until --quiet 15 "the jobs to go" no_jobs
    fi
    for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do stop_pid "${daemons[$i]}"; done
    rm -rf "$tmpdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
. "$here/tap.sh"

# ---- a private Slurm -------------------------------------------------------

# Ports below the ephemeral range (32768-60999), where no outgoing
# connection takes them: the Slurm daemons' in 31000-32699, satind's
# (satin-slurm's default, 20000 + 10 x (JOBID mod 4000), from the job ids
# that FirstJobId makes) in 21000-30990.
listening() { ss -Htln "sport = :$1" 2>/dev/null | grep -q .; }
# pick_port LOW SPAN: a port from LOW..LOW+SPAN-1 nobody listens on.
pick_port() {
    local p
    for _ in $(seq 50); do
        p=$(($1 + RANDOM % $2))
        listening "$p" || break
    done
    echo "$p"
}
# sl CMD...: a Slurm client call, which must not hang the test when the
# controller is gone.
sl() { timeout 10 "$@"; }
host=$(hostname -s)
# Each node has this machine's CPUs (slurmd checks them against the hardware).
cpus=$(nproc)
mkdir -m 755 "$tmpdir/munge"
mkdir -m 700 "$tmpdir/state" "$tmpdir/spool-n1" "$tmpdir/spool-n2" "$tmpdir/batch"
head -c 1024 /dev/urandom >"$tmpdir/munge/key"
chmod 600 "$tmpdir/munge/key"
: >"$tmpdir/plugstack.conf"

write_conf() {
    cat >"$SLURM_CONF" <<C
ClusterName=satintest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(pick_port 31000 500)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmpdir/munge/socket
CredType=cred/munge
StateSaveLocation=$tmpdir/state
SlurmdSpoolDir=$tmpdir/spool-%n
SlurmctldPidFile=$tmpdir/slurmctld.pid
SlurmdPidFile=$tmpdir/slurmd-%n.pid
SlurmctldLogFile=$tmpdir/slurmctld.log
SlurmdLogFile=$tmpdir/slurmd-%n.log
PlugStackConfig=$tmpdir/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
FirstJobId=$((4000 * (1 + RANDOM % 7) + 100 + RANDOM % 900))
KillWait=30
NodeName=n1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$(pick_port 31500 500) CPUs=$cpus State=UNKNOWN
NodeName=n2 NodeHostname=$host NodeAddr=127.0.0.1 Port=$(pick_port 32000 500) CPUs=$cpus State=UNKNOWN
PartitionName=satin Nodes=ALL Default=YES MaxTime=INFINITE State=UP
C
}

nodes_idle() { [ "$(sl sinfo -h -N -o '%N %T' 2>/dev/null | sort | tr '\n' ' ')" = "n1 idle n2 idle " ]; }
ctld_up() { sl scontrol ping 2>/dev/null | grep -q 'is UP'; }

# start_slurm: slurmctld and the two slurmd, on ports of their own; 0 once
# both nodes are idle, else 1 with every daemon of this try stopped (a
# port taken between the pick and the bind: the caller tries again).
start_slurm() {
    local ctld d1 d2
    rm -rf "$tmpdir/state"/* "$tmpdir/spool-n1"/* "$tmpdir/spool-n2"/*
    write_conf
    slurmctld -D -i -f "$SLURM_CONF" </dev/null >"$tmpdir/slurmctld.out" 2>&1 &
    ctld=$!
    daemons+=("$ctld")
    wait_until --alive "$ctld" --quiet 30 "slurmctld to answer" ctld_up
    if kill -0 "$ctld" 2>/dev/null; then
        slurmd -D -f "$SLURM_CONF" -N n1 </dev/null >"$tmpdir/slurmd-n1.out" 2>&1 &
        d1=$!
        slurmd -D -f "$SLURM_CONF" -N n2 </dev/null >"$tmpdir/slurmd-n2.out" 2>&1 &
        d2=$!
        daemons+=("$d1" "$d2")
        wait_until --alive "$d1" --alive "$d2" --quiet 60 "both nodes idle" nodes_idle && return 0
        stop_pid "$d2"
        stop_pid "$d1"
    fi
    stop_pid "$ctld"
    daemons=("${daemons[0]}")
    return 1
}

munged --foreground --socket="$tmpdir/munge/socket" --key-file="$tmpdir/munge/key" \
    --pid-file="$tmpdir/munge/pid" --log-file="$tmpdir/munge/log" \
    --seed-file="$tmpdir/munge/seed" </dev/null >"$tmpdir/munged.out" 2>&1 &
daemons+=($!)
if ! wait_until --alive "$!" --quiet 30 "munged" test -S "$tmpdir/munge/socket"; then
    echo "1..0 # SKIP munged does not start here: $(tail -n 2 "$tmpdir/munged.out" | tr '\n' ' ')"
    exit 0
fi
started=no
for _ in 1 2 3; do start_slurm && { started=yes; break; }; done
if [ $started = no ]; then
    echo "1..0 # SKIP a private Slurm does not start here: $(tail -n 2 "$tmpdir/slurmctld.out" "$tmpdir/slurmd-n1.out" 2>&1 | tr '\n' ' ')"
    exit 0
fi

# ---- functions of the checks below -------------------------------------------

# submit SCRIPT NODES [ENV...] -- ARGS...: sbatch of SCRIPT ARGS on NODES
# (a count, or a node list for one node each), from $tmpdir/batch; leaves
# job (its id).
submit() {
    local script=$1 env=ALL,SATIN_SLURM=$launcher,SATIN_BUILD=$build,TMPDIR=$tmpdir where
    case $2 in [0-9]*) where=(--nodes="$2") ;; *) where=(--nodes=1 --nodelist="$2") ;; esac
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do env+=,$1; shift; done
    shift
    job=$(cd "$tmpdir/batch" && sl sbatch --parsable --output="$tmpdir/batch/job-%j.out" \
        --export="$env" "${where[@]}" "$script" "$@" 2>"$tmpdir/sbatch.err")
    job=${job%%;*}
    [[ $job =~ ^[0-9]+$ ]] || { echo "Bail out! sbatch failed: $(cat "$tmpdir/sbatch.err")"; exit 1; }
}
# state JOB: its JobState (PENDING, RUNNING, COMPLETED, CANCELLED, FAILED...)
state() { sl scontrol show job -o "$1" 2>/dev/null | grep -oE 'JobState=[A-Z_]+' | cut -d= -f2; }
# ended JOB: the job has ended (for wait_until)
ended() {
    case $(state "$1") in PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED|'') return 1 ;; esac
}
exit_code() { sl scontrol show job -o "$1" 2>/dev/null | grep -oE ' ExitCode=[0-9:]+' | cut -d= -f2; }
# has_line FILE PATTERN: FILE has a line matching PATTERN (grep -E)
has_line() { grep -qE -- "$2" "$1" 2>/dev/null; }
# ident PID: "STARTTIME EXE" of a running process (as satin-grid records it).
ident() {
    local stat exe
    exe=$(readlink "/proc/$1/exe" 2>/dev/null) || return 1
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    set -- $stat
    echo "${20} $exe"
}
# job_processes JOB: pids of processes whose environment names the job.
job_processes() {
    grep -lzx "SLURM_JOB_ID=$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 | tr '\n' ' '
}
# all_gone FILE: none of the processes recorded in FILE runs (those that
# still do on stdout)
all_gone() {
    local left= pid rec
    while read -r pid rec; do
        [ -n "$pid" ] && [ "$(ident "$pid")" = "$rec" ] && left+=" $pid"
    done <"$1"
    [ -z "$left" ] || { echo "still running:$left"; return 1; }
}
# cleared JOB: no process of the job runs and no run directory of it is left
cleared() { [ "$(run_dirs "satin-slurm-$1")" = 0 ] && [ -z "$(job_processes "$1")" ]; }
# no_processes JOB: no process of the job runs
no_processes() { [ -z "$(job_processes "$1")" ]; }
# run_dirs PREFIX: how many run directories of $tmpdir start with PREFIX.
run_dirs() { compgen -G "$tmpdir/$1*" | wc -l; }
# record_pids RUN_DIR FILE: every node's satind and task pid with its identity.
record_pids() {
    local f
    : >"$2"
    for f in "$1"/*/satind.pid "$1"/*/task.pid; do
        [ -f "$f" ] && echo "$(cat "$f") $(ident "$(cat "$f")")" >>"$2"
    done
}

# ---- outside an allocation -----------------------------------------------------

run env -u SLURM_JOB_ID "$launcher" up
is "$rc" 1 "satin-slurm outside an allocation exits 1"
is "$err" "satin-slurm: not inside a Slurm allocation: SLURM_JOB_ID is unset (run it from an sbatch script or under salloc)" \
    "and says why"
run env -u SLURM_JOB_ID "$repo/deploy/satin-grid" slurm run -- true
is "$rc $err" "1 satin-slurm: not inside a Slurm allocation: SLURM_JOB_ID is unset (run it from an sbatch script or under salloc)" \
    "satin-grid slurm is satin-slurm"

# ---- one site: the sbatch template, uts seed-T3 --------------------------------------

submit "$repo/deploy/slurm/satin-grid.sbatch" 2 --
j1=$job
wait_until 600 "job $j1 to end" ended "$j1"
out=$(cat "$tmpdir/batch/job-$j1.out")
is "$(state "$j1") $(exit_code "$j1")" "COMPLETED 0:0" "satin-grid.sbatch on 2 nodes completes with exit 0"
like "$out" "grid satin-$j1: cluster satintest, 2 node(s), 2 in the grid; client endpoint:" \
    "the launcher names the grid, its cluster and its nodes"
like "$out" "ipc://$tmpdir/satin-slurm-$j1/n" "and prints the client endpoint, on the batch host's node"
json=$(grep '^{' "$tmpdir/batch/job-$j1.out")
is "$(json_get 'd["status"], d["result"]["nodes"]' "$json")" "ok 5529089" "uts seed-T3: the exact tree size"
is "$(json_get 'd["stats"]["grid.nodes"], d["stats"]["grid.nodes_reporting"]' "$json")" "2 2" \
    "the job ran on a grid of the allocation's 2 nodes"
is "$(json_get 'd["stats"]["workers"]' "$json")" "$cpus" "its node has a worker for each of the CPUs Slurm gave it"
is "$(run_dirs "satin-slurm-$j1")" 0 "the job's run directories are removed"
is "$(job_processes "$j1")" "" "no process of the job is left"
like "$(cat "$tmpdir/batch/satin-slurm-$j1.log")" "satintest.n2: " "the nodes' logs are in satin-slurm-JOB.log"

# ---- a node that cannot start ---------------------------------------------------------

# The peer port is slurmctld's, taken: satind cannot bind it.
taken=$(sed -n 's/^SlurmctldPort=//p' "$SLURM_CONF")
submit "$repo/deploy/slurm/satin-grid.sbatch" n1 "SATIN_SLURM_OPTS=--port-base $taken" --
jf=$job
wait_until 600 "job $jf to end" ended "$jf"
out=$(cat "$tmpdir/batch/job-$jf.out")
is "$(state "$jf") $(exit_code "$jf")" "FAILED 1:0" "a grid whose node cannot start fails the job"
like "$out" "satin-slurm: not every satind answers (0 of 1)" "the launcher says so"
like "$out" "cannot bind peer endpoint tcp://127.0.0.1:$taken: Address already in use" \
    "and shows the node's error"
wait_until 60 "job $jf's processes and run directories to go" cleared "$jf"
is "$(job_processes "$jf")" "" "no process of it is left"
is "$(run_dirs "satin-slurm-$jf")" 0 "nor a run directory"

# ---- a batch script that ends while the grid runs -------------------------------------

# `up` in the background, and the script ends once the grid is up: Slurm
# ends the job, and the grid with it.
cat >"$tmpdir/batch/background.sbatch" <<'B'
#!/usr/bin/env bash
"$SATIN_SLURM" up --node-logs "$LOGS" >"$LOGS.endpoint" 2>&1 &
tmpdir=$(mktemp -d)
. "$TAP"    # for wait_until (quiet: this script prints no TAP)
wait_until --quiet 60 "the grid" grep -q '^ipc://' "$LOGS.endpoint"
rm -rf "$tmpdir"
echo "the script ends"
B
submit "$tmpdir/batch/background.sbatch" 2 "LOGS=$tmpdir/logs-bg" "TAP=$here/tap.sh" --
jbg=$job
wait_until 600 "job $jbg to end" ended "$jbg"
like "$(cat "$tmpdir/logs-bg.endpoint")" "ipc://$tmpdir/satin-slurm-$jbg/n" "a grid came up under a script that then ended"
wait_until 60 "job $jbg's processes and run directories to go" cleared "$jbg"
for node in n1 n2; do
    is "$(tail -n 1 "$tmpdir/logs-bg/satintest.$node.log" | sed 's/.* info: //')" stopped \
        "when the script ends, satind on $node stops gracefully"
done
is "$(job_processes "$jbg")" "" "no process of that job is left"
is "$(run_dirs "satin-slurm-$jbg")" 0 "nor a run directory"

# ---- scancel in the middle of a job ---------------------------------------------------

# 1024 leaves of 0.1 s each: about 50 s on two nodes, cancelled once it runs.
submit "$repo/deploy/slurm/satin-grid.sbatch" 2 \
    "SATIN_SLURM_OPTS=--node-logs $tmpdir/logs2 --stop-timeout 2" -- \
    synthetic depth=10 fanout=2 mean_us=100000
j2=$job
run2=$tmpdir/satin-slurm-$j2
accepted() {
    has_line "$tmpdir/logs2/satintest.n1.log" "job 1 \(synthetic, 3 parameters\) accepted" ||
        has_line "$tmpdir/logs2/satintest.n2.log" "job 1 \(synthetic, 3 parameters\) accepted"
}
wait_until 120 "a node of job $j2 to accept the synthetic job" accepted
record_pids "$run2" "$tmpdir/pids2"
is "$(wc -l <"$tmpdir/pids2")" 4 "a running job: two satind and their two tasks are up"
# Accepted, the job runs for some 50 s: this is the middle of it.
sl scancel "$j2"
wait_until 600 "job $j2 to end" ended "$j2"
is "$(state "$j2")" CANCELLED "scancel cancels the allocation"
wait_until 60 "every satind and task of the cancelled allocation to stop" all_gone "$tmpdir/pids2" &&
    pass "every satind and node task of the cancelled allocation has stopped"
for node in n1 n2; do
    is "$(tail -n 1 "$tmpdir/logs2/satintest.$node.log" | sed 's/.* info: //')" stopped \
        "satind on $node stopped gracefully (SIGTERM, not SIGKILL)"
done
like "$(cat "$tmpdir/logs2/satintest.n1.log" "$tmpdir/logs2/satintest.n2.log")" "stopping (Terminated)" \
    "on SIGTERM"
like "$(cat "$tmpdir/batch/job-$j2.out")" "satin-slurm: signalled: stopping the grid" \
    "the launcher stops the grid when signalled"
wait_until 60 "job $j2's processes to go" no_processes "$j2"
is "$(job_processes "$j2")" "" "no process of the cancelled job is left"
is "$(run_dirs "satin-slurm-$j2")" 0 "its run directories are removed"

# ---- two sites ----------------------------------------------------------------------

mkdir -m 700 "$tmpdir/exchange"
sites="SATIN_SLURM_OPTS=--node-logs $tmpdir/logs3"
submit "$repo/deploy/slurm/satin-site.sbatch" n1 SATIN_GRID=two-sites SATIN_CLUSTER=A \
    "SATIN_EXCHANGE=$tmpdir/exchange" "$sites" --
ja=$job
wait_until 120 "site A to print its client endpoint" has_line "$tmpdir/batch/job-$ja.out" "client endpoint:"
is "$(ls "$tmpdir/exchange")" "A.yaml" "site A writes its part to the exchange"
submit "$repo/deploy/slurm/satin-grid.sbatch" n2 \
    "SATIN_SLURM_OPTS=--grid two-sites --cluster B --exchange $tmpdir/exchange --node-logs $tmpdir/logs3" \
    -- uts tree=seed-T3
jb=$job
# B's secret key (made before its part is written) and its part, while B runs.
# secret_made: B's node made its secret key (in $secret)
secret_made() {
    secret=$(sed -n 's/^ *secret-key *= *"\(.*\)"$/\1/p' "$tmpdir/satin-slurm-$jb/n2/B.n2.key" 2>/dev/null)
    [ -n "$secret" ]
}
secret=
wait_until 120 "site B's node to make its secret key" secret_made
wait_until 120 "site B's part in the exchange" has_line "$tmpdir/exchange/B.yaml" "public_key" &&
    cp "$tmpdir/exchange/B.yaml" "$tmpdir/B.part"
wait_until 600 "job $jb to end" ended "$jb"
if [ ${#secret} = 40 ] && [ -s "$tmpdir/B.part" ]; then
    is "$(grep -rlF -- "$secret" "$tmpdir/B.part" "$tmpdir/exchange" "$tmpdir/batch" | wc -l)" 0 \
        "B's secret key is neither in its part nor in any file of the jobs"
else
    fail "B's secret key is in its node's run directory, its public part in the exchange"
fi
is "$(state "$jb") $(exit_code "$jb")" "COMPLETED 0:0" "site B's job completes"
json=$(grep '^{' "$tmpdir/batch/job-$jb.out")
is "$(json_get 'd["status"], d["result"]["nodes"]' "$json")" "ok 5529089" \
    "uts seed-T3 on the two sites' grid: the exact tree size"
is "$(json_get 'd["stats"]["grid.nodes"]' "$json")" 2 "the grid has both sites' nodes"
is "$(grep -c 'warning' "$tmpdir/batch/job-$jb.out")" 0 \
    "site B's node had heard from site A's before the job (no warning)"
if wait_until 60 "site A's node to apply the new membership" \
        has_line "$tmpdir/logs3/A.n1.log" "membership applied"; then
    pass "site A's running node took site B's part by a reload"
else
    grep -E 'SIGHUP|satin-slurm' "$tmpdir/logs3/A.n1.log" "$tmpdir/batch/job-$ja.out" | sed 's/^/#   /'
fi
like "$(cat "$tmpdir/batch/job-$ja.out")" "the parts in $tmpdir/exchange changed: reloading the grid" \
    "site A's launcher saw B's part come"
wait_until 60 "site B's part to go" ! test -e "$tmpdir/exchange/B.yaml"
is "$(ls "$tmpdir/exchange")" "A.yaml" "site B's part is gone once it stopped"
# A part that would set a top-level key of the grid is left out.
printf '  - name: C\n    nodes: []\nsecurity: none\n' >"$tmpdir/exchange/C.yaml"
if wait_until 60 "site A to leave the bad part out" \
        has_line "$tmpdir/batch/job-$ja.out" "leaving out $tmpdir/exchange/C.yaml"; then
    pass "a part with a line outside its cluster is left out"
else
    sed 's/^/#   site A: /' "$tmpdir/batch/job-$ja.out"
fi
rm -f "$tmpdir/exchange/C.yaml"
record_pids "$tmpdir/satin-slurm-$ja" "$tmpdir/pidsa"
is "$(wc -l <"$tmpdir/pidsa")" 2 "site A still runs its satind"
sl scancel "$ja"
wait_until 600 "job $ja to end" ended "$ja"
wait_until 60 "site A's satind and task to stop" all_gone "$tmpdir/pidsa" &&
    pass "scancel stops site A's satind and task"
is "$(tail -n 1 "$tmpdir/logs3/A.n1.log" | sed 's/.* info: //')" stopped "gracefully"
wait_until 60 "job $ja's processes to go" no_processes "$ja"
is "$(job_processes "$ja")" "" "no process of site A's job is left"
is "$(ls -A "$tmpdir/exchange")" "" "site A's part is removed from the exchange"
is "$(run_dirs satin-slurm-)" 0 "no run directory is left"

echo "1..$n"
[ "$failures" = 0 ]
