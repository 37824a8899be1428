# shellcheck shell=bash disable=SC2034  # sets variables its cases read
# Sourced by this group's NUT cases (never run alone): NUT's own SNMP driver as a client of the
# exporter's SNMP agent — Debian's upsd (nut-server) with `snmp-ups` drivers (nut-snmp) on the
# same simulated UPS, each of `mibs=ietf` and `mibs=auto` by SNMPv2c (`community@name`) and by
# SNMPv3 authPriv (AES-128; SHA-256 with ietf, SHA-1 with auto). It sources the harness and
# gives the cases:
#
#   start_agent [SIMULATE-ARG...]   the simulator (one UPS) and the exporter with its agent
#   write_nut DRIVER...             ups.conf, upsd.conf, upsd.users for these drivers
#   start_nut DRIVER...             these drivers (directly, in the foreground) and upsd
#   wait_online DRIVER...           until each reads the UPS on mains (OL)
#   check_values DRIVER...          upsc's values equal /metrics' (a row per driver)
#   check_warnings DRIVER...        no warning repeated in a driver's log after its start-up walk
#   record DRIVER WHAT RESULT [DETAIL], finish   the table's rows, and the table and the verdict
#
# Loopback only; every port is chosen at run time (the agent's, upsd's and the simulator's are
# bound to port 0 and read back). Installs nut-server, nut-snmp and nut-client when missing.
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
snmp_ups=/lib/nut/snmp-ups upsd=/lib/nut/upsd
scripts/ci/tools.sh nut   # upsd, snmp-ups, upsdrvctl, upsmon, upsc
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
# mibs_of DRIVER: ietf or auto (a driver is named MIBS-VERSION, late-MIBS-VERSION when started
# by upsdrvctl later).
mibs_of() { local driver=${1#late-}; echo "${driver%-*}"; }

# --- The exporter and its agent ---------------------------------------------------------------
community='nut-c0mmunity'
ups=rack-ups
# The runtime the simulator reports on battery is (95 - t/120) × 75 s at t seconds from its start,
# so 7112 s when an outage starts at 20 s, under 7105 s (LB) from 32 s. A case that sets low
# empty before sourcing configures no nut.battery_runtime_low.
low=${low-7105}

# start_agent [SIMULATE-ARG...]: the simulator with one UPS (and these arguments), then the
# exporter with collections every 4 s (the readings compared between upsc and /metrics hold still
# between them) and its agent: the community, two v3 users (nut-sha256: SHA-256/AES, nut-sha1:
# SHA/AES), traps to 127.0.0.1:$trap_port (community traps-c0mm) when the case set trap_port.
# Sets sim_started (the simulator's time 0) and agent_port.
start_agent() {
    {
        printf 'communities:\n  - community: %s\n' "$community"
        printf 'users:\n  nut-sha256:\n    auth_password: auth-sha256-pw\n    priv_password: priv-sha256-pw\n'
        printf '  nut-sha1:\n    auth_protocol: SHA\n    auth_password: auth-sha1-pw\n    priv_password: priv-sha1-pw\n'
        [ -z "${trap_port:-}" ] || printf 'traps:\n  - address: 127.0.0.1:%s\n    community: traps-c0mm\n' "$trap_port"
    } >"$work/snmp-users.yml"
    chmod 600 "$work/snmp-users.yml"
    {
        printf 'winpower:\n  devices:\n    overrides:\n      %s:\n        name: %s\n' "$(device_id 0)" "$ups"
        printf 'snmp:\n  listen: 127.0.0.1:0\n  users_file: %s\n  default_ups: %s\n' "$work/snmp-users.yml" "$ups"
        [ -z "$low" ] || printf 'nut:\n  battery_runtime_low: %ss\n' "$low"
    } >"$work/config.yml"
    sim_started=$(date +%s.%N)
    start_simulator 1 "$@"
    start_exporter "$work/exporter.log" --config "$work/config.yml" --scheduler.collection_interval 4s
    # The agent bound port 0; it logs no address, /health shows the one it holds.
    agent_port=$(curl -sf "$base/health" | python3 -c 'import json, sys; print(json.load(sys.stdin)["snmp"]["listen"].rsplit(":", 1)[1])')
    [ "${agent_port:-0}" != 0 ] || fail "no SNMP agent port"
    echo "$name: exporter on $base, SNMP agent on 127.0.0.1:$agent_port (udp), WinPower simulated on $sim_port"
}

# --- upsd and the drivers ---------------------------------------------------------------------
nut_dir="$work/nut"
mkdir -p "$nut_dir/etc" "$nut_dir/state"
chmod 700 "$nut_dir/state"
export NUT_CONFPATH="$nut_dir/etc" NUT_STATEPATH="$nut_dir/state"

# write_nut DRIVER...: NUT's configuration for these drivers (every one upsd will know), polling
# every $poll s.
write_nut() {
    local driver
    {
        # upsdrvctl's: how often it starts a driver that exits during start-up, and how long it
        # waits in between (the drivers started directly by start_nut do not read them).
        printf 'maxretry = 300\nretrydelay = 1\n'
        for driver in "$@"; do
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
}

# start_nut DRIVER...: these drivers, each logging to $nut_dir/DRIVER.log, then upsd. Sets
# upsd_at (127.0.0.1:PORT).
start_nut() {
    local driver
    for driver in "$@"; do
        "$snmp_ups" -a "$driver" -u "$me" -F >"$nut_dir/$driver.log" 2>&1 &
    done
    "$upsd" -u "$me" -F >"$nut_dir/upsd.log" 2>&1 &
    # upsd binds port 0 as told (it logs "port 0"): its port is read from the socket it holds.
    upsd_port=$(socket_port $!)
    [ -n "$upsd_port" ] || fail "upsd is not listening"
    upsd_at="127.0.0.1:$upsd_port"
    echo "$name: upsd $(dpkg-query -W -f '${Version}' nut-server) on $upsd_at, snmp-ups $(dpkg-query -W -f '${Version}' nut-snmp): $*"
}

# status_of DRIVER: its ups.status through upsd (or upsc's error).
status_of() { upsc "$1@$upsd_at" ups.status 2>&1 | grep -v '^Init SSL' || true; }

# wait_online DRIVER...: waits up to 20 s for each to read the UPS on mains (ups.status OL);
# sets online_status[DRIVER] to the last status read.
declare -A online_status
wait_online() {
    local driver
    for driver in "$@"; do
        for _ in $(seq 100); do
            online_status[$driver]=$(status_of "$driver")
            case "${online_status[$driver]}" in OL*) break ;; esac
            sleep 0.2
        done
    done
}

metric() {  # FAMILY: the first sample of the family on /metrics (empty when absent)
    curl -s -m 10 "$base/metrics" | awk -v f="$1" '($1 == f || index($1, f "{") == 1) {print $NF; exit}'
}
up_is() { [ "$(metric winpower_exporter_up)" = "$1" ]; }  # 0 or 1

# --- upsc's values equal /metrics' ------------------------------------------------------------
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
# check_values DRIVER...: a row "values equal /metrics" per driver. The driver polls every 2 s,
# and upsd serves its last poll: one made before the collection that /metrics shows differs from
# it. So a difference is read again too (a poll later); only what differs on every one of 20
# tries (10 s, five polls) fails.
check_values() {
    local driver outcome
    for driver in "$@"; do
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
}

# check_warnings DRIVER...: a row "no repeated warning" per driver started by start_nut.
# Warnings only: the driver's start-up walk logs each object the agent does not serve once per
# NUT variable reading it (the bypass table's cells are read by two variables each: logged twice,
# once), so only a line logged again after it (up to "sock_connect", when the driver opens its
# socket for upsd) is a repeated warning. Left out: the driver's notices "data stale for V" and
# "data resumed for V", logged once per change for each object read into V (ups.status is read
# from three: upsOutputSource, upsBatteryStatus, upsTestId), counted apart; and one warning, as
# snmp-ups before 2.8.5 follows every OBJECT IDENTIFIER value with a GET of the OID it names and
# logs the noSuchObject it gets for upsTestId's value, upsTestNoTestsInitiated (an
# OBJECT-IDENTITY, not an object), at every poll (networkupstools/nut#1358, quiet from 2.8.5 on;
# no answer within RFC 1628 avoids it), counted apart too.
check_warnings() {
    local driver log init_lines known transitions repeated
    local nut1358="unhandled ASN 0x80 received from .1.3.6.1.2.1.33.1.7.7.1"
    for driver in "$@"; do
        log="$nut_dir/$driver.log"
        init_lines=$(grep -n -m1 '^sock_connect' "$log" | cut -d: -f1 || true)
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
}

# finish: the table of every row, the case's time, and its verdict (exits 1 when a row failed).
finish() {
    local client row driver what result detail version
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
}
