# shellcheck shell=bash
# Sourced by this group's outage-ledger cases (never run alone): `wpexporter simulate
# --outage-schedule` puts device 0 on battery three times (4 s, 4 s, 10 s); a `wpexporter
# server` collecting every second must show 3 transfers, a duration histogram count of 3 and the
# time on battery close to the truth. `run plain` or `run kill` plays the 29 s schedule once.
#
# Tolerances (docs/metrics.md, "Outage ledger"): on-battery seconds run from the midpoint of the
# last reading on line and the first on battery to the midpoint of the last on battery and the
# first back on line, so each transition is off by at most half a collection interval (1 s
# here) and the total of the three outages must be within one interval of the truth; a restart
# loses the time the exporter was down. Each observed duration is within one interval of the
# truth.
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh tests   # curl, python3

# Outages of device 0 in seconds since the simulator started: [3,7), [11,15), [19,29).
schedule="3+4,11+4,19+10"
truth=18
interval=1

value() {  # $1: metric name; the series of device 0
    curl -fsS "$base/metrics" | awk -v name="$1" 'index($0, name "{device_id=\"5e1a7a0c-0000-") == 1 { print $NF }'
}
# The third outage has ended and been observed: the duration histogram counts three.
outages_observed() { [ "$(value winpower_device_outage_duration_seconds_count)" = 3 ]; }

check() {  # $1: label of the run; $2: seconds lost to restarts
    local transfers count onbattery sum
    transfers="$(value winpower_device_battery_transfers_total)"
    count="$(value winpower_device_outage_duration_seconds_count)"
    onbattery="$(value winpower_device_on_battery_seconds_total)"
    sum="$(value winpower_device_outage_duration_seconds_sum)"
    echo "$name: $1: transfers $transfers, histogram count $count, on battery ${onbattery}s, durations ${sum}s (truth ${truth}s)"
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
    start_simulator 2 --outage-schedule "$schedule"
    local began=$SECONDS
    launch_exporter "$work/exporter-$1.log" --scheduler.collection_interval "${interval}s"
    local lost=0
    if [[ "$1" == "kill" ]]; then
        # Mid third outage (19-29 s of the simulator's time): kill at ~23 s, restart at once.
        sleep $((23 - (SECONDS - began)))
        kill -KILL "$server"
        wait "$server" 2>/dev/null || true
        local down=$SECONDS
        launch_exporter "$work/exporter-$1-restarted.log" --scheduler.collection_interval "${interval}s"
        lost=$((SECONDS - down + 2 * interval))
        wait_http 10 "$base/-/ready" || fail "the restarted exporter did not become ready"
        echo "$name: health during the outage after the restart: $(curl -fsS "$base/health" | grep -o '"outages":\[[^]]*\]')"
    fi
    # The schedule ends at 29 s; its end is observed at the next collection.
    wait_for $((45 - (SECONDS - began))) outages_observed || true
    check "$1" "$lost"
    stop_exporter
    stop_simulator
}
