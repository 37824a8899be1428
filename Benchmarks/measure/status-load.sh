#!/usr/bin/env bash
# The status pages at 1,000 UPSs (figures in docs/performance.md, "The status pages"; not part
# of CI: about a minute). One `wpexporter server` collects 1,000 simulated UPSs every 5 s; then:
#   1. /status, /status.json (English and Chinese) and one UPS page, each fetched 40 times
#      (the first fetch after a publication renders, the rest of that publication are served
#      from the cache): p50, p99, max, and the body sizes;
#   2. /metrics under wrk (2 threads, 10 connections, 15 s) alone, then while 50 browsers
#      refresh /status every 10 s in place (5 /status.json a second, every tenth a whole
#      /status, alternating the languages, gzip accepted as browsers do): scrape p99 of each
#      (goal: within 10 %);
#   3. 200 browsers on UPS pages: wrk, 200 connections (2 threads, 20 s), each request a
#      random UPS's page of the 1,000 in a random language, gzip accepted: requests/s, p50,
#      p99 (goal: p99 ≤ 500 ms);
#   4. the exporter's resident memory with the history of 1,000 UPSs.
#
#   Benchmarks/measure/status-load.sh          # uses .build/release/wpexporter (swift build -c release --product wpexporter)
#
# Loopback only. Installs wrk when missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
name="status-load"
export WPEXPORTER_BIN="${WPEXPORTER_BIN:-.build/release/wpexporter}"
scripts/ci/tools.sh measure   # wrk
# shellcheck source=IntegrationTests/harness.sh
source IntegrationTests/harness.sh

start_simulator 1000
start_exporter "$work/exporter.log" --scheduler.collection_interval 5s
echo "$name: 1,000 UPSs; exporter $base; $(nproc) cores, $(uname -r)"
sleep 6   # a publication of every UPS

for target in "/status?lang=en" "/status?lang=zh" "/status.json?lang=en" "/status/ups?device=$(device_id 500)"; do
    mapfile -t urls < <(for _ in $(seq 40); do echo "$base$target"; done)
    timed_fetches "$target" "${urls[@]}"
done

# 50 browsers refreshing every 10 s: 5 requests a second, one in ten a whole page.
cat >"$work/browsers.py" <<'PY'
import sys, time, urllib.request
base, seconds = sys.argv[1], float(sys.argv[2])
end, n = time.monotonic() + seconds, 0
while time.monotonic() < end:
    lang = "zh" if n % 2 else "en"
    path = f"/status?lang={lang}" if n % 10 == 0 else f"/status.json?lang={lang}"
    request = urllib.request.Request(base + path, headers={"Accept-Encoding": "gzip"})   # as browsers ask
    urllib.request.urlopen(request, timeout=10).read()
    n += 1
    time.sleep(0.2)
print(f"browsers: {n} requests in {seconds:.0f} s")
PY

wrk_p99 "no browsers"
python3 "$work/browsers.py" "$base" 16 &
browsers=$!
wrk_p99 "50 browsers refreshing /status every 10 s"
wait "$browsers"

# 200 browsers on UPS pages, each request a random UPS (of the simulator's 1,000) and language.
cat >"$work/ups-pages.lua" <<'LUA'
math.randomseed(os.time())
request = function()
    local i = math.random(0, 999)
    local lang = (math.random(0, 1) == 0) and "en" or "zh"
    local path = string.format("/status/ups?device=5e1a7a0c-%04x-4b35-b0dd-%012x&lang=%s", i, i, lang)
    return wrk.format("GET", path, {["Accept-Encoding"] = "gzip"})
end
LUA
out=$(wrk -t2 -c200 -d20s --timeout 10s --latency -s "$work/ups-pages.lua" "$base")
echo "$name: UPS pages, 200 connections: $(awk '$1 == "Requests/sec:" {print $2}' <<<"$out") requests/s," \
    "p50 $(awk '$1 == "50%" {print $2}' <<<"$out"), p99 $(awk '$1 == "99%" {print $2}' <<<"$out")," \
    "$(grep -o 'Non-2xx or 3xx responses: [0-9]*' <<<"$out" || echo 'every response 2xx')"
echo "$name: exporter RSS $(rss_mb "$server") MB, peak $(rss_peak_mb "$server") MB"
