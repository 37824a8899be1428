#!/usr/bin/env bash
# The shipped monitoring files against a real Prometheus:
#   1. starts `wpexporter demo` (the embedded WinPower simulator) on a free loopback port;
#   2. starts Prometheus with deploy/prometheus/prometheus.yml, rewritten to scrape that port
#      every second and to evaluate deploy/prometheus/alerts.yml every second;
#   3. waits (bounded, polling; E2E_TIMEOUT seconds, default 150) until a full minute of samples
#      exists, then asserts through the HTTP API: up == 1; every connected device has
#      winpower_device_load_total_watts; rate(winpower_device_energy_joules_total[1m]) agrees
#      with the mean load within 5%; UPSOnBattery is pending or firing for exactly the devices
#      the simulator keeps on battery; every query of the Grafana dashboard is valid PromQL;
#   4. runs `promtool check metrics` on a live scrape; only the seed metric names kept for
#      compatibility (docs/metrics.md) may draw lint remarks.
# About 75 s (the minute of samples). Installs Debian's prometheus when missing.
#
#   IntegrationTests/tests_04_prometheus/test_01_scrape_and_alerts.sh
set -euo pipefail
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
timeout_s="${E2E_TIMEOUT:-150}"
scripts/ci/tools.sh tests prometheus   # prometheus, promtool, curl, python3 and PyYAML

# --- 1. the exporter in demo mode
start_demo "$work/exporter.log"
wait_http 60 "$demo_base/-/ready" || fail "wpexporter demo did not become ready on $demo_base"
echo "exporter (demo) ready on $demo_base (pid $demo)"

# --- 2. Prometheus with the shipped configuration, pointed at the exporter
python3 - deploy/prometheus/prometheus.yml "$work/prometheus.yml" "${demo_base#http://}" "$PWD/deploy/prometheus/alerts.yml" <<'PY'
import sys
import yaml
source, target, address, rules = sys.argv[1:]
config = yaml.safe_load(open(source, encoding="utf-8"))
config["global"].update({"scrape_interval": "1s", "scrape_timeout": "1s", "evaluation_interval": "1s"})
config["rule_files"] = [rules]
config.pop("alerting", None)           # no Alertmanager here; alert states are read from the API
jobs = [job for job in config["scrape_configs"] if job["job_name"] == "wpexporter"]
if len(jobs) != 1:
    sys.exit("deploy/prometheus/prometheus.yml has no single 'wpexporter' job")
job = jobs[0]
job.update({"scrape_interval": "1s", "scrape_timeout": "1s"})
job["static_configs"] = [{"targets": [address]}]
config["scrape_configs"] = [job]
yaml.safe_dump(config, open(target, "w", encoding="utf-8"), sort_keys=False)
PY
promtool check config "$work/prometheus.yml" >/dev/null
start_listening "$work/prometheus.log" /-/ready prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb"
echo "Prometheus ready on 127.0.0.1:$listener_port (pid $listener_pid)"

# --- 3. wait for a full minute of samples, then assert through the HTTP API
python3 - "http://127.0.0.1:$listener_port" "$timeout_s" <<'PY'
import json, sys, time, urllib.parse, urllib.request

base, limit = sys.argv[1], float(sys.argv[2])
deadline = time.monotonic() + limit

def query(expr):
    url = f"{base}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=5) as response:
        body = json.load(response)
    if body.get("status") != "success":
        raise SystemExit(f"FAIL: query {expr!r}: {body}")
    return body["data"]["result"]

def by_device(expr):
    return {r["metric"].get("device_id"): float(r["value"][1]) for r in query(expr)}

def wait_for(what, check):
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise SystemExit(f"FAIL: timed out waiting for {what}")
        time.sleep(1)

# Scrapes are 1 s apart; 62 samples of `up` means the 1-minute windows below are covered.
wait_for("62 scrapes", lambda: any(float(r["value"][1]) >= 62 for r in query('count_over_time(up{job="wpexporter"}[70s])')))

up = query('up{job="wpexporter"}')
if len(up) != 1 or up[0]["value"][1] != "1":
    raise SystemExit(f"FAIL: up == 1 expected, got {up}")
print("ok: up == 1")

devices = by_device("winpower_device_info")
if not devices:
    raise SystemExit("FAIL: no winpower_device_info series")
connected = {d for d, v in by_device("winpower_device_connected").items() if v == 1}
load = by_device("winpower_device_load_total_watts")
missing = sorted(connected - set(load))
if not connected or missing:
    raise SystemExit(f"FAIL: connected devices without winpower_device_load_total_watts: {missing} (connected: {sorted(connected)})")
print(f"ok: {len(devices)} devices, all {len(connected)} connected ones have winpower_device_load_total_watts")

rate = by_device("rate(winpower_device_energy_joules_total[1m])")
mean = by_device("avg_over_time(winpower_device_load_total_watts[1m])")
for device in sorted(connected):
    r, m = rate.get(device), mean.get(device)
    if r is None or m is None or m <= 0:
        raise SystemExit(f"FAIL: device {device}: energy rate {r} or mean load {m} missing")
    error = abs(r - m) / m
    if error > 0.05:
        raise SystemExit(f"FAIL: device {device}: rate(energy[1m]) = {r:.2f} W but mean load = {m:.2f} W ({error:.1%} apart)")
    print(f"ok: {device}: rate(energy[1m]) = {r:.2f} W, mean load {m:.2f} W ({error:.2%} apart)")

on_battery = {d for d, v in by_device("winpower_device_on_battery").items() if v == 1}
if not on_battery:
    raise SystemExit("FAIL: the demo keeps no device on battery")
# The simulator keeps device 1 on battery; its id is fixed.
simulator_device_1 = "5e1a7a0c-0001-4b35-b0dd-000000000001"
if simulator_device_1 in devices and simulator_device_1 not in on_battery:
    raise SystemExit(f"FAIL: simulator device 1 ({simulator_device_1}) is not reported on battery")
alerts = wait_for("UPSOnBattery", lambda: {r["metric"]["device_id"]: r["metric"]["alertstate"]
                                           for r in query('ALERTS{alertname="UPSOnBattery"}')})
if set(alerts) != on_battery or not set(alerts.values()) <= {"pending", "firing"}:
    raise SystemExit(f"FAIL: UPSOnBattery {alerts}; devices on battery: {sorted(on_battery)}")
print(f"ok: UPSOnBattery {', '.join(f'{d}={s}' for d, s in sorted(alerts.items()))}")

# Every query of the Grafana dashboard is valid PromQL and most return data from the demo.
dashboard = json.load(open("deploy/grafana/dashboards/wpexporter.json", encoding="utf-8"))
exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
empty = []
for expr in exprs:
    concrete = (expr.replace("$instance", ".*").replace("$device", ".+").replace("$__range", "5m"))
    if not query(concrete):
        empty.append(expr)
print(f"ok: {len(exprs)} dashboard queries valid, {len(exprs) - len(empty)} with data")
for expr in empty:
    print(f"  no data yet (fine for counters of rare events): {expr}")
PY

# --- 4. promtool check metrics on a live scrape
curl -fsS --max-time 5 "$demo_base/metrics" >"$work/scrape.txt"
set +e
promtool check metrics <"$work/scrape.txt" >"$work/lint.txt" 2>&1
lint_status=$?
set -e
python3 - "$work/lint.txt" "$lint_status" docs/metrics.md scripts/seed-metric-names.txt <<'PY'
import os, re, sys
lint_path, status, doc, seed_path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
# Names kept exactly from the exporter this one replaces, so existing dashboards keep working.
seed = {line.strip() for line in open(seed_path, encoding="utf-8") if line.strip() and not line.startswith("#")}
if os.path.exists(doc):
    documented = set(re.findall(r"\b(winpower_[a-z0-9_]+)", open(doc, encoding="utf-8").read()))
    seed &= documented
lines = [line.strip() for line in open(lint_path, encoding="utf-8") if line.strip()]
bad = [line for line in lines if line.split()[0] not in seed]
if bad or (status not in (0, 3)):
    print("FAIL: promtool check metrics:", *(bad or lines), sep="\n  ", file=sys.stderr)
    sys.exit(1)
print(f"ok: promtool check metrics ({len(lines)} remarks, all on kept seed names)")
PY
