#!/usr/bin/env bash
# Attack 3 of the hardening work: a disk whose fsync stalls. Runs the exporter against
# `wpexporter simulate` with 1,000 devices, with fsync slowed by an LD_PRELOAD shim
# (Tests/Torture/slow_fsync.c), and prints the latency of /health and /metrics while saves are
# stuck, then whether the energy totals reach the state file once the disk recovers.
#
#   IntegrationTests/tests_05_torture/test_01_slow_disk.sh [STALL_SECONDS] [PROBE_SECONDS]
#
# The defaults, 2 and 5 (about 10 s), are CI's short run with the debug build; the full run
# (docs/security.md) is
#   WPEXPORTER_BIN=.build/release/wpexporter IntegrationTests/tests_05_torture/test_01_slow_disk.sh 20 30
#
# Goal: /health and /metrics answer in ≤ 50 ms while fsync stalls; totals persisted after, and
# the served counters (held at the last saved totals during the stall) catch up, never above them.
# Exits non-zero when the exporter dies or the totals are not persisted.
set -euo pipefail
stall="${1:-2}"
probe_seconds="${2:-5}"
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh seccomp   # cc (gcc) for the LD_PRELOAD shim

build_slow_fsync

start_simulator 1000
touch "$work/disk-is-slow"
exporter_env=(SLOW_FSYNC_SECONDS="$stall" SLOW_FSYNC_UNTIL="$work/disk-is-slow" LD_PRELOAD="$work/slow_fsync.so")
start_exporter "$work/server.log"

echo "$name: fsync stalls ${stall}s; probing /health and /metrics for ${probe_seconds}s (1,000 devices)"
: >"$work/health.ms"; : >"$work/metrics.ms"
end=$(( $(date +%s) + probe_seconds ))
while [ "$(date +%s)" -lt "$end" ]; do
    curl -s -o /dev/null -m 60 -w '%{time_total}\n' "$base/health" | awk '{print $1 * 1000}' >>"$work/health.ms"
    curl -s -o /dev/null -m 60 -w '%{time_total}\n' "$base/metrics" | awk '{print $1 * 1000}' >>"$work/metrics.ms"
    sleep 0.2
done
kill -0 "$server" || fail "the exporter exited"
summary /health "$work/health.ms"
summary /metrics "$work/metrics.ms"
# Proof the disk was stuck: collections wait for the save, so the scheduler skips ticks.
skipped=$(curl -s "$base/metrics" | awk '/^winpower_exporter_collections_skipped_total/ {print $NF}')
echo "  collections skipped while saves were stuck: ${skipped:-?}"

# The disk recovers: the stuck save completes, the next ones are fast.
rm -f "$work/disk-is-slow"
saved_before=$(grep -o '^d [0-9.e+]*' "$work/data/energy.state" 2>/dev/null | awk '{s += $2} END {printf "%.3f\n", s}')
live=$(curl -s "$base/metrics" | awk '/^winpower_device_energy_joules_total/ {s += $NF} END {printf "%.3f\n", s}')
echo "$name: disk recovered; waiting for a save that holds the totals served (${live} J)"
deadline=$(( $(date +%s) + stall + 30 ))
persisted=""
while [ "$(date +%s)" -lt "$deadline" ]; do
    saved=$(grep -o '^d [0-9.e+]*' "$work/data/energy.state" 2>/dev/null | awk '{s += $2} END {printf "%.3f\n", s}')
    if awk -v s="$saved" -v l="$live" 'BEGIN {exit !(s >= l && s > 0)}'; then persisted="$saved"; break; fi
    sleep 1
done
if [ -z "$persisted" ]; then
    fail "state file holds ${saved:-nothing} J (was ${saved_before} J), served ${live} J"
fi
echo "$name: totals persisted: ${persisted} J in the state file ≥ ${live} J served during the stall"
# Served counters are held at the last saved totals (docs/energy.md): they caught up with the
# save and never exceed what the state file holds.
# The next collection publishes them: look until it did.
caught_up=""
while [ "$(date +%s)" -lt "$deadline" ]; do
    served=$(curl -s "$base/metrics" | awk '/^winpower_device_energy_joules_total/ {s += $NF} END {printf "%.3f\n", s}')
    stored=$(grep -o '^d [0-9.e+]*' "$work/data/energy.state" | awk '{s += $2} END {printf "%.3f\n", s}')
    if awk -v v="$served" -v s="$stored" 'BEGIN {exit !(v > s)}'; then
        fail "served ${served} J, above the ${stored} J the state file holds"
    fi
    if awk -v v="$served" -v l="$live" 'BEGIN {exit !(v > 0 && v >= l)}'; then caught_up=1; break; fi
    sleep 0.5
done
if [ -z "$caught_up" ]; then
    fail "served ${served} J after the recovery, state file ${stored} J, served during the stall ${live} J"
fi
echo "$name: served after the recovery: ${served} J (≥ ${live} J during the stall, ≤ ${stored} J stored)"
