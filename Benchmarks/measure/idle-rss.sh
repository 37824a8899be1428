#!/usr/bin/env bash
# Idle RSS of `wpexporter server` against `wpexporter simulate --devices 0`, and which of
# Foundation's libraries and libcurl it has mapped. Both bind port 0.
#
#   Benchmarks/measure/idle-rss.sh [path/to/wpexporter] [seconds to wait, default 17]
#
# Prints VmRSS, RssAnon and RssFile (kB) after the wait (3 collections at the default 5 s
# interval) and the mapped Foundation/ICU/curl libraries.
set -euo pipefail
binary=${1:-.build/release/wpexporter}
wait_seconds=${2:-17}
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

"$binary" simulate --port 0 --devices 0 >"$work/sim.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do grep -q '127.0.0.1:' "$work/sim.log" && break; sleep 0.1; done
port=$(grep -o '127.0.0.1:[0-9]*' "$work/sim.log" | head -1 | cut -d: -f2)

"$binary" server --winpower.url "http://127.0.0.1:$port" --winpower.username admin \
    --winpower.password admin --port 0 --data-dir "$work/data" --log-level warn >"$work/server.log" 2>&1 &
server=$!
pids+=("$server")
sleep "$wait_seconds"

grep -E 'VmRSS|RssAnon|RssFile' "/proc/$server/status"
echo "mapped:"
grep -oE '[^/ ]*(Foundation|ICU|curl)[^/ ]*\.so[.0-9]*' "/proc/$server/maps" | sort -u | sed 's/^/  /'
