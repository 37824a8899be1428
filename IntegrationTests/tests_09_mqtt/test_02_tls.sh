#!/usr/bin/env bash
# The MQTT front end over TLS (mqtts://, docs/home-assistant.md) against Debian's Mosquitto with
# a throwaway PKI made by openssl, a client certificate required and a password file:
#   - the exporter verifies the broker's certificate against mqtt.ca_file, shows its client
#     certificate, logs in with mqtt.password_file; mosquitto_sub, over TLS too, reads every UPS's
#     state and discovery, which Home Assistant's platforms take (ha_discovery.py);
#   - with energy.tariffs the state holds the cost, equal to /metrics' winpower_device_energy_cost_total
#     (its periods together), and Home Assistant is told a `monetary` sensor in CNY;
#   - /metrics has the client's counters; the password is in no log;
#   - a broker certificate of another CA, and a host name the certificate does not hold, are
#     refused: /health and the log say why, winpower_exporter_mqtt_connected is 0, collection
#     goes on.
# About 30 s. Runs in a network namespace of its own (Mosquitto takes no port 0: it listens on
# 127.0.0.1:8883 there, which nothing else can reach); needs root for the namespace.
#
#   IntegrationTests/tests_09_mqtt/test_02_tls.sh
set -euo pipefail
netns_tools="tests mqtt"   # curl, python3, openssl, mosquitto, mosquitto_sub, paho-mqtt
# shellcheck source=IntegrationTests/netns.sh
source "$(dirname "$0")/../netns.sh"
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"

# --- A PKI: a CA, the broker's certificate for 127.0.0.1, a client certificate; another CA --------
pki="$work/pki"
mkdir -p "$pki"
make_ca() {  # NAME SUBJECT
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$pki/$1.key" -out "$pki/$1.crt" \
        -days 2 -subj "/CN=$2" 2>/dev/null
}
issue() {  # NAME CN EXTENSIONS
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$pki/$1.key" -out "$pki/$1.csr" \
        -subj "/CN=$2" 2>/dev/null
    printf '%b' "$3" >"$pki/$1.ext"
    openssl x509 -req -in "$pki/$1.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -out "$pki/$1.crt" \
        -days 2 -extfile "$pki/$1.ext" 2>/dev/null
}
make_ca ca "wpexporter test CA"
make_ca other "another CA"
issue broker broker "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n"
issue client wpexporter "extendedKeyUsage=clientAuth\n"
chmod 600 "$pki"/*.key

mosquitto_passwd -b -c "$work/passwd" wpx tls-password-5b8 >/dev/null
chmod 600 "$work/passwd"
{
    echo "listener 8883 127.0.0.1"
    echo "user root"   # the files are in the case's private directory
    echo "cafile $pki/ca.crt"
    echo "certfile $pki/broker.crt"
    echo "keyfile $pki/broker.key"
    echo "require_certificate true"
    echo "allow_anonymous false"
    echo "password_file $work/passwd"
    echo "max_queued_messages 0"
} >"$work/mosquitto.conf"
/usr/sbin/mosquitto -c "$work/mosquitto.conf" >>"$work/mosquitto.log" 2>&1 &
broker_pid=$!
trap 'kill "$broker_pid" 2>/dev/null || true' EXIT
wait_for 10 sh -c 'ss -Hltn | grep -q "127.0.0.1:8883 "' || fail "mosquitto did not listen"

sub() {  # mosquitto_sub over TLS with the client certificate; the rest of the arguments its own
    mosquitto_sub -h 127.0.0.1 -p 8883 --cafile "$pki/ca.crt" --cert "$pki/client.crt" --key "$pki/client.key" \
        -u wpx -P tls-password-5b8 "$@"
}

printf 'tls-password-5b8\n' >"$work/mqtt.password"
chmod 600 "$work/mqtt.password"
start_simulator 4
start_exporter "$work/exporter.log" --mqtt.url mqtts://127.0.0.1:8883 --mqtt.ca_file "$pki/ca.crt" \
    --mqtt.cert_file "$pki/client.crt" --mqtt.key_file "$pki/client.key" \
    --mqtt.username wpx --mqtt.password_file "$work/mqtt.password" \
    --energy.tariffs.currency CNY --energy.tariffs.flat_price 0.6
wait_for 30 sh -c "curl -fsS '$base/health' | grep -q '\"connected\":true'" \
    || fail "the MQTT client did not connect over TLS: $(curl -fsS "$base/health")"
# Two collections after connecting: every state holds a cost counted from a growing energy.
wait_for 30 sh -c "[ \$(curl -fsS '$base/metrics' | grep -c '^winpower_device_energy_cost_total') -ge 4 ]" \
    || fail "no energy cost on /metrics"
states_with_cost() { [ "$(sub -t 'wpexporter/+/+/state' -C 8 -W 20 | grep -c '"cost"')" -ge 8 ]; }
wait_for 30 states_with_cost || fail "the states over TLS hold no cost"
sub -t '#' -v -W 3 >"$work/retained.txt" 2>/dev/null || true
curl -fsS "$base/metrics" >"$work/metrics.txt"
python3 - "$work/retained.txt" "$work/retained.jsonl" <<'PY'
import json, sys
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for line in open(sys.argv[1], encoding="utf-8"):
        topic, _, payload = line.rstrip("\n").partition(" ")
        out.write(json.dumps({"topic": topic, "payload": payload}, ensure_ascii=False) + "\n")
PY
python3 IntegrationTests/tests_09_mqtt/ha_discovery.py "$work/retained.jsonl" || fail "discovery Home Assistant would not take"
python3 - "$work/retained.jsonl" "$work/metrics.txt" <<'PY'
import json, re, sys
messages = {m["topic"]: m["payload"] for m in map(json.loads, open(sys.argv[1], encoding="utf-8"))}
costs = {}
for line in open(sys.argv[2], encoding="utf-8"):
    m = re.match(r'winpower_device_energy_cost_total\{[^}]*device_id="([^"]+)"[^}]*\} (\S+)', line)
    if m: costs[m.group(1)] = costs.get(m.group(1), 0) + float(m.group(2))
problems = []
states = {t.split("/")[2]: json.loads(p) for t, p in messages.items() if t.endswith("/state") and p}
if len(states) != 4: problems.append(f"{len(states)} states over TLS, expected 4")
for device, state in states.items():
    node = "wpexporter_default_" + re.sub(r"[^A-Za-z0-9_-]", "_", device)
    config = json.loads(messages.get(f"homeassistant/sensor/{node}/cost/config") or "{}")
    if config.get("device_class") != "monetary" or config.get("unit_of_measurement") != "CNY" or config.get("state_class") != "total":
        problems.append(f"{device}: cost entity {config}")
    # The retained state is of the last collection; /metrics was read after it: at most one collection more.
    if "cost" not in state or device not in costs or not (state["cost"] <= costs[device] + 1e-4 and costs[device] - state["cost"] < 0.01):
        problems.append(f"{device}: cost {state.get('cost')} against /metrics {costs.get(device)}")
if problems:
    print("\n".join(problems)); sys.exit(1)
print(f"{len(states)} UPS states over TLS, each with its cost in CNY as /metrics counts it")
PY
grep -q '^winpower_exporter_mqtt_connected 1' "$work/metrics.txt" || fail "winpower_exporter_mqtt_connected is not 1"
sent=$(awk '/^winpower_exporter_mqtt_messages_sent_total / {print $2}' "$work/metrics.txt")
python3 -c "import sys; sys.exit(0 if float('${sent:-0}') >= 40 else 1)" || fail "winpower_exporter_mqtt_messages_sent_total is ${sent:-missing}"
stop_exporter
if grep -q 'tls-password-5b8' "$work/exporter.log"; then fail "the MQTT password is in the log"; fi

# --- Certificates refused: another CA, a name the certificate does not hold ---------------------------
refused() {  # LOG REASON(extended regular expression) URL CA
    start_exporter "$1" --mqtt.url "$3" --mqtt.ca_file "$4" \
        --mqtt.cert_file "$pki/client.crt" --mqtt.key_file "$pki/client.key" \
        --mqtt.username wpx --mqtt.password_file "$work/mqtt.password"
    wait_for 30 sh -c "curl -fsS '$base/health' | grep -qE '$2'" || fail "/health does not say \"$2\": $(curl -fsS "$base/health")"
    grep -qE "$2" "$1" || fail "the log does not say \"$2\""
    curl -fsS "$base/metrics" >"$work/refused.txt"
    grep -q '^winpower_exporter_mqtt_connected 0' "$work/refused.txt" || fail "winpower_exporter_mqtt_connected is not 0"
    grep -qE '^winpower_exporter_mqtt_connection_failures_total [1-9]' "$work/refused.txt" || fail "no connection failure counted"
    grep -q '^winpower_exporter_up 1' "$work/refused.txt" || fail "collection stopped while the broker was refused"
    stop_exporter
}
refused "$work/other-ca.log" "certificate was refused: (self-signed certificate in certificate chain|unable to get local issuer certificate)" \
    mqtts://127.0.0.1:8883 "$pki/other.crt"
refused "$work/other-name.log" "certificate was refused: hostname mismatch" mqtts://localhost:8883 "$pki/ca.crt"
stop_simulator
echo "$name: ok"
