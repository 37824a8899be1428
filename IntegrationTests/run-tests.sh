#!/usr/bin/env bash
# Runs the integration suite (IntegrationTests/README.md): every case
# IntegrationTests/tests_NN_group/test_NN_name.sh in order, or those the filters name, each in a
# bash process of its own with standard input from /dev/null and its output in
# .build/integration/tests_NN_group/test_NN_name.log. A failed case does not stop the run: its
# log is printed when it ends, and the run ends with a table of every case's result and time;
# the exit status is 1 when any case failed.
#
#   IntegrationTests/run-tests.sh                    # every case
#   IntegrationTests/run-tests.sh nut torture        # two groups: tests_02_nut, tests_05_torture
#   IntegrationTests/run-tests.sh golden             # one case: tests_01_exposition/test_01_golden.sh
#   IntegrationTests/run-tests.sh --list [FILTER...] # the cases that would run, without running them
#   IntegrationTests/run-tests.sh --jobs 2 [FILTER...] # two cases at a time
#
# A filter names a group (`nut` or `tests_02_nut`) or a case (`golden`, `test_01_golden`,
# `tests_01_exposition/test_01_golden` or its path). The cases run the binary WPEXPORTER_BIN
# (default .build/debug/wpexporter); a case still running after INTEGRATION_TIMEOUT seconds
# (default 900) is stopped and fails. `--jobs N` runs up to N cases at once (default 1: one
# after another, as CI runs them — its interop lane shares two cores with another lane, and
# several cases assert timings); each case's result line and, when it failed, its log are
# printed as it ends, the table in the cases' order at the end.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 64
logs=.build/integration

list=0 jobs=1 filters=()
while [ $# -gt 0 ]; do
    case "$1" in
        --list) list=1 ;;
        --jobs | -j) jobs=${2:-}; shift ;;
        --jobs=*) jobs=${1#--jobs=} ;;
        -h | --help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) echo "run-tests.sh: unknown option $1 (--list, --jobs N, --help)" >&2; exit 64 ;;
        *) filters+=("$1") ;;
    esac
    shift
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "run-tests.sh: --jobs takes a number of cases, 1 or more (got '$jobs')" >&2; exit 64; }

# named TEST FILTER: whether FILTER names TEST (tests_NN_group/test_NN_name.sh) or its group.
named() {
    local group=${1%%/*} file=${1##*/} filter=${2#IntegrationTests/}
    file=${file%.sh} filter=${filter%.sh}
    case "$filter" in
        "$group" | "${group#tests_[0-9][0-9]_}" | "$file" | "${file#test_[0-9][0-9]_}" | "$group/$file") return 0 ;;
        *) return 1 ;;
    esac
}

mapfile -t all < <(cd IntegrationTests && shopt -s nullglob && for test in tests_*/test_*.sh; do echo "$test"; done | sort)
selected=()
for test in "${all[@]}"; do
    [ "${#filters[@]}" = 0 ] && { selected+=("$test"); continue; }
    for filter in "${filters[@]}"; do
        if named "$test" "$filter"; then selected+=("$test"); break; fi
    done
done
for filter in "${filters[@]}"; do
    found=0
    for test in "${all[@]}"; do named "$test" "$filter" && found=1; done
    [ "$found" = 1 ] || { echo "run-tests.sh: no group or case named '$filter' (--list shows them)" >&2; exit 64; }
done
if [ "$list" = 1 ]; then printf '%s\n' "${selected[@]}"; exit 0; fi

# run_case TEST: runs one case under timeout, its output in its log; then prints its result line
# (and its log when it failed) and writes "STATUS SECONDS RESULT" to its .status file. A case
# runs in a process group of its own; on SIGINT or SIGTERM every running case is stopped first
# (its harness then stops what it started).
run_case() {
    local test=$1 log="$logs/${1%.sh}.log" started=$SECONDS status=0 result child
    timeout -k 10 "${INTEGRATION_TIMEOUT:-900}" bash "IntegrationTests/$test" </dev/null >"$log" 2>&1 &
    child=$!
    trap 'kill -TERM "$child" 2>/dev/null; wait "$child"; exit 130' INT TERM
    wait "$child" || status=$?
    case "$status" in
        0) result=passed ;;
        124) result="TIMED OUT" ;;
        *) result="FAILED (exit $status)" ;;
    esac
    {
        if [ "$status" != 0 ]; then
            echo "---- $log"
            cat "$log"
            echo "---- end of $log"
        fi
        echo "== $test: $result after $((SECONDS - started)) s"
    } | flock "$logs/.print.lock" cat   # one case's block at a time, whole
    echo "$status $((SECONDS - started)) $result" >"$logs/${test%.sh}.status"
}

rm -rf "$logs"
running=()
trap '[ "${#running[@]}" = 0 ] || { kill -TERM "${running[@]}" 2>/dev/null; wait; }; exit 130' INT TERM
for test in "${selected[@]}"; do
    mkdir -p "$(dirname "$logs/$test")"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    echo "== $test"
    run_case "$test" &
    running+=("$!")
done
wait
running=()
table=() failed=()
for test in "${selected[@]}"; do
    status=none seconds=0 result="did not end"
    read -r status seconds result <"$logs/${test%.sh}.status" || true
    [ "$status" = 0 ] || failed+=("$test")
    table+=("$(printf '%-52s %-18s %5d s' "$test" "$result" "$seconds")")
done

echo
printf '%-52s %-18s %7s\n' case result time
printf '%s\n' "${table[@]}"
printf '%-52s %-18s %5d s\n' "${#selected[@]} run" "${#failed[@]} failed" "$SECONDS"
echo "logs: $logs/"
[ "${#failed[@]}" = 0 ] || { printf 'failed: %s\n' "${failed[*]}" >&2; exit 1; }
