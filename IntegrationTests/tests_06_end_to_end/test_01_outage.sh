#!/usr/bin/env bash
# End-to-end check of the outage ledger: `wpexporter simulate --outage-schedule` puts device 0 on
# battery three times (4 s, 4 s, 10 s); a `wpexporter server` collecting every second must show
# 3 transfers, a duration histogram count of 3 and the time on battery close to the truth, also
# when it is killed with SIGKILL in the middle of the third outage and restarted (the outage in
# progress stays one outage, and its end is observed by the new process).
#
#   IntegrationTests/tests_06_end_to_end/test_01_outage.sh            # both runs (plain, then SIGKILL mid-outage), ~70 s
#
# Uses $WPEXPORTER, else .build/release/wpexporter, else .build/debug/wpexporter. Loopback only;
# both processes bind port 0 and their addresses are read from their output.
#
# Tolerances (docs/metrics.md, "Outage ledger"): on-battery seconds run from the midpoint of the
# last reading on line and the first on battery to the midpoint of the last on battery and the
# first back on line, so each transition is off by at most half a collection interval (1 s
# here) and the total of the three outages must be within one interval of the truth; a restart
# loses the time the exporter was down. Each observed duration is within one interval of the
# truth.
set -euo pipefail
cd "$(dirname "$0")/../.."
binary="${WPEXPORTER:-}"
if [[ -z "$binary" ]]; then
    binary=.build/release/wpexporter
    [[ -x "$binary" ]] || binary=.build/debug/wpexporter
fi
[[ -x "$binary" ]] || { echo "build first: swift build --product wpexporter" >&2; exit 1; }

work="$(mktemp -d)"
pids=()  # every process started, stopped on exit
trap 'kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

# Outages of device 0 in seconds since the simulator started: [3,7), [11,15), [19,29).
schedule="3+4,11+4,19+10"
truth=18
interval=1

start_exporter() {  # $1: log file; sets exporter_pid and metrics_url
    "$binary" server --server.host 127.0.0.1 --server.port 0 --winpower.base_url "$sim_url" \
        --winpower.username admin --winpower.password e2e-secret --storage.data_dir "$work/data" \
        --scheduler.collection_interval "${interval}s" --logging.level info >"$1" 2>&1 &
    exporter_pid=$!
    pids+=("$exporter_pid")
    local address=""
    for _ in $(seq 100); do
        address="$(grep -o 'exporter listening.*' "$1" | grep -o '127\.0\.0\.1:[0-9]*' | head -1 || true)"
        [[ -n "$address" ]] && break
        sleep 0.1
    done
    [[ -n "$address" ]] || { echo "exporter did not start:" >&2; cat "$1" >&2; exit 1; }
    metrics_url="http://$address/metrics"
}

value() {  # $1: metric name; the series of device 0
    curl -fsS "$metrics_url" | awk -v name="$1" 'index($0, name "{device_id=\"5e1a7a0c-0000-") == 1 { print $NF }'
}

check() {  # $1: label of the run; $2: seconds lost to restarts
    local transfers count onbattery sum
    transfers="$(value winpower_device_battery_transfers_total)"
    count="$(value winpower_device_outage_duration_seconds_count)"
    onbattery="$(value winpower_device_on_battery_seconds_total)"
    sum="$(value winpower_device_outage_duration_seconds_sum)"
    echo "$1: transfers $transfers, histogram count $count, on battery ${onbattery}s, durations ${sum}s (truth ${truth}s)"
    python3 - "$transfers" "$count" "$onbattery" "$sum" "$truth" "$interval" "$2" <<'PY'
import sys
transfers, count, onbattery, total, truth, interval, lost = map(float, sys.argv[1:])
problems = []
if transfers != 3: problems.append(f"transfers {transfers} != 3")
if count != 3: problems.append(f"histogram count {count} != 3")
if not truth - interval - lost <= onbattery <= truth + interval:
    problems.append(f"on battery {onbattery}s outside [{truth - interval - lost}, {truth + interval}]")
if abs(total - truth) > 3 * interval + 0.5:
    problems.append(f"durations {total}s more than one interval per outage from {truth}s")
if problems:
    print("FAIL: " + "; ".join(problems)); sys.exit(1)
PY
}

run() {  # $1: "plain" or "kill"
    rm -rf "$work/data"
    "$binary" simulate --port 0 --devices 2 --password e2e-secret --outage-schedule "$schedule" \
        >"$work/simulator.out" 2>&1 &
    local sim_pid=$!
    pids+=("$sim_pid")
    local began=$SECONDS
    for _ in $(seq 100); do grep -q "WinPower simulator on" "$work/simulator.out" && break; sleep 0.1; done
    sim_url="$(grep -o 'http://[0-9.:]*' "$work/simulator.out" | head -1)"
    [[ -n "$sim_url" ]] || { cat "$work/simulator.out" >&2; exit 1; }
    start_exporter "$work/exporter-$1.log"
    local lost=0
    if [[ "$1" == "kill" ]]; then
        # Mid third outage (19-29 s): kill at ~23 s, restart at once.
        sleep $((23 - (SECONDS - began)))
        kill -KILL "$exporter_pid"
        wait "$exporter_pid" 2>/dev/null || true
        local down=$SECONDS
        start_exporter "$work/exporter-$1-restarted.log"
        lost=$((SECONDS - down + 2 * interval))
        sleep 1
        echo "health during the outage after the restart: $(curl -fsS "${metrics_url%/metrics}/health" | grep -o '"outages":\[[^]]*\]')"
    fi
    sleep $((32 - (SECONDS - began)))
    check "$1" "$lost"
    kill "$exporter_pid" "$sim_pid" 2>/dev/null || true
    wait "$exporter_pid" "$sim_pid" 2>/dev/null || true
}

run plain
run kill
echo "outage-e2e: OK"
