#!/usr/bin/env bash
# End-to-end check of the shipped monitoring files against a real Prometheus:
#   1. starts `wpexporter demo` (the embedded WinPower simulator) on a free loopback port;
#   2. starts Prometheus with deploy/prometheus/prometheus.yml, rewritten to scrape that port
#      every second and to evaluate deploy/prometheus/alerts.yml every second;
#   3. waits (bounded, polling) until a full minute of samples exists, then asserts through the
#      HTTP API: up == 1; every connected device has winpower_device_load_total_watts;
#      rate(winpower_device_energy_joules_total[1m]) agrees with the mean load within 5%;
#      UPSOnBattery is pending or firing for exactly the devices the simulator keeps on battery;
#   4. runs `promtool check metrics` on a live scrape; only the seed metric names kept for
#      compatibility (docs/metrics.md) may draw lint remarks;
#   5. runs `wpexporter simulate` and `wpexporter server --push.url=...` against a real
#      prometheus-pushgateway and checks that the gateway then serves the device series;
#   6. starts `wpexporter demo` again behind TLS and basic auth (--web.config.file, with a
#      throwaway CA and a bcrypt hash made here), checks 401 without credentials, and has a
#      second real Prometheus scrape it with `tls_config` and `basic_auth` until up == 1;
#   7. runs `wpexporter simulate --servers 4` (one down) and an exporter with a `servers` list,
#      and a third Prometheus with the two jobs docs/deployment.md shows: `/metrics` must carry
#      every server (winpower_exporter_up, devices, site labels) and the probe job must
#      discover one target per server through `/targets`, all up, each with its own devices.
# Everything started is stopped by PID on exit. Reuses the debug build of `swift test`
# (WPEXPORTER_BIN overrides it). Installs Debian's prometheus and prometheus-pushgateway when
# missing. Skips (exit 0, saying why) when the build has no working `demo` command.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo="$(pwd)"

bin="${WPEXPORTER_BIN:-.build/debug/wpexporter}"
timeout_s="${E2E_TIMEOUT:-150}"

scripts/ci/tools.sh tests prometheus   # prometheus, promtool, prometheus-pushgateway, curl, htpasswd

if [[ ! -x "$bin" ]]; then
    echo "SKIP: $bin is not built (run 'swift build' or 'swift test' first)"
    exit 0
fi

work="$(mktemp -d)"
pids=()
cleanup() {
    local status=$?
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    if ((status != 0)); then
        for log in "$work"/*.log; do
            [[ -f "$log" ]] || continue
            echo "---- $(basename "$log") (last 20 lines)"
            tail -n 20 "$log"
        done
    fi
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# wait_http URL SECONDS PID [any]: polls URL until it answers 2xx (with "any": any HTTP
# status); returns 2 early when PID has exited, 1 on timeout.
wait_http() {
    local url=$1 limit=$2 pid=$3 accept=${4:-ok} start=$SECONDS fail_flag=-f
    [[ $accept == any ]] && fail_flag=-s
    while ((SECONDS - start < limit)); do
        if curl "$fail_flag" -s --max-time 2 -o /dev/null "$url" 2>/dev/null; then
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || return 2
        sleep 0.5
    done
    return 1
}

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# --- 1. the exporter in demo mode
exporter_port="$(free_port)"
"$bin" demo --server.host 127.0.0.1 --server.port "$exporter_port" --scheduler.collection_interval 1s \
    --storage.data_dir "$work/data" --logging.format console >"$work/exporter.log" 2>&1 &
exporter_pid=$!
pids+=("$exporter_pid")
if ! wait_http "http://127.0.0.1:$exporter_port/-/ready" 60 "$exporter_pid"; then
    if ! kill -0 "$exporter_pid" 2>/dev/null && grep -q "not available in this build" "$work/exporter.log"; then
        echo "SKIP: 'wpexporter demo' is not available in this build: $(head -n 1 "$work/exporter.log")"
        exit 0
    fi
    fail "wpexporter demo did not become ready on port $exporter_port"
fi
echo "exporter (demo) ready on 127.0.0.1:$exporter_port (pid $exporter_pid)"

# --- 2. Prometheus with the shipped configuration, pointed at the exporter
prometheus_port="$(free_port)"
python3 - "$repo/deploy/prometheus/prometheus.yml" "$work/prometheus.yml" "$exporter_port" "$repo/deploy/prometheus/alerts.yml" <<'PY'
import sys
import yaml
source, target, port, rules = sys.argv[1:]
config = yaml.safe_load(open(source, encoding="utf-8"))
config["global"].update({"scrape_interval": "1s", "scrape_timeout": "1s", "evaluation_interval": "1s"})
config["rule_files"] = [rules]
config.pop("alerting", None)           # no Alertmanager here; alert states are read from the API
jobs = [job for job in config["scrape_configs"] if job["job_name"] == "wpexporter"]
if len(jobs) != 1:
    sys.exit("deploy/prometheus/prometheus.yml has no single 'wpexporter' job")
job = jobs[0]
job.update({"scrape_interval": "1s", "scrape_timeout": "1s"})
job["static_configs"] = [{"targets": [f"127.0.0.1:{port}"]}]
config["scrape_configs"] = [job]
yaml.safe_dump(config, open(target, "w", encoding="utf-8"), sort_keys=False)
PY
promtool check config "$work/prometheus.yml" >/dev/null
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
    --web.listen-address="127.0.0.1:$prometheus_port" --log.level=warn >"$work/prometheus.log" 2>&1 &
prometheus_pid=$!
pids+=("$prometheus_pid")
wait_http "http://127.0.0.1:$prometheus_port/-/ready" 60 "$prometheus_pid" || fail "Prometheus did not become ready"
echo "Prometheus ready on 127.0.0.1:$prometheus_port (pid $prometheus_pid)"

# --- 3. wait for a full minute of samples, then assert through the HTTP API
python3 - "http://127.0.0.1:$prometheus_port" "$timeout_s" <<'PY'
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
curl -fsS --max-time 5 "http://127.0.0.1:$exporter_port/metrics" >"$work/scrape.txt"
set +e
promtool check metrics <"$work/scrape.txt" >"$work/lint.txt" 2>&1
lint_status=$?
set -e
python3 - "$work/lint.txt" "$lint_status" docs/metrics.md <<'PY'
import os, re, sys
lint_path, status, doc = sys.argv[1], int(sys.argv[2]), sys.argv[3]
# Names kept exactly from the exporter this one replaces, so existing dashboards keep working.
seed = set("""
winpower_exporter_up winpower_exporter_requests_total winpower_exporter_collection_duration_seconds
winpower_exporter_scrape_errors_total winpower_exporter_device_count winpower_connection_status
winpower_auth_status winpower_api_response_time_seconds winpower_token_expiry_seconds
winpower_device_connected winpower_device_load_percent winpower_device_load_total_watts
winpower_device_cumulative_energy winpower_device_input_voltage winpower_device_output_voltage
winpower_device_output_current winpower_device_input_frequency winpower_device_output_frequency
winpower_device_battery_charging winpower_device_battery_capacity winpower_device_battery_remain_seconds
winpower_device_ups_temperature
""".split())
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

# --- 5. push mode against a real Pushgateway
simulator_port="$(free_port)"
gateway_port="$(free_port)"
server_port="$(free_port)"
"$bin" simulate --host 127.0.0.1 --port "$simulator_port" --devices 3 >"$work/simulator.log" 2>&1 &
pids+=("$!")
wait_http "http://127.0.0.1:$simulator_port/" 60 "$!" any || fail "the simulator did not start"
prometheus-pushgateway --web.listen-address="127.0.0.1:$gateway_port" >"$work/pushgateway.log" 2>&1 &
pids+=("$!")
wait_http "http://127.0.0.1:$gateway_port/-/ready" 60 "$!" || fail "Pushgateway did not become ready"
printf 'admin\n' >"$work/password"
"$bin" server --server.host 127.0.0.1 --server.port "$server_port" \
    --winpower.base_url "http://127.0.0.1:$simulator_port" --winpower.username admin \
    --winpower.password_file "$work/password" --storage.data_dir "$work/push-data" \
    --scheduler.collection_interval 1s --push.url="http://127.0.0.1:$gateway_port" --push.interval=1s \
    >"$work/push-exporter.log" 2>&1 &
pids+=("$!")
start=$SECONDS
while true; do
    curl -fsS --max-time 2 -o "$work/gateway.txt" "http://127.0.0.1:$gateway_port/metrics" 2>/dev/null || true
    if grep -q '^winpower_device_load_total_watts{.*job="wpexporter"' "$work/gateway.txt" 2>/dev/null; then
        break
    fi
    ((SECONDS - start < 60)) || fail "the Pushgateway has no winpower_device_load_total_watts after 60s"
    sleep 1
done
echo "ok: the Pushgateway serves the device series pushed by 'wpexporter server --push.url'"

# --- 6. TLS and basic auth: a real Prometheus scraping over HTTPS with credentials
tls="$work/tls"
mkdir -p "$tls"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=wpexporter e2e CA" \
    -keyout "$tls/ca.key" -out "$tls/ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$tls/server.key" -out "$tls/server.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$tls/san.ext"
openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.crt" -CAkey "$tls/ca.key" -CAcreateserial -days 1 \
    -extfile "$tls/san.ext" -out "$tls/server.crt" 2>/dev/null
chmod 600 "$tls/server.key"
scrape_password="e2e-$RANDOM-$RANDOM"
printf '%s' "$scrape_password" >"$tls/scrape-password"
# shellcheck disable=SC2016  # the $ signs are bcrypt's, not the shell's
hash="$(python3 -W ignore -c 'import crypt, sys; print(crypt.crypt(sys.argv[1], "$2b$06$" + "e2esaltsaltsaltsaltsal"))' "$scrape_password")"
# shellcheck disable=SC2016
[[ $hash == '$2b$06$'* ]] || fail "could not make a bcrypt hash for the basic-auth check"
cat >"$tls/web.yml" <<WEB
tls_server_config:
  cert_file: server.crt
  key_file: server.key
basic_auth_users:
  prometheus: '$hash'
WEB
tls_port="$(free_port)"
"$bin" demo --server.host 127.0.0.1 --server.port "$tls_port" --scheduler.collection_interval 1s \
    --storage.data_dir "$work/tls-data" --logging.format console --web.config.file "$tls/web.yml" \
    >"$work/tls-exporter.log" 2>&1 &
tls_pid=$!
pids+=("$tls_pid")
start=$SECONDS
until curl -s --max-time 2 --cacert "$tls/ca.crt" -o /dev/null "https://127.0.0.1:$tls_port/-/healthy"; do
    kill -0 "$tls_pid" 2>/dev/null || fail "wpexporter demo with --web.config.file exited"
    ((SECONDS - start < 60)) || fail "wpexporter demo did not serve HTTPS on port $tls_port"
    sleep 0.5
done
status="$(curl -s --max-time 5 --cacert "$tls/ca.crt" -o /dev/null -w '%{http_code}' "https://127.0.0.1:$tls_port/metrics")"
[[ $status == 401 ]] || fail "a scrape without credentials got HTTP $status, not 401"
status="$(curl -s --max-time 5 --cacert "$tls/ca.crt" -u "prometheus:wrong" -o /dev/null -w '%{http_code}' "https://127.0.0.1:$tls_port/metrics")"
[[ $status == 401 ]] || fail "a scrape with a wrong password got HTTP $status, not 401"
if curl -s --max-time 5 -o /dev/null "http://127.0.0.1:$tls_port/metrics"; then
    status="$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$tls_port/metrics")"
    [[ $status == 400 ]] || fail "plain HTTP to the TLS port got HTTP $status"
fi
echo "ok: the TLS listener refuses scrapes without valid credentials"

tls_prometheus_port="$(free_port)"
cat >"$work/prometheus-tls.yml" <<PROM
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: wpexporter-tls
    scheme: https
    tls_config:
      ca_file: $tls/ca.crt
    basic_auth:
      username: prometheus
      password_file: $tls/scrape-password
    static_configs:
      - targets: ["127.0.0.1:$tls_port"]
PROM
promtool check config "$work/prometheus-tls.yml" >/dev/null
prometheus --config.file="$work/prometheus-tls.yml" --storage.tsdb.path="$work/tsdb-tls" \
    --web.listen-address="127.0.0.1:$tls_prometheus_port" --log.level=warn >"$work/prometheus-tls.log" 2>&1 &
pids+=("$!")
wait_http "http://127.0.0.1:$tls_prometheus_port/-/ready" 60 "$!" || fail "the second Prometheus did not become ready"
python3 - "http://127.0.0.1:$tls_prometheus_port" <<'PY'
import json, sys, time, urllib.parse, urllib.request
base = sys.argv[1]
deadline = time.monotonic() + 60
def query(expr):
    url = f"{base}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.load(response)["data"]["result"]
while True:
    up = query('up{job="wpexporter-tls"}')
    devices = query('count(winpower_device_load_total_watts{job="wpexporter-tls"})')
    if up and up[0]["value"][1] == "1" and devices and float(devices[0]["value"][1]) >= 1:
        print(f"ok: Prometheus scrapes over TLS with basic auth: up == 1, {devices[0]['value'][1]} devices with load")
        break
    if time.monotonic() > deadline:
        targets = urllib.request.urlopen(f"{base}/api/v1/targets", timeout=5).read().decode()
        sys.exit(f"FAIL: no successful TLS scrape within 60s; targets: {targets[:800]}")
    time.sleep(1)
PY

# --- 7. many servers: one exporter over a simulated fleet, scraped both ways by one Prometheus
# with the two jobs of docs/deployment.md ("Many WinPower servers"): /metrics with every server,
# and /probe for each target that /targets lists.
fleet_port_log="$work/fleet.log"
"$bin" simulate --host 127.0.0.1 --port 0 --servers 4 --devices 2 --fault-server 3=down >"$fleet_port_log" 2>&1 &
fleet_pid=$!
pids+=("$fleet_pid")
start=$SECONDS
until (($(grep -c '^  server [0-9]*: http://' "$fleet_port_log" 2>/dev/null) == 4)); do
    kill -0 "$fleet_pid" 2>/dev/null || fail "wpexporter simulate --servers 4 exited"
    ((SECONDS - start < 60)) || fail "wpexporter simulate --servers 4 did not print 4 base URLs"
    sleep 0.2
done
mapfile -t fleet_urls < <(sed -n 's/^  server [0-9]*: \(http:[^ ]*\).*/\1/p' "$fleet_port_log")
fleet_names=(alpha bravo charlie delta)
fleet_sites=(north south east west)
{
    printf 'winpower:\n  username: admin\n  password_file: %s\nservers:\n' "$work/password"
    for i in "${!fleet_names[@]}"; do
        printf '  - name: %s\n    base_url: %s\n    labels:\n      site: %s\n' \
            "${fleet_names[$i]}" "${fleet_urls[$i]}" "${fleet_sites[$i]}"
    done
} >"$work/servers.yml"
servers_port="$(free_port)"
"$bin" server --config "$work/servers.yml" --server.host 127.0.0.1 --server.port "$servers_port" \
    --storage.data_dir "$work/servers-data" --scheduler.collection_interval 1s --logging.format console \
    >"$work/servers-exporter.log" 2>&1 &
servers_pid=$!
pids+=("$servers_pid")
wait_http "http://127.0.0.1:$servers_port/-/ready" 60 "$servers_pid" \
    || fail "the exporter with a servers section did not become ready on port $servers_port"
echo "exporter over ${#fleet_names[@]} simulated servers (server delta down) ready on 127.0.0.1:$servers_port"

servers_prometheus_port="$(free_port)"
python3 - docs/deployment.md "$work/prometheus-servers.yml" "127.0.0.1:$servers_port" <<'PY'
import re, sys
import yaml
doc, target, address = sys.argv[1:]
text = open(doc, encoding="utf-8").read()
section = re.search(r"^## Many WinPower servers\n(.*?)(?=^## )", text, re.S | re.M)
if not section:
    sys.exit("FAIL: docs/deployment.md has no section 'Many WinPower servers'")
blocks = [yaml.safe_load(block.replace("wpexporter.example:9090", address))["scrape_configs"]
          for block in re.findall(r"```yaml\n(.*?)```", section.group(1), re.S)]
if len(blocks) != 2 or len(blocks[0]) != 1 or "static_configs" not in blocks[0][0]:
    sys.exit(f"FAIL: docs/deployment.md should show a /metrics job, then the probe jobs, shows {blocks}")
# Both ways run side by side here (a real Prometheus runs one): the first way's job, named
# wpexporter like the probe way's own job, is renamed.
blocks[0][0]["job_name"] = "wpexporter-all-servers"
jobs = blocks[0] + blocks[1]
metrics_jobs = [job for job in jobs if "static_configs" in job]
probe_jobs = [job for job in jobs if "http_sd_configs" in job]
if len(jobs) != 3 or len(metrics_jobs) != 2 or len(probe_jobs) != 1 or metrics_jobs[1]["job_name"] != "wpexporter":
    sys.exit(f"FAIL: docs/deployment.md should show one /metrics job, then a wpexporter job and an "
             f"http_sd_configs job, shows {jobs}")
for job in jobs:
    job.update({"scrape_interval": "1s", "scrape_timeout": "1s"})
config = {"global": {"scrape_interval": "1s", "scrape_timeout": "1s"}, "scrape_configs": jobs}
yaml.safe_dump(config, open(target, "w", encoding="utf-8"), sort_keys=False)
print(f"jobs from docs/deployment.md: {metrics_jobs[0]['job_name']} (/metrics), "
      f"{probe_jobs[0]['job_name']} (/probe via {probe_jobs[0]['http_sd_configs'][0]['url']})")
PY
promtool check config "$work/prometheus-servers.yml" >/dev/null
prometheus --config.file="$work/prometheus-servers.yml" --storage.tsdb.path="$work/tsdb-servers" \
    --web.listen-address="127.0.0.1:$servers_prometheus_port" --log.level=warn >"$work/prometheus-servers.log" 2>&1 &
pids+=("$!")
wait_http "http://127.0.0.1:$servers_prometheus_port/-/ready" 60 "$!" || fail "the third Prometheus did not become ready"
python3 - "http://127.0.0.1:$servers_prometheus_port" "$work/prometheus-servers.yml" \
    "${fleet_names[*]}" "${fleet_sites[*]}" delta <<'PY'
import json, sys, time, urllib.parse, urllib.request
import yaml
base, config_path, names, sites, down = sys.argv[1:]
names, sites = names.split(), sites.split()
site_of = dict(zip(names, sites))
healthy = [name for name in names if name != down]
jobs = yaml.safe_load(open(config_path, encoding="utf-8"))["scrape_configs"]
metrics_job = next(job["job_name"] for job in jobs if "static_configs" in job)
own_job = [job["job_name"] for job in jobs if "static_configs" in job][1]
probe_job = next(job["job_name"] for job in jobs if "http_sd_configs" in job)
deadline = time.monotonic() + 60

def get(path, **params):
    url = f"{base}{path}?" + urllib.parse.urlencode(params)
    with urllib.request.urlopen(url, timeout=5) as response:
        body = json.load(response)
    if body.get("status") != "success":
        raise SystemExit(f"FAIL: {path} {params}: {body}")
    return body["data"]

def query(expr):
    return get("/api/v1/query", query=expr)["result"]

def labels(result, *names):
    return sorted(tuple(r["metric"].get(n, "") for n in names) for r in result)

def values(expr, *names):
    return {tuple(r["metric"].get(n, "") for n in names): r["value"][1] for r in query(expr)}

def devices(job):
    found = {}
    for r in query(f'winpower_device_connected{{job="{job}"}}'):
        found.setdefault(r["metric"].get("server", ""), set()).add(r["metric"]["device_id"])
    return found

# Each check answers None when it holds, or what is wrong; all are polled until the deadline.
def metrics_checks():
    up = query(f'up{{job="{metrics_job}"}}')
    if [r["value"][1] for r in up] != ["1"]:
        return f"up{{job={metrics_job!r}}} is {up}, not one series equal to 1"
    exporter_up = values(f'winpower_exporter_up{{job="{metrics_job}"}}', "server", "site")
    expected = {(n, site_of[n]): ("0" if n == down else "1") for n in names}
    if exporter_up != expected:
        return f"winpower_exporter_up by (server, site) is {exporter_up}, expected {expected}"
    found = devices(metrics_job)
    if sorted(found) != sorted(healthy) or any(len(ids) != 2 for ids in found.values()):
        return f"winpower_device_connected device ids by server: {found}; expected 2 for each of {healthy}"
    return None

def probe_checks():
    active = get("/api/v1/targets", state="active")["activeTargets"]
    targets = [t for t in active if t["scrapePool"] == probe_job]
    seen = sorted((t["labels"].get("server", ""), t["labels"].get("site", ""),
                   t["discoveredLabels"].get("__param_target", ""), t["scrapeUrl"].split("?")[0].rsplit("/", 1)[-1],
                   t["health"]) for t in targets)
    expected = sorted((n, site_of[n], n, "probe", "up") for n in names)
    if seen != expected:
        return (f"{probe_job} targets (server, site, __param_target, path, health) are {seen}, expected {expected}; "
                f"errors: {[t.get('lastError') for t in targets if t.get('lastError')]}")
    up = values(f'up{{job="{probe_job}"}}', "server")
    if up != {(n,): "1" for n in names}:
        return f"up{{job={probe_job!r}}} by server is {up}"
    exporter_up = values(f'winpower_exporter_up{{job="{probe_job}"}}', "server", "site")
    expected_up = {(n, site_of[n]): ("0" if n == down else "1") for n in names}
    if exporter_up != expected_up:
        return f"winpower_exporter_up{{job={probe_job!r}}} by (server, site) is {exporter_up}, expected {expected_up}"
    # A probe serves its own server only: the same devices as that server's /metrics series, and
    # no label Prometheus had to rename because the exposition carried a server or site itself.
    probed, listed = devices(probe_job), devices(metrics_job)
    if probed != listed:
        return f"device ids by server differ: /probe {probed}, /metrics {listed}"
    clashes = query(f'count by (exported_server, exported_site) ({{job="{probe_job}", exported_server!=""}} '
                    f'or {{job="{probe_job}", exported_site!=""}})')
    if clashes:
        return f"/probe series carry their own server or site labels: {labels(clashes, 'exported_server', 'exported_site')}"
    instances = {r["metric"].get("instance") for r in query(f'up{{job="{probe_job}"}}')}
    if len(instances) != 1:
        return f"the probe targets should all be the exporter itself, are {sorted(instances)}"
    return None

def own_checks():
    # The probe way's job for the exporter itself: what the exporter-down alerts and the
    # dashboard's scrape and process panels read, without the series the probes store.
    up = query(f'up{{job="{own_job}"}}')
    if [r["value"][1] for r in up] != ["1"]:
        return f"up{{job={own_job!r}}} is {up}, not one series equal to 1"
    if not query(f'winpower_exporter_build_info{{job="{own_job}"}}'):
        return f"job {own_job} has no winpower_exporter_build_info"
    stored_twice = query(f'count by (__name__) ({{job="{own_job}", server!=""}})')
    if stored_twice:
        return f"job {own_job} keeps per-server series the probes store: {labels(stored_twice, '__name__')}"
    return None

for what, check in (("/metrics", metrics_checks), ("/probe", probe_checks), ("the exporter's own job", own_checks)):
    while (problem := check()) is not None:
        if time.monotonic() > deadline:
            raise SystemExit(f"FAIL: {what}: {problem}")
        time.sleep(0.5)
print(f"ok: job {metrics_job} scrapes /metrics: up == 1, winpower_exporter_up for every server "
      f"({', '.join(names)}; {down} down == 0), 2 devices for each of {', '.join(healthy)}")
print(f"ok: job {probe_job} discovered {len(names)} targets through /targets, all up, each with its own "
      f"server's series only (server and site from /targets)")
print(f"ok: job {own_job} scrapes the exporter itself beside the probes: up == 1, no per-server series")
PY
