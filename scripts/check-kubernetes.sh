#!/usr/bin/env bash
# Checks deploy/kubernetes offline:
#   - the generated files of the base (PrometheusRule, dashboard ConfigMap) equal what
#     scripts/gen-kubernetes.py makes from deploy/prometheus/alerts.yml and the dashboards;
#   - every kustomization (base and each overlay) renders with `kubectl kustomize`, its core
#     kinds pass kubernetes-validate --strict, and its PrometheusRule's rules pass
#     `promtool check rules` and equal alerts.yml; the dashboard ConfigMap carries
#     grafana_dashboard: "1" and the dashboards unchanged; the ServiceMonitor and the
#     PrometheusRule carry the release label; the Deployment mounts the rendered configuration
#     ConfigMap and the user's Secret (no Secret is rendered: no password is committed);
#     every /probe endpoint of a ServiceMonitor names a `servers` entry of the configuration.
# Needs kubectl (Debian `kubectl`), promtool, python3 with PyYAML, and kubernetes-validate
# (PyPI; installed when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ci/tools.sh tests static   # kubectl, promtool, PyYAML, kubernetes-validate
command -v kubectl >/dev/null 2>&1 || { echo "FAIL: kubectl is not installed (Debian package kubectl)"; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== scripts/gen-kubernetes.py --check"
python3 scripts/gen-kubernetes.py --check

for dir in deploy/kubernetes/base deploy/kubernetes/overlays/*/; do
    dir="${dir%/}"
    name="$(basename "$dir")"
    echo "== kubectl kustomize $dir"
    kubectl kustomize "$dir" >"$work/$name.yaml"
    python3 - "$work/$name.yaml" "$work/$name" <<'PY'
import glob, json, os, sys
import yaml

rendered, prefix = sys.argv[1:]
documents = [d for d in yaml.safe_load_all(open(rendered, encoding="utf-8")) if d]
failures = []
by_kind = {}
for document in documents:
    by_kind.setdefault(document["kind"], []).append(document)
core = [d for d in documents if not d["apiVersion"].startswith("monitoring.coreos.com/")]
with open(prefix + ".core.yaml", "w", encoding="utf-8") as out:
    yaml.safe_dump_all(core, out)

if "Secret" in by_kind:
    failures.append("a Secret is rendered; the password Secret is created by the user")
rules = by_kind.get("PrometheusRule", [])
if len(rules) != 1:
    failures.append(f"{len(rules)} PrometheusRules, expected 1")
else:
    alerts = yaml.safe_load(open("deploy/prometheus/alerts.yml", encoding="utf-8"))
    if rules[0]["spec"]["groups"] != alerts["groups"]:
        failures.append("the PrometheusRule's groups differ from deploy/prometheus/alerts.yml")
    with open(prefix + ".rules.yaml", "w", encoding="utf-8") as out:
        yaml.safe_dump({"groups": rules[0]["spec"]["groups"]}, out)
monitors = by_kind.get("ServiceMonitor", [])
for document in rules + monitors:
    if not document["metadata"].get("labels", {}).get("release"):
        failures.append(f"{document['kind']} {document['metadata']['name']} has no release label")
dashboards = [d for d in by_kind.get("ConfigMap", []) if d["metadata"].get("labels", {}).get("grafana_dashboard") == "1"]
files = {os.path.basename(p): open(p, encoding="utf-8").read() for p in glob.glob("deploy/grafana/dashboards/*.json")}
if len(dashboards) != 1 or dashboards[0]["data"] != files:
    failures.append("no ConfigMap labelled grafana_dashboard: \"1\" holding deploy/grafana/dashboards/*.json unchanged")
else:
    for name, text in dashboards[0]["data"].items():
        if not json.loads(text).get("uid"):
            failures.append(f"dashboard {name} has no uid")

configmaps = {d["metadata"]["name"]: d for d in by_kind.get("ConfigMap", [])}
servers = []
for deployment in by_kind.get("Deployment", []):
    spec = deployment["spec"]["template"]["spec"]
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    config = volumes.get("config", {}).get("configMap", {}).get("name")
    if config not in configmaps:
        failures.append(f"Deployment {deployment['metadata']['name']}: its config volume names ConfigMap {config}, which is not rendered")
    else:
        text = configmaps[config]["data"]["config.yaml"]
        parsed = yaml.safe_load(text)
        if "password:" in text:
            failures.append("the configuration ConfigMap holds a password; use password_file")
        servers = [entry["name"] for entry in parsed.get("servers") or []]
    if "secret" not in volumes.get("winpower-password", {}):
        failures.append("the Deployment does not mount the winpower-password Secret")
for monitor in monitors:
    for endpoint in monitor["spec"]["endpoints"]:
        if endpoint.get("path") == "/probe":
            targets = endpoint.get("params", {}).get("target", [])
            if len(targets) != 1 or targets[0] not in servers:
                failures.append(f"ServiceMonitor endpoint /probe target {targets} is not a servers entry {servers}")
            labels = {r.get("targetLabel"): r.get("replacement") for r in endpoint.get("relabelings", [])}
            if targets and labels.get("server") != targets[0]:
                failures.append(f"ServiceMonitor endpoint /probe?target={targets[0]} does not set server={targets[0]}")
if failures:
    for failure in failures:
        print("FAIL: " + failure)
    sys.exit(1)
print(f"ok: {len(documents)} objects: " + ", ".join(sorted(f"{k} x{len(v)}" for k, v in by_kind.items())))
PY
    kubernetes-validate --strict --quiet "$work/$name.core.yaml"
    promtool check rules "$work/$name.rules.yaml"
done
echo "kubernetes: every kustomization renders and validates"
