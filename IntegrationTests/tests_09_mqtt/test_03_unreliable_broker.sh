#!/usr/bin/env bash
# Brokers that misbehave never hold up the exporter (docs/home-assistant.md, "Delivery"): a local
# broker played by a Python script on 127.0.0.1, port 0,
#   - flapping: it accepts the login and drops the connection a second later, again and again;
#   - silent: it accepts TCP connections and never answers the CONNECT;
#   - refusing: it answers the CONNECT with return code 5 (not authorized) and closes at once, in
#     one write: the client reads the refusal before the end of the connection and says why;
# while each runs, collection goes on every second, every /metrics request is answered within
# 2 s, /health and winpower_exporter_mqtt_connection_failures_total count the failures, and the
# queue stays bounded. About 40 s.
#
#   IntegrationTests/tests_09_mqtt/test_03_unreliable_broker.sh
set -euo pipefail
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
(cd "$(dirname "$0")/../.." && scripts/ci/tools.sh tests)   # curl, python3

cat >"$work/broker.py" <<'PY'
import socket, sys, threading, time
mode = sys.argv[1]
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(16)
print(f"broker listening on 127.0.0.1:{server.getsockname()[1]}", flush=True)
def serve(connection):
    try:
        if mode == "refusing":
            connection.recv(65536)                    # the CONNECT
            connection.sendall(b"\x20\x02\x00\x05")   # CONNACK, not authorized
            connection.shutdown(socket.SHUT_WR)       # the end right behind it
        elif mode == "flapping":
            connection.recv(65536)                    # the CONNECT
            connection.sendall(b"\x20\x02\x00\x00")   # CONNACK, accepted
            end = time.time() + 1
            connection.settimeout(0.2)
            while time.time() < end:                  # take what is published for a second
                try:
                    if not connection.recv(65536): break
                except socket.timeout:
                    pass
        else:
            time.sleep(3600)                          # silent: never a CONNACK
    except OSError:
        pass
    finally:
        connection.close()
while True:
    connection, _ = server.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
PY

# responsive SECONDS: /metrics answered within 2 s every 0.5 s for SECONDS, collection going on.
responsive() {
    local end=$((SECONDS + $1)) first last
    first=$(curl -fsS -m 2 "$base/metrics" | awk '/^winpower_exporter_collection_duration_seconds_count/ {n = $2} END {print n}')
    while [ "$SECONDS" -lt "$end" ]; do
        curl -fsS -m 2 -o /dev/null "$base/metrics" || fail "/metrics was not answered within 2 s while the broker was $mode"
        sleep 0.5
    done
    last=$(curl -fsS -m 2 "$base/metrics" | awk '/^winpower_exporter_collection_duration_seconds_count/ {n = $2} END {print n}')
    [ "$((last - first))" -ge "$(($1 / 2))" ] || fail "only $((last - first)) collections in $1 s while the broker was $mode"
}

start_simulator 50
for mode in flapping silent refusing; do
    : >"$work/$mode-broker.log"
    python3 "$work/broker.py" "$mode" >"$work/$mode-broker.log" 2>&1 &
    broker=$!
    broker_port=$(await_port "$work/$mode-broker.log" 'broker listening')
    [ -n "$broker_port" ] || fail "the $mode broker did not start"
    start_exporter "$work/$mode.log" --mqtt.url "mqtt://127.0.0.1:$broker_port" --mqtt.connect_timeout 2s
    responsive 16
    curl -fsS "$base/metrics" >"$work/$mode.metrics"
    curl -fsS "$base/health" >"$work/$mode.health"
    python3 - "$mode" "$work/$mode.metrics" "$work/$mode.health" <<'PY' || fail "the $mode broker's failures were not counted"
import json, re, sys
mode, metrics, health = sys.argv[1], open(sys.argv[2]).read(), json.load(open(sys.argv[3]))["mqtt"]
value = lambda name: float(re.search(rf"^{name} (\S+)$", metrics, re.M).group(1))
failures, connections = value("winpower_exporter_mqtt_connection_failures_total"), value("winpower_exporter_mqtt_connections_total")
# Queued at most: each of the 50 UPSs' discovery (14 entities), state and availability, and the status pair.
ok = failures >= (3 if mode == "flapping" else 2) and (connections >= 3 if mode == "flapping" else connections == 0) \
    and health["queued"] <= 50 * 16 + 2 and (mode != "refusing" or "not authorized" in health.get("last_error", ""))
# last_error is left out while connected (a flapping broker's connection may be up right now).
print(f"{mode}: {connections:.0f} connections, {failures:.0f} failures, {health['queued']} queued, last error: {health.get('last_error')}")
sys.exit(0 if ok else 1)
PY
    stop_exporter
    kill "$broker" 2>/dev/null || true
    wait "$broker" 2>/dev/null || true
done
stop_simulator
echo "$name: ok"
