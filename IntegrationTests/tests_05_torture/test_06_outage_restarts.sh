#!/usr/bin/env bash
# One outage per outage across restarts and kills (in CI): twelve simulated UPSs lose mains
# together for 75 s; meanwhile the exporter is killed with SIGKILL, stopped with SIGTERM and
# killed again, each time started anew on the same data directory. Once mains is back, every
# UPS's outage list (/status/outages.csv) holds exactly one outage, ended, as the state file
# does. Before the fix every restart added a copy that stayed "in progress" forever (34 of 34
# UPSs on battery at the restarts). About 90 s.
#
#   IntegrationTests/tests_05_torture/test_06_outage_restarts.sh
set -euo pipefail
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh tests   # curl

# The simulator's devices whose own role is "on mains" (its role pattern), twelve of them:
# only their outages are scripted (the others are on battery, in fault, … for good).
mapfile -t devices < <(python3 - <<'PY'
def role(i):
    if i % 7 == 2: return "disconnected"
    if i % 5 in (1, 3): return "other"
    if i % 7 in (3, 4, 5) or (i % 7, i % 5) == (0, 2): return "other"
    return "normal"
print("\n".join([str(i) for i in range(60) if role(i) == "normal"][:12]))
PY
)
[ "${#devices[@]}" = 12 ] || fail "expected 12 devices on mains, found ${#devices[@]}"
schedule=$(printf '%s:4+75,' "${devices[@]}")
start_simulator 60 --outage-schedule "${schedule%,}"

# on_battery: how many of the twelve /metrics shows on battery.
on_battery() {
    local metrics count=0
    metrics=$(curl -sf -m 10 "$base/metrics" || true)
    for i in "${devices[@]}"; do
        grep -q "^winpower_device_on_battery{device_id=\"$(device_id "$i")\".* 1$" <<<"$metrics" && count=$((count + 1))
    done
    echo "$count"
}
all_on_battery() { [ "$(on_battery)" = 12 ]; }
none_on_battery() { [ "$(on_battery)" = 0 ]; }

start_exporter "$work/run-1.log"
wait_for 30 all_on_battery || fail "the twelve UPSs did not go on battery"
for stop in KILL TERM KILL; do
    sleep 2   # a few collections into the outage, saved
    all_on_battery || fail "mains came back before the restarts were done"
    kill "-$stop" "$server"
    wait "$server" 2>/dev/null || true
    start_exporter "$work/run-$stop-$SECONDS.log"
    echo "$name: SIGKILL/SIGTERM $stop during the outage, started again"
done
wait_for 120 none_on_battery || fail "mains did not come back"
sleep 2   # the collections that saw mains back

bad=0
for i in "${devices[@]}"; do
    id=$(device_id "$i")
    mapfile -t rows < <(curl -sf "$base/status/outages.csv?device=$id" | tr -d '\r' | tail -n +2)
    if [ "${#rows[@]}" != 1 ] || [[ "${rows[0]}" != *",false" ]]; then
        echo "$name: device $i: ${#rows[@]} outages: ${rows[*]}" >&2
        bad=$((bad + 1))
    fi
done
[ "$bad" = 0 ] || fail "$bad of 12 UPSs do not list exactly one ended outage"
echo "$name: 12 of 12 UPSs list one ended outage after SIGKILL, SIGTERM and SIGKILL during it"
