#!/usr/bin/env bash
# Builds the monitoring mixin (deploy/mixin/mixin.libsonnet) with jsonnet and checks its output:
# prometheusAlerts and prometheusRules pass `promtool check rules`, the alerts are those of
# deploy/prometheus/alerts.yml, every alert has a `severity` of critical, warning or info and
# `summary` and `description` annotations, and every dashboard has a `uid` and equals its file
# under deploy/grafana/dashboards/. Needs jsonnet (Debian), promtool and python3 with PyYAML.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ci/tools.sh tests static   # jsonnet, promtool, python3 and PyYAML
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mixin='(import "deploy/mixin/mixin.libsonnet")'
jsonnet -S -e "std.manifestYamlDoc($mixin.prometheusAlerts)" >"$work/alerts.yaml"
jsonnet -S -e "std.manifestYamlDoc($mixin.prometheusRules)" >"$work/rules.yaml"
mkdir "$work/dashboards"
jsonnet -m "$work/dashboards" -e "$mixin.grafanaDashboards" >/dev/null
promtool check rules "$work/alerts.yaml"
if grep -q '^groups: \[\]' "$work/rules.yaml" || ! grep -q 'record:' "$work/rules.yaml"; then
    echo "prometheusRules: no recording rules (alerts.yml has none)"
else
    promtool check rules "$work/rules.yaml"
fi
python3 - "$work" <<'PY'
import glob, json, os, sys
import yaml

work = sys.argv[1]
failures = []
built = yaml.safe_load(open(f"{work}/alerts.yaml", encoding="utf-8"))
source = yaml.safe_load(open("deploy/prometheus/alerts.yml", encoding="utf-8"))
expected = [{**g, "rules": [r for r in g["rules"] if "alert" in r]} for g in source["groups"]]
expected = [g for g in expected if g["rules"]]
if built["groups"] != expected:
    failures.append("prometheusAlerts differs from the alerts of deploy/prometheus/alerts.yml")
for group in built["groups"]:
    for rule in group["rules"]:
        if rule.get("labels", {}).get("severity") not in ("critical", "warning", "info"):
            failures.append(f"{rule['alert']}: severity {rule.get('labels', {}).get('severity')!r} is not critical, warning or info")
        for key in ("summary", "description"):
            if not rule.get("annotations", {}).get(key):
                failures.append(f"{rule['alert']}: no {key} annotation")
files = {os.path.basename(p): json.load(open(p, encoding="utf-8")) for p in glob.glob("deploy/grafana/dashboards/*.json")}
dashboards = {os.path.basename(p): json.load(open(p, encoding="utf-8")) for p in glob.glob(f"{work}/dashboards/*")}
if dashboards != files:
    failures.append(f"grafanaDashboards {sorted(dashboards)} differ from deploy/grafana/dashboards {sorted(files)}")
for name, dashboard in dashboards.items():
    if not dashboard.get("uid"):
        failures.append(f"dashboard {name} has no uid")
if failures:
    for failure in failures:
        print("FAIL: " + failure)
    sys.exit(1)
print(f"mixin: {sum(len(g['rules']) for g in built['groups'])} alerts, {len(dashboards)} dashboard(s)")
PY
