#!/usr/bin/env bash
# Push mode against a real Pushgateway: `wpexporter server --push.url` collecting a simulated
# WinPower (its password from --winpower.password_file) pushes every second, and the gateway then
# serves the device series under job="wpexporter". A few seconds. Installs Debian's
# prometheus-pushgateway when missing.
#
#   IntegrationTests/tests_04_prometheus/test_02_pushgateway.sh
set -euo pipefail
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh tests prometheus   # prometheus-pushgateway, curl

start_simulator 3
start_listening "$work/pushgateway.log" /-/ready prometheus-pushgateway
gateway="http://127.0.0.1:$listener_port"
printf 'admin\n' >"$work/password"
winpower_credentials=(--winpower.username admin --winpower.password_file "$work/password")
launch_exporter "$work/push-exporter.log" --push.url="$gateway" --push.interval=1s

pushed() {
    curl -fsS --max-time 2 -o "$work/gateway.txt" "$gateway/metrics" &&
        grep -q '^winpower_device_load_total_watts{.*job="wpexporter"' "$work/gateway.txt"
}
wait_for 60 pushed || fail "the Pushgateway has no winpower_device_load_total_watts after 60 s"
echo "ok: the Pushgateway serves the device series pushed by 'wpexporter server --push.url'"
