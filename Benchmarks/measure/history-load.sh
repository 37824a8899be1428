#!/usr/bin/env bash
# The status pages read from a month of history at 1,000 UPSs (figures in docs/performance.md,
# "The status pages with a month of history"; not part of CI). One `wpexporter server` collects
# 1,000 simulated UPSs every 5 s with history.db holding 30 days for each of them, written by
# `wpbench --child history-fill` (5-minute slots, hours, days and about one outage every third
# day per UPS, journaled). Then:
#   1. the database's size on disk;
#   2. UPS pages at 24 h, 7 days, 30 days and 1 year: 40 fetches each, every fetch a different
#      UPS, so every one is rendered from the database (nothing cached): p50, p99, max, size;
#   3. the history API (30 days, 1 year, JSON and CSV) and the events API for 40 UPSs, each a
#      different UPS (the APIs cache nothing): p50, p99;
#   4. /status with its sparklines (English and Chinese), 40 fetches: the first after a
#      publication renders (max), the rest are the publication's cached body (p50);
#   5. /metrics under wrk (2 threads, 10 connections, 15 s) alone, then while a client plays 50
#      browsers each opening the 30-day page of a random UPS every 10 s (5 pages a second, both
#      languages, gzip accepted): p99 of each (goal: within 10 %);
#   6. the exporter's resident memory.
#
#   Benchmarks/measure/history-load.sh [FILLED_DIR]
#       FILLED_DIR: a directory holding a history.db filled for the simulator's 1,000 UPSs. By
#       default one is filled once into ${XDG_CACHE_HOME:-$HOME/.cache}/wpexporter-bench/history-1000x30
#       (about 25 minutes in release; kept for later runs, copied before each run, never changed).
#   uses .build/release/wpexporter and .build/release/wpbench
#   (swift build -c release --product wpexporter && swift build -c release --product wpbench)
#
# Loopback only. Installs wrk and sqlite3 when missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
name="history-load"
export WPEXPORTER_BIN="${WPEXPORTER_BIN:-.build/release/wpexporter}"
bench=.build/release/wpbench
scripts/ci/tools.sh measure   # wrk
command -v sqlite3 >/dev/null || scripts/ci/tools.sh history
# shellcheck source=IntegrationTests/harness.sh
source IntegrationTests/harness.sh

filled=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/wpexporter-bench/history-1000x30}
if [ ! -f "$filled/history.db" ]; then
    [ -x "$bench" ] || fail "no $bench: swift build -c release --product wpbench"
    mkdir -p "$filled.partial"
    devices=(); for index in $(seq 0 999); do devices+=("$(device_id "$index")"); done
    echo "$name: filling 30 days for 1,000 UPSs into $filled (once; about 25 minutes)"
    "$bench" --child history-fill "$filled.partial" 30 "${devices[@]}"
    sqlite3 "$filled.partial/history.db" 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null
    mv "$filled.partial" "$filled"
fi
mkdir -p "$work/data"
cp "$filled/history.db" "$work/data/history.db"
filled_until=$(sqlite3 -readonly "$work/data/history.db" 'SELECT max(start) FROM slot WHERE tier = 0')
echo "$name: history to $(date -u -d "@$filled_until" '+%F %H:%M UTC') ($(( ($(date +%s) - filled_until) / 3600 )) h ago)," \
    "$(du -m "$work/data/history.db" | cut -f1) MB," \
    "$(sqlite3 -readonly "$work/data/history.db" 'SELECT count(*) FROM ups') UPSs," \
    "$(sqlite3 -readonly "$work/data/history.db" 'SELECT count(*) FROM event') events"

start_simulator 1000
start_exporter "$work/exporter.log" --scheduler.collection_interval 5s
echo "$name: 1,000 UPSs; exporter $base; $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
sleep 6   # a publication of every UPS

for range in 24h 7d 30d 1y; do
    # 40 UPSs, a different one each time: rendered from the database, not cached.
    mapfile -t urls < <(for index in $(seq 100 10 490); do echo "$base/status/ups?device=$(device_id "$index")&range=$range"; done)
    timed_fetches "UPS page $range" "${urls[@]}"
done

for query in "history.json?range=30d" "history.json?range=1y" "history.csv?range=30d" "events.json?range=30d"; do
    mapfile -t urls < <(for index in $(seq 500 10 890); do echo "$base/status/${query%%\?*}?device=$(device_id "$index")&${query#*\?}"; done)
    timed_fetches "/status/$query" "${urls[@]}"
done
timed_fetches "/status/events.json (fleet, 30 days, 200 events)" "$base/status/events.json" "$base/status/events.json"

for target in "/status?lang=en" "/status?lang=zh"; do
    mapfile -t urls < <(for _ in $(seq 40); do echo "$base$target"; done)
    timed_fetches "$target" "${urls[@]}"
done

# 50 browsers each opening a random UPS's 30-day page every 10 s: 5 pages a second.
cat >"$work/browsers.py" <<'PY'
import random, sys, time, urllib.request
base, seconds = sys.argv[1], float(sys.argv[2])
end, n, slow = time.monotonic() + seconds, 0, 0.0
while time.monotonic() < end:
    i = random.randrange(1000)
    path = f"/status/ups?device=5e1a7a0c-{i:04x}-4b35-b0dd-{i:012x}&range=30d&lang={'zh' if n % 2 else 'en'}"
    began = time.monotonic()
    request = urllib.request.Request(base + path, headers={"Accept-Encoding": "gzip"})   # as browsers ask
    urllib.request.urlopen(request, timeout=10).read()
    slow = max(slow, time.monotonic() - began)
    n += 1
    time.sleep(max(0.0, 0.2 - (time.monotonic() - began)))
print(f"history-load: browsers: {n} 30-day pages in {seconds:.0f} s, slowest {slow * 1000:.0f} ms")
PY

wrk_p99 "no browsers"
python3 "$work/browsers.py" "$base" 16 &
browsers=$!
wrk_p99 "50 browsers on 30-day UPS pages"
wait "$browsers"
echo "$name: exporter RSS $(rss_mb "$server") MB, peak $(rss_peak_mb "$server") MB"
