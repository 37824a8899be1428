#!/usr/bin/env bash
# The NUT server made again by a reload, against NUT's own client (in CI): the exporter starts
# without `nut:`; SIGHUP with `nut.listen` set starts the NUT server (`upsc -l` lists every UPS
# /metrics shows); a change of `nut.*` (`max_connections`) replaces it: the old server's
# connection is closed by it and `upsc` reads from the new one; a users file that cannot be read
# refuses the reload, naming `nut.users_file`, and the running server keeps answering; `nut:`
# removed turns it off (`/health` has no `nut` section). A few seconds.
#
#   IntegrationTests/tests_02_nut/test_05_reload.sh
#
# Installs nut-client (Debian) when missing.
set -euo pipefail
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh nut   # upsc

start_simulator 3
config="$work/config.yaml"
: >"$config"
start_exporter "$work/exporter.log" --config "$config"
devices=$(wait_output 30 sh -c "curl -sf '$base/metrics' | grep -c '^winpower_device_info{' || true")
[ "${devices:-0}" -gt 0 ] || fail "no device on /metrics"
curl -sf "$base/health" | grep -q '"nut"' && fail "/health shows nut before nut.listen is set"

# reloads_at_least N: whether the log has N "configuration reload…" lines (applied or not).
reloads_at_least() { [ "$(grep -c '"configuration reload' "$work/exporter.log")" -ge "$1" ]; }
# reload N: SIGHUP, then waits until the log has N such lines.
reload() {
    kill -HUP "$server"
    wait_for 30 reloads_at_least "$1" || fail "reload $1 was not logged"
}
# nut_servers_at_least N: whether N NUT servers have listened.
nut_servers_at_least() { [ "$(nut_ports | wc -l)" -ge "$1" ]; }
# nut_ports: every port a NUT server of the exporter has listened on, in order.
nut_ports() { grep -s '"line server listening"' "$work/exporter.log" | grep -o '127.0.0.1:[0-9]*' | cut -d: -f2 || true; }

# On: nut.listen set by a reload.
printf 'nut:\n  listen: "127.0.0.1:0"\n' >"$config"
reload 1
first=$(wait_output 20 nut_ports)
[ -n "$first" ] || fail "no NUT server after the reload that set nut.listen"
mapfile -t names < <(upsc -l "127.0.0.1:$first" 2>/dev/null)
[ "${#names[@]}" = "$devices" ] || fail "upsc -l lists ${#names[@]} UPSs, /metrics $devices devices"
grep -q '"configuration reloaded".*restarted nut' "$work/exporter.log" || fail "the reload does not say it restarted nut"
echo "$name: SIGHUP with nut.listen: upsc -l 127.0.0.1:$first lists ${#names[@]} UPSs"

# Replaced: a connection to the first server is closed by it when a change of nut.* replaces it.
exec 3<>"/dev/tcp/127.0.0.1/$first"
printf 'VER\n' >&3
read -r -t 10 version <&3 || fail "no answer to VER"
printf 'nut:\n  listen: "127.0.0.1:0"\n  max_connections: 17\n' >"$config"
reload 2
wait_for 20 nut_servers_at_least 2 || fail "no second NUT server after the change of nut.max_connections"
second=$(nut_ports | tail -1)
timeout 10 cat <&3 >/dev/null || fail "the old server's connection stayed open"
exec 3<&-
upsc "${names[0]}@127.0.0.1:$second" ups.status >/dev/null || fail "upsc cannot read ${names[0]} from the new server"
echo "$name: nut.max_connections changed: the old server closed its connection ($version), upsc reads from 127.0.0.1:$second"

# Refused: a users file that cannot be read keeps the running server.
printf 'users: [unclosed\n' >"$work/nut-users.yml"
printf 'nut:\n  listen: "127.0.0.1:0"\n  users_file: %s\n' "$work/nut-users.yml" >"$config"
reload 3
grep -q '"configuration reload failed.*nut' "$work/exporter.log" || fail "the refused reload does not name nut: $(grep reload "$work/exporter.log" | tail -1)"
[ "$(nut_ports | wc -l)" = 2 ] || fail "a refused reload started a NUT server"
upsc "${names[0]}@127.0.0.1:$second" ups.status >/dev/null || fail "the running server stopped answering after a refused reload"
echo "$name: a users file that cannot be read: the reload is refused, 127.0.0.1:$second answers on"

# Off: nut removed.
: >"$config"
reload 4
wait_for 20 sh -c "! curl -sf '$base/health' | grep -q '\"nut\"'" || fail "/health still shows nut after nut.listen was removed"
echo "$name: nut removed: the NUT server is off"
