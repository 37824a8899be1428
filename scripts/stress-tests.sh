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
# Each run has a time limit (STRESS_RUN_LIMIT seconds, default 1800, above the test watchdog's
# 1,500 s, which names a stall first): a run that has not finished by then hung; it is stopped and the tests that started and never ended are listed.
# A crash prints its signal and the last lines of the run. Logs of failed runs are kept under
# .build/stress/. The suite is built once first; the runs use that build (--skip-build). The
# bar is every run passing (docs/architecture.md, "Threads").
#
# At the end it prints the time limits' headroom: for every test, the slowest of its passing
# runs against its time limit (its own `.timeLimit`, else its suite's), the tests whose limit is
# less than 4 times that first, and fails when one is (docs/testing.md, "Flakes"). The times of
# each passing run are kept in .build/stress/times-RUN.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-20}
loaders=${2:-$(nproc)}
limit=${STRESS_RUN_LIMIT:-1800}
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
        grep -E '^. Test .* passed after [0-9.]+ seconds' "$log" >"$logs/times-$run.txt" || true
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

# The headroom of every time limit over the slowest passing run of its tests.
headroom=0
python3 - "$logs" "$runs" <<'PY' || headroom=$?
import glob, os, re, sys
logs, runs = sys.argv[1], int(sys.argv[2])
# Each test function's limit in minutes: its own .timeLimit, else its suite's (the suite
# declared above it in its file). Functions of the same name in several suites get the lowest.
limits = {}
suite_re = re.compile(r"@Suite\((.*?)\)\s*(?:final\s+)?(?:struct|class|enum)\s+(\w+)", re.S)
test_re = re.compile(r"@Test\b(\((?:[^()]|\([^()]*\))*\))?\s*(?:@\w+\s*)*func\s+(\w+)", re.S)
minutes_re = re.compile(r"\.timeLimit\(\.minutes\((\d+)\)\)")
for path in glob.glob("Tests/**/*.swift", recursive=True):
    text = open(path, encoding="utf-8").read()
    suites = [(m.start(), minutes_re.search(m.group(1))) for m in suite_re.finditer(text)]
    for m in test_re.finditer(text):
        own = minutes_re.search(m.group(1) or "")
        outer = [limit for start, limit in suites if start < m.start()]
        limit = own or (outer[-1] if outer else None)
        display = re.match(r'\(\s*"((?:[^"\\]|\\.)*)"', m.group(1) or "")
        if limit:
            # A test with a display name is printed by it, else by its function's name.
            name = display.group(1) if display else m.group(2)
            limits[name] = min(limits.get(name, 10**9), int(limit.group(1)))
slowest = {}
line_re = re.compile(r'Test (?:"(.*)"|(\w+)\([^)]*\))(?: with \d+ test cases?)? passed after ([0-9.]+) seconds')
for path in glob.glob(os.path.join(logs, "times-*.txt")):
    for line in open(path, encoding="utf-8"):
        m = line_re.search(line)
        if m:
            name = m.group(1) if m.group(1) is not None else m.group(2)
            slowest[name] = max(slowest.get(name, 0.0), float(m.group(3)))
rows = sorted(((limits[name] * 60 / seconds if seconds > 0 else float("inf"), name, seconds, limits[name])
               for name, seconds in slowest.items() if name in limits), key=lambda r: r[0])
short = [r for r in rows if r[0] < 4]
print(f"== time limits over the slowest passing run ({len(rows)} tests with a known limit):")
for ratio, name, seconds, minutes in rows[:12]:
    print(f"  {name}: slowest {seconds:.1f} s, limit {minutes} min: {ratio:.1f}x" + ("  < 4x" if ratio < 4 else ""))
print(f"{len(short)} tests below 4x headroom")
sys.exit(1 if short else 0)
PY
[ "$passed" = "$runs" ] && [ "$headroom" = 0 ]
