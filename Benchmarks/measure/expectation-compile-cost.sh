#!/usr/bin/env bash
# What one expectation of a test costs the debug build: for each shape below, a test function
# with N expectations and one with a single expectation are compiled as the debug build compiles
# a test target's file (`swiftc -c -Onone -g`, Swift Testing imported), and the difference in
# CPU (user + system) is divided by N - 1. Shapes:
#   expect-eq         #expect(list.count == 7)
#   expect-string     #expect(text == "abc7")
#   expect-subscript  #expect(samples["up{server=\"\(text)7\"}"] == 1)
#   expect-contains   #expect(text.contains("abc7"))
#   function-bool     check(list.count == 7), a plain function taking an autoclosure Bool that
#                     records an issue when it is false (what the macro's expansion is measured
#                     against: no sub-expression values in the failure)
#   function-equal    equal(list.count, 7), a generic function taking both sides of an Equatable
#                     comparison that records both values when they differ
#   function-equal-subscript  equal(samples["up{server=\"\(text)7\"}"], 1)
# Not part of CI; figures go to docs/performance.md ("The package's own debug build and CI's
# gate").
#
#   Benchmarks/measure/expectation-compile-cost.sh [--count N]   # default 200
set -euo pipefail
count=200
while [ $# -gt 0 ]; do
    case "$1" in
        --count) count=${2:-}; shift 2 || { echo "expectation-compile-cost: --count wants a value" >&2; exit 64; } ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "expectation-compile-cost: unknown argument $1 (see --help)" >&2; exit 64 ;;
    esac
done
if ! [[ "$count" =~ ^[0-9]+$ ]] || [ "$count" -lt 10 ]; then
    echo "expectation-compile-cost: --count wants an integer of 10 or more, not '$count'" >&2
    exit 64
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

declare -A shapes=(
    [expect-eq]='#expect(list.count == N)'
    [expect-string]='#expect(text == "abcN")'
    [expect-subscript]='#expect(samples["up{server=\"\(text)N\"}"] == 1)'
    [expect-contains]='#expect(text.contains("abcN"))'
    [function-bool]='check(list.count == N)'
    [function-equal]='equal(list.count, N)'
    [function-equal-subscript]='equal(samples["up{server=\"\(text)N\"}"], 1)'
)

# source SHAPE N: a test file with N expectations of SHAPE, N numbering them.
source_of() {
    local line=${shapes[$1]} index
    cat <<'SWIFT'
import Testing
func check(_ condition: @autoclosure () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) {
    if !condition() { Issue.record("expectation failed", sourceLocation: sourceLocation) }
}
func equal<T: Equatable>(_ actual: T, _ expected: T, sourceLocation: SourceLocation = #_sourceLocation) {
    if actual != expected { Issue.record("\(actual) is not \(expected)", sourceLocation: sourceLocation) }
}
struct Expectations {
    @Test func expectations() {
        let samples: [String: Double] = [:]
        let text = "abc"
        let list = [1, 2]
SWIFT
    for index in $(seq 1 "$2"); do echo "        ${line//N/$index}"; done
    echo "    }"
    echo "}"
}

# cpu FILE: the CPU seconds (user + system) of compiling FILE as the debug build does.
cpu() {
    local TIMEFORMAT='%U %S' times
    times=$( { time swiftc -c -Onone -g -parse-as-library -module-name Expectations "$1" -o "$work/out.o" >"$work/compile.log" 2>&1; } 2>&1 ) \
        || { cat "$work/compile.log" >&2; exit 1; }
    awk '{ printf "%.3f", $1 + $2 }' <<<"$times"
}

printf '%-26s %12s %12s %16s\n' shape "1 (s)" "$count (s)" "ms per expectation"
for shape in expect-eq expect-string expect-subscript expect-contains function-bool function-equal function-equal-subscript; do
    source_of "$shape" 1 >"$work/one.swift"
    source_of "$shape" "$count" >"$work/many.swift"
    one=$(cpu "$work/one.swift")
    many=$(cpu "$work/many.swift")
    awk -v s="$shape" -v a="$one" -v b="$many" -v n="$count" \
        'BEGIN { printf "%-26s %12.2f %12.2f %16.1f\n", s, a, b, (b - a) * 1000 / (n - 1) }'
done
echo "expectation-compile-cost: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(swiftc --version 2>&1 | head -n 1)"
