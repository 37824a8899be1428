#!/usr/bin/env bash
# Several WinPower servers end to end: `wpexporter simulate --servers 4` (server 3 down) and one
# exporter with a `servers` list (site labels, the password from a file), scraped by a real
# Prometheus with the two jobs docs/deployment.md shows ("Many WinPower servers"): /metrics
# must carry every server (winpower_exporter_up, devices, site labels), and the probe job must
# discover one target per server through /targets, all up, each with its own server's devices
# only; the exporter's own job keeps no per-server series. About 10 s. Installs Debian's
# prometheus when missing.
#
#   IntegrationTests/tests_04_prometheus/test_04_servers.sh
set -euo pipefail
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh tests prometheus   # prometheus, promtool, python3 and PyYAML

start_fleet 4 2 --fault-server 3=down
fleet_names=(alpha bravo charlie delta)
fleet_sites=(north south east west)
printf 'admin\n' >"$work/password"
{
    printf 'winpower:\n  username: admin\n  password_file: %s\nservers:\n' "$work/password"
    for i in "${!fleet_names[@]}"; do
        printf '  - name: %s\n    base_url: http://127.0.0.1:%s\n    labels:\n      site: %s\n' \
            "${fleet_names[$i]}" "${fleet_ports[$i]}" "${fleet_sites[$i]}"
    done
} >"$work/servers.yml"
sim_port=${fleet_ports[0]}   # the flags' winpower.url; every entry names its own
winpower_credentials=()       # from the configuration file
start_exporter "$work/servers-exporter.log" --config "$work/servers.yml"
echo "exporter over ${#fleet_names[@]} simulated servers (server delta down) ready on $base"

python3 - docs/deployment.md "$work/prometheus-servers.yml" "127.0.0.1:$port" <<'PY'
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
start_listening "$work/prometheus-servers.log" /-/ready prometheus --config.file="$work/prometheus-servers.yml" \
    --storage.tsdb.path="$work/tsdb-servers"
python3 - "http://127.0.0.1:$listener_port" "$work/prometheus-servers.yml" \
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
