#!/usr/bin/env bash
# Checks the monitoring files under deploy/ with the real tools:
#   - promtool check config / check rules / test rules on the Prometheus files;
#   - every JSON file parses, every YAML file parses (python3 yaml), the Grafana dashboard
#     only queries metric names the exporter exports;
# (scripts/check-shell.sh checks the shell scripts.) Installs Debian's prometheus (for promtool)
# and python3-yaml when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/ci/tools.sh tests static   # promtool, python3 and PyYAML

echo "== promtool check config deploy/prometheus/prometheus.yml"
promtool check config deploy/prometheus/prometheus.yml
echo "== promtool check rules deploy/prometheus/alerts.yml"
promtool check rules deploy/prometheus/alerts.yml
echo "== promtool test rules deploy/prometheus/alerts.test.yml"
(cd deploy/prometheus && promtool test rules alerts.test.yml)

echo "== docs/deployment.md: the scrape jobs for several servers"
# Both documented ways keep a job named wpexporter scraping the exporter's /metrics (the
# exporter-down alerts watch up{job="wpexporter"}); the probe way drops the series with a
# server label from it (the probes store them). Each example passes promtool check config.
jobs_dir="$(mktemp -d)"
trap 'rm -rf "$jobs_dir"' EXIT
python3 - docs/deployment.md "$jobs_dir" <<'PY'
import re, sys
import yaml
doc, out = sys.argv[1:]
text = open(doc, encoding="utf-8").read()
section = re.search(r"^## Many WinPower servers\n(.*?)(?=^## )", text, re.S | re.M)
blocks = re.findall(r"```yaml\n(.*?)```", section.group(1) if section else "", re.S)
problems = []
if len(blocks) != 2:
    problems.append(f"the section 'Many WinPower servers' should show 2 YAML examples, shows {len(blocks)}")
for number, block in enumerate(blocks, 1):
    jobs = yaml.safe_load(block)["scrape_configs"]
    own = [job for job in jobs if job.get("job_name") == "wpexporter"]
    probes = [job for job in jobs if "http_sd_configs" in job]
    if len(own) != 1 or "static_configs" not in own[0] or own[0].get("metrics_path", "/metrics") != "/metrics":
        problems.append(f"example {number} has no job wpexporter scraping the exporter's /metrics: {jobs}")
    elif probes:
        drops = [rule for rule in own[0].get("metric_relabel_configs", [])
                 if rule.get("source_labels") == ["server"] and rule.get("action") == "drop"
                 and re.fullmatch(rule.get("regex", "(.*)"), "a") and not re.fullmatch(rule.get("regex", "(.*)"), "")]
        if not drops:
            problems.append(f"example {number} probes each server but its job wpexporter keeps the per-server series")
    open(f"{out}/example-{number}.yml", "w", encoding="utf-8").write(block)
for problem in problems:
    print("error: docs/deployment.md:", problem, file=sys.stderr)
sys.exit(1 if problems else 0)
PY
for example in "$jobs_dir"/example-*.yml; do
    promtool check config "$example" >/dev/null
done
echo "ok: each example keeps job wpexporter on the exporter's /metrics and passes promtool check config"

echo "== JSON, YAML and metric names"
python3 - <<'PY'
import glob, json, re, sys
import yaml

failures = []
for path in sorted(glob.glob("deploy/**/*.json", recursive=True)):
    try:
        json.load(open(path, encoding="utf-8"))
    except ValueError as error:
        failures.append(f"{path}: invalid JSON: {error}")
for path in sorted(glob.glob("deploy/**/*.y*ml", recursive=True)):
    try:
        list(yaml.safe_load_all(open(path, encoding="utf-8")))
    except yaml.YAMLError as error:
        failures.append(f"{path}: invalid YAML: {error}")

# Every alert has a test, and every winpower_* name used by the rules and the dashboard is a
# name the exporter exports (the agreed names below and any in docs/metrics.md).
documented = set()
try:
    documented = set(re.findall(r"\b(winpower_[a-z0-9_]+)", open("docs/metrics.md", encoding="utf-8").read()))
except OSError:
    pass
seed = {line.strip() for line in open("scripts/seed-metric-names.txt", encoding="utf-8")
        if line.strip() and not line.startswith("#")}
contract = documented | seed | set("""
winpower_device_energy_joules_total winpower_device_info
winpower_device_load_phase1_watts winpower_device_load_total_va winpower_device_load_phase1_va
winpower_device_battery_voltage_volts winpower_device_mode winpower_device_status_code
winpower_device_battery_status_code winpower_device_test_status_code winpower_device_on_battery
winpower_device_alarm winpower_device_fault winpower_device_fault_info winpower_device_active_alarms
winpower_device_rated_apparent_power_va winpower_device_rated_voltage_volts
winpower_device_rated_frequency_hertz winpower_device_rated_battery_voltage_volts
winpower_device_last_update_timestamp_seconds winpower_device_energy_gaps_total
winpower_exporter_collections_skipped_total winpower_exporter_last_collection_success
winpower_exporter_last_collection_timestamp_seconds winpower_exporter_energy_state_reset
winpower_exporter_energy_persist_failures_total winpower_exporter_build_info
""".split())
def base(name):
    for suffix in ("_bucket", "_sum", "_count"):
        if name.endswith(suffix) and name[: -len(suffix)] in contract:
            return name[: -len(suffix)]
    return name

rules = yaml.safe_load(open("deploy/prometheus/alerts.yml", encoding="utf-8"))
tests = yaml.safe_load(open("deploy/prometheus/alerts.test.yml", encoding="utf-8"))
alerts = [rule["alert"] for group in rules["groups"] for rule in group["rules"] if "alert" in rule]
tested = {}
for test in tests["tests"]:
    for case in test.get("alert_rule_test", []):
        kind = "firing" if case.get("exp_alerts") else "silent"
        tested.setdefault(case["alertname"], set()).add(kind)
for alert in alerts:
    missing = {"firing", "silent"} - tested.get(alert, set())
    if missing:
        failures.append(f"alerts.test.yml: {alert} has no {' and no '.join(sorted(missing))} test")
# Device ids are per WinPower server: every join or grouping that names device_id names server
# too, or two servers sharing an id make a rule fail (many-to-many) or pair the wrong UPSes.
for group in rules["groups"]:
    for rule in group["rules"]:
        for clause in re.findall(r"\b(?:on|by|ignoring|without)\s*\(([^)]*)\)", rule.get("expr", "")):
            labels = {label.strip() for label in clause.split(",")}
            if "device_id" in labels and "server" not in labels:
                failures.append(f"alerts.yml: {rule.get('alert') or rule.get('record')} joins or groups by ({clause}) without server")
if len(alerts) != len(set(alerts)):
    failures.append("alerts.yml: an alert name is defined twice")
used = {}
used["deploy/prometheus/alerts.yml"] = re.findall(r"\b(winpower_[a-z0-9_]+)", open("deploy/prometheus/alerts.yml").read())
for path in glob.glob("deploy/grafana/dashboards/*.json"):
    used[path] = re.findall(r"\b(winpower_[a-z0-9_]+)", open(path, encoding="utf-8").read())
for path, names in used.items():
    for name in sorted(set(names)):
        if base(name) not in contract:
            failures.append(f"{path}: {name} is not an exported metric")
dashboard = json.load(open("deploy/grafana/dashboards/wpexporter.json", encoding="utf-8"))
variables = {v["name"]: v for v in dashboard["templating"]["list"]}
if "device" not in variables:
    failures.append("dashboard: no device variable")
# The server variable's All must be .* (it matches the absent label of a single-server exporter,
# which .+ would not), and every per-server query must follow it.
if variables.get("server", {}).get("allValue") != ".*" or not variables.get("server", {}).get("includeAll"):
    failures.append("dashboard: the server variable must include All with allValue .*")
for panel in dashboard["panels"]:
    for target in panel.get("targets", []):
        expr = target.get("expr", "")
        if 'instance=~"$instance"' in expr and 'job="wpexporter"' not in expr and 'server=~"$server"' not in expr:
            failures.append(f"dashboard: panel {panel.get('title')!r} does not filter by $server: {expr}")
for message in failures:
    print("error:", message, file=sys.stderr)
if failures:
    sys.exit(1)
print(f"ok: {len(alerts)} alerts tested firing and silent; JSON, YAML and metric names valid")
PY
