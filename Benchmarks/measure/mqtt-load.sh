#!/usr/bin/env bash
# The MQTT front end at 1,000 UPSs (figures in docs/performance.md, "MQTT"; not part of CI: about
# 3 minutes). Two `wpexporter server`s collect the same 1,000 simulated UPSs every 5 s, one
# publishing to a local Mosquitto (`mqtt.url`, Home Assistant discovery on, QoS 1), one without
# MQTT; then:
#   1. the first discovery: how long until the broker has acknowledged all of it;
#   2. over WINDOW seconds (default 60) of collections: the process CPU of each exporter per
#      collection (their difference is what MQTT costs), the CPU of the `mqtt-client` thread
#      alone, and the MQTT messages and bytes (topics and payloads, as a subscriber receives
#      them) per collection;
#   3. /metrics under wrk (2 threads, 10 connections, 15 s), the exporter with MQTT and the one
#      without alternately, ROUNDS times (default 2): the p99 of each.
#
#   Benchmarks/measure/mqtt-load.sh [WINDOW [ROUNDS]]   # uses .build/release/wpexporter (swift build -c release --product wpexporter)
#
# Runs in a network namespace of its own (Mosquitto takes no port 0: it listens on
# 127.0.0.1:1883 there, which nothing else can reach); needs root for the namespace (IntegrationTests/netns.sh).
# Installs wrk, Mosquitto and paho-mqtt when missing (before entering the namespace).
set -euo pipefail
netns_tools="measure mqtt"
# shellcheck source=IntegrationTests/netns.sh
source "$(dirname "$0")/../../IntegrationTests/netns.sh"
window=${1:-60} rounds=${2:-2}
[[ "$window" =~ ^[1-9][0-9]*$ && "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [WINDOW [ROUNDS]]" >&2; exit 64; }
cd "$(dirname "$0")/../.."
name="mqtt-load"
export WPEXPORTER_BIN="${WPEXPORTER_BIN:-.build/release/wpexporter}"
# shellcheck source=IntegrationTests/harness.sh
source IntegrationTests/harness.sh

echo "listener 1883 127.0.0.1
user root
allow_anonymous true
max_queued_messages 0" >"$work/mosquitto.conf"
/usr/sbin/mosquitto -c "$work/mosquitto.conf" >"$work/mosquitto.log" 2>&1 &
broker=$!
trap 'kill "$broker" 2>/dev/null || true' EXIT
wait_for 10 sh -c 'ss -Hltn | grep -q "127.0.0.1:1883 "' || fail "mosquitto did not listen"

start_simulator 1000
began=$(date +%s.%N)
start_exporter "$work/on.log" --scheduler.collection_interval 5s --data-dir "$work/on" --mqtt.url mqtt://127.0.0.1:1883
on_pid=$server on_base=$base
start_exporter "$work/off.log" --scheduler.collection_interval 5s --data-dir "$work/off"
off_pid=$server off_base=$base
echo "$name: 1,000 UPSs, collections every 5 s; $(nproc) cores, $(uname -r), $(/usr/sbin/mosquitto -h | head -1)"

discovered() {
    curl -fsS "$on_base/health" | python3 -c '
import json, sys
mqtt = json.load(sys.stdin)["mqtt"]
sys.exit(0 if mqtt["ups"] == 1000 and mqtt["queued"] == 0 and mqtt["sent"] >= 10000 else 1)'
}
wait_for 120 discovered || fail "the discovery of 1,000 UPSs was not acknowledged within 120 s"
echo "$name: discovery of 1,000 UPSs acknowledged by the broker $(python3 -c "import time; print(f'{time.time() - $began:.1f}')") s after the start"

# A subscriber counting what the broker delivers of the states, until SIGTERM.
python3 - "$work/received" <<'PY' &
import signal, sys
import paho.mqtt.client as mqtt
counts = {"messages": 0, "topic_bytes": 0, "payload_bytes": 0}
def on_message(client, userdata, message):
    counts["messages"] += 1
    counts["topic_bytes"] += len(message.topic.encode())
    counts["payload_bytes"] += len(message.payload)
def stop(*_):
    open(sys.argv[1], "w").write(f"{counts['messages']} {counts['topic_bytes']} {counts['payload_bytes']}\n")
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="measure")
client.on_message = on_message
client.on_connect = lambda client, userdata, flags, code, properties: client.subscribe("wpexporter/+/+/state", qos=0)
client.connect("127.0.0.1", 1883)
client.loop_forever()
PY
subscriber=$!
sleep 2   # subscribed, and its retained copies received before the window

# cpu_ticks PID [THREAD-NAME]: user + system clock ticks of the process, or of its thread of that name.
cpu_ticks() {
    if [ -z "${2:-}" ]; then awk '{print $14 + $15}' "/proc/$1/stat"; return; fi
    local task
    for task in /proc/"$1"/task/*; do
        if [ "$(cat "$task/comm")" = "$2" ]; then awk '{print $14 + $15}' "$task/stat"; return; fi
    done
    echo 0
}
collections() { curl -fsS "$1/metrics" | awk '/^winpower_exporter_collection_duration_seconds_count/ {print $2; exit}'; }
sent() { curl -fsS "$1/metrics" | awk '/^winpower_exporter_mqtt_messages_sent_total / {print $2}'; }

on0=$(cpu_ticks "$on_pid") off0=$(cpu_ticks "$off_pid") thread0=$(cpu_ticks "$on_pid" mqtt-client)
con0=$(collections "$on_base") coff0=$(collections "$off_base") sent0=$(sent "$on_base")
echo 0 0 0 >"$work/received0"
sleep "$window"
on1=$(cpu_ticks "$on_pid") off1=$(cpu_ticks "$off_pid") thread1=$(cpu_ticks "$on_pid" mqtt-client)
con1=$(collections "$on_base") coff1=$(collections "$off_base") sent1=$(sent "$on_base")
kill "$subscriber"
wait "$subscriber" 2>/dev/null || true
read -r messages topic_bytes payload_bytes <"$work/received"
python3 - "$(getconf CLK_TCK)" "$on0" "$on1" "$off0" "$off1" "$thread0" "$thread1" "$con0" "$con1" "$coff0" "$coff1" \
    "$sent0" "$sent1" "$messages" "$topic_bytes" "$payload_bytes" "$window" <<'PY'
import sys
tick, on0, on1, off0, off1, t0, t1, c0, c1, d0, d1, s0, s1, messages, topics, payloads, window = map(float, sys.argv[1:])
on_n, off_n = c1 - c0, d1 - d0
per = lambda ticks, n: ticks / tick * 1000 / n if n else float("nan")
print(f"mqtt-load: over {window:.0f} s: {on_n:.0f} collections with MQTT, {off_n:.0f} without")
print(f"mqtt-load: process CPU per collection: {per(on1 - on0, on_n):.1f} ms with MQTT, {per(off1 - off0, off_n):.1f} ms without;"
      f" the mqtt-client thread {per(t1 - t0, on_n):.1f} ms")
print(f"mqtt-load: per collection: {(s1 - s0) / on_n:.0f} messages acknowledged by the broker;"
      f" a subscriber received {messages / on_n:.0f} states, {topics / on_n / 1024:.1f} KiB of topics and"
      f" {payloads / on_n / 1024:.1f} KiB of payloads ({payloads / max(messages, 1):.0f} bytes a state)")
PY

for round in $(seq "$rounds"); do
    base=$on_base wrk_p99 "round $round, with MQTT"
    base=$off_base wrk_p99 "round $round, without MQTT"
done
echo "$name: RSS $(rss_mb "$on_pid") MB with MQTT, $(rss_mb "$off_pid") MB without"
kill "$on_pid" "$off_pid" 2>/dev/null || true
wait "$on_pid" "$off_pid" 2>/dev/null || true
stop_simulator
