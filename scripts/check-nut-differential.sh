#!/usr/bin/env bash
# Differential check of the NUT server (in CI): the real upsd from Debian's nut-server, with the
# dummy-ups driver serving exactly the variables the exporter serves for one simulated UPS (same
# name, same description), gets the same commands as the exporter; the replies must be byte for
# byte the same, except those docs/nut.md lists as different by design
# (scripts/nut_differential.py holds the commands and that list).
#
#   scripts/check-nut-differential.sh      # uses .build/debug/wpexporter (WPEXPORTER_BIN to change)
#
# Needs root (upsd and the driver run as root here); installs nut-server and nut-client when
# missing. Loopback only.
set -euo pipefail
cd "$(dirname "$0")/.."
name=check-nut-differential
export WPEXPORTER_BIN="${WPEXPORTER_BIN:-.build/debug/wpexporter}"
scripts/ci/tools.sh nut   # upsd, dummy-ups, upsc
[ "$(id -u)" = 0 ] || { echo "$name: upsd and dummy-ups are run as root here; run as root" >&2; exit 64; }
# shellcheck source=IntegrationTests/harness.sh
source IntegrationTests/harness.sh

start_simulator 3
# A primary, a secondary and a user without an upsmon role, on both servers.
printf 'users:\n  monuser:\n    password: s3cret-nut\n    upsmon: primary\n  watcher:\n    password: s3cret-sec\n    upsmon: secondary\n  reader:\n    password: s3cret-read\n' \
    >"$work/nut-users.yml"
chmod 600 "$work/nut-users.yml"
# Device 0 alone (upsd serves one UPS); one collection a minute, so the values stay put while
# both servers are asked.
printf 'winpower:\n  devices:\n    include: [5e1a7a0c-0000-4b35-b0dd-000000000000]\n' >"$work/config.yml"
start_exporter "$work/exporter.log" --config "$work/config.yml" --nut.listen 127.0.0.1:0 \
    --nut.users_file "$work/nut-users.yml" --scheduler.collection_interval 60s --energy.max_gap 5m
nut_port=$(listening_port "$work/exporter.log")
[ -n "$nut_port" ] || { echo "$name: no NUT listener" >&2; exit 1; }

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
upsd_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'LISTEN 127.0.0.1 %s\nMAXAGE 15\n' "$upsd_port" >"$work/nut/etc/upsd.conf"
printf '[monuser]\n\tpassword = s3cret-nut\n\tupsmon primary\n[watcher]\n\tpassword = s3cret-sec\n\tupsmon secondary\n[reader]\n\tpassword = s3cret-read\n' \
    >"$work/nut/etc/upsd.users"
chmod 640 "$work/nut/etc/upsd.users"
export NUT_CONFPATH="$work/nut/etc" NUT_STATEPATH="$work/nut/state"
/lib/nut/dummy-ups -a "$ups" -u root -F >"$work/nut/dummy.log" 2>&1 &
for _ in $(seq 50); do [ -S "$work/nut/state/dummy-ups-$ups" ] && break; sleep 0.1; done
/lib/nut/upsd -u root -F >"$work/nut/upsd.log" 2>&1 &
# Until the driver has read its file: ups.status is WAIT and other variables missing before.
served() { [ "$(upsc "$ups@127.0.0.1:$upsd_port" battery.charge 2>/dev/null || true)" != "" ]; }
for _ in $(seq 150); do served && break; sleep 0.2; done
served \
    || { echo "$name: upsd did not serve $ups" >&2; cat "$work/nut/upsd.log" "$work/nut/dummy.log" >&2; exit 1; }
echo "$name: upsd $(upsc -V 2>&1 | grep -o '[0-9][0-9.]*' | head -1) on 127.0.0.1:$upsd_port (dummy-ups) and the exporter on 127.0.0.1:$nut_port serve $ups"
python3 scripts/nut_differential.py "$upsd_port" "$nut_port" "$ups"
