#!/usr/bin/env bash
# The MQTT front end's login and session with a real broker, Debian's Mosquitto with a password
# file (tests_09_mqtt/mqtt.sh: in a network namespace of the case's own; needs root):
#   - a broker that refuses the login: collection and /metrics go on, /health says why, and no
#     password reaches the log;
#   - the right password: the states are published; a SIGKILL gets the broker's will, `offline`;
#   - started again on the same data directory: no UPS's energy ever decreases, across the
#     SIGKILL and the restart.
# About 15 s.
#
#   IntegrationTests/tests_09_mqtt/test_04_login_and_will.sh
set -euo pipefail
# shellcheck source=IntegrationTests/tests_09_mqtt/mqtt.sh
source "$(dirname "$0")/mqtt.sh"

mosquitto_passwd -b -c "$work/passwd" wpx right-password-7f3 >/dev/null
chmod 600 "$work/passwd"
start_broker "$work/passwd"
record "$work/states.jsonl"
start_simulator 6

# --- A refused login: the exporter goes on, /health says why, the password stays secret --------------
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
wait_for 30 mqtt_connected || fail "the client did not log in: $(curl -fsS "$base/health")"
# Two states of every UPS published before the kill: the restart has energies to go on from.
wait_for 30 sh -c "[ \$(grep -c energy '$work/states.jsonl') -ge 12 ]" || fail "no states before the SIGKILL"
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
energy=$(energy_never_decreased "$work/states.jsonl") || fail "an energy decreased: $energy"
echo "$name: $energy"
echo "$name: ok"
