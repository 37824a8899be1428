# shellcheck shell=bash disable=SC2034  # sets variables its cases read (recorder)
# Sourced by this group's cases that run Debian's Mosquitto (never run alone): it re-runs the case
# in a network namespace of its own (IntegrationTests/netns.sh: Mosquitto takes no port 0; it
# listens on 127.0.0.1:1883 there, which nothing else can reach; needs root), sources the harness
# and gives the cases:
#
#   start_broker [PASSWORD_FILE]   Mosquitto on 127.0.0.1:1883, anonymous or with that password file
#   stop_broker                    it stopped (without persistence: its retained messages are lost)
#   retained FILE                  every retained message now, one JSON line each
#   record FILE                    every UPS state from now on, in the background (sets recorder)
#   energy_never_decreased FILE    each UPS's energy in FILE's states never goes down
#   mqtt_connected                 whether /health says the exporter's client is connected
netns_tools="tests mqtt"   # curl, python3, mosquitto, mosquitto_sub, paho-mqtt
# shellcheck source=IntegrationTests/netns.sh
source "$(dirname "$0")/../netns.sh"
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"

broker_pid=""
# shellcheck disable=SC2120  # the cases pass the password file or nothing
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
mqtt_connected() { curl -fsS "$base/health" | grep -q '"connected":true'; }
