#!/usr/bin/env bash
# Runs the README's test command (`swift test`) RUNS times in a row while LOADERS busy loops
# keep the cores busy, as on a loaded machine, and reports how many runs passed:
#
#   scripts/stress-tests.sh [RUNS] [LOADERS]     # defaults: 20 runs, one busy loop per core
#
# The busy loops run at nice STRESS_NICE (default 10), as background work such as a build or
# a batch job usually does: both cores stay fully busy for the whole run, and the suite gets
# the time they leave. STRESS_NICE=0 puts them at the suite's own priority (docs/performance.md
# says what that does to the run's length and its time limits).
#
# Each run has a time limit (STRESS_RUN_LIMIT seconds, default 600): a run that has not
# finished by then hung; it is stopped and the tests that started and never ended are listed.
# A crash prints its signal and the last lines of the run. Logs of failed runs are kept under
# .build/stress/. The suite is built once first; the runs use that build (--skip-build). The
# bar is every run passing (docs/architecture.md, "Threads").
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-20}
loaders=${2:-$(nproc)}
limit=${STRESS_RUN_LIMIT:-600}
niceness=${STRESS_NICE:-10}
logs=.build/stress
mkdir -p "$logs"

echo "== building the tests"
swift build --build-tests >"$logs/build.log" 2>&1 || { tail -20 "$logs/build.log"; exit 1; }

pids=()
stop_loaders() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap stop_loaders EXIT
for _ in $(seq "$loaders"); do
    # A busy loop in its own shell: a core fully taken by another process.
    nice -n "$niceness" bash -c 'while :; do :; done' &
    pids+=($!)
done
echo "== $runs runs of swift test beside $loaders busy loops at nice $niceness ($(nproc) cores), ${limit} s each at most"

passed=0
for run in $(seq "$runs"); do
    log="$logs/run-$run.log"
    start=$(date +%s)
    status=0
    timeout -k 10 "$limit" stdbuf -oL swift test --skip-build >"$log" 2>&1 || status=$?
    took=$(( $(date +%s) - start ))
    if [ "$status" = 0 ]; then
        passed=$((passed + 1))
        echo "run $run: passed in ${took} s ($(grep -oE 'Test run with [0-9]+ tests' "$log" | head -1))"
        rm -f "$log"
        continue
    fi
    if [ "$status" = 124 ] || [ "$status" = 137 ]; then
        echo "run $run: HUNG (stopped after ${took} s); tests started and never ended:"
        grep -oE 'Test [^ ]+ started' "$log" | sed 's/ started$//' | sort >"$logs/started.txt" || true
        grep -oE 'Test [^ ]+ (passed|failed)' "$log" | sed -E 's/ (passed|failed)$//' | sort >"$logs/ended.txt" || true
        comm -23 "$logs/started.txt" "$logs/ended.txt" | sed 's/^/    /' || true
    elif [ "$status" -gt 128 ]; then
        echo "run $run: CRASHED with signal $((status - 128)) after ${took} s; last lines:"
        tail -15 "$log" | sed 's/^/    /'
    else
        echo "run $run: FAILED (exit $status) after ${took} s:"
        if grep -q '✘' "$log"; then
            grep -E '✘' "$log" | head -20 | sed 's/^/    /'
        else
            tail -15 "$log" | sed 's/^/    /' # a crash of the test process shows here
        fi
    fi
    echo "    log: $log"
done
echo "$passed of $runs runs passed"
[ "$passed" = "$runs" ]
