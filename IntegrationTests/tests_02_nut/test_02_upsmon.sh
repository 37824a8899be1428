#!/usr/bin/env bash
# The real upsmon (Debian's nut-client) against the exporter's NUT server, through a simulated
# mains failure (in CI; tests_02_nut/upsmon.sh: the configuration and UPS names it shares with
# test_06_restart_down.sh, which restarts the exporter while WinPower is down). Each upsmon runs as root in the foreground, with its own
# configuration under a scratch directory and a SHUTDOWNCMD that only writes a file:
#
#   primary      on the UPS whose mains fails (simulator --outage-schedule): OB alone must not
#                shut down; once OB LB is seen it sets FSD, waits for both secondaries to log
#                out and then runs its shutdown command;
#   secondary    on the same UPS by its name: shuts down when it sees FSD, before the primary;
#   synology     on the same UPS by the name `ups` (nut.default_ups), polling every 5 s as
#                upsmon does by default: the same UPS for FSD and the login count, so it too
#                shuts down before the primary (no "Host sync timer expired" on the primary);
#   fsd-primary  on a UPS on mains: `upsmon -c fsd` sets FSD there (kept, shown as FSD OL);
#   fsd-secondary on that UPS: shuts down on that FSD, before fsd-primary;
#   self-test    a primary on a UPS running a battery self-test the whole time (OL TEST, and
#                LB as its runtime falls under the threshold): never shuts down;
#   stale        a primary on a disconnected UPS (every GET VAR answers ERR DATA-STALE, upsmon
#                reports it unavailable): never shuts down, as the UPS was never seen on battery.
#
# Mains returns 20 s after it failed, a few seconds after FSD: FSD must stay (FSD OL).
#
# Timing: the outage starts 25 s after the simulator, the battery runtime it reports falls by
# 0.625 s a second, and nut.battery_runtime_low is set so that LB comes about 12 s after OB. The
# whole check takes about 50 s.
#
#   IntegrationTests/tests_02_nut/test_02_upsmon.sh
#
# Needs root (upsmon runs as root here, each in a mount namespace of its own: unshare) and
# installs nut-client when missing. Loopback only.
set -euo pipefail
# shellcheck source=IntegrationTests/tests_02_nut/upsmon.sh
source "$(dirname "$0")/upsmon.sh"
[ "$(id -u)" = 0 ] || { echo "$name: upsmon is run as root here; run as root" >&2; exit 64; }

outage_start=25 outage_length=20
start_simulator 8 --outage-schedule "0:$outage_start+$outage_length"
started=$(date +%s.%N)
start_exporter "$work/exporter.log" --config "$work/config.yml"
nut_listener "$work/exporter.log"
expect_listed "started"
echo "$name: NUT on $nut; outage on $outage_ups (also 'ups'), on mains $mains_ups, self-test on $test_ups, disconnected $stale_ups"

# start_upsmon (the harness): each upsmon as root in a mount namespace of its own.
start_upsmon primary "$outage_ups@$nut" upsmon-primary primary-pass primary
start_upsmon secondary "$outage_ups@$nut" upsmon-secondary secondary-pass secondary
start_upsmon synology "ups@$nut" upsmon-secondary secondary-pass secondary 5
start_upsmon fsd-primary "$mains_ups@$nut" upsmon-primary primary-pass primary
start_upsmon fsd-secondary "$mains_ups@$nut" upsmon-secondary secondary-pass secondary
start_upsmon self-test "$test_ups@$nut" upsmon-primary primary-pass primary
start_upsmon stale "$stale_ups@$nut" upsmon-primary primary-pass primary

numlogins() { nut_ask "GET NUMLOGINS $1" | awk '{print $3}'; }

# Every monitor logged in: three on the outage UPS (two by its name, one as `ups`), two on the UPS on mains.
logged_in() { [ "$(numlogins "$outage_ups")" = 3 ] && [ "$(numlogins "$mains_ups")" = 2 ]; }
wait_for 20 logged_in || true
[ "$(numlogins ups)" = 3 ] || fail "GET NUMLOGINS ups is $(numlogins ups), not 3: 'ups' is not the same UPS"
[ "$(numlogins "$mains_ups")" = 2 ] || fail "$(numlogins "$mains_ups") logins on $mains_ups, not 2"

# upsmon -c fsd on the primary of the UPS on mains (in its mount namespace, where its pid file is).
NUT_CONFPATH="$work/upsmon-fsd-primary" NUT_STATEPATH="$work/upsmon-fsd-primary" \
    nsenter --mount --target "${upsmon_pids[fsd-primary]}" "$upsmon" -c fsd >/dev/null
fsd_sent=$(date +%s.%N)

# Watch ups.status of the outage UPS until both primaries have shut down and mains is back (or 150 s).
# first_lb is when the first read showing LB began; LB itself came after before_lb, when the
# last read without it began (upsmon, polling every second, may act on LB before this loop sees it).
first_ob="" first_lb="" before_lb="" first_fsd="" mains_back="" status_back=""
for _ in $(seq 300); do
    now=$(date +%s.%N)
    status=$(upsc "$outage_ups@$nut" ups.status 2>/dev/null || true)
    case " $status " in *" OB "*) [ -n "$first_ob" ] || first_ob=$now ;; esac
    case " $status " in
        *" LB "*) [ -n "$first_lb" ] || first_lb=$now ;;
        *) [ -n "$first_lb" ] || before_lb=$now ;;
    esac
    case " $status " in *"FSD"*) [ -n "$first_fsd" ] || first_fsd=$now ;; esac
    case " $status " in *" OL "*) if [ -n "$first_ob" ] && [ -z "$mains_back" ]; then mains_back=$now status_back=$status; fi ;; esac
    [ -f "$work/shutdown-primary" ] && [ -f "$work/shutdown-fsd-primary" ] && [ -n "$mains_back" ] && break
    sleep 0.5
done
since() { awk -v t="$1" -v s="$started" 'BEGIN {printf "%.1f", t - s}'; }
[ -n "$first_ob" ] || fail "the UPS never showed OB"
[ -n "$first_lb" ] || fail "the UPS never showed LB"
for role in primary secondary synology fsd-primary fsd-secondary; do
    [ -f "$work/shutdown-$role" ] || fail "upsmon $role did not shut down"
done
at() { cat "$work/shutdown-$1"; }
echo "$name: OB at $(since "$first_ob") s, LB at $(since "$first_lb") s, FSD at $(since "${first_fsd:-0}") s;" \
     "secondaries shut down at $(since "$(at secondary)") s and $(since "$(at synology)") s ('ups'), primary at $(since "$(at primary)") s;" \
     "mains back at $(since "$mains_back") s: '$status_back'"
awk -v a="$first_lb" -v b="$first_ob" 'BEGIN {exit !(a - b >= 5)}' \
    || fail "LB came too soon after OB to show that OB alone does nothing"
# A shutdown command that ran before the last read without LB ran on OB alone.
awk -v s="$(at secondary)" -v y="$(at synology)" -v p="$(at primary)" -v l="$before_lb" 'BEGIN {exit !(s >= l && y >= l && p >= s && p >= y)}' \
    || fail "expected LB (after $(since "$before_lb") s), then both secondaries, then the primary"
if grep -q 'Host sync timer expired' "$work/upsmon-primary/log"; then
    fail "the primary gave up waiting for a secondary ('ups' counted apart?)"
fi
[ -n "$first_fsd" ] || fail "FSD was never seen"
case "$status_back" in "FSD OL"*) ;; *) fail "mains back, the status is '$status_back', not FSD OL…: FSD was dropped" ;; esac
ups_status=$(upsc "ups@$nut" ups.status 2>/dev/null || true)
case "$ups_status" in "FSD "*) ;; *) fail "'ups' shows '$ups_status', without the FSD of $outage_ups" ;; esac

# upsmon -c fsd with mains present: FSD OL, the secondary first, then the primary.
mains_status=$(upsc "$mains_ups@$nut" ups.status 2>/dev/null || true)
case "$mains_status" in "FSD OL"*) ;; *) fail "after upsmon -c fsd, $mains_ups shows '$mains_status'" ;; esac
awk -v s="$(at fsd-secondary)" -v p="$(at fsd-primary)" -v f="$fsd_sent" 'BEGIN {exit !(p >= s && s >= f - 1)}' \
    || fail "after upsmon -c fsd, expected the secondary, then the primary"
echo "$name: upsmon -c fsd on mains: $mains_ups shows '$mains_status'; secondary after" \
     "$(awk -v s="$(at fsd-secondary)" -v f="$fsd_sent" 'BEGIN {printf "%.1f", s - f}') s, primary after" \
     "$(awk -v s="$(at fsd-primary)" -v f="$fsd_sent" 'BEGIN {printf "%.1f", s - f}') s"

# The self-test and the stale UPS: their upsmon never shut down.
for role in self-test stale; do
    if [ -f "$work/shutdown-$role" ]; then fail "upsmon on the $role UPS shut down"; fi
done
test_status=$(upsc "$test_ups@$nut" ups.status 2>/dev/null || true)
grep -q 'TEST' <<<"$test_status" || fail "the self-test UPS shows '$test_status'"
grep -qi 'stale\|unavailable\|COMMBAD\|communication' "$work/upsmon-stale/log" \
    || fail "upsmon did not report the disconnected UPS as unavailable"
stop_upsmons
no_password_logged
echo "$name: upsmon shut down on OB LB after FSD (both secondaries, one on 'ups', first) and on upsmon -c fsd;" \
     "FSD kept with mains back; not on OB alone, a self-test ($test_status) or stale data"
