#!/usr/bin/env bash
# What embedding the exporter costs a service's build: Benchmarks/measure/compile-time, a
# service with the whole exporter (WPExporter, WPConfig, WPLogging products), built against each
# given revision, alternately, in debug mode (what a developer waits for):
#   cold         `swift build` from an empty scratch path: the service and every module of
#                wpexporter it links
#   incremental  a function added to the service's own main.swift, `swift build` again
#   library      a function added to one file of wpexporter
#                (Sources/WPCollector/WinPowerCollector.swift, in the middle of the graph),
#                `swift build` again
# (A declaration, not `touch` or a comment: the compiler leaves an object file whose code did
# not change as it was, and then nothing is linked again.)
# Not part of CI; figures go to docs/performance.md ("Compile time of an embedding service").
#
#   Benchmarks/measure/compile-time.sh [--rounds N] [REVISION...]   # default: 1 round, HEAD
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=1 revisions=()
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) rounds=$2; shift 2 ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "compile-time: unknown option $1 (see --help)" >&2; exit 64 ;;
        *) revisions+=("$1"); shift ;;
    esac
done
[ ${#revisions[@]} -gt 0 ] || revisions=(HEAD)
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "compile-time: --rounds wants a positive integer, not '$rounds'" >&2; exit 64; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

seconds() {  # seconds COMMAND...: the wall time of a command, in seconds, its output in the log
    local start end
    start=$(date +%s.%N)
    "$@" >>"$work/build.log" 2>&1 || { tail -30 "$work/build.log" >&2; exit 1; }
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }'
}

printf '%-14s %-6s %8s %12s %8s\n' revision round cold incremental library
for round in $(seq 1 "$rounds"); do
    for revision in "${revisions[@]}"; do
        commit=$(git rev-parse --short=12 "$revision^{commit}")
        dir="$work/$commit-$round"
        mkdir -p "$dir/wpexporter"
        git archive "$commit" | tar -x -C "$dir/wpexporter"
        cp -R Benchmarks/measure/compile-time "$dir/service"
        rm -rf "$dir/service/.build"
        cold=$(seconds swift build --package-path "$dir/service")
        echo "func editedForTiming() {}" >>"$dir/service/Sources/WinPowerService/main.swift"
        incremental=$(seconds swift build --package-path "$dir/service")
        echo "func editedForTiming() {}" >>"$dir/wpexporter/Sources/WPCollector/WinPowerCollector.swift"
        library=$(seconds swift build --package-path "$dir/service")
        printf '%-14s %-6s %8s %12s %8s\n' "$commit" "$round" "$cold" "$incremental" "$library"
        rm -rf "$dir"
    done
done
echo "compile-time: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(swift --version 2>&1 | head -n 1)"
