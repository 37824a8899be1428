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
#
# A filter names a group (`nut` or `tests_02_nut`) or a case (`golden`, `test_01_golden`,
# `tests_01_exposition/test_01_golden` or its path). The cases run the binary WPEXPORTER_BIN
# (default .build/debug/wpexporter); a case still running after INTEGRATION_TIMEOUT seconds
# (default 900) is stopped and fails.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 64
logs=.build/integration

list=0 filters=()
for arg in "$@"; do
    case "$arg" in
        --list) list=1 ;;
        -h | --help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) echo "run-tests.sh: unknown option $arg (--list, --help)" >&2; exit 64 ;;
        *) filters+=("$arg") ;;
    esac
done

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

# A case runs under timeout, in a process group of its own: on SIGINT or SIGTERM the case is
# stopped first (its harness then stops what it started).
child=""
trap '[ -z "$child" ] || { kill -TERM "$child" 2>/dev/null; wait "$child"; }; exit 130' INT TERM

rm -rf "$logs"
table=() failed=()
for test in "${selected[@]}"; do
    log="$logs/${test%.sh}.log"
    mkdir -p "$(dirname "$log")"
    echo "== $test"
    started=$SECONDS status=0
    timeout -k 10 "${INTEGRATION_TIMEOUT:-900}" bash "IntegrationTests/$test" </dev/null >"$log" 2>&1 &
    child=$!
    wait "$child" || status=$?
    child=""
    case "$status" in
        0) result=passed ;;
        124) result="TIMED OUT" ;;
        *) result="FAILED (exit $status)" ;;
    esac
    if [ "$status" != 0 ]; then
        failed+=("$test")
        echo "---- $log"
        cat "$log"
        echo "---- end of $log"
    fi
    echo "== $test: $result after $((SECONDS - started)) s"
    table+=("$(printf '%-52s %-18s %5d s' "$test" "$result" $((SECONDS - started)))")
done

echo
printf '%-52s %-18s %7s\n' case result time
printf '%s\n' "${table[@]}"
printf '%-52s %-18s %5d s\n' "${#selected[@]} run" "${#failed[@]} failed" "$SECONDS"
echo "logs: $logs/"
[ "${#failed[@]}" = 0 ] || { printf 'failed: %s\n' "${failed[*]}" >&2; exit 1; }
