#!/usr/bin/env bash
# NUT's own SNMP driver as a client of the exporter's SNMP agent (in CI): Debian's upsd
# (nut-server) with four `snmp-ups` drivers (nut-snmp) on the same simulated UPS, one for each
# of `mibs=ietf` and `mibs=auto` by SNMPv2c (`community@name`) and by SNMPv3 authPriv (AES-128;
# SHA-256 with ietf, SHA-1 with auto), and one upsmon (primary, nut-client) through upsd on each:
#
#   1. the values upsc reads equal what /metrics says for the UPS, after the UPS-MIB's units:
#      battery.runtime in whole minutes (× 60), battery.voltage, input/output.frequency and
#      output.current in tenths, the other numbers rounded to integers (the agent rounds to
#      nearest; upsc prints what the driver received);
#   2. ups.status shows OB when the simulated mains fail, LB as the runtime falls below
#      nut.battery_runtime_low, and OL when mains return;
#   3. the drivers, upsd and the upsmons start while WinPower (the simulator) is down; once the
#      UPS is stale on /metrics each driver reports "Data stale" (not the last readings), and
#      reads the UPS within two of its polls (pollinterval 2 s) of the exporter serving it
#      again; each upsmon runs its SHUTDOWNCMD (a script writing a file) on the OB LB that
#      follows;
#   3b. two more drivers (ietf by v2c, auto by v3) started by upsdrvctl once the UPS is already
#      stale: each fails to start (the agent serves no upsIdentModel for a UPS it cannot read)
#      and upsdrvctl starts it again (`maxretry`, `retrydelay 1` in ups.conf: what systemd's
#      nut-driver@ unit does every 15 s) until it reads the UPS, within two polls of the
#      exporter serving it; their upsmons shut down on the same OB LB;
#   4. no TEST in ups.status (no battery test runs), no warning line repeated in a driver's log
#      after its start-up walk (networkupstools/nut#1358's line counted apart: see below).
#
# A summary table is printed at the end; any failure exits non-zero. About 70 s.
#
#   IntegrationTests/tests_03_snmp/test_02_nut_snmp_ups.sh
#
# Needs root (upsmon runs as root, in a mount namespace of its own: unshare; upsd and the
# drivers run as the current user) and installs nut-server, nut-snmp and nut-client when
# missing. Loopback only; every port is chosen at run time (the agent's, upsd's and the
# simulator's are bound to port 0 and read back).
set -euo pipefail
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
snmp_ups=/lib/nut/snmp-ups upsd=/lib/nut/upsd
scripts/ci/tools.sh nut   # upsd, snmp-ups, upsdrvctl, upsmon, upsc
[ "$(id -u)" = 0 ] || { echo "$name: upsmon is run as root here; run as root" >&2; exit 64; }
started=$(date +%s.%N)
me=$(id -un)
poll=2                       # the drivers' pollinterval and pollfreq, seconds

# The table printed at the end: one row per check and driver.
results=()
failed=0
record() {  # DRIVER WHAT RESULT(pass/FAIL) [DETAIL]
    results+=("$1|$2|$3|${4:-}")
    [ "$3" = pass ] || failed=1
}
since() { awk -v t="$1" -v s="$started" 'BEGIN {printf "%.1f", t - s}'; }

# --- The exporter and its agent ---------------------------------------------------------------
community='nut-c0mmunity'
cat >"$work/snmp-users.yml" <<USERS
communities:
  - community: $community
users:
  nut-sha256:
    auth_password: auth-sha256-pw
    priv_password: priv-sha256-pw
  nut-sha1:
    auth_protocol: SHA
    auth_password: auth-sha1-pw
    priv_password: priv-sha1-pw
USERS
chmod 600 "$work/snmp-users.yml"
ups=rack-ups
# The runtime the simulator reports on battery is (95 - t/120) × 75 s at t seconds from its start,
# so 7112 s when an outage starts at 20 s, under 7105 s (LB) from 32 s.
low=7105
cat >"$work/config.yml" <<CONFIG
winpower:
  devices:
    overrides:
      $(device_id 0):
        name: $ups
snmp:
  listen: 127.0.0.1:0
  users_file: $work/snmp-users.yml
  default_ups: $ups
nut:
  battery_runtime_low: ${low}s
CONFIG
# Its outage comes 20 s after it is back from being down (below): LB from 32 s, mains at 45 s.
outage_start=20 outage_length=25
start_simulator 1 --outage-schedule "0:$outage_start+$outage_length"
# Collections every 4 s: the readings compared between upsc and /metrics hold still between them.
start_exporter "$work/exporter.log" --config "$work/config.yml" --scheduler.collection_interval 4s
# The agent bound port 0; it logs no address, /health shows the one it holds.
agent_port=$(curl -sf "$base/health" | python3 -c 'import json, sys; print(json.load(sys.stdin)["snmp"]["listen"].rsplit(":", 1)[1])')
[ "${agent_port:-0}" != 0 ] || fail "no SNMP agent port"
echo "$name: exporter on $base, SNMP agent on 127.0.0.1:$agent_port (udp), WinPower simulated on $sim_port"

# --- upsd, the drivers and the upsmons, started while WinPower is down ------------------------
simulator_down
down_at=$(date +%s.%N)
nut_dir="$work/nut"
mkdir -p "$nut_dir/etc" "$nut_dir/state"
chmod 700 "$nut_dir/state"
export NUT_CONFPATH="$nut_dir/etc" NUT_STATEPATH="$nut_dir/state"
drivers=(ietf-v2c ietf-v3 auto-v2c auto-v3)
# Started by upsdrvctl once the UPS is stale (3b); upsd knows them from the start.
late_drivers=(late-ietf-v2c late-auto-v3)
mibs_of() { local driver=${1#late-}; echo "${driver%-*}"; }
{
    # upsdrvctl's: how often it starts a driver that exits during start-up, and how long it waits
    # in between (the drivers started directly below do not read them).
    printf 'maxretry = 300\nretrydelay = 1\n'
    for driver in "${drivers[@]}" "${late_drivers[@]}"; do
        printf '[%s]\n\tdriver = snmp-ups\n\tport = 127.0.0.1:%s\n\tmibs = %s\n\tpollinterval = %s\n\tpollfreq = %s\n' \
            "$driver" "$agent_port" "$(mibs_of "$driver")" "$poll" "$poll"
        printf '\tsnmp_retries = 1\n\tsnmp_timeout = 1\n\tdesc = "%s"\n' "$driver through the exporter's agent"
        case "$driver" in
            *-v2c) printf '\tsnmp_version = v2c\n\tcommunity = "%s@%s"\n' "$community" "$ups" ;;
            *ietf-v3) printf '\tsnmp_version = v3\n\tsecLevel = authPriv\n\tsecName = nut-sha256\n\tauthProtocol = SHA256\n\tauthPassword = auth-sha256-pw\n\tprivProtocol = AES\n\tprivPassword = priv-sha256-pw\n' ;;
            *auto-v3) printf '\tsnmp_version = v3\n\tsecLevel = authPriv\n\tsecName = nut-sha1\n\tauthProtocol = SHA\n\tauthPassword = auth-sha1-pw\n\tprivProtocol = AES\n\tprivPassword = priv-sha1-pw\n' ;;
        esac
    done
} >"$nut_dir/etc/ups.conf"
printf 'LISTEN 127.0.0.1 0\nMAXAGE 15\n' >"$nut_dir/etc/upsd.conf"
printf '[monitor]\n\tpassword = monitor-pass\n\tupsmon primary\n' >"$nut_dir/etc/upsd.users"
chmod 600 "$nut_dir/etc/"*
for driver in "${drivers[@]}"; do
    "$snmp_ups" -a "$driver" -u "$me" -F >"$nut_dir/$driver.log" 2>&1 &
done
"$upsd" -u "$me" -F >"$nut_dir/upsd.log" 2>&1 &
# upsd binds port 0 as told (it logs "port 0"): its port is read from the socket it holds.
upsd_port=$(socket_port $!)
[ -n "$upsd_port" ] || fail "upsd is not listening"
upsd_at="127.0.0.1:$upsd_port"
echo "$name: upsd $(dpkg-query -W -f '${Version}' nut-server) on $upsd_at, snmp-ups $(dpkg-query -W -f '${Version}' nut-snmp): ${drivers[*]}"
for driver in "${drivers[@]}" "${late_drivers[@]}"; do
    start_upsmon "$driver" "$driver@$upsd_at" monitor monitor-pass primary
done

metric() {  # FAMILY: the first sample of the family on /metrics (empty when absent)
    curl -s -m 10 "$base/metrics" | awk -v f="$1" '($1 == f || index($1, f "{") == 1) {print $NF; exit}'
}
up_is() { [ "$(metric winpower_exporter_up)" = "$1" ]; }  # 0 or 1
# The drivers read the UPS while the exporter still serves its last readings; once they are
# older than the staleness window, the agent withdraws them and each driver's data goes stale
# (upsc: "Data stale"; upsmon: the UPS unavailable), never the last readings as if current.
declare -A connected_status
for driver in "${drivers[@]}"; do
    for _ in $(seq 100); do
        connected_status[$driver]=$(upsc "$driver@$upsd_at" ups.status 2>&1 | grep -v '^Init SSL' || true)
        case "${connected_status[$driver]}" in OL*) break ;; esac
        sleep 0.2
    done
done
wait_for 40 up_is 0 || fail "the exporter never went stale"
stale_at=$(date +%s.%N)
echo "$name: WinPower down at $(since "$down_at") s, the UPS stale on /metrics at $(since "$stale_at") s"
for driver in "${drivers[@]}"; do
    state=""
    for _ in $(seq 50); do
        state=$(upsc "$driver@$upsd_at" ups.status 2>&1 | grep -v '^Init SSL' || true)
        case "$state" in *"Data stale"*) break ;; esac
        sleep 0.2
    done
    case "$state" in
        *"Data stale"*) record "$driver" "stale while WinPower is down" pass "ups.status '${connected_status[$driver]}', then '$state' $(awk -v n="$(date +%s.%N)" -v s="$stale_at" 'BEGIN {printf "%.1f", n - s}') s after /metrics" ;;
        *) record "$driver" "stale while WinPower is down" FAIL "ups.status '${connected_status[$driver]}', then '$state' 10 s after /metrics went stale" ;;
    esac
done

# --- 3b. Drivers started while the UPS is stale -----------------------------------------------
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
    state=$(upsc "$driver@$upsd_at" ups.status 2>&1 | grep -v '^Init SSL' || true)
    if [ -n "$refused" ]; then
        record "$driver" "started while stale: refused" pass "'${refused#*: }'; upsc: '$state'"
    else
        record "$driver" "started while stale: refused" FAIL "no refusal in 10 s; upsc: '$state'; log: $(tail -n 3 "$nut_dir/$driver.log" | tr '\n' ' ')"
    fi
done
drivers+=("${late_drivers[@]}")

# --- WinPower back: an outage 20 s after it starts, LB from 32 s, mains back at 45 s -----------
simulator_up
sim_started=$(date +%s.%N)
wait_for 30 up_is 1 || fail "the exporter did not collect again"
served_at=$(date +%s.%N)
echo "$name: WinPower back at $(since "$sim_started") s, the exporter serves the UPS again at $(since "$served_at") s"
declare -A read_at
pending=("${drivers[@]}")
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
for driver in "${drivers[@]}"; do
    if [ -n "${read_at[$driver]:-}" ]; then
        after=$(awk -v a="${read_at[$driver]}" -v s="$served_at" 'BEGIN {printf "%.1f", a - s}')
        if awk -v a="$after" -v p="$poll" 'BEGIN {exit !(a <= 2 * p)}'; then
            record "$driver" "reads the UPS again" pass "${after} s after the exporter serves it (2 polls: $((2 * poll)) s)"
        else
            record "$driver" "reads the UPS again" FAIL "${after} s after the exporter serves it (2 polls: $((2 * poll)) s)"
        fi
    else
        record "$driver" "reads the UPS again" FAIL "not within $((5 * poll)) s: $(upsc "$driver@$upsd_at" ups.status 2>&1 | grep -v '^Init SSL' || true)"
    fi
done

# --- 1. upsc's values equal /metrics' (the UPS on mains, before the outage) -----------------
# NUT variable, /metrics family, and the scale the UPS-MIB carries it in (the agent rounds the
# reading times the scale to the nearest integer; the driver divides it back): 1 for whole
# units, 10 for tenths, 1/60 for minutes (battery.runtime is upsEstimatedMinutesRemaining × 60).
compared=(battery.charge:winpower_device_battery_capacity:1
    battery.runtime:winpower_device_battery_remain_seconds:0.016666666666666666
    battery.voltage:winpower_device_battery_voltage_volts:10
    battery.temperature:winpower_device_ups_temperature:1
    input.voltage:winpower_device_input_voltage:1
    input.frequency:winpower_device_input_frequency:10
    output.voltage:winpower_device_output_voltage:1
    output.frequency:winpower_device_output_frequency:10
    output.current:winpower_device_output_current:10
    ups.load:winpower_device_load_percent:1
    output.realpower:winpower_device_load_total_watts:1
    input.voltage.nominal:winpower_device_rated_voltage_volts:1)
# compare_values DRIVER: prints "ok N" when every variable equals its reading (from one
# collection: /metrics is read before and after upsc, and must not have changed), else the
# differences; "retry" when a collection came in between.
compare_values() {
    curl -s -m 10 "$base/metrics" >"$work/metrics-1"
    upsc "$1@$upsd_at" 2>/dev/null >"$work/upsc-$1" || true
    curl -s -m 10 "$base/metrics" >"$work/metrics-2"
    python3 - "$work/metrics-1" "$work/metrics-2" "$work/upsc-$1" "$low" "${compared[@]}" <<'PY'
import sys
def samples(path):
    out = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        key, value = line.rsplit(" ", 1)
        family = key.split("{", 1)[0]
        if "phase=" in key or family in out:
            continue
        out[family] = float(value)
    return out
first, second = samples(sys.argv[1]), samples(sys.argv[2])
upsc = dict(line.split(": ", 1) for line in open(sys.argv[3]).read().splitlines() if ": " in line)
low, pairs = float(sys.argv[4]), sys.argv[5:]
families = [p.split(":")[1] for p in pairs]
if any(first.get(f) != second.get(f) for f in families):
    print("retry"); sys.exit()
problems = []
for pair in pairs:
    var, family, scale = pair.split(":")
    scale = float(scale)
    if family not in first:
        problems.append(f"{family} not on /metrics"); continue
    expected = round(first[family] * scale) / scale   # the agent rounds half away from zero; no halves here
    got = upsc.get(var)
    if got is None:
        problems.append(f"{var} not read (/metrics {first[family]})")
    elif abs(float(got) - expected) > 1e-6:
        problems.append(f"{var} = {got}, /metrics {family} = {first[family]} -> {expected:g}")
# battery.runtime.low: upsConfigLowBattTime (whole minutes) × 60, from nut.battery_runtime_low.
if abs(float(upsc.get("battery.runtime.low", "nan")) - round(low / 60) * 60) > 1e-6:
    problems.append(f"battery.runtime.low = {upsc.get('battery.runtime.low')}, configured {low:g} s")
on_battery = first.get("winpower_device_on_battery")
status = upsc.get("ups.status", "").split()
if on_battery == 0 and ("OL" not in status or "OB" in status):
    problems.append(f"ups.status = {' '.join(status)} on mains")
print("ok %d" % (len(pairs) + 2) if not problems else "; ".join(problems))
PY
}
# The driver polls every 2 s, and upsd serves its last poll: one made before the collection that
# /metrics shows differs from it. So a difference is read again too (a poll later); only what
# differs on every one of 20 tries (10 s, five polls) fails.
for driver in "${drivers[@]}"; do
    outcome=retry
    for _ in $(seq 20); do
        outcome=$(compare_values "$driver")
        [[ "$outcome" != "ok "* ]] || break
        sleep 0.5
    done
    case "$outcome" in
        "ok "*) record "$driver" "values equal /metrics" pass "${outcome#ok } variables (listed above)" ;;
        *) record "$driver" "values equal /metrics" FAIL "$outcome" ;;
    esac
done
echo "$name: compared with /metrics: ${compared[*]%%:*} battery.runtime.low ups.status"

# --- 2. and 3. The outage: OB, then LB (the upsmons shut down), then OL -----------------------
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

# --- 4. No TEST, no repeated warning ----------------------------------------------------------
for driver in "${drivers[@]}"; do
    case "${statuses[$driver]:-}" in
        *TEST*) record "$driver" "no TEST in ups.status" FAIL "seen: ${statuses[$driver]}" ;;
        *) record "$driver" "no TEST in ups.status" pass "statuses seen:${statuses[$driver]:-}" ;;
    esac
    # Warnings only: the driver's start-up walk logs each object the agent does not serve once
    # per NUT variable reading it (the bypass table's cells are read by two variables each:
    # logged twice, once), so only a line logged again after it (up to "sock_connect", when
    # the driver opens its socket for upsd) is a repeated warning. Left out: the driver's
    # notices "data stale for V" and "data resumed for V", logged once per change for each
    # object read into V (ups.status is read from three: upsOutputSource, upsBatteryStatus,
    # upsTestId), counted apart; and one warning, as snmp-ups before 2.8.5 follows every
    # OBJECT IDENTIFIER value with a GET of the OID it names and logs the noSuchObject it gets
    # for upsTestId's value, upsTestNoTestsInitiated (an OBJECT-IDENTITY, not an object), at
    # every poll (networkupstools/nut#1358, quiet from 2.8.5 on; no answer within RFC 1628
    # avoids it), counted apart too.
    log="$nut_dir/$driver.log"
    case "$driver" in late-*)
        # upsdrvctl's output: one refusal per start while the UPS was stale; once started, the
        # driver logs to syslog.
        attempts=$(grep -cE "did not match this device|No supported device detected" "$log" || true)
        if [ "$attempts" -gt 0 ] && [ -n "${read_at[$driver]:-}" ]; then
            record "$driver" "started again until read" pass "$attempts starts refused, then one that read the UPS"
        else
            record "$driver" "started again until read" FAIL "$attempts starts refused; the UPS $([ -n "${read_at[$driver]:-}" ] && echo read || echo never read)"
        fi
        continue ;;
    esac
    init_lines=$(grep -n -m1 '^sock_connect' "$log" | cut -d: -f1 || true)
    nut1358="unhandled ASN 0x80 received from .1.3.6.1.2.1.33.1.7.7.1"
    known=$(grep -cF -- "$nut1358" "$log" || true)
    transitions=$(grep -cE 'data (stale|resumed) for ' "$log" || true)
    repeated=$(awk -v init="${init_lines:-0}" -v skip="$nut1358" 'index($0, skip) || /data (stale|resumed) for / { next }
        NR <= init { seen[$0]++; next } { if ($0 in seen) print; seen[$0]++ }' "$log" | sort | uniq -c | sort -rn)
    if [ -z "$repeated" ]; then
        record "$driver" "no repeated warning" pass "$(wc -l <"$log") lines, no warning repeated after start-up ($transitions stale/resumed notices; nut#1358's line: $known)"
    else
        record "$driver" "no repeated warning" FAIL "$(head -3 <<<"$repeated" | tr -s ' ' | tr '\n' ';')"
        sed "s/^/$name: $driver log: /" "$log" >&2
    fi
done

# --- The summary ---------------------------------------------------------------------------
client="snmp-ups $(dpkg-query -W -f '${Version}' nut-snmp), upsd/upsmon $(dpkg-query -W -f '${Version}' nut-server)"
echo
printf '%-44s %-5s %-34s %-30s %-4s %s\n' client mibs "snmp version" check result detail
for row in "${results[@]}"; do
    IFS='|' read -r driver what result detail <<<"$row"
    case "$driver" in
        *-v2c) version="v2c (community@name)" ;;
        *ietf-v3) version="v3 authPriv SHA-256/AES" ;;
        *auto-v3) version="v3 authPriv SHA/AES" ;;
    esac
    case "$driver" in late-*) version="$version, late" ;; esac
    printf '%-44s %-5s %-34s %-30s %-4s %s\n' "$client" "$(mibs_of "$driver")" "$version" "$what" "$result" "$detail"
done
echo "$name: $(awk -v s="$started" -v n="$(date +%s.%N)" 'BEGIN {printf "%.0f", n - s}') s"
if [ "$failed" != 0 ]; then fail "a check failed (the table above)"; fi
echo "$name: ok"
