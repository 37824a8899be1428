#!/usr/bin/env bash
# Differential check of the NUT server (in CI): the real upsd from Debian's nut-server, with the
# dummy-ups driver serving exactly the variables the exporter serves for one simulated UPS (same
# name, same description), gets the same commands as the exporter; the replies must be byte for
# byte the same, except those docs/nut.md lists as different by design
# (nut_differential.py beside this file holds the commands and that list). About 10 s.
#
#   IntegrationTests/tests_02_nut/test_03_differential.sh
#
# Needs root (upsd and the driver run as root here); installs nut-server and nut-client when
# missing. Loopback only; upsd binds port 0 and its port is read from the socket it holds.
set -euo pipefail
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh nut   # upsd, dummy-ups, upsc
[ "$(id -u)" = 0 ] || { echo "$name: upsd and dummy-ups are run as root here; run as root" >&2; exit 64; }

start_simulator 3
# A primary, a secondary and a user without an upsmon role, on both servers.
printf 'users:\n  monuser:\n    password: s3cret-nut\n    upsmon: primary\n  watcher:\n    password: s3cret-sec\n    upsmon: secondary\n  reader:\n    password: s3cret-read\n' \
    >"$work/nut-users.yml"
chmod 600 "$work/nut-users.yml"
# Device 0 alone (upsd serves one UPS); one collection a minute, so the values stay put while
# both servers are asked.
printf 'winpower:\n  devices:\n    include: [%s]\n' "$(device_id 0)" >"$work/config.yml"
start_exporter "$work/exporter.log" --config "$work/config.yml" --nut.listen 127.0.0.1:0 \
    --nut.users_file "$work/nut-users.yml" --scheduler.collection_interval 60s --energy.max_gap 5m
nut_port=$(listening_port "$work/exporter.log")
[ -n "$nut_port" ] || fail "no NUT listener"

# The first UPS (device 0, on mains), its description and variables, as the exporter serves them.
mkdir -p "$work/nut/etc" "$work/nut/state"
python3 - "$nut_port" "$work/nut/etc" <<'PY'
import socket, sys
port, etc = int(sys.argv[1]), sys.argv[2]
sys.path.insert(0, "scripts")
from nutclient import ask
conn = socket.create_connection(("127.0.0.1", port))
listing = ask(conn, "LIST UPS", "END LIST UPS\n").decode()
first = next(line for line in listing.splitlines() if line.startswith("UPS "))
ups = first.split(" ")[1]
description = first[len("UPS ") + len(ups) + 2:-1]          # still escaped, as ups.conf wants it
variables = ask(conn, f"LIST VAR {ups}", f"END LIST VAR {ups}\n").decode()
with open(f"{etc}/ups.dev", "w") as dev:
    for line in variables.splitlines():
        if line.startswith("VAR "):
            _, _, var, value = line.split(" ", 3)
            if not var.startswith("driver."):
                dev.write(f"{var}: {value}\n")              # the value keeps its quotes and escapes
with open(f"{etc}/ups.conf", "w") as conf:
    conf.write(f'[{ups}]\n\tdriver = dummy-ups\n\tport = ups.dev\n\tdesc = "{description}"\n')
with open(f"{etc}/ups.name", "w") as out:
    out.write(ups)
PY
ups=$(cat "$work/nut/etc/ups.name")
printf 'LISTEN 127.0.0.1 0\nMAXAGE 15\n' >"$work/nut/etc/upsd.conf"
printf '[monuser]\n\tpassword = s3cret-nut\n\tupsmon primary\n[watcher]\n\tpassword = s3cret-sec\n\tupsmon secondary\n[reader]\n\tpassword = s3cret-read\n' \
    >"$work/nut/etc/upsd.users"
chmod 640 "$work/nut/etc/upsd.users"
export NUT_CONFPATH="$work/nut/etc" NUT_STATEPATH="$work/nut/state"
/lib/nut/dummy-ups -a "$ups" -u root -F >"$work/nut/dummy.log" 2>&1 &
wait_for 5 test -S "$work/nut/state/dummy-ups-$ups" || true
/lib/nut/upsd -u root -F >"$work/nut/upsd.log" 2>&1 &
# upsd logs "port 0" as told: its port is read from the socket it holds.
upsd_port=$(socket_port $!)
[ -n "$upsd_port" ] || fail "upsd is not listening"
# Until the driver has read its file: ups.status is WAIT and other variables missing before.
served() { [ "$(upsc "$ups@127.0.0.1:$upsd_port" battery.charge 2>/dev/null || true)" != "" ]; }
wait_for 30 served || fail "upsd did not serve $ups"
echo "$name: upsd $(upsc -V 2>&1 | grep -o '[0-9][0-9.]*' | head -1) on 127.0.0.1:$upsd_port (dummy-ups) and the exporter on 127.0.0.1:$nut_port serve $ups"
python3 IntegrationTests/tests_02_nut/nut_differential.py "$upsd_port" "$nut_port" "$ups"
