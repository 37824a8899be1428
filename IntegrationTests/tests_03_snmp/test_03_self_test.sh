#!/usr/bin/env bash
# A battery self-test through real SNMP clients (in CI): NUT's snmp-ups (mibs=ietf, through
# upsd) polls the exporter's agent and net-snmp's snmptrapd receives its traps while the
# simulated UPS runs a self-test (WinPower's mode 5: on battery on purpose, mains present), then,
# ten seconds later, a real mains failure:
#
#   1. during the self-test ups.status never shows OB (the agent once served upsOutputSource
#      battery(5): upsmon on that chain notified "on battery" at every scheduled test), and the
#      driver keeps reading the UPS (OL);
#   2. snmptrapd receives the test's traps (upsTrapAlarmEntryAdded while it runs,
#      upsTrapTestCompleted after) and no upsTrapOnBattery;
#   3. the real outage that follows shows OB and sends upsTrapOnBattery: the checks above can
#      fail.
#
# About 60 s. Set-up shared with this group's NUT cases (tests_03_snmp/nut_snmp_ups.sh); installs
# snmptrapd (snmpd's package) too when missing; upsd and the driver run as the current user.
# Loopback only; every port is chosen at run time (bound to port 0 and read back).
#
#   IntegrationTests/tests_03_snmp/test_03_self_test.sh
set -euo pipefail
low=""   # no nut.battery_runtime_low: LB plays no part here
# shellcheck source=IntegrationTests/tests_03_snmp/nut_snmp_ups.sh
source "$(dirname "$0")/nut_snmp_ups.sh"
scripts/ci/tools.sh snmp   # snmptrapd

# --- snmptrapd: every trap of the community, numeric OIDs, on its standard output ------------
printf 'authCommunity log traps-c0mm\n' >"$work/snmptrapd.conf"
HOME="$work" SNMP_PERSISTENT_DIR="$work" SNMPCONFPATH="$work" \
    snmptrapd -f -Lo -C -c "$work/snmptrapd.conf" -m "" -M "$work" -n -On udp:127.0.0.1:0 >"$work/traps.out" 2>&1 &
trap_port=$(socket_port $! udp)
[ -n "$trap_port" ] || fail "snmptrapd is not listening"

# --- The exporter (traps to snmptrapd): a self-test from 20 s for 15 s, mains fail at 45 s for 10 s
test_start=20 test_length=15 outage_start=45 outage_length=10
start_agent --outage-schedule "0:$test_start+$test_length/batteryTest,0:$outage_start+$outage_length"

# --- upsd and one snmp-ups driver (ietf, v2c), polling every second ---------------------------
poll=1
write_nut ietf-v2c
start_nut ietf-v2c
target="ietf-v2c@$upsd_at"
echo "$name: snmptrapd on 127.0.0.1:$trap_port"

# --- Watch ups.status and the traps until the outage has been seen ---------------------------
elapsed() { awk -v s="$sim_started" -v n="$(date +%s.%N)" 'BEGIN {printf "%.1f", n - s}'; }
# snmptrapd -On: each trap logs "OID: .1.3.6.1.6.3.1.1.4.1.0 ... OID: <trap>"; counted by name.
traps_of() { grep -o "OID: $1[^.0-9]" "$work/traps.out" | wc -l || true; }
on_battery_trap=.1.3.6.1.2.1.33.2.1 test_completed=.1.3.6.1.2.1.33.2.2 alarm_added=.1.3.6.1.2.1.33.2.3
seen_before="" seen_test="" seen_outage=""
ob_before_outage=0 ol_in_test=0 ob_in_outage=0 traps_before_outage=""
end=$((outage_start + outage_length + 5))
while awk -v e="$end" -v t="$(elapsed)" 'BEGIN {exit !(t < e)}'; do
    t=$(elapsed)
    status=$(upsc "$target" ups.status 2>/dev/null || true)
    if awk -v t="$t" -v s="$outage_start" 'BEGIN {exit !(t < s)}'; then
        case " $status " in *" OB "*) ob_before_outage=$((ob_before_outage + 1)) ;; esac
        if awk -v t="$t" -v a="$test_start" -v b="$((test_start + test_length))" 'BEGIN {exit !(t >= a + 3 && t < b)}'; then
            case " $status " in *" OL "*) ol_in_test=$((ol_in_test + 1)) ;; esac
            case " $seen_test " in *" [$status] "*) ;; *) seen_test="$seen_test [$status]" ;; esac
        else
            case " $seen_before " in *" [$status] "*) ;; *) seen_before="$seen_before [$status]" ;; esac
        fi
        traps_before_outage="$(traps_of $on_battery_trap) $(traps_of $test_completed) $(traps_of $alarm_added)"
    else
        case " $status " in *" OB "*) ob_in_outage=$((ob_in_outage + 1)) ;; esac
        case " $seen_outage " in *" [$status] "*) ;; *) seen_outage="$seen_outage [$status]" ;; esac
        # Done once the outage showed OB and its trap came.
        [ "$ob_in_outage" -gt 0 ] && [ "$(traps_of $on_battery_trap)" -gt 0 ] && break
    fi
    sleep 0.5
done
read -r on_battery_before completed_before added_before <<<"$traps_before_outage"
echo "$name: ups.status before the test and after it:$seen_before"
echo "$name: ups.status during the self-test ($test_start-$((test_start + test_length)) s):$seen_test"
echo "$name: ups.status in the outage (from $outage_start s):$seen_outage"
echo "$name: traps before the outage: upsTrapOnBattery $on_battery_before, upsTrapTestCompleted $completed_before, upsTrapAlarmEntryAdded $added_before"

[ "$ol_in_test" -gt 0 ] || fail "the driver never read OL during the self-test:$seen_test"
[ "$ob_before_outage" = 0 ] || fail "ups.status showed OB $ob_before_outage times before mains failed (the self-test):$seen_test"
[ "${on_battery_before:-0}" = 0 ] || fail "upsTrapOnBattery sent during the self-test: $(cat "$work/traps.out")"
[ "${completed_before:-0}" -gt 0 ] || fail "no upsTrapTestCompleted after the self-test: $(cat "$work/traps.out")"
[ "${added_before:-0}" -gt 0 ] || fail "no upsTrapAlarmEntryAdded while the self-test ran: $(cat "$work/traps.out")"
[ "$ob_in_outage" -gt 0 ] || fail "ups.status never showed OB in the real outage:$seen_outage"
[ "$(traps_of $on_battery_trap)" -gt 0 ] || fail "no upsTrapOnBattery in the real outage: $(cat "$work/traps.out")"
echo "$name: ok"
