#!/usr/bin/env bash
# End-to-end check of the token lifetime rule: a release `wpexporter simulate` whose clock is
# skewed (and/or which writes `exp` in milliseconds) and a release `wpexporter server` against it,
# for DURATION seconds. Prints logins, 401s (re-logins after a rejected token), failed
# collections and the last winpower_token_expiry_seconds.
#
#   IntegrationTests/tests_06_end_to_end/test_02_token.sh [DURATION] -- SIMULATOR_FLAGS...
#   IntegrationTests/tests_06_end_to_end/test_02_token.sh 60 -- --clock-skew -1h --token-lifetime 20s
#   IntegrationTests/tests_06_end_to_end/test_02_token.sh 60 -- --token-exp-ms
#
# Extra exporter flags go in EXPORTER_FLAGS (e.g. EXPORTER_FLAGS="--winpower.refresh_threshold 2s").
# Uses .build/release/wpexporter (swift build -c release --product wpexporter) and loopback only.
set -euo pipefail
cd "$(dirname "$0")/../.."
duration="${1:-60}"
shift || true
[[ "${1:-}" == "--" ]] && shift
binary=.build/release/wpexporter
[[ -x "$binary" ]] || { echo "build first: swift build -c release --product wpexporter" >&2; exit 1; }

work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

"$binary" simulate --port 0 --devices 6 --password e2e-secret "$@" >"$work/simulator.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do grep -q "WinPower simulator on" "$work/simulator.out" && break; sleep 0.1; done
url="$(grep -o 'http://[0-9.:]*' "$work/simulator.out" | head -1)"
[[ -n "$url" ]] || { cat "$work/simulator.out" >&2; exit 1; }

port="$(free_port)"
# shellcheck disable=SC2086 # EXPORTER_FLAGS is a list of flags
"$binary" server --server.host 127.0.0.1 --server.port "$port" --winpower.base_url "$url" \
    --winpower.username admin --winpower.password e2e-secret --storage.data_dir "$work/data" \
    --logging.level info ${EXPORTER_FLAGS:-} >"$work/exporter.log" 2>&1 &
pids+=($!)
sleep "$duration"
metrics="$(curl -fsS "http://127.0.0.1:$port/metrics")"

value() { awk -v name="$1" '$1 == name { print $2 }' <<<"$metrics"; }
echo "simulator flags: $*; exporter flags: ${EXPORTER_FLAGS:-none}; ${duration}s"
echo "logins: $(grep -c 'logged in' "$work/exporter.log" || true)"
echo "401s (token rejected, logged in again): $(grep -c 'token rejected' "$work/exporter.log" || true)"
echo "failed collections: $(awk '/^winpower_exporter_scrape_errors_total/ { sum += $2 } END { print sum + 0 }' <<<"$metrics")"
echo "device-list requests: $(value 'winpower_api_response_time_seconds_count{endpoint="device_list"}')"
echo "winpower_token_expiry_seconds: $(value winpower_token_expiry_seconds)"
echo "winpower_device_battery_test_running=1: $(grep -c '^winpower_device_battery_test_running{.* 1$' <<<"$metrics" || true)," \
     "winpower_device_on_bypass=1: $(grep -c '^winpower_device_on_bypass{.* 1$' <<<"$metrics" || true)"
