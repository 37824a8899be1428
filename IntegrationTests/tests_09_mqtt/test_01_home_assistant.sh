#!/usr/bin/env bash
# The MQTT front end (docs/home-assistant.md) against a real broker, Debian's Mosquitto, read back by
# mosquitto_sub's and paho-mqtt's clients:
#   - every UPS of the simulator has its retained JSON state, its availability and, for Home
#     Assistant, one device with its entities: unique ids, device classes, state classes (the
#     energy `total_increasing` in kWh), units, the availability pair; every discovery message as
#     Home Assistant's MQTT platforms take it (ha_discovery.py); each state's values agree with
#     /metrics (the energy within one collection's increase);
#   - a scheduled outage shows as on battery, then back; no UPS's energy ever decreases, also
#     across a SIGKILL and a restart;
#   - the broker restarted without persistence (every retained message lost): the client
#     connects again and announces everything again;
#   - a broker that refuses the login: collection and /metrics go on, /health says why, and no
#     password reaches the log;
#   - a clean stop leaves `offline` retained; a SIGKILL gets the broker's will, `offline`;
#   - 1,000 UPSs' discovery: how long the broker takes to hold all of it (printed).
# About 60 s. Runs in a network namespace of its own (Mosquitto takes no port 0: it listens on
# 127.0.0.1:1883 there, which nothing else can reach); needs root for the namespace.
#
#   IntegrationTests/tests_09_mqtt/test_01_home_assistant.sh
set -euo pipefail
if [ -z "${WP_MQTT_NETNS:-}" ]; then
    # Installed before the namespace, which has no route out.
    (cd "$(dirname "$0")/../.." && scripts/ci/tools.sh tests mqtt)   # curl, python3, mosquitto, mosquitto_sub, paho-mqtt
    # shellcheck disable=SC2016  # $0 is the inner shell's: this script
    exec unshare --net env WP_MQTT_NETNS=1 bash -c 'ip link set lo up && exec bash "$0"' "$0"
fi
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"

broker_pid=""
start_broker() {  # [PASSWORD_FILE]
    {
        echo "listener 1883 127.0.0.1"
        echo "user root"   # the password file is in the case's private directory
        echo "max_queued_messages 0"   # a reader subscribing to 12,000 retained messages gets them all
        if [ -n "${1:-}" ]; then echo "allow_anonymous false"; echo "password_file $1"; else echo "allow_anonymous true"; fi
    } >"$work/mosquitto.conf"
    /usr/sbin/mosquitto -c "$work/mosquitto.conf" >>"$work/mosquitto.log" 2>&1 &
    broker_pid=$!
    wait_for 10 sh -c 'ss -Hltn | grep -q "127.0.0.1:1883 "' || fail "mosquitto did not listen"
}
stop_broker() { kill "$broker_pid" 2>/dev/null || true; wait "$broker_pid" 2>/dev/null || true; }

# retained FILE: every retained message now, one JSON line each (topic, payload), for 2 s of quiet.
retained() {
    python3 - "$1" <<'PY'
import json, sys, time
import paho.mqtt.client as mqtt
out = open(sys.argv[1], "w", encoding="utf-8")
last = [time.time()]
def on_message(client, userdata, message):
    if message.retain:
        out.write(json.dumps({"topic": message.topic, "payload": message.payload.decode("utf-8", "replace")}, ensure_ascii=False) + "\n")
        last[0] = time.time()
client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="check-retained")
client.on_message = on_message
client.connect("127.0.0.1", 1883)
client.subscribe("#", qos=1)
client.loop_start()
start = time.time()
while time.time() - last[0] < 2 and time.time() - start < 60:
    time.sleep(0.1)
client.loop_stop()
PY
}

# record FILE: every state message from now on (topic, payload), until killed.
record() {
    python3 - "$1" <<'PY' &
import json, sys
import paho.mqtt.client as mqtt
out = open(sys.argv[1], "a", encoding="utf-8", buffering=1)
def on_message(client, userdata, message):
    out.write(json.dumps({"topic": message.topic, "payload": message.payload.decode("utf-8", "replace")}) + "\n")
client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"check-record-{sys.argv[1][-12:]}")
client.username_pw_set("wpx", "right-password-7f3")
client.on_message = on_message
client.on_connect = lambda client, userdata, flags, code, properties: client.subscribe("wpexporter/+/+/state", qos=1)
client.connect("127.0.0.1", 1883)
client.loop_forever(retry_first_connection=True)
PY
    recorder=$!
}
# energy_never_decreased FILE: each UPS's energy in FILE's states never goes down.
energy_never_decreased() {
    python3 - "$1" <<'PY'
import json, sys
last, count = {}, 0
for message in map(json.loads, open(sys.argv[1], encoding="utf-8")):
    if not message["payload"]: continue
    state = json.loads(message["payload"])
    if "energy" not in state: continue
    count += 1
    if state["energy"] < last.get(message["topic"], 0) - 1e-12:
        print(f"{message['topic']}: energy went from {last[message['topic']]} to {state['energy']}"); sys.exit(1)
    last[message["topic"]] = state["energy"]
print(f"{count} states, no energy decreased")
PY
}

# --- A fleet of 6 UPSs through the broker; UPS 0 on battery for [3,9) s ------------------------------
start_broker
record "$work/states.jsonl"
start_simulator 6 --outage-schedule 3+6
start_exporter "$work/exporter.log" --mqtt.url mqtt://127.0.0.1:1883 --mqtt.client_id wpx-test
wait_for 30 sh -c "curl -fsS '$base/health' | grep -q '\"connected\":true'" || fail "the MQTT client did not connect: $(curl -fsS "$base/health")"
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

# --- A refused login: the exporter goes on, /health says why, the password stays secret --------------
stop_broker
mosquitto_passwd -b -c "$work/passwd" wpx right-password-7f3 >/dev/null
chmod 600 "$work/passwd"
start_broker "$work/passwd"
printf 'wrong-password-9c1\n' >"$work/mqtt.password"
chmod 600 "$work/mqtt.password"
start_exporter "$work/refused.log" --mqtt.url mqtt://127.0.0.1:1883 --mqtt.username wpx --mqtt.password_file "$work/mqtt.password"
# Mosquitto 2 answers a wrong password with return code 5, not authorized.
wait_for 30 sh -c "curl -fsS '$base/health' | grep -qE 'bad user name or password|not authorized'" || fail "/health does not say the login was refused: $(curl -fsS "$base/health")"
curl -fsS "$base/metrics" | grep -q '^winpower_exporter_up 1' || fail "collection stopped while the broker refused the login"
if grep -q 'wrong-password-9c1' "$work/refused.log"; then fail "the MQTT password is in the log"; fi
stop_exporter

# --- A SIGKILL: the broker publishes the will -------------------------------------------------------
printf 'right-password-7f3\n' >"$work/mqtt.password"
start_exporter "$work/killed.log" --mqtt.url mqtt://127.0.0.1:1883 --mqtt.username wpx --mqtt.password_file "$work/mqtt.password" \
    --mqtt.keep_alive 2s
wait_for 30 sh -c "curl -fsS '$base/health' | grep -q '\"connected\":true'" || fail "the client did not log in: $(curl -fsS "$base/health")"
kill -KILL "$server"
wait "$server" 2>/dev/null || true
wait_for 10 sh -c "mosquitto_sub -h 127.0.0.1 -u wpx -P right-password-7f3 -t wpexporter/status -C 1 -W 2 | grep -qx offline" \
    || fail "the broker did not publish the will"
# Started again on the same data directory: every energy goes on from where it was.
before=$(grep -c energy "$work/states.jsonl" || true)
start_exporter "$work/restarted.log" --mqtt.url mqtt://127.0.0.1:1883 --mqtt.username wpx --mqtt.password_file "$work/mqtt.password"
wait_for 30 sh -c "[ \$(grep -c energy '$work/states.jsonl') -ge $((before + 12)) ]" || fail "no states after the restart"
stop_exporter
kill "$recorder" 2>/dev/null || true
energy_never_decreased "$work/states.jsonl" || fail "an energy decreased"
stop_simulator
stop_broker

# --- 1,000 UPSs: the whole discovery held by the broker --------------------------------------------
start_broker
start_simulator 1000
began=$(date +%s.%N)
start_exporter "$work/fleet.log" --mqtt.url mqtt://127.0.0.1:1883
count_configs() {
    python3 - <<'PY'
import time
import paho.mqtt.client as mqtt
seen = set()
def on_message(client, userdata, message):
    if message.retain and message.payload: seen.add(message.topic)
client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="check-count")
client.on_message = on_message
client.connect("127.0.0.1", 1883)
client.subscribe("homeassistant/#", qos=0)
client.loop_start()
last, size = time.time(), -1
while time.time() - last < 1.5:
    if len(seen) != size: last, size = time.time(), len(seen)
    time.sleep(0.1)
client.loop_stop()
print(len(seen), sum(1 for topic in seen if topic.endswith("/energy/config")))
PY
}
all_sent() {
    curl -fsS "$base/health" | python3 -c '
import json, sys
mqtt = json.load(sys.stdin)["mqtt"]
sys.exit(0 if mqtt["ups"] == 1000 and mqtt["queued"] == 0 and mqtt["sent"] >= 10000 else 1)'
}
wait_for 120 all_sent \
    || fail "the discovery of 1,000 UPSs was not sent within 120 s: $(curl -fsS "$base/health")"
took=$(python3 -c "import time; print(f'{time.time() - $began:.1f}')")
read -r configs energy < <(count_configs)
[ "$energy" = 1000 ] || fail "the broker holds $configs discovery configs, $energy energy entities, for 1,000 UPSs"
rss=$(rss_mb "$server")
echo "$name: 1,000 UPSs: $configs discovery configs held by the broker within ${took} s of the start; exporter RSS ${rss} MB"
echo "$name: ok"
