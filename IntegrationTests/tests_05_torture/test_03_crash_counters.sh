#!/usr/bin/env bash
# Counters never go backwards across a crash. Runs the exporter against `wpexporter simulate`
# with 200 devices, fsync slowed by an LD_PRELOAD shim (Tests/Torture/slow_fsync.c),
# scrapes /metrics as Prometheus would, and kills the exporter with SIGKILL at a random moment,
# KILLS times. After each restart every device's winpower_device_energy_joules_total must be at
# least the value last scraped before the kill: a served total never exceeds what the state file
# holds (docs/storage.md, "What /metrics serves").
#
#   IntegrationTests/tests_05_torture/test_03_crash_counters.sh [KILLS] [FSYNC_SECONDS]
#
# The defaults, 10 and 1 (about 75 s with the debug build), are CI's run; docs/security.md's is
# 30 kills (`... test_03_crash_counters.sh 30 1`). Exits non-zero when any counter went backwards
# or the exporter did not come back.
set -euo pipefail
kills="${1:-10}"
fsync_seconds="${2:-1}"
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh tests seccomp   # curl, cc (gcc) for the LD_PRELOAD shim

build_slow_fsync
start_simulator 200
exporter_env=(SLOW_FSYNC_SECONDS="$fsync_seconds" LD_PRELOAD="$work/slow_fsync.so")

# energy FILE: every device's energy counter from one scrape, "device value" lines, sorted.
energy() {
    curl -s -m 30 "$base/metrics" | awk '/^winpower_device_energy_joules_total\{/ {
        match($0, /device_id="[^"]*"/); print substr($0, RSTART + 11, RLENGTH - 12), $NF }' | sort >"$1"
}

echo "$name: $kills SIGKILLs, fsync ${fsync_seconds}s, 200 devices, 1 s collections"
RANDOM=42
backwards_kills=0 backwards_total=0 worst=0
for round in $(seq "$kills"); do
    start_exporter "$work/server-$round.log"
    : >"$work/last"
    # Scrape for 1.5 to 4 s, then kill at once after a scrape (the worst moment: right after
    # a collection published what it had not yet saved, if it did).
    end=$(( $(date +%s%N) + (1500 + RANDOM % 2500) * 1000000 ))
    while [ "$(date +%s%N)" -lt "$end" ]; do
        energy "$work/scrape"
        [ -s "$work/scrape" ] && mv "$work/scrape" "$work/last"
        sleep 0.$((RANDOM % 3))
    done
    kill -KILL "$server"
    wait "$server" 2>/dev/null || true
    start_exporter "$work/server-$round-after.log"
    energy "$work/after"
    stop_exporter
    [ -s "$work/after" ] || fail "no counters after restart $round"
    # Counters below the last scraped value, and by how many joules at most.
    read -r below most < <(join "$work/last" "$work/after" | awk '$3 < $2 { n++; d = $2 - $3; if (d > m) m = d }
        END { printf "%d %.0f\n", n, m }')
    if [ "$below" -gt 0 ]; then
        backwards_kills=$((backwards_kills + 1))
        backwards_total=$((backwards_total + below))
        [ "$most" -gt "$worst" ] && worst=$most
        echo "  kill $round: $below counters below the last scrape (up to $most J)"
    fi
done
echo "$name: $backwards_kills of $kills kills left counters below the last scraped value" \
    "($backwards_total counters, up to $worst J)"
[ "$backwards_kills" -eq 0 ] || fail "counters went backwards after $backwards_kills of $kills kills"
echo "$name: ok"
