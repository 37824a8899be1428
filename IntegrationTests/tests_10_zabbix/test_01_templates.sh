#!/usr/bin/env bash
# deploy/zabbix's templates in a real Zabbix 6.0 (Debian's zabbix-server-pgsql and frontend, a
# PostgreSQL cluster of the case's own, the API through the frontend's PHP):
#   - both templates import through the API (configuration.import), in English, then in Chinese
#     over them (the same UUIDs: updated in place), then in English again;
#   - "wpexporter by HTTP" on `wpexporter demo --servers 3` (two simulated WinPower servers of six
#     UPSs each, in every state, and one down) discovers every UPS of every server and every server;
#     and on a `wpexporter server` without a `servers` section (no server label) every UPS too;
#   - "UPS-MIB by SNMP" on that exporter's SNMP agent, one host per UPS (v2c `community@name`,
#     and SNMPv3 authPriv with the UPS's context);
#   - every discovered item's value is one /metrics (or snmpbulkwalk) served meanwhile, and an item
#     is unsupported only where the source has no such series;
#   - the demo's states fire their triggers (on battery, fault, disconnected, WinPower unreachable),
#     never "on battery" for the UPS in a battery self-test;
#   - a UPS's scheduled self-test fires nothing on its HTTP and SNMP hosts; its outage that follows
#     fires "on battery" on both, and both resolve once mains is back.
# About 3.5 minutes (PostgreSQL and Zabbix's schema about 12 s, discovery and values about 60 s, the
# schedule until 2.5 minutes after the simulator's start). Runs in network and mount
# namespaces of its own (PostgreSQL, zabbix_server's trapper and the frontend on their usual fixed
# ports, which nothing else can reach; the frontend's configuration file bound over /etc/zabbix
# there only); needs root for the namespaces, runs PostgreSQL as its postgres user.
#
#   IntegrationTests/tests_10_zabbix/test_01_templates.sh
set -euo pipefail
if [ -z "${WP_ZABBIX_NETNS:-}" ]; then
    # Installed before the namespace, which has no route out.
    (cd "$(dirname "$0")/../.." && scripts/ci/tools.sh tests zabbix)   # curl, python3, net-snmp's tools, Zabbix, PostgreSQL
    # shellcheck disable=SC2016  # $0 is the inner shell's: this script
    exec unshare --net --mount env WP_ZABBIX_NETNS=1 bash -c 'ip link set lo up && exec bash "$0"' "$0"
fi
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
check=IntegrationTests/tests_10_zabbix/zabbix_check.py
began=$SECONDS

# --- PostgreSQL: a cluster in the scratch directory, as the postgres user ---------------------
pg_bins=(/usr/lib/postgresql/*/bin)
pg_bin=${pg_bins[-1]}   # the newest installed (Debian 12: 15)
chmod 711 "$work"
mkdir -p "$work/pg"
chown postgres: "$work/pg"
as_postgres() { su postgres -s /bin/sh -c "$1"; }
as_postgres "'$pg_bin/initdb' -D '$work/pg/data' -U postgres -A trust -E UTF8 --locale C.UTF-8 >'$work/pg/initdb.log' 2>&1" \
    || fail "initdb failed"
exit_hooks+=("as_postgres \"'$pg_bin/pg_ctl' -D '$work/pg/data' -m immediate stop\" >/dev/null 2>&1")
# fsync off: a scratch database, thrown away at the end.
as_postgres "'$pg_bin/pg_ctl' -D '$work/pg/data' -l '$work/pg/postgresql.log' -w -o \"-k '$work/pg' -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off\" start" >/dev/null \
    || fail "PostgreSQL did not start"
psql -h 127.0.0.1 -U postgres -q -v ON_ERROR_STOP=1 -c "CREATE ROLE zabbix LOGIN PASSWORD 'zabbix'" \
    -c "CREATE DATABASE zabbix OWNER zabbix ENCODING 'UTF8' TEMPLATE template0" || fail "cannot create Zabbix's database"
schema=/usr/share/zabbix-server-pgsql
for part in schema images data; do zcat "$schema/$part.sql.gz"; done |
    PGPASSWORD=zabbix psql -h 127.0.0.1 -U zabbix -d zabbix -q -v ON_ERROR_STOP=1 >"$work/schema.log" 2>&1 \
    || fail "Zabbix's schema ($schema) did not load"
echo "$name: PostgreSQL and Zabbix's schema ready after $((SECONDS - began)) s"

# --- zabbix_server, in the foreground; the frontend's PHP on 127.0.0.1:8080 ---------------------
mkdir -p "$work/zabbix" "$work/etc"
cat >"$work/zabbix/zabbix_server.conf" <<CONF
LogFile=$work/zabbix/server.log
LogFileSize=0
PidFile=$work/zabbix/server.pid
SocketDir=$work/zabbix
DBHost=127.0.0.1
DBName=zabbix
DBUser=zabbix
DBPassword=zabbix
ListenIP=127.0.0.1
AllowRoot=1
CacheUpdateFrequency=1
ProblemHousekeepingFrequency=60
StartPollers=3
StartPollersUnreachable=1
StartTrappers=2
StartPingers=0
StartDiscoverers=0
StartHTTPPollers=0
StartPreprocessors=2
Timeout=5
CONF
# In a session of its own, stopped before PostgreSQL: with its database gone it retries forever
# and takes no SIGTERM.
setsid /usr/sbin/zabbix_server -f -c "$work/zabbix/zabbix_server.conf" >"$work/zabbix/stdout.log" 2>&1 &
zabbix_pid=$!
zabbix_stopped() { ! kill -0 -- "-$zabbix_pid" 2>/dev/null; }
stop_zabbix() {
    kill -TERM -- "-$zabbix_pid" 2>/dev/null || return 0
    wait_for 30 zabbix_stopped || kill -KILL -- "-$zabbix_pid" 2>/dev/null || true
    wait "$zabbix_pid" 2>/dev/null || true
}
exit_hooks=(stop_zabbix "${exit_hooks[@]}")
# Debian's frontend reads /etc/zabbix/zabbix.conf.php: ours is bound there in this mount namespace.
cat >"$work/etc/zabbix.conf.php" <<'PHP'
<?php
$DB['TYPE'] = 'POSTGRESQL';
$DB['SERVER'] = '127.0.0.1';
$DB['PORT'] = '5432';
$DB['DATABASE'] = 'zabbix';
$DB['USER'] = 'zabbix';
$DB['PASSWORD'] = 'zabbix';
$DB['SCHEMA'] = '';
$DB['ENCRYPTION'] = false;
$DB['DOUBLE_IEEE754'] = true;
$ZBX_SERVER = '127.0.0.1';
$ZBX_SERVER_PORT = '10051';
$ZBX_SERVER_NAME = 'wpexporter check';
$IMAGE_FORMAT_DEFAULT = IMAGE_FORMAT_PNG;
PHP
mkdir -p /etc/zabbix
mount --bind "$work/etc" /etc/zabbix
php -S 127.0.0.1:8080 -t /usr/share/zabbix >"$work/php.log" 2>&1 &
api_answers() { curl -sf -m 10 -H 'Content-Type: application/json-rpc' -d '{"jsonrpc":"2.0","method":"apiinfo.version","params":{},"id":1}' \
    http://127.0.0.1:8080/api_jsonrpc.php | grep -q '"result"'; }
wait_for 60 api_answers || fail "Zabbix's API does not answer on 127.0.0.1:8080"
wait_for 60 grep -qs 'server #[0-9]* started \[poller' "$work/zabbix/server.log" || fail "zabbix_server did not start its pollers"
version=$(dpkg-query -W -f '${Version}' zabbix-server-pgsql)
echo "$name: Zabbix $version (server, frontend and API) ready after $((SECONDS - began)) s"

# --- The templates, in English, in Chinese over them, in English again --------------------------
python3 "$check" import deploy/zabbix/wpexporter_by_http.yaml deploy/zabbix/ups_mib_by_snmp.yaml \
    deploy/zabbix/zh-CN/wpexporter_by_http.yaml deploy/zabbix/zh-CN/ups_mib_by_snmp.yaml \
    deploy/zabbix/wpexporter_by_http.yaml deploy/zabbix/ups_mib_by_snmp.yaml

# --- The exporters: the demo (three servers), and one server with a schedule and an SNMP agent ----
start_demo "$work/demo.log" --servers 3
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

# --- Hosts: intervals and trigger periods shortened by host macros -------------------------------
fast_http=(WPX.INTERVAL=1s WPX.ONBATT.FOR=3s WPX.RESOLVE.AFTER=5s WPX.FAULT.FOR=3s WPX.WARN.FOR=3s WPX.UNREACHABLE.FOR=3s)
fast_snmp=(UPS.INTERVAL=1s UPS.INVENTORY.INTERVAL=2s UPS.ALARM.DISCOVERY=3s UPS.LINE.DISCOVERY=3s UPS.ONBATT.FOR=3s UPS.RESOLVE.AFTER=5s)
python3 "$check" http-host demo "$demo_base/metrics" "${fast_http[@]}"
python3 "$check" http-host exporter "$base/metrics" "${fast_http[@]}"
python3 "$check" snmp-host ups-0 "$agent_port" "SNMP_COMMUNITY=$community@ups-0" "${fast_snmp[@]}"
python3 "$check" snmp-host ups-1 "$agent_port" SNMPV3=1 UPS.SNMPV3.USER=zabbix UPS.SNMPV3.CONTEXT=ups-1 \
    UPS.SNMPV3.AUTHPASS=zabbix-auth-secret UPS.SNMPV3.PRIVPASS=zabbix-priv-secret "${fast_snmp[@]}"
python3 "$check" snmp-host ups-2 "$agent_port" "SNMP_COMMUNITY=$community@ups-2" "${fast_snmp[@]}"

# --- Discovery, then every value against its source --------------------------------------------
python3 "$check" values 60 "demo=$demo_base/metrics" "exporter=$base/metrics" \
    "ups-0=snmp:$agent_port:-v2c -c $community@ups-0" \
    "ups-1=snmp:$agent_port:-v3 -l authPriv -u zabbix -a SHA-256 -A zabbix-auth-secret -x AES -X zabbix-priv-secret -n ups-1" \
    "ups-2=snmp:$agent_port:-v2c -c $community@ups-2" || fail "discovered items and their sources differ"
echo "$name: discovery and values checked after $((SECONDS - began)) s"
[ $((SECONDS - sim_started)) -lt "$test_start" ] \
    || fail "Zabbix polled every item only $((SECONDS - sim_started)) s after the simulator started, after the self-test began ($test_start s)"

# --- The demo's states: their triggers fire, the self-test's UPS never "on battery" ---------------
demo_problems() { python3 "$check" problems demo >"$work/demo-problems.jsonl"; }
demo_fired() {
    demo_problems
    grep -q 'WinPower server wp-3: unreachable' "$work/demo-problems.jsonl" &&
        [ "$(grep -c '): on battery' "$work/demo-problems.jsonl")" -ge 2 ] &&
        [ "$(grep -c '): reports a fault' "$work/demo-problems.jsonl")" -ge 2 ] &&
        [ "$(grep -c '): disconnected from WinPower' "$work/demo-problems.jsonl")" -ge 2 ]
}
wait_for 60 demo_fired || fail "the demo's states did not fire their triggers: $(cat "$work/demo-problems.jsonl")"
if grep '): on battery' "$work/demo-problems.jsonl" | grep -q '机房 UPS 3'; then
    fail "the UPS in a battery self-test fired 'on battery': $(cat "$work/demo-problems.jsonl")"
fi
echo "$name: the demo's problems: $(python3 -c 'import json, sys; print("; ".join(sorted({json.loads(l)["name"] for l in open(sys.argv[1], encoding="utf-8")})))' "$work/demo-problems.jsonl")"

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
