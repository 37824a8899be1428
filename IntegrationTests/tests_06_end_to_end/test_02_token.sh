#!/usr/bin/env bash
# End-to-end check of the token lifetime rule: a `wpexporter simulate` whose clock is skewed
# (and/or which writes `exp` in milliseconds) and a `wpexporter server` against it, collecting
# every 5 s for DURATION seconds. Prints logins, 401s (re-logins after a rejected token), failed
# collections, device-list requests and the last winpower_token_expiry_seconds; fails when a
# token was rejected, a collection failed, or the exporter logged in for every collection (a
# token must serve several: no claim is compared with our clock, docs/winpower-client.md).
#
#   IntegrationTests/tests_06_end_to_end/test_02_token.sh [DURATION] [-- SIMULATOR_FLAGS...]
#   IntegrationTests/tests_06_end_to_end/test_02_token.sh 60 -- --clock-skew -1h --token-lifetime 20s
#   IntegrationTests/tests_06_end_to_end/test_02_token.sh 60 -- --token-exp-ms
#
# Without simulator flags it runs the first row of docs/winpower-client.md's table for 30 s
# instead of 60 (about 35 s): a server clock an hour behind, 20 s tokens, and
# EXPORTER_FLAGS="--winpower.refresh_threshold 2s" unless EXPORTER_FLAGS is set. Extra exporter
# flags go in EXPORTER_FLAGS. Loopback only.
set -euo pipefail
duration="${1:-30}"
shift || true
[[ "${1:-}" == "--" ]] && shift
if [ $# -eq 0 ]; then
    set -- --clock-skew -1h --token-lifetime 20s
    : "${EXPORTER_FLAGS=--winpower.refresh_threshold 2s}"
fi
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh tests   # curl

read -r -a exporter_flags <<<"${EXPORTER_FLAGS:-}"
start_simulator 6 "$@"
start_exporter "$work/exporter.log" --scheduler.collection_interval 5s "${exporter_flags[@]}"
sleep "$duration"
metrics="$(curl -fsS "$base/metrics")"

value() { awk -v name="$1" '$1 == name { print $2 }' <<<"$metrics"; }
logins=$(grep -c '"logged in"' "$work/exporter.log" || true)
rejected=$(grep -c 'token rejected' "$work/exporter.log" || true)
failed=$(awk '/^winpower_exporter_scrape_errors_total/ { sum += $2 } END { print sum + 0 }' <<<"$metrics")
requests=$(value 'winpower_api_response_time_seconds_count{endpoint="device_list"}')
echo "$name: simulator flags: $*; exporter flags: ${EXPORTER_FLAGS:-none}; ${duration}s"
echo "logins: $logins"
echo "401s (token rejected, logged in again): $rejected"
echo "failed collections: $failed"
echo "device-list requests: $requests"
echo "winpower_token_expiry_seconds: $(value winpower_token_expiry_seconds)"
echo "winpower_device_battery_test_running=1: $(grep -c '^winpower_device_battery_test_running{.* 1$' <<<"$metrics" || true)," \
     "winpower_device_on_bypass=1: $(grep -c '^winpower_device_on_bypass{.* 1$' <<<"$metrics" || true)"
[ "$rejected" = 0 ] || fail "$rejected tokens rejected"
[ "$failed" = 0 ] || fail "$failed collections failed"
requests=${requests:-0}
if [ "$logins" -lt 1 ] || [ "$logins" -ge "${requests%.*}" ]; then
    fail "$logins logins for $requests device-list requests: no token served several collections"
fi
echo "$name: ok"
