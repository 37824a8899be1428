#!/usr/bin/env bash
# NUT's own SNMP driver through a mains failure (tests_03_snmp/nut_snmp_ups.sh: Debian's upsd with
# four `snmp-ups` drivers on the exporter's agent, ietf and auto, by v2c and v3 authPriv), and one
# upsmon (primary, nut-client) through upsd on each:
#
#   1. the values upsc reads equal what /metrics says for the UPS, after the UPS-MIB's units:
#      battery.runtime in whole minutes (× 60), battery.voltage, input/output.frequency and
#      output.current in tenths, the other numbers rounded to integers (the agent rounds to
#      nearest; upsc prints what the driver received);
#   2. ups.status shows OB when the simulated mains fail (20 s after the simulator starts), LB as
#      the runtime falls below nut.battery_runtime_low (from 32 s), and OL when mains return
#      (45 s); each upsmon runs its SHUTDOWNCMD (a script writing a file) on OB LB;
#   3. no TEST in ups.status (no battery test runs), no warning line repeated in a driver's log
#      after its start-up walk.
#
# tests_03_snmp/test_04_nut_snmp_ups_stale.sh holds the drivers through WinPower down and back.
# A summary table is printed at the end; any failure exits non-zero. About 65 s.
#
#   IntegrationTests/tests_03_snmp/test_02_nut_snmp_ups_outage.sh
#
# Needs root (upsmon runs as root, in a mount namespace of its own: unshare; upsd and the
# drivers run as the current user).
set -euo pipefail
# shellcheck source=IntegrationTests/tests_03_snmp/nut_snmp_ups.sh
source "$(dirname "$0")/nut_snmp_ups.sh"
[ "$(id -u)" = 0 ] || { echo "$name: upsmon is run as root here; run as root" >&2; exit 64; }

outage_start=20 outage_length=25
start_agent --outage-schedule "0:$outage_start+$outage_length"
drivers=(ietf-v2c ietf-v3 auto-v2c auto-v3)
write_nut "${drivers[@]}"
start_nut "${drivers[@]}"
for driver in "${drivers[@]}"; do
    start_upsmon "$driver" "$driver@$upsd_at" monitor monitor-pass primary
done
wait_online "${drivers[@]}"

# --- 1. upsc's values equal /metrics' (the UPS on mains, before the outage) -----------------
check_values "${drivers[@]}"

# --- 2. The outage: OB, then LB (the upsmons shut down), then OL ------------------------------
declare -A first_ob first_lb back_ol statuses
watch_until=$(awk -v t="$sim_started" -v s="$outage_start" -v l="$outage_length" 'BEGIN {printf "%.3f", t + s + l + 15}')
while awk -v d="$watch_until" -v n="$(date +%s.%N)" 'BEGIN {exit !(n < d)}'; do
    done_all=1
    for driver in "${drivers[@]}"; do
        now=$(date +%s.%N)
        status=$(upsc "$driver@$upsd_at" ups.status 2>/dev/null || true)
        case " ${statuses[$driver]:-} " in *" [$status] "*) ;; *) statuses[$driver]="${statuses[$driver]:-} [$status]" ;; esac
        case " $status " in *" OB "*) [ -n "${first_ob[$driver]:-}" ] || first_ob[$driver]=$now ;; esac
        case " $status " in *" LB "*) if [ -n "${first_ob[$driver]:-}" ] && [ -z "${first_lb[$driver]:-}" ]; then first_lb[$driver]=$now; fi ;; esac
        case " $status " in *" OL "*) if [ -n "${first_lb[$driver]:-}" ] && [ -z "${back_ol[$driver]:-}" ]; then back_ol[$driver]=$now; fi ;; esac
        [ -n "${back_ol[$driver]:-}" ] && [ -f "$work/shutdown-$driver" ] || done_all=0
    done
    [ "$done_all" = 1 ] && break
    sleep 0.3
done
at() { if [ -n "$1" ]; then awk -v t="$1" -v s="$sim_started" 'BEGIN {printf "%.1f s", t - s}'; else echo never; fi; }
for driver in "${drivers[@]}"; do
    ob=${first_ob[$driver]:-} lb=${first_lb[$driver]:-} ol=${back_ol[$driver]:-}
    detail="OB at $(at "$ob"), OB LB at $(at "$lb"), OL at $(at "$ol") (mains fail at $outage_start s, return at $((outage_start + outage_length)) s)"
    if [ -n "$ob" ] && [ -n "$lb" ] && [ -n "$ol" ]; then
        record "$driver" "OB, LB, OL in ups.status" pass "$detail"
    else
        record "$driver" "OB, LB, OL in ups.status" FAIL "$detail; seen: ${statuses[$driver]:-}"
    fi
    if [ -f "$work/shutdown-$driver" ]; then
        shut=$(cat "$work/shutdown-$driver")
        if [ -n "$lb" ] && awk -v s="$shut" -v o="$ob" 'BEGIN {exit !(s >= o)}'; then
            record "$driver" "upsmon SHUTDOWNCMD on OB LB" pass "at $(at "$shut")"
        else
            record "$driver" "upsmon SHUTDOWNCMD on OB LB" FAIL "at $(at "$shut"), before OB LB was seen"
        fi
    else
        record "$driver" "upsmon SHUTDOWNCMD on OB LB" FAIL "never ran: $(tail -n 3 "$work/upsmon-$driver/log" | tr '\n' ' ')"
    fi
done

# --- 3. No TEST, no repeated warning ----------------------------------------------------------
for driver in "${drivers[@]}"; do
    case "${statuses[$driver]:-}" in
        *TEST*) record "$driver" "no TEST in ups.status" FAIL "seen: ${statuses[$driver]}" ;;
        *) record "$driver" "no TEST in ups.status" pass "statuses seen:${statuses[$driver]:-}" ;;
    esac
done
check_warnings "${drivers[@]}"
finish
