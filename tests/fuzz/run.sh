#!/bin/sh
# tests/fuzz/run.sh - runs each libFuzzer target for a while and says what it found
# (make fuzz calls it after building the targets; see tests/fuzz/README.md).
#
# usage: tests/fuzz/run.sh BUILD SECONDS TIMEOUT RSS_MB MAX_LEN TARGET...
#
# For each TARGET: the committed seeds (tests/fuzz/corpus/TARGET/) are copied into the
# working corpus BUILD/corpus/TARGET/, which keeps growing across runs; libFuzzer runs
# BUILD/fuzz/fuzz_TARGET on it for SECONDS and writes what it finds to
# BUILD/artifacts/TARGET/ and its output to BUILD/logs/TARGET.log.  Exits 1 when any
# target found a crash, a hang, a leak or an out-of-memory (or could not run).
set -u

if [ $# -lt 6 ]; then
    echo "usage: $0 BUILD SECONDS TIMEOUT RSS_MB MAX_LEN TARGET..." >&2
    exit 2
fi
build=$1 secs=$2 timeout=$3 rss=$4 maxlen=$5
shift 5

bad=0
summary=""
for t in "$@"; do
    bin=$build/fuzz/fuzz_$t
    corpus=$build/corpus/$t
    art=$build/artifacts/$t
    log=$build/logs/$t.log
    mkdir -p "$corpus" "$art" "$build/logs"
    # -n: an input an earlier run found stays as it is.
    for f in tests/fuzz/corpus/"$t"/*; do
        [ -f "$f" ] && cp -n "$f" "$corpus/"
    done
    dict=""
    [ -f "tests/fuzz/$t.dict" ] && dict="-dict=tests/fuzz/$t.dict"

    echo "fuzz: $t for ${secs}s (log: $log)"
    # $dict is unquoted on purpose: it is one word or none.
    "$bin" -max_total_time="$secs" -timeout="$timeout" -rss_limit_mb="$rss" \
        -max_len="$maxlen" -print_final_stats=1 -artifact_prefix="$art/" $dict \
        "$corpus" >"$log" 2>&1
    rc=$?

    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    # libFuzzer names what it keeps after what it was: crash-, timeout-, leak-,
    # oom-, and slow-unit- for an input that was merely slow (not a failure).
    written=$(sed -n 's/.*Test unit written to //p' "$log")
    found=""
    slow=""
    for a in $written; do
        case $(basename "$a") in
        slow-unit-*) slow="$slow $a" ;;
        *) found="$found $a" ;;
        esac
    done
    if [ -n "$found" ]; then
        verdict="FOUND:$found"
        bad=1
    elif [ "$rc" -ne 0 ]; then
        verdict="FAILED: libFuzzer exited with $rc, see $log"
        bad=1
    else
        verdict="clean"
    fi
    [ -n "$slow" ] && verdict="$verdict (slow inputs:$slow)"
    line=$(printf '%-9s %12s executions  %s' "$t" "${execs:-?}" "$verdict")
    echo "fuzz: $line"
    summary="$summary
  $line"
done

echo "fuzz: summary, ${secs}s per target:$summary"
if [ "$bad" -ne 0 ]; then
    echo "fuzz: reproduce with $build/fuzz/fuzz_TARGET FILE; once fixed, copy FILE to" \
         "tests/fuzz/corpus/TARGET/ under a name that says what it found" >&2
fi
exit "$bad"
