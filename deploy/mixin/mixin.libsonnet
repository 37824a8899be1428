// wpexporter monitoring mixin: the shipped alerts, recording rules and dashboards, read from
// the files the other deployments use (nothing is copied here), in English or in Chinese.
//
//   jsonnet -S -e 'std.manifestYamlDoc((import "deploy/mixin/mixin.libsonnet").prometheusAlerts)' >alerts.yaml
//   jsonnet -S -e 'std.manifestYamlDoc((import "deploy/mixin/mixin.libsonnet").prometheusRules)' >rules.yaml
//   jsonnet -m dashboards -e '(import "deploy/mixin/mixin.libsonnet").grafanaDashboards'
//
// Chinese: the same with `_config+:: { language: 'zh-CN' }`, e.g.
//
//   jsonnet -S -e 'std.manifestYamlDoc(((import "deploy/mixin/mixin.libsonnet") + { _config+:: { language: "zh-CN" } }).prometheusAlerts)'
//
// gives the same alerts (names, expressions, durations, labels) with the summary and description
// of deploy/mixin/zh-CN.libsonnet, and grafanaDashboards the dashboard with its titles,
// descriptions, labels, legends and value texts in Chinese, under its own uid and file name
// (deploy/prometheus/alerts.zh-CN.yml and deploy/grafana/dashboards/wpexporter.zh-CN.json are
// these, generated; scripts/check-mixin.sh checks that they are).
//
// Alerts select job="wpexporter" (docs/alerts.md); every alert has `severity` (critical or
// warning) and `summary` and `description` annotations. deploy/prometheus/alerts.yml has no
// recording rules, so prometheusRules has no groups.
local alerts = std.parseYaml(importstr '../prometheus/alerts.yml');
local dashboard = import '../grafana/dashboards/wpexporter.json';
local zh = import 'zh-CN.libsonnet';
local isRecording(group) = std.length([r for r in group.rules if std.objectHas(r, 'record')]) > 0;
local texts = ['title', 'description', 'label', 'legendFormat', 'text'];

local localizedRule(rule, language) =
  if language == 'en' || !std.objectHas(rule, 'alert') then rule
  else if !std.objectHas(zh.alerts, rule.alert) then error 'deploy/mixin/zh-CN.libsonnet: no texts for alert ' + rule.alert
  else rule { annotations+: zh.alerts[rule.alert] };

// The dashboard's texts through zh.dashboard.strings; a text with no entry there (and not kept
// as it is) is an error, so a new panel cannot ship half translated.
local localizedText(text) =
  if std.objectHas(zh.dashboard.strings, text) then zh.dashboard.strings[text]
  else if std.member(zh.dashboard.unchanged, text) || text == '' then text
  else error 'deploy/mixin/zh-CN.libsonnet: no Chinese for the dashboard text "' + text + '"';
local localized(value) =
  if std.isObject(value) then {
    [field]:
      if std.member(texts, field) && std.isString(value[field]) then localizedText(value[field])
      else if field == 'renameByName' then { [column]: localizedText(value[field][column]) for column in std.objectFields(value[field]) }
      else localized(value[field])
    for field in std.objectFields(value)
  }
  else if std.isArray(value) then [localized(item) for item in value]
  else value;

{
  _config+:: {
    // 'en' or 'zh-CN'.
    language: 'en',
  },
  local language = self._config.language,
  assert std.member(['en', 'zh-CN'], language) : "_config.language must be 'en' or 'zh-CN'",

  prometheusAlerts+:: {
    groups+: [
      group { rules: [localizedRule(r, language) for r in group.rules if std.objectHas(r, 'alert')] }
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
  grafanaDashboards+:: if language == 'en' then {
    'wpexporter.json': dashboard,
  } else {
    [zh.dashboard.file]: localized(dashboard) { title: zh.dashboard.title, uid: zh.dashboard.uid },
  },
}
