#!/usr/bin/env bash
# The MQTT front end with 1,000 UPSs against a real broker, Debian's Mosquitto
# (tests_09_mqtt/mqtt.sh: in a network namespace of the case's own; needs root): the whole
# discovery (a config per entity, 1,000 energy entities) held by the broker within 120 s of the
# start; how long it took and the exporter's RSS printed. About 20 s.
#
#   IntegrationTests/tests_09_mqtt/test_05_thousand_ups.sh
set -euo pipefail
# shellcheck source=IntegrationTests/tests_09_mqtt/mqtt.sh
source "$(dirname "$0")/mqtt.sh"

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
