#!/usr/bin/env bash
# Scrape load test for the exporter (not part of CI): the release `wpexporter server` against
# `wpexporter simulate` with 0 and 1,000 devices. Prints RSS idle and with 1,000 devices, then
# wrk at 10 and 50 connections for plain and gzip scrapes: requests/s, p99, CPU per scrape
# and the exporter's RSS sampled every 0.1 s during the run (min / median / max).
#
#   Benchmarks/measure/loadtest/scrape.sh [SECONDS]     # seconds per wrk run, default 10
#   WPEXPORTER_BIN=path/to/wpexporter Benchmarks/measure/loadtest/scrape.sh [SECONDS]   # that binary, no build
set -euo pipefail
cd "$(dirname "$0")/../../.."
seconds="${1:-10}"
scripts/ci/tools.sh measure   # wrk
# CPU per scrape is the server's utime+stime (from /proc) over the
# requests wrk completed; RSS is read from /proc/PID/status.
if [ -n "${WPEXPORTER_BIN:-}" ]; then
    exporter_bin="$WPEXPORTER_BIN"   # e.g. the release tarball's static binary (docs/performance.md)
else
    echo "loadtest: building wpexporter (release)"
    swift build -c release --product wpexporter >/dev/null
    exporter_bin="$(swift build -c release --show-bin-path)/wpexporter"
fi
scrape_dir=$(mktemp -d)
started=()
cleanup_scrape() {
    for pid in "${started[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$scrape_dir"
}
trap cleanup_scrape EXIT

wait_for_url() {  # FILE LABEL -> port printed after LABEL
    for _ in $(seq 1 300); do
        p=$(grep "$2" "$1" 2>/dev/null | grep -o 'http://127.0.0.1:[0-9]*' | head -1 | awk -F: '{print $3}')
        [ -n "$p" ] && { echo "$p"; return; }
        sleep 0.1
    done
    echo "loadtest: no URL after '$2' in $1" >&2; cat "$1" >&2; exit 1
}
# rss_sampler PID FILE: appends VmRSS in KiB to FILE every 0.1 s until killed.
rss_sampler() {
    while kill -0 "$1" 2>/dev/null; do
        awk '$1 == "VmRSS:" {print $2}' "/proc/$1/status" >>"$2" 2>/dev/null || true
        sleep 0.1
    done
}
# rss_stats FILE: "min / median / max MB" of the sampled KiB values.
rss_stats() {
    sort -n "$1" | awk '{v[NR] = $1} END {
        if (NR == 0) { print "no samples"; exit }
        printf "%.1f / %.1f / %.1f MB (%d samples)", v[1] / 1024, v[int((NR + 1) / 2)] / 1024, v[NR] / 1024, NR }'
}
pid_rss() { awk -v key="$2:" '$1 == key {printf "%.1f MB", $2 / 1024}' "/proc/$1/status"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

start_exporter() {  # NAME DEVICES -> sets exporter_pid, exporter_port
    "$exporter_bin" simulate --port 0 --devices "$2" --page-size 100 > "$scrape_dir/$1-sim.out" &
    started+=($!)
    sim_port=$(wait_for_url "$scrape_dir/$1-sim.out" simulator)
    env WINPOWER_EXPORTER_WINPOWER_PASSWORD=admin "$exporter_bin" server --port 0 --server.host 127.0.0.1 \
        --winpower.base_url "http://127.0.0.1:$sim_port" --winpower.username admin \
        --data-dir "$scrape_dir/$1-data" --log-level warn > "$scrape_dir/$1.out" 2>&1 &
    exporter_pid=$!
    started+=("$exporter_pid")
    exporter_port=$(wait_for_url "$scrape_dir/$1.out" metrics:)
    # Wait for the first full collection (device count published), then a few more cycles.
    for _ in $(seq 1 300); do
        curl -s "http://127.0.0.1:$exporter_port/metrics" | grep -q "^winpower_exporter_device_count $2\$" && break
        sleep 0.1
    done
}

start_exporter idle 0
sleep 11
echo "exporter RSS, 0 devices after 2 cycles: $(pid_rss "$exporter_pid" VmRSS) (anonymous $(pid_rss "$exporter_pid" RssAnon), file-backed $(pid_rss "$exporter_pid" RssFile))"
kill "$exporter_pid"

start_exporter d1000 1000
sleep 11
echo "exporter RSS, 1000 devices after 3 cycles: $(pid_rss "$exporter_pid" VmRSS) (anonymous $(pid_rss "$exporter_pid" RssAnon), peak $(pid_rss "$exporter_pid" VmHWM))"
body=$(curl -s "http://127.0.0.1:$exporter_port/metrics" | wc -c)
gzip_body=$(curl -s -H 'Accept-Encoding: gzip' "http://127.0.0.1:$exporter_port/metrics" | wc -c)
series=$(curl -s "http://127.0.0.1:$exporter_port/metrics" | grep -vc '^#')
echo "scrape body: $body bytes plain, $gzip_body bytes gzip, $series series"
hz=$(getconf CLK_TCK)
for mode in plain gzip; do
    for connections in 10 50; do
        headers=()
        [ "$mode" = gzip ] && headers=(-H 'Accept-Encoding: gzip')
        samples="$scrape_dir/rss-$mode-$connections"
        : >"$samples"
        rss_sampler "$exporter_pid" "$samples" &
        sampler=$!
        before=$(cpu_ticks "$exporter_pid")
        result=$(wrk -t2 -c"$connections" -d"${seconds}s" --latency "${headers[@]}" "http://127.0.0.1:$exporter_port/metrics")
        after=$(cpu_ticks "$exporter_pid")
        kill "$sampler" 2>/dev/null || true
        wait "$sampler" 2>/dev/null || true
        requests=$(awk '/requests in/ {print $1}' <<<"$result")
        rps=$(awk '/Requests\/sec/ {print $2}' <<<"$result")
        p99=$(awk '$1 == "99%" {print $2}' <<<"$result")
        cpu_ms=$(awk -v t=$((after - before)) -v hz="$hz" -v n="$requests" 'BEGIN {printf "%.3f", t / hz * 1000 / n}')
        printf 'scrape %-5s %2d connections: %9s req/s  p99 %-9s CPU %s ms/scrape (incl. collections)  RSS min/median/max %s\n' \
            "$mode" "$connections" "$rps" "$p99" "$cpu_ms" "$(rss_stats "$samples")"
    done
done
echo "exporter peak RSS over all scrape runs: $(pid_rss "$exporter_pid" VmHWM)"
