#!/usr/bin/env bash
# deploy/zabbix's templates in a real Zabbix 6.0 (tests_10_zabbix/zabbix.sh: Debian's
# zabbix-server-pgsql and frontend, a PostgreSQL cluster of the case's own, the API through the
# frontend's PHP, in network and mount namespaces of the case's own):
#   - both templates import through the API (configuration.import), in English, then in Chinese
#     over them (the same UUIDs: updated in place), then in English again;
#   - "wpexporter by HTTP" on `wpexporter demo --servers 3` (two simulated WinPower servers of six
#     UPSs each, in every state, and one down) discovers every UPS of every server and every server;
#   - every discovered item's value is one /metrics served meanwhile, and an item is unsupported
#     only where /metrics has no such series;
#   - the demo's states fire their triggers (on battery, fault, disconnected, WinPower unreachable),
#     never "on battery" for the UPS in a battery self-test.
# About 70 s (67 s measured: Zabbix ready after 15 to 30 s, discovery and values about 40 s).
# tests_10_zabbix/test_02_schedule.sh holds the SNMP template and a UPS's schedule.
#
#   IntegrationTests/tests_10_zabbix/test_01_templates.sh

set -euo pipefail
# shellcheck source=IntegrationTests/tests_10_zabbix/zabbix.sh
source "$(dirname "$0")/zabbix.sh"

# --- The templates, in English, in Chinese over them, in English again ----------------------------
python3 "$check" import deploy/zabbix/wpexporter_by_http.yaml deploy/zabbix/ups_mib_by_snmp.yaml \
    deploy/zabbix/zh-CN/wpexporter_by_http.yaml deploy/zabbix/zh-CN/ups_mib_by_snmp.yaml \
    deploy/zabbix/wpexporter_by_http.yaml deploy/zabbix/ups_mib_by_snmp.yaml

# --- The demo: three servers, one of them down ----------------------------------------------------
start_demo "$work/demo.log" --servers 3

# --- Its host: intervals and trigger periods shortened by host macros -----------------------------
fast_http=(WPX.INTERVAL=1s WPX.ONBATT.FOR=3s WPX.RESOLVE.AFTER=5s WPX.FAULT.FOR=3s WPX.WARN.FOR=3s WPX.UNREACHABLE.FOR=3s)
python3 "$check" http-host demo "$demo_base/metrics" "${fast_http[@]}"

# --- Discovery, then every value against /metrics -------------------------------------------------
python3 "$check" values 60 "demo=$demo_base/metrics" || fail "discovered items and /metrics differ"
echo "$name: discovery and values checked after $((SECONDS - began)) s"

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

echo "$name: ok after $((SECONDS - began)) s"
