#!/usr/bin/env bash
# What one `wpexporter server` costs per WinPower server when it collects very many: threads,
# RSS, log lines, and the memory it returns when servers are removed by a reload. Not part of
# CI (about three minutes); figures go to docs/performance.md ("Many servers").
#
#   Benchmarks/measure/many-servers.sh [SERVERS] [CYCLES]    # 1000 servers × 1 device, 4 reload cycles
#
# Uses $WPEXPORTER, else .build/release/wpexporter (swift build -c release --product
# wpexporter). One simulator serves every server (`wpexporter simulate --servers N`); the
# exporter collects each every 5 s. Printed:
#   - threads and VmRSS once every server has been collected twice;
#   - warning lines per second of the exporter's log over 40 s (missed ticks, ...);
#   - for each cycle: VmRSS after a reload down to one server, then after a reload back to
#     all of them (the removed servers' memory should come back, not grow cycle by cycle), and
#     how long after the reload down the idle `http-client` threads had ended (the pool's
#     threads end once no exchange needed them for an idle time, 30 s: within two of them).
# Loopback only: the simulator and the exporter bind port 0 and their addresses are read from
# their output.
set -euo pipefail
cd "$(dirname "$0")/../.."
servers=${1:-1000}
cycles=${2:-4}
binary="${WPEXPORTER:-.build/release/wpexporter}"
[[ -x "$binary" ]] || { echo "build first: swift build -c release --product wpexporter" >&2; exit 1; }
# The simulator holds a listening socket per server, the exporter a connection per server.
need=$((servers + 200))
if [ "$(ulimit -n)" -lt "$need" ]; then ulimit -n "$need" 2>/dev/null || { echo "many-servers: needs ulimit -n $need" >&2; exit 1; }; fi

work="$(mktemp -d)"
pids=()
# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

wait_for() {  # $1: file, $2: pattern; waits up to 120 s for the pattern in the file
    for _ in $(seq 1200); do grep -q "$2" "$1" && return 0; sleep 0.1; done
    echo "many-servers: no \"$2\" in $1:" >&2; tail -20 "$1" >&2; exit 1
}

"$binary" simulate --port 0 --servers "$servers" --devices 1 >"$work/simulator.out" 2>&1 &
pids+=($!)
wait_for "$work/simulator.out" "server $((servers - 1)):"
mapfile -t urls < <(grep -o 'server [0-9]*: http://[0-9.:]*' "$work/simulator.out" | awk '{print $3}')

config="$work/exporter.yaml"
write_config() {  # $1: number of servers
    {
        printf 'winpower:\n  username: admin\n  password: admin\n'
        printf 'scheduler:\n  collection_interval: 5s\n'
        printf 'server:\n  host: 127.0.0.1\n  port: 0\n'
        printf 'storage:\n  data_dir: %s\n  sync_write: false\n' "$work/data"
        printf 'logging:\n  level: info\n'
        printf 'servers:\n'
        for ((i = 0; i < $1; i++)); do printf '  - name: wp-%04d\n    base_url: %s\n' "$i" "${urls[$i]}"; done
    } >"$config.new"
    chmod 600 "$config.new"
    mv "$config.new" "$config"
}
write_config "$servers"
"$binary" server --config "$config" >"$work/exporter.log" 2>&1 &
exporter=$!
pids+=("$exporter")
wait_for "$work/exporter.log" "exporter listening"
url="http://$(grep -o 'exporter listening.*' "$work/exporter.log" | grep -o '127\.0\.0\.1:[0-9]*' | head -1)"

status() { awk '/^(Threads|VmRSS|VmHWM):/ {printf "%s %s ", $1, $2}' "/proc/$exporter/status"; }
rss_mb() { awk '/^VmRSS:/ {printf "%.1f", $2 / 1024}' "/proc/$exporter/status"; }
# Waits (up to 180 s) until $1 servers show at least $2 collections each.
collected() {
    for _ in $(seq 900); do
        n=$(curl -s --max-time 30 "$url/metrics" | awk -v min="$2" '
            /^winpower_exporter_collection_duration_seconds_count\{/ && $NF >= min {n++} END {print n + 0}')
        [ "$n" -ge "$1" ] && return 0
        sleep 0.2
    done
    echo "many-servers: $1 servers not collected $2 times within 180 s" >&2; tail -20 "$work/exporter.log" >&2; exit 1
}
# Reloads with $1 servers and waits for the reload's log line ($2: how many such lines before).
reload() {
    write_config "$1"
    kill -HUP "$exporter"
    for _ in $(seq 1200); do
        [ "$(grep -c 'configuration reloaded' "$work/exporter.log")" -gt "$2" ] && return 0
        sleep 0.1
    done
    echo "many-servers: reload to $1 servers not logged within 120 s" >&2; tail -20 "$work/exporter.log" >&2; exit 1
}

collected "$servers" 2
echo "many-servers: $servers servers × 1 device, collected twice: $(status)(kB)"
before=$(grep -c '"level":"warn\|level=warn\| WARN ' "$work/exporter.log" || true)
lines_before=$(wc -l <"$work/exporter.log")
sleep 40
after=$(grep -c '"level":"warn\|level=warn\| WARN ' "$work/exporter.log" || true)
lines_after=$(wc -l <"$work/exporter.log")
echo "many-servers: over 40 s: $((lines_after - lines_before)) log lines, $((after - before)) warnings; $(status)(kB)"

reloads=0
for ((cycle = 1; cycle <= cycles; cycle++)); do
    reload 1 "$reloads"; reloads=$((reloads + 1))
    # The removed servers' pipelines stop within the graceful timeout; once /metrics shows one
    # server, two more collections (each followed by a heap trim) before reading RSS.
    for _ in $(seq 600); do
        [ "$(curl -s --max-time 30 "$url/metrics" | grep -c '^winpower_exporter_collection_duration_seconds_count{')" -le 1 ] && break
        sleep 0.1
    done
    sleep 11
    small=$(rss_mb)
    # The pool's idle threads: counted by name until at most 2 are left (120 s at most).
    clients=0
    for ((waited = 11; waited <= 120; waited++)); do
        clients=$(grep -l '^http-client' /proc/"$exporter"/task/*/comm 2>/dev/null | wc -l)
        [ "$clients" -le 2 ] && break
        sleep 1
    done
    echo "many-servers: cycle $cycle: $clients http-client threads ${waited} s after the reload to 1 server"
    reload "$servers" "$reloads"; reloads=$((reloads + 1))
    collected "$servers" 1
    echo "many-servers: cycle $cycle: VmRSS with 1 server $small MB, with $servers again $(rss_mb) MB, threads $(awk '/^Threads:/ {print $2}' "/proc/$exporter/status")"
done
