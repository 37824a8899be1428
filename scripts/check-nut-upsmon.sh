#!/usr/bin/env bash
# The real upsmon (Debian's nut-client) against the exporter's NUT server, through a simulated
# mains failure (in CI). Four upsmon processes run as root in the foreground, each with its own
# configuration under a scratch directory and a SHUTDOWNCMD that only writes a file:
#
#   primary    on the UPS whose mains fails (simulator --outage-schedule): OB alone must not
#              shut down; once OB LB is seen it sets FSD, waits for the secondary to log out and
#              then runs its shutdown command;
#   secondary  on the same UPS: shuts down when it sees FSD, before the primary;
#   self-test  a primary on a UPS running a battery self-test the whole time (OL TEST, and
#              LB as its runtime falls under the threshold): never shuts down;
#   stale      a primary on a disconnected UPS (every GET VAR answers ERR DATA-STALE, upsmon
#              reports it unavailable): never shuts down, as the UPS was never seen on battery.
#
# Timing: the outage starts 25 s after the simulator, the battery runtime it reports falls by
# 0.625 s a second, and nut.battery_runtime_low is set so that LB comes about 12 s after OB.
#
#   scripts/check-nut-upsmon.sh        # uses .build/debug/wpexporter (WPEXPORTER_BIN to change)
#
# Needs root (upsmon runs as root here, each in a mount namespace of its own: unshare) and
# installs nut-client when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
name=check-nut-upsmon
export WPEXPORTER_BIN="${WPEXPORTER_BIN:-.build/debug/wpexporter}"
upsmon=/lib/nut/upsmon
if [ ! -x "$upsmon" ] || ! command -v upsc >/dev/null 2>&1; then
    echo "$name: installing nut-client"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nut-client) >/dev/null
fi
[ "$(id -u)" = 0 ] || { echo "$name: upsmon is run as root here; run as root" >&2; exit 64; }
# shellcheck source=scripts/torture/lib.sh
source scripts/torture/lib.sh

outage_start=25
"$binary" simulate --port 0 --devices 5 --outage-schedule "0:$outage_start+120" >"$work/sim.log" 2>&1 &
started=$(date +%s.%N)
for _ in $(seq 100); do grep -q '127.0.0.1:' "$work/sim.log" && break; sleep 0.1; done
sim_port=$(grep -o '127.0.0.1:[0-9]*' "$work/sim.log" | head -1 | cut -d: -f2)

cat >"$work/nut-users.yml" <<'USERS'
users:
  upsmon-primary:
    password: primary-pass
    upsmon: primary
  upsmon-secondary:
    password: secondary-pass
    upsmon: secondary
USERS
# The runtime the simulator reports on battery is (95 - t/120) × 75 s at t seconds: 7109 s when
# the outage starts at 25 s, under 7102 s from about 37 s.
device_id() { printf '5e1a7a0c-%04x-4b35-b0dd-%012x' "$1" "$1"; }
cat >"$work/config.yml" <<CONFIG
winpower:
  devices:
    overrides:
      $(device_id 0):
        name: outage-ups
      $(device_id 2):
        name: stale-ups
      $(device_id 4):
        name: test-ups
nut:
  listen: 127.0.0.1:0
  users_file: $work/nut-users.yml
  battery_runtime_low: 7102s
  allow_anonymous: true
CONFIG
start_exporter "$work/exporter.log" --config "$work/config.yml"
nut_port=$(grep '"line server listening"' "$work/exporter.log" | grep -o '127.0.0.1:[0-9]*' | head -1 | cut -d: -f2)
[ -n "$nut_port" ] || { echo "$name: no NUT listener" >&2; cat "$work/exporter.log" >&2; exit 1; }
nut="127.0.0.1:$nut_port"

# The three UPSs watched are named in the configuration (winpower.devices.overrides): NUT
# names follow the names the exporter gives devices.
outage_ups=outage-ups test_ups=test-ups stale_ups=stale-ups
listed=$(upsc -l "$nut" 2>/dev/null | tr '\n' ' ')
for ups in "$outage_ups" "$test_ups" "$stale_ups"; do
    grep -qw -- "$ups" <<<"$listed" || { echo "$name: $ups is not listed by upsc -l ($listed)" >&2; exit 1; }
done
echo "$name: NUT on $nut; outage on $outage_ups, self-test on $test_ups, disconnected $stale_ups"

upsmon_groups=()
stop_upsmons() { for group in "${upsmon_groups[@]}"; do kill -- "-$group" 2>/dev/null || true; done; }
trap 'stop_upsmons; kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

# start_upsmon ROLE UPS USER PASSWORD KIND: one upsmon in the foreground with its own files.
start_upsmon() {
    local role=$1 dir="$work/upsmon-$1"
    mkdir -p "$dir"
    printf '#!/bin/sh\ndate +%%s.%%N > %s/shutdown-%s\n' "$work" "$role" >"$dir/shutdown.sh"
    chmod 755 "$dir/shutdown.sh"
    cat >"$dir/upsmon.conf" <<UPSMON
MONITOR $2@$nut 1 $3 $4 $5
MINSUPPLIES 1
SHUTDOWNCMD "$dir/shutdown.sh"
POLLFREQ 1
POLLFREQALERT 1
HOSTSYNC 20
DEADTIME 5
FINALDELAY 0
POWERDOWNFLAG $dir/killpower
RUN_AS_USER root
UPSMON
    chmod 600 "$dir/upsmon.conf"
    # upsmon's pid file is always /run/nut/upsmon.pid: each runs in a mount namespace of its
    # own with a private /run/nut, so four can run at once.
    # Each in a session of its own: upsmon forks, and the whole group is stopped at the end.
    mkdir -p /run/nut
    # shellcheck disable=SC2016  # $0 is expanded by the inner sh, on purpose
    NUT_CONFPATH="$dir" NUT_STATEPATH="$dir" setsid unshare --mount --propagation private \
        sh -c 'mount -t tmpfs none /run/nut && exec "$0" -F -u root' "$upsmon" >"$dir/log" 2>&1 &
    upsmon_groups+=("$!")
}
start_upsmon primary "$outage_ups" upsmon-primary primary-pass primary
start_upsmon secondary "$outage_ups" upsmon-secondary secondary-pass secondary
start_upsmon self-test "$test_ups" upsmon-primary primary-pass primary
start_upsmon stale "$stale_ups" upsmon-primary primary-pass primary

# Watch ups.status of the outage UPS until the primary has shut down (or 150 s).
first_ob="" first_lb="" first_fsd=""
for _ in $(seq 300); do
    now=$(date +%s.%N)
    status=$(upsc "$outage_ups@$nut" ups.status 2>/dev/null || true)
    case " $status " in *" OB "*) [ -n "$first_ob" ] || first_ob=$now ;; esac
    case " $status " in *" LB "*) [ -n "$first_lb" ] || first_lb=$now ;; esac
    case " $status " in *"FSD"*) [ -n "$first_fsd" ] || first_fsd=$now ;; esac
    if [ -z "$first_lb" ] && [ -n "$first_ob" ] && ls "$work"/shutdown-* >/dev/null 2>&1; then
        echo "$name: a shutdown command ran on OB alone (status $status)" >&2
        ls -l "$work"/shutdown-* >&2
        exit 1
    fi
    [ -f "$work/shutdown-primary" ] && break
    sleep 0.5
done
since() { awk -v t="$1" -v s="$started" 'BEGIN {printf "%.1f", t - s}'; }
[ -n "$first_ob" ] || { echo "$name: the UPS never showed OB" >&2; exit 1; }
[ -n "$first_lb" ] || { echo "$name: the UPS never showed LB" >&2; exit 1; }
[ -f "$work/shutdown-primary" ] || { echo "$name: the primary did not shut down" >&2; cat "$work/upsmon-primary/log" >&2; exit 1; }
[ -f "$work/shutdown-secondary" ] || { echo "$name: the secondary did not shut down" >&2; cat "$work/upsmon-secondary/log" >&2; exit 1; }
primary_at=$(cat "$work/shutdown-primary") secondary_at=$(cat "$work/shutdown-secondary")
echo "$name: OB at $(since "$first_ob") s, LB at $(since "$first_lb") s, FSD at $(since "${first_fsd:-0}") s;" \
     "secondary shut down at $(since "$secondary_at") s, primary at $(since "$primary_at") s"
awk -v a="$first_lb" -v b="$first_ob" 'BEGIN {exit !(a - b >= 5)}' \
    || { echo "$name: LB came too soon after OB to show that OB alone does nothing" >&2; exit 1; }
awk -v s="$secondary_at" -v p="$primary_at" -v l="$first_lb" 'BEGIN {exit !(s >= l && p >= s)}' \
    || { echo "$name: expected LB, then the secondary, then the primary" >&2; exit 1; }
[ -n "$first_fsd" ] || grep -q 'FSD' "$work/upsmon-secondary/log" \
    || { echo "$name: FSD was never seen" >&2; exit 1; }

# The self-test and the stale UPS: their upsmon never shut down.
for role in self-test stale; do
    if [ -f "$work/shutdown-$role" ]; then
        echo "$name: upsmon on the $role UPS shut down" >&2
        cat "$work/upsmon-$role/log" >&2
        exit 1
    fi
done
test_status=$(upsc "$test_ups@$nut" ups.status 2>/dev/null || true)
grep -q 'TEST' <<<"$test_status" || { echo "$name: the self-test UPS shows '$test_status'" >&2; exit 1; }
grep -qi 'stale\|unavailable\|COMMBAD\|communication' "$work/upsmon-stale/log" \
    || { echo "$name: upsmon did not report the disconnected UPS as unavailable" >&2; cat "$work/upsmon-stale/log" >&2; exit 1; }
if grep -q -e 'primary-pass' -e 'secondary-pass' "$work/exporter.log"; then echo "$name: a NUT password is in the log" >&2; exit 1; fi
echo "$name: upsmon shut down on OB LB after FSD (secondary first); not on OB alone, a self-test ($test_status) or stale data"
