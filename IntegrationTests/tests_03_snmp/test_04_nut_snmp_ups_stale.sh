#!/usr/bin/env bash
# NUT's own SNMP driver through WinPower down and back (tests_03_snmp/nut_snmp_ups.sh: Debian's
# upsd with `snmp-ups` drivers on the exporter's agent, ietf and auto, by v2c and v3 authPriv):
#
#   1. four drivers and upsd start while WinPower (the simulator) goes down; once the UPS is stale
#      on /metrics each driver reports "Data stale" (not the last readings);
#   2. two more drivers (ietf by v2c, auto by v3) started by upsdrvctl once the UPS is already
#      stale: each fails to start (the agent serves no upsIdentModel for a UPS it cannot read)
#      and upsdrvctl starts it again (`maxretry`, `retrydelay 1` in ups.conf: what systemd's
#      nut-driver@ unit does every 15 s);
#   3. once WinPower is back, every driver (the late ones too) reads the UPS on mains within two
#      of its polls (pollinterval 2 s) of the exporter serving it, with the values of /metrics;
#   4. no warning line repeated in the four first drivers' logs after their start-up walk.
#
# tests_03_snmp/test_02_nut_snmp_ups_outage.sh holds the drivers through a mains failure.
# A summary table is printed at the end; any failure exits non-zero. About 40 s.
#
#   IntegrationTests/tests_03_snmp/test_04_nut_snmp_ups_stale.sh
set -euo pipefail
# shellcheck source=IntegrationTests/tests_03_snmp/nut_snmp_ups.sh
source "$(dirname "$0")/nut_snmp_ups.sh"

# shellcheck disable=SC2119  # no simulator arguments (none of the script's)
start_agent
drivers=(ietf-v2c ietf-v3 auto-v2c auto-v3)
# Started by upsdrvctl once the UPS is stale (2); upsd knows them from the start.
late_drivers=(late-ietf-v2c late-auto-v3)
write_nut "${drivers[@]}" "${late_drivers[@]}"

# --- 1. Started while WinPower goes down, then stale ------------------------------------------
simulator_down
down_at=$(date +%s.%N)
start_nut "${drivers[@]}"
# The drivers read the UPS while the exporter still serves its last readings; once they are
# older than the staleness window, the agent withdraws them and each driver's data goes stale
# (upsc: "Data stale"), never the last readings as if current.
wait_online "${drivers[@]}"
wait_for 40 up_is 0 || fail "the exporter never went stale"
stale_at=$(date +%s.%N)
echo "$name: WinPower down at $(since "$down_at") s, the UPS stale on /metrics at $(since "$stale_at") s"
for driver in "${drivers[@]}"; do
    state=""
    for _ in $(seq 50); do
        state=$(status_of "$driver")
        case "$state" in *"Data stale"*) break ;; esac
        sleep 0.2
    done
    case "$state" in
        *"Data stale"*) record "$driver" "stale while WinPower is down" pass "ups.status '${online_status[$driver]}', then '$state' $(awk -v n="$(date +%s.%N)" -v s="$stale_at" 'BEGIN {printf "%.1f", n - s}') s after /metrics" ;;
        *) record "$driver" "stale while WinPower is down" FAIL "ups.status '${online_status[$driver]}', then '$state' 10 s after /metrics went stale" ;;
    esac
done

# --- 2. Drivers started while the UPS is stale ------------------------------------------------
# snmp-ups drops for good every object its start-up walk finds no instance of, so a driver that
# started now would never read the UPS. The agent serves no identification for a UPS it cannot
# read: the driver exits at detection and upsdrvctl starts it again until it can. upsdrvctl
# leaves a started driver in the background (a session of its own): stopped by its PID file.
# shellcheck disable=SC2016  # expanded when the hook runs
exit_hooks+=('for pidfile in "$NUT_STATEPATH"/snmp-ups-late-*.pid; do [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null; done')
for driver in "${late_drivers[@]}"; do
    /sbin/upsdrvctl -u "$me" start "$driver" >"$nut_dir/$driver.log" 2>&1 &
done
for driver in "${late_drivers[@]}"; do
    refused=""
    for _ in $(seq 100); do
        refused=$(grep -m1 -E "did not match this device|No supported device detected" "$nut_dir/$driver.log" || true)
        [ -n "$refused" ] && break
        sleep 0.1
    done
    state=$(status_of "$driver")
    if [ -n "$refused" ]; then
        record "$driver" "started while stale: refused" pass "'${refused#*: }'; upsc: '$state'"
    else
        record "$driver" "started while stale: refused" FAIL "no refusal in 10 s; upsc: '$state'; log: $(tail -n 3 "$nut_dir/$driver.log" | tr '\n' ' ')"
    fi
done

# --- 3. WinPower back: every driver reads the UPS again ---------------------------------------
simulator_up
back_at=$(date +%s.%N)
wait_for 30 up_is 1 || fail "the exporter did not collect again"
served_at=$(date +%s.%N)
echo "$name: WinPower back at $(since "$back_at") s, the exporter serves the UPS again at $(since "$served_at") s"
all=("${drivers[@]}" "${late_drivers[@]}")
declare -A read_at
pending=("${all[@]}")
deadline=$(awk -v t="$served_at" -v p="$poll" 'BEGIN {printf "%.3f", t + 5 * p}')
while [ "${#pending[@]}" -gt 0 ] && awk -v d="$deadline" -v n="$(date +%s.%N)" 'BEGIN {exit !(n < d)}'; do
    left=()
    for driver in "${pending[@]}"; do
        if upsc "$driver@$upsd_at" battery.charge >/dev/null 2>&1 \
            && upsc "$driver@$upsd_at" ups.status 2>/dev/null | grep -qw OL; then
            read_at[$driver]=$(date +%s.%N)
        else
            left+=("$driver")
        fi
    done
    pending=("${left[@]}")
    sleep 0.1
done
for driver in "${all[@]}"; do
    if [ -n "${read_at[$driver]:-}" ]; then
        after=$(awk -v a="${read_at[$driver]}" -v s="$served_at" 'BEGIN {printf "%.1f", a - s}')
        if awk -v a="$after" -v p="$poll" 'BEGIN {exit !(a <= 2 * p)}'; then
            record "$driver" "reads the UPS again" pass "${after} s after the exporter serves it (2 polls: $((2 * poll)) s)"
        else
            record "$driver" "reads the UPS again" FAIL "${after} s after the exporter serves it (2 polls: $((2 * poll)) s)"
        fi
    else
        record "$driver" "reads the UPS again" FAIL "not within $((5 * poll)) s: $(status_of "$driver")"
    fi
done
for driver in "${late_drivers[@]}"; do
    # upsdrvctl's output: one refusal per start while the UPS was stale; once started, the
    # driver logs to syslog.
    attempts=$(grep -cE "did not match this device|No supported device detected" "$nut_dir/$driver.log" || true)
    if [ "$attempts" -gt 0 ] && [ -n "${read_at[$driver]:-}" ]; then
        record "$driver" "started again until read" pass "$attempts starts refused, then one that read the UPS"
    else
        record "$driver" "started again until read" FAIL "$attempts starts refused; the UPS $([ -n "${read_at[$driver]:-}" ] && echo read || echo never read)"
    fi
done
check_values "${all[@]}"

# --- 4. No repeated warning -------------------------------------------------------------------
check_warnings "${drivers[@]}"
finish
