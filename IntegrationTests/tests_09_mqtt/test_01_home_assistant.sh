#!/usr/bin/env bash
# The MQTT front end (docs/home-assistant.md) against a real broker, Debian's Mosquitto
# (tests_09_mqtt/mqtt.sh: in a network namespace of the case's own; needs root), read back by
# mosquitto_sub's and paho-mqtt's clients:
#   - every UPS of the simulator has its retained JSON state, its availability and, for Home
#     Assistant, one device with its entities: unique ids, device classes, state classes (the
#     energy `total_increasing` in kWh), units, the availability pair; every discovery message as
#     Home Assistant's MQTT platforms take it (ha_discovery.py); each state's values agree with
#     /metrics (the energy within one collection's increase);
#   - a scheduled outage shows as on battery, then back;
#   - the broker restarted without persistence (every retained message lost): the client
#     connects again and announces everything again;
#   - a clean stop leaves `offline` retained.
# About 20 s. tests_09_mqtt/test_04_login_and_will.sh holds a refused login, the will and a
# restart; test_05_thousand_ups.sh the discovery of 1,000 UPSs.
#
#   IntegrationTests/tests_09_mqtt/test_01_home_assistant.sh
set -euo pipefail
# shellcheck source=IntegrationTests/tests_09_mqtt/mqtt.sh
source "$(dirname "$0")/mqtt.sh"

# --- A fleet of 6 UPSs through the broker; UPS 0 on battery for [3,9) s ------------------------------
start_broker
record "$work/states.jsonl"
start_simulator 6 --outage-schedule 3+6
start_exporter "$work/exporter.log" --mqtt.url mqtt://127.0.0.1:1883 --mqtt.client_id wpx-test
wait_for 30 mqtt_connected || fail "the MQTT client did not connect: $(curl -fsS "$base/health")"
sleep_until_collected() { wait_for 10 sh -c "[ \$(curl -fsS '$base/metrics' | grep -c '^winpower_device_energy_joules_total') -ge 6 ]"; }
sleep_until_collected
retained "$work/first.jsonl"
curl -fsS "$base/metrics" >"$work/metrics.txt"

python3 - "$work/first.jsonl" "$work/metrics.txt" 6 <<'PY'
import json, re, sys
messages = {m["topic"]: m["payload"] for m in map(json.loads, open(sys.argv[1], encoding="utf-8"))}
metrics = {}
for line in open(sys.argv[2], encoding="utf-8"):
    m = re.match(r'(\w+)\{[^}]*device_id="([^"]+)"[^}]*\} (\S+)', line)
    if m: metrics[(m.group(1), m.group(2))] = float(m.group(3))
count = int(sys.argv[3])
problems = []
if messages.get("wpexporter/status") != "online": problems.append(f"status: {messages.get('wpexporter/status')}")
states = {t.split("/")[2]: json.loads(p) for t, p in messages.items() if t.endswith("/state") and p}
if len(states) != count: problems.append(f"{len(states)} states, expected {count}")
configs = {t: json.loads(p) for t, p in messages.items() if t.startswith("homeassistant/") and t.endswith("/config") and p}
for device, state in states.items():
    if messages.get(f"wpexporter/default/{device}/availability") != "online": problems.append(f"{device}: not available")
    node = "wpexporter_default_" + re.sub(r"[^A-Za-z0-9_-]", "_", device)
    energy = configs.get(f"homeassistant/sensor/{node}/energy/config")
    if not energy or energy.get("state_class") != "total_increasing" or energy.get("unit_of_measurement") != "kWh" \
            or energy.get("device_class") != "energy":
        problems.append(f"{device}: energy entity {energy}")
    else:
        if energy["state_topic"] != f"wpexporter/default/{device}/state" or energy["unique_id"] != f"{node}_energy":
            problems.append(f"{device}: energy topics {energy}")
        if [a["topic"] for a in energy["availability"]] != ["wpexporter/status", f"wpexporter/default/{device}/availability"]:
            problems.append(f"{device}: availability {energy['availability']}")
        if energy["device"]["identifiers"] != [node] or energy["device"].get("via_device") != "wpexporter_wpexporter":
            problems.append(f"{device}: device {energy['device']}")
    for key, device_class, unit in (("load_watts", "power", "W"), ("battery_charge", "battery", "%"), ("input_voltage", "voltage", "V")):
        if key not in state: continue
        config = configs.get(f"homeassistant/sensor/{node}/{key}/config")
        if not config or config.get("device_class") != device_class or config.get("unit_of_measurement") != unit \
                or config.get("state_class") != "measurement":
            problems.append(f"{device}: {key} entity {config}")
    if f"homeassistant/binary_sensor/{node}/on_battery/config" not in configs: problems.append(f"{device}: no on_battery entity")
    joules = metrics.get(("winpower_device_energy_joules_total", device))
    if joules is None or not (state["energy"] <= joules / 3.6e6 + 1e-9 and joules / 3.6e6 - state["energy"] < 0.01):
        problems.append(f"{device}: energy {state['energy']} kWh against /metrics {joules} J")
    if device.startswith("5e1a7a0c-0000-"): continue   # in its scheduled outage: it changes between the two reads
    on_battery = metrics.get(("winpower_device_on_battery", device))
    if on_battery is not None and bool(on_battery) != state["on_battery"]: problems.append(f"{device}: on_battery differs from /metrics")
    charge = metrics.get(("winpower_device_battery_capacity", device))
    if charge is not None and state.get("battery_charge") != charge: problems.append(f"{device}: battery_charge {state.get('battery_charge')} != {charge}")
if problems:
    print("\n".join(problems)); sys.exit(1)
print(f"{len(states)} UPS states, {len(configs)} discovery configs, values as /metrics")
PY
python3 IntegrationTests/tests_09_mqtt/ha_discovery.py "$work/first.jsonl" || fail "discovery Home Assistant would not take"
outage_seen() {
    python3 - "$work/states.jsonl" <<'PY'
import json, sys
seen = [json.loads(m["payload"])["on_battery"] for m in map(json.loads, open(sys.argv[1], encoding="utf-8"))
        if m["topic"].endswith("5e1a7a0c-0000-4b35-b0dd-000000000000/state") and m["payload"]]
sys.exit(0 if True in seen and False in seen[seen.index(True):] else 1)
PY
}
wait_for 30 outage_seen || fail "UPS 0's outage did not show as on battery, then back: $(grep -c 0000-4b35 "$work/states.jsonl") states"

# --- The broker restarted without persistence: everything announced again ---------------------------
stop_broker
start_broker
wait_for 60 sh -c "curl -fsS '$base/health' | python3 -c 'import json,sys; h=json.load(sys.stdin)[\"mqtt\"]; sys.exit(0 if h[\"connected\"] and h[\"connections\"] >= 2 else 1)'" \
    || fail "the client did not connect again: $(curl -fsS "$base/health")"
retained "$work/again.jsonl"
[ "$(grep -c '/config"' "$work/again.jsonl")" -ge 6 ] || fail "discovery was not announced again: $(head -c 2000 "$work/again.jsonl")"

# --- A clean stop: offline, retained --------------------------------------------------------------
stop_exporter
retained "$work/stopped.jsonl"
grep -q '"topic": "wpexporter/status", "payload": "offline"' "$work/stopped.jsonl" || fail "no offline after a clean stop"
kill "$recorder" 2>/dev/null || true
echo "$name: ok"
