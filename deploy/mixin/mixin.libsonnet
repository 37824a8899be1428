// wpexporter monitoring mixin: the shipped alerts, recording rules and dashboards, read from
// the files the other deployments use (nothing is copied here).
//
//   jsonnet -S -e 'std.manifestYamlDoc((import "deploy/mixin/mixin.libsonnet").prometheusAlerts)' >alerts.yaml
//   jsonnet -S -e 'std.manifestYamlDoc((import "deploy/mixin/mixin.libsonnet").prometheusRules)' >rules.yaml
//   jsonnet -m dashboards -e '(import "deploy/mixin/mixin.libsonnet").grafanaDashboards'
//
// Alerts select job="wpexporter" (docs/alerts.md); every alert has `severity` (critical or
// warning) and `summary` and `description` annotations. deploy/prometheus/alerts.yml has no
// recording rules, so prometheusRules has no groups.
local alerts = std.parseYaml(importstr '../prometheus/alerts.yml');
local isRecording(group) = std.length([r for r in group.rules if std.objectHas(r, 'record')]) > 0;

{
  prometheusAlerts+:: {
    groups+: [
      group { rules: [r for r in group.rules if std.objectHas(r, 'alert')] }
      for group in alerts.groups
      if std.length([r for r in group.rules if std.objectHas(r, 'alert')]) > 0
    ],
  },
  prometheusRules+:: {
    groups+: [
      group { rules: [r for r in group.rules if std.objectHas(r, 'record')] }
      for group in alerts.groups
      if isRecording(group)
    ],
  },
  grafanaDashboards+:: {
    'wpexporter.json': import '../grafana/dashboards/wpexporter.json',
  },
}
