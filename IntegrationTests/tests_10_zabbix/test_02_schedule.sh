#!/usr/bin/env bash
# deploy/zabbix's templates in a real Zabbix 6.0 (tests_10_zabbix/zabbix.sh, as test_01_templates.sh)
# on one exporter without a `servers` section, with an SNMP agent, and a UPS's schedule:
#   - "wpexporter by HTTP" on that exporter discovers every UPS (no server label);
#   - "UPS-MIB by SNMP" on its SNMP agent, one host per UPS (v2c `community@name`, and SNMPv3
#     authPriv with the UPS's context);
#   - every discovered item's value is one /metrics or snmpbulkwalk served meanwhile, and an item
#     is unsupported only where the source has no such series;
#   - a UPS's scheduled self-test fires nothing on its HTTP and SNMP hosts; its outage that follows
#     fires "on battery" on both, and both resolve once mains is back.
# About 3.5 minutes (202 s measured): Zabbix ready after 15 to 30 s, then the schedule runs until
# 2.5 minutes after the simulator's start (Zabbix polls every item within about 40 s of it,
# before the self-test).
#
#   IntegrationTests/tests_10_zabbix/test_02_schedule.sh

set -euo pipefail
# shellcheck source=IntegrationTests/tests_10_zabbix/zabbix.sh
source "$(dirname "$0")/zabbix.sh"

# --- The templates, in English --------------------------------------------------------------------
python3 "$check" import deploy/zabbix/wpexporter_by_http.yaml deploy/zabbix/ups_mib_by_snmp.yaml

# --- An exporter without `servers`, with an SNMP agent, on a simulator with a schedule ------------
community=zbx-c0mmunity
printf 'communities:\n  - community: %s\nusers:\n  zabbix:\n    auth_password: zabbix-auth-secret\n    priv_password: zabbix-priv-secret\n' \
    "$community" >"$work/snmp-users.yml"
chmod 600 "$work/snmp-users.yml"
{
    printf 'winpower:\n  devices:\n    overrides:\n'
    for i in 0 1 2; do printf '      %s:\n        name: ups-%s\n' "$(device_id "$i")" "$i"; done
    printf 'snmp:\n  listen: 127.0.0.1:0\n  users_file: %s\n' "$work/snmp-users.yml"
} >"$work/config.yml"
# The simulator's UPS 0 is on mains (1 on battery, 2 disconnected): it runs a self-test at 90-110 s,
# then loses mains at 130-155 s (from the simulator's start; Zabbix polls everything within about 60 s).
test_start=90 test_length=20 outage_start=130 outage_length=25
start_simulator 3 --outage-schedule "0:$test_start+$test_length/batteryTest,0:$outage_start+$outage_length"
sim_started=$SECONDS
start_exporter "$work/exporter.log" --config "$work/config.yml"
agent_port=$(await_port "$work/exporter.log" '"udp server listening"')
[ -n "$agent_port" ] || fail "the exporter's SNMP agent did not listen"

# --- Hosts: intervals and trigger periods shortened by host macros --------------------------------
fast_http=(WPX.INTERVAL=1s WPX.ONBATT.FOR=3s WPX.RESOLVE.AFTER=5s WPX.FAULT.FOR=3s WPX.WARN.FOR=3s WPX.UNREACHABLE.FOR=3s)
fast_snmp=(UPS.INTERVAL=1s UPS.INVENTORY.INTERVAL=2s UPS.ALARM.DISCOVERY=3s UPS.LINE.DISCOVERY=3s UPS.ONBATT.FOR=3s UPS.RESOLVE.AFTER=5s)
python3 "$check" http-host exporter "$base/metrics" "${fast_http[@]}"
python3 "$check" snmp-host ups-0 "$agent_port" "SNMP_COMMUNITY=$community@ups-0" "${fast_snmp[@]}"
python3 "$check" snmp-host ups-1 "$agent_port" SNMPV3=1 UPS.SNMPV3.USER=zabbix UPS.SNMPV3.CONTEXT=ups-1 \
    UPS.SNMPV3.AUTHPASS=zabbix-auth-secret UPS.SNMPV3.PRIVPASS=zabbix-priv-secret "${fast_snmp[@]}"
python3 "$check" snmp-host ups-2 "$agent_port" "SNMP_COMMUNITY=$community@ups-2" "${fast_snmp[@]}"

# --- Discovery, then every value against its source -----------------------------------------------
python3 "$check" values 60 "exporter=$base/metrics" \
    "ups-0=snmp:$agent_port:-v2c -c $community@ups-0" \
    "ups-1=snmp:$agent_port:-v3 -l authPriv -u zabbix -a SHA-256 -A zabbix-auth-secret -x AES -X zabbix-priv-secret -n ups-1" \
    "ups-2=snmp:$agent_port:-v2c -c $community@ups-2" || fail "discovered items and their sources differ"
echo "$name: discovery and values checked after $((SECONDS - began)) s"
[ $((SECONDS - sim_started)) -lt "$test_start" ] \
    || fail "Zabbix polled every item only $((SECONDS - sim_started)) s after the simulator started, after the self-test began ($test_start s)"

# --- The schedule: the self-test fires nothing, the outage fires "on battery" and resolves --------
# Every problem of UPS 0 on both hosts, with its time from the simulator's start.
sim_epoch=$(($(date +%s) - (SECONDS - sim_started)))
ups0_problems() {
    { python3 "$check" problems exporter | grep '"UPS ups-0 ' || true; python3 "$check" problems ups-0; } >"$work/ups-0-problems.jsonl"
}
resolved() {
    ups0_problems
    grep '"resolved": true' "$work/ups-0-problems.jsonl" | grep -q '"UPS ups-0 (server -): on battery"' &&
        grep '"resolved": true' "$work/ups-0-problems.jsonl" | grep -q '"UPS ups-0: on battery"'
}
wait_for $((outage_start + outage_length + 60 - (SECONDS - sim_started))) resolved \
    || fail "the outage of UPS 0 did not fire and resolve 'on battery' on both hosts: $(cat "$work/ups-0-problems.jsonl")"
# The self-test ended at test_start + test_length; a problem it fired would start before the outage.
early=$(python3 -c 'import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    event = json.loads(line)
    if event["clock"] - int(sys.argv[2]) < int(sys.argv[3]): print(event)' "$work/ups-0-problems.jsonl" "$sim_epoch" "$outage_start")
[ -z "$early" ] || fail "the self-test of UPS 0 fired a problem: $early"
echo "$name: UPS 0's problems (s from the simulator's start; self-test at $test_start-$((test_start + test_length)) s, outage at $outage_start-$((outage_start + outage_length)) s):"
python3 -c 'import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    event = json.loads(line)
    print("  %s: at %d s, resolved %s" % (event["name"], event["clock"] - int(sys.argv[2]), event["resolved"]))' "$work/ups-0-problems.jsonl" "$sim_epoch"
echo "$name: ok after $((SECONDS - began)) s"
