#!/usr/bin/env bash
# The exporter's NUT server restarted while WinPower is down (tests_02_nut/upsmon.sh: the
# configuration and UPS names it shares with test_02_upsmon.sh). The exporter serves the UPSs
# and a primary sets FSD on one (as upsmon does on OB LB); then WinPower (the simulator) goes
# down and the exporter is restarted:
#
#   1. it lists the UPSs it served before (upsc -l) and accepts a secondary's LOGIN for one;
#      reads answer ERR DRIVER-NOT-CONNECTED, as upsd's with its driver down;
#   2. once WinPower answers again the same connection is still logged in (NUMLOGINS 1) and
#      reads the UPS on mains, without the FSD of before the restart (FSD lives until a restart,
#      as upsd's).
#
# About 10 s. Installs nut-client when missing. Loopback only.
#
#   IntegrationTests/tests_02_nut/test_06_restart_down.sh
set -euo pipefail
# shellcheck source=IntegrationTests/tests_02_nut/upsmon.sh
source "$(dirname "$0")/upsmon.sh"

start_simulator 8
start_exporter "$work/exporter.log" --config "$work/config.yml"
nut_listener "$work/exporter.log"
expect_listed "started"
fsd=$(nut_ask "USERNAME upsmon-primary" "PASSWORD primary-pass" "LOGIN $outage_ups" "PRIMARY $outage_ups" "FSD $outage_ups" | tr '\n' '|')
[ "$fsd" = "OK|OK|OK|OK PRIMARY-GRANTED|OK FSD-SET|" ] || fail "a primary's FSD answered: $fsd"
status=$(upsc "$outage_ups@$nut" ups.status 2>/dev/null || true)
case "$status" in "FSD OL"*) ;; *) fail "after FSD, $outage_ups shows '$status'" ;; esac
echo "$name: NUT on $nut; FSD set on $outage_ups: '$status'"

# --- 1. Restarted while WinPower is down ------------------------------------------------------
simulator_down
stop_exporter
launch_exporter "$work/exporter-2.log" --config "$work/config.yml"
nut_listener "$work/exporter-2.log"
expect_listed "restarted with WinPower down"
mkfifo "$work/login-in"
cat >"$work/login.py" <<'PY'
import socket, sys
sys.path.insert(0, "scripts")
from nutclient import ask
conn = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
ups = sys.argv[2]
for line in ["USERNAME upsmon-secondary", "PASSWORD secondary-pass", f"LOGIN {ups}", f"GET VAR {ups} ups.status"]:
    print(ask(conn, line).decode(), end="", flush=True)
sys.stdin.readline()                      # WinPower is back
print(ask(conn, f"GET NUMLOGINS {ups}").decode(), end="", flush=True)
print(ask(conn, f"GET VAR {ups} ups.status").decode(), end="", flush=True)
PY
python3 "$work/login.py" "$nut_port" "$outage_ups" <"$work/login-in" >"$work/login-out" 2>&1 &
login=$!
exec 9>"$work/login-in"
answered() { [ "$(wc -l <"$work/login-out")" -ge 4 ]; }
wait_for 20 answered || true
expected=$(printf 'OK\nOK\nOK\nERR DRIVER-NOT-CONNECTED\n')
[ "$(cat "$work/login-out")" = "$expected" ] \
    || fail "restarted with WinPower down, LOGIN and GET VAR answered: $(cat "$work/login-out")"

# --- 2. WinPower back: the login kept, the readings served, no FSD ----------------------------
simulator_up
wait_for 20 upsc "$outage_ups@$nut" ups.status >/dev/null 2>&1 || true
echo >&9
exec 9>&-
wait "$login" || true
back=$(tail -n 2 "$work/login-out" | tr '\n' '|')
case "$back" in "NUMLOGINS $outage_ups 1|VAR $outage_ups ups.status \"OL"*) ;;
    *) fail "WinPower back, the login and readings are: $back" ;; esac
no_password_logged
echo "$name: restarted with WinPower down: the UPSs listed, LOGIN accepted (reads ERR DRIVER-NOT-CONNECTED);" \
     "WinPower back: ${back//|/; }"
echo "$name: ok"
