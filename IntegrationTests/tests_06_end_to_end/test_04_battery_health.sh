#!/usr/bin/env bash
# End-to-end check of the battery health measurement (docs/battery.md, "Measured health"):
# `wpexporter simulate --outage-schedule` with `~RUNTIME` scripts three outages of three UPSs,
# each 20 s long, whose battery delivers a given runtime from full charge:
#   - UPS 0, a failing battery: 66 s, 64 s, then 40 s (60 % of the first);
#   - UPS 14, a fresh battery: 66 s at every outage;
#   - UPS 15: one outage only.
# A `wpexporter server` collecting every second (measurements from 10 s on) must
#   - give no ratio after two outages ("not enough data": 3 measurements are needed), and say so
#     on the UPS page;
#   - after the third, flag UPS 0 (ratio below 0.8, the UPS page's reason, a `battery_health_low`
#     event in the journal) and not UPS 14 (ratio within 15 % of 1, no such event);
#   - give UPS 15 no ratio, one measurement;
#   - go on measuring UPS 0's third outage across a SIGKILL and a restart in its middle: the
#     measurement covers the whole outage, not the part after the restart;
#   - keep the measurements across a restart (the data directory);
#   - serve NUT's real `upsc` UPS 0's configured battery (`battery.date`, `battery.date.maintenance`)
#     and, once its health is low, `RB` in `ups.status` (UPS 14 without it).
# About 80 s. Loopback only; both processes bind port 0 and their addresses are read from their
# output.
set -euo pipefail
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh tests nut   # curl, python3, upsc

# Seconds since the simulator started: outages at [2,22), [26,46), [50,70).
# The simulator's devices 0, 14 and 15 are on mains by default (docs/simulator.md).
schedule="0:2+20~66,0:26+20~64,0:50+20~40,14:2+20~66,14:26+20~66,14:50+20~66,15:2+20~66"
start_simulator 16 --outage-schedule "$schedule"
{
    printf 'winpower:\n  devices:\n    overrides:\n'
    printf '      %s:\n        name: ups-0\n        battery: {installed: 2023-06-15, life: 3y}\n' "$(device_id 0)"
    printf '      %s:\n        name: ups-14\n' "$(device_id 14)"
} >"$work/config.yml"
printf 'users:\n  monuser:\n    password: s3cret-nut\n    upsmon: secondary\n' >"$work/nut-users.yml"
flags=(--config "$work/config.yml" --battery.min_duration 10s --history.enabled=true
       --nut.listen 127.0.0.1:0 --nut.users_file "$work/nut-users.yml")
start_exporter "$work/exporter.log" "${flags[@]}"
nut_port=$(listening_port "$work/exporter.log")
[ -n "$nut_port" ] || fail "no NUT listener"
upsc_of() { upsc "$1@127.0.0.1:$nut_port" "$2" 2>/dev/null; }
[ "$(upsc_of ups-0 battery.date)" = 2023-06-15 ] || fail "upsc: ups-0's battery.date is '$(upsc_of ups-0 battery.date)', not 2023-06-15"
[ "$(upsc_of ups-0 battery.date.maintenance)" = 2026-06-15 ] || fail "upsc: ups-0's battery.date.maintenance is '$(upsc_of ups-0 battery.date.maintenance)'"

id() { device_id "$1"; }
# value NAME N: the series of UPS N of metric NAME (empty when there is none).
value() {
    curl -fsS "$base/metrics" | awk -v name="$1" -v id="$(id "$2")" 'index($0, name "{device_id=\"" id "\"") == 1 { print $NF }'
}
page() { curl -fsS "$base/status/ups?device=$(id "$1")&lang=${2:-en}"; }
# page_says N LANGUAGE TEXT: UPS N's page in LANGUAGE has TEXT (a fixed string).
page_says() { local html; html="$(page "$1" "$2")" && grep -qF -- "$3" <<<"$html"; }
measured() { [ "$(value winpower_device_battery_health_measurements "$1")" = "$2" ]; }

# After the second outage: two measurements of UPS 0, no ratio yet.
wait_for 70 measured 0 2 || fail "UPS 0 has not two measurements after its second outage: '$(value winpower_device_battery_health_measurements 0)'"
[ -z "$(value winpower_device_battery_health_ratio 0)" ] || fail "a ratio after two measurements: $(value winpower_device_battery_health_ratio 0)"
page_says 0 en 'not enough data (2 of 3 measurements)' || fail "the UPS page of UPS 0 does not say 'not enough data (2 of 3 measurements)'"
page_says 0 zh '数据不足（2 / 3 次测量）' || fail "the Chinese UPS page of UPS 0 does not say 数据不足（2 / 3 次测量）"

# In the middle of the third outage (simulated second 58 or so): SIGKILL, then a restart.
# Its third outage under way, a quarter of it gone: the charge read is at most 85 % (2.5 % a second).
into_third() {
    [ "$(value winpower_device_battery_transfers_total 0)" = 3 ] && [ "$(value winpower_device_battery_capacity 0)" -le 85 ] 2>/dev/null
}
wait_for 40 into_third || fail "UPS 0's third outage did not begin"
kill -KILL "$server"
wait "$server" 2>/dev/null || true
start_exporter "$work/exporter-2.log" "${flags[@]}"
nut_port=$(listening_port "$work/exporter-2.log")

wait_for 60 measured 0 3 || fail "UPS 0 has not three measurements after its third outage: '$(value winpower_device_battery_health_measurements 0)'"
wait_for 10 measured 14 3 || fail "UPS 14 has not three measurements: '$(value winpower_device_battery_health_measurements 14)'"
ratio0=$(value winpower_device_battery_health_ratio 0)
ratio1=$(value winpower_device_battery_health_ratio 14)
echo "$name: health ratios: failing battery $ratio0, fresh battery $ratio1"
python3 - "$ratio0" "$ratio1" <<'EOF' || fail "ratios out of range: failing $ratio0 (expected 0.4-0.8), fresh $ratio1 (expected 0.85-1.15)"
import sys
failing, fresh = float(sys.argv[1]), float(sys.argv[2])
sys.exit(0 if 0.4 < failing < 0.8 and 0.85 < fresh < 1.15 else 1)
EOF
[ "$(value winpower_device_battery_health_measurements 15)" = 1 ] || fail "UPS 15 has not one measurement"
[ -z "$(value winpower_device_battery_health_ratio 15)" ] || fail "UPS 15 has a ratio from one measurement"
page_says 15 en 'not enough data (1 of 3 measurements)' || fail "the UPS page of UPS 15 does not say 'not enough data (1 of 3 measurements)'"

# The UPS page of UPS 0: the reason, the table, and the third measurement whole across the restart
# (20 s at 2.5 % a second: about 48 points; the part after the restart alone would be about 25).
page 0 >"$work/ups0.html"
grep -q 'Battery health [0-9]* %: below 80 % of its first measurement' "$work/ups0.html" || fail "the UPS page of UPS 0 gives no low-health reason"
python3 - "$work/ups0.html" <<'EOF' || fail "the measurements table of UPS 0 is not as expected (the third outage should use about 48 points of charge)"
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
table = re.search(r'<table[^>]*id="measurements".*?</table>', html, re.S)
rows = re.findall(r"<tr><td>.*?</tr>", table.group(0), re.S) if table else []
cells = [re.findall(r"<td>(.*?)</td>", row) for row in rows]
print("measurements (newest first):", [(c[1], c[2], c[6]) for c in cells])
assert len(cells) == 3, cells
newest_used = float(cells[0][2])
assert 40 <= newest_used <= 52, newest_used
assert cells[2][6].startswith("100 %"), cells[2]
EOF
page_says 14 en ': below 80 % of its first measurement' && fail "the UPS page of UPS 14 (a fresh battery) says its health is low"

# NUT: RB for UPS 0, whose measured health is low; not for UPS 14.
status0=$(upsc_of ups-0 ups.status) status14=$(upsc_of ups-14 ups.status)
echo "$name: upsc ups.status: ups-0 '$status0', ups-14 '$status14'"
[[ " $status0 " == *" RB "* ]] || fail "upsc: ups-0's ups.status '$status0' has no RB"
[[ " $status14 " != *" RB "* ]] || fail "upsc: ups-14's ups.status '$status14' has RB"

# The journal: battery_health_low for UPS 0 only; a fresh battery reaching enough measurements says nothing.
events="$(curl -fsS "$base/status/events.json?kind=battery_health_low,battery_health_recovered")"
python3 - "$events" "$(id 0)" <<'EOF' || fail "the journal's battery health events are not UPS 0's battery_health_low alone: $events"
import json, sys
data = json.loads(sys.argv[1])
events = data["events"] if isinstance(data, dict) else data
devices = sorted({e.get("device_id") for e in events})
print("battery health events:", [(e.get("device_id"), e.get("kind")) for e in events])
assert devices == [sys.argv[2]], devices
assert {e.get("kind") for e in events} == {"battery_health_low"}, events
EOF

# Kept across a clean restart.
stop_exporter
start_exporter "$work/exporter-3.log" "${flags[@]}"
wait_for 20 measured 0 3 || fail "UPS 0's measurements were not kept across a restart"
[ -n "$(value winpower_device_battery_health_ratio 0)" ] || fail "UPS 0's ratio was not kept across a restart"
echo "$name: passed"
