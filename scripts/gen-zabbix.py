#!/usr/bin/env python3
"""Writes the Zabbix 6.0 templates of deploy/zabbix from the one definition below, in English and
in Chinese (docs/zabbix.md):

  deploy/zabbix/wpexporter_by_http.yaml        wpexporter by HTTP: /metrics, every UPS of every
  deploy/zabbix/zh-CN/wpexporter_by_http.yaml  WinPower server behind the exporter
  deploy/zabbix/ups_mib_by_snmp.yaml           UPS-MIB by SNMP (RFC 1628): one UPS per host
  deploy/zabbix/zh-CN/ups_mib_by_snmp.yaml

Both languages share keys, macros, expressions and UUIDs (uuid5 of each element's path), so a
template imported in one language is updated in place by the other, and a second run writes
the same bytes.

  scripts/gen-zabbix.py          rewrite the four files
  scripts/gen-zabbix.py --check  exit 1, with a diff, when a committed file differs
"""
import os, sys, uuid
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generated  # noqa: E402  (scripts/generated.py)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "deploy/zabbix")
NAMESPACE = uuid.UUID("6f1c2a44-8d1e-5b0a-9c33-0d5a2f7e9b10")   # this generator's own namespace
LANGUAGES = ("en", "zh")
GROUP = "Templates/Power"
HTTP = "wpexporter by HTTP"
# The exporter-down trigger's expression (its name is below T), which the servers' stale triggers depend on.
EXPORTER_DOWN_EXPRESSION = "nodata(/%s/wpexporter.memory,{$WPX.NODATA})=1"
SNMP = "UPS-MIB by SNMP"


def uid(*path):
    """A stable UUID for an element: uuid5 of its path, marked version 4 as Zabbix requires."""
    return uuid.UUID(bytes=uuid.uuid5(NAMESPACE, "/".join(path)).bytes, version=4).hex


class T:
    """A text in English and Chinese."""

    def __init__(self, en, zh):
        self.en, self.zh = en, zh


EXPORTER_DOWN_NAME = T("wpexporter: /metrics unreachable", "wpexporter：/metrics 无法访问")


def tr(value, language):
    """The definition with every T in one language."""
    if isinstance(value, T):
        return getattr(value, language)
    if isinstance(value, dict):
        return {key: tr(item, language) for key, item in value.items()}
    if isinstance(value, list):
        return [tr(item, language) for item in value]
    return value


# --- Shared pieces -------------------------------------------------------------------------------

def macro(name, value, description, secret=False):
    entry = {"macro": name, "value": value, "description": description}
    if secret:
        entry = {"macro": name, "type": "SECRET_TEXT", "description": description}
    return entry


def valuemap(template, name, mappings):
    return {"uuid": uid(template, "valuemap", name), "name": name,
            "mappings": [{"value": str(value), "newvalue": text} for value, text in mappings]}


def trigger(template, key, name, expression, priority, description, recovery=None, dependencies=(), tags=()):
    entry = {"uuid": uid(template, "trigger", key), "expression": expression, "name": name,
             "priority": priority, "description": description}
    if recovery:
        entry["recovery_mode"] = "RECOVERY_EXPRESSION"
        entry["recovery_expression"] = recovery
    if dependencies:
        entry["dependencies"] = [{"name": dependency_name, "expression": dependency_expression}
                                 for dependency_name, dependency_expression in dependencies]
    entry["tags"] = [{"tag": "scope", "value": "availability"}] + list(tags)
    return entry


ON_OFF = [(0, T("No", "否")), (1, T("Yes", "是"))]
CONNECTED = [(0, T("Disconnected", "已断开")), (1, T("Connected", "已连接"))]
UP = [(0, T("Down", "故障")), (1, T("Up", "正常"))]
WINPOWER_MODES = [
    (0, T("Power on", "开机")), (1, T("Standby", "待机")), (2, T("Bypass", "旁路")), (3, T("Line", "市电")),
    (4, T("Battery", "电池")), (5, T("Battery test", "电池自检")), (6, T("Fault", "故障")),
]

# --- wpexporter by HTTP ------------------------------------------------------------------------

MASTER = "wpexporter.metrics"

# The discovery's JavaScript, after "Prometheus to JSON": one object per UPS or server, with the
# server (empty on an exporter without a `servers` section). A Prometheus pattern never matches a
# label the series lacks (not even `server=""`), and Zabbix takes label names from LLD macros: a
# UPS's pattern names `{#SERVER.LABEL}="{#SERVER.VALUE}"`, which is `server="<name>"`, or without
# servers `device_id="<id>"` a second time.
DISCOVERY_JS = r"""var rows = JSON.parse(value), seen = {}, out = [];
function quote(text) {
    return text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
for (var i = 0; i < rows.length; i++) {
    var labels = rows[i].labels || {}, server = labels.server || '', id = labels.device_id || '';
    if (seen[server + '\n' + id]) continue;
    seen[server + '\n' + id] = true;
    out.push({
        server: server,
        server_name: server === '' ? '-' : server,
        server_label: server === '' ? 'device_id' : 'server',
        server_value: quote(server === '' ? id : server),
        device_id: id,
        device_id_filter: quote(id),
        device_name: labels.device_name || id,
        model: labels.model || ''
    });
}
return JSON.stringify(out);"""

DEVICE_MACROS = {"{#SERVER}": "$.server", "{#SERVER.NAME}": "$.server_name", "{#SERVER.LABEL}": "$.server_label",
                 "{#SERVER.VALUE}": "$.server_value",
                 "{#DEVICE_ID}": "$.device_id", "{#DEVICE_ID.FILTER}": "$.device_id_filter",
                 "{#DEVICE_NAME}": "$.device_name", "{#MODEL}": "$.model"}
SERVER_MACROS = {"{#SERVER}": "$.server", "{#SERVER.NAME}": "$.server_name"}

MISSING = T("No current reading: the UPS is disconnected, its data is stale or it does not report it",
            "当前没有读数：UPS 已断开、数据已过期，或它不报告这一项")
MISSING_SERVER = T("The exporter does not report this for the server", "导出器没有报告该服务器的这一项")


def pattern(selector, label=None):
    """A "Prometheus pattern" step: the selected series' value, or one of its labels."""
    return {"type": "PROMETHEUS_PATTERN", "parameters": [selector, "label", label] if label else [selector, "value", ""]}


DEVICE = '{device_id="{#DEVICE_ID.FILTER}",{#SERVER.LABEL}="{#SERVER.VALUE}"}'   # device_id first: Zabbix indexes by it

# A server's series: "Prometheus to JSON" of the family, then the row of the server ({#SERVER}
# empty: the one row without a server label). No Prometheus pattern can select a series by a
# label it lacks, and the server families of an exporter without `servers` have no label at all.
SERVER_JS = """var rows = JSON.parse(value), server = '{#SERVER}';
for (var i = 0; i < rows.length; i++) {
    if ((rows[i].labels && rows[i].labels.server || '') === server) return rows[i].value;
}
throw '%s';"""


def http_ups_items():
    """(key suffix, family, name, units, value type, value map, description)."""
    return [
        ("load.watts", "winpower_device_load_total_watts", T("Active power", "有功功率"), "W", "FLOAT", None,
         T("Total active power of the load (loadTotalWatt).", "负载的总有功功率（loadTotalWatt）。")),
        ("load.va", "winpower_device_load_total_va", T("Apparent power", "视在功率"), "VA", "FLOAT", None,
         T("Total apparent power of the load.", "负载的总视在功率。")),
        ("load.percent", "winpower_device_load_percent", T("Load", "负载率"), "%", "FLOAT", None,
         T("Load in percent of the UPS's capacity.", "负载占 UPS 额定容量的百分比。")),
        ("energy", "winpower_device_cumulative_energy", T("Energy delivered", "累计电能"), "Wh", "FLOAT", None,
         T("Energy delivered to the load since the exporter first saw the UPS, kept across restarts.",
           "自导出器首次看到该 UPS 起输出给负载的电能，重启后保留。")),
        ("battery.capacity", "winpower_device_battery_capacity", T("Battery charge", "电池电量"), "%", "FLOAT", None,
         T("Battery charge (batCapacity).", "电池剩余电量（batCapacity）。")),
        ("battery.runtime", "winpower_device_battery_remain_seconds", T("Runtime remaining", "剩余续航时间"), "s", "FLOAT", None,
         T("Estimated runtime on battery.", "以电池供电时估计还能支撑的时间。")),
        ("battery.voltage", "winpower_device_battery_voltage_volts", T("Battery voltage", "电池电压"), "V", "FLOAT", None,
         T("Battery voltage.", "电池电压。")),
        ("input.voltage", "winpower_device_input_voltage", T("Input voltage", "输入电压"), "V", "FLOAT", None,
         T("Input voltage (mains).", "输入（市电）电压。")),
        ("input.frequency", "winpower_device_input_frequency", T("Input frequency", "输入频率"), "Hz", "FLOAT", None,
         T("Input frequency (mains).", "输入（市电）频率。")),
        ("output.voltage", "winpower_device_output_voltage", T("Output voltage", "输出电压"), "V", "FLOAT", None,
         T("Output voltage.", "输出电压。")),
        ("output.frequency", "winpower_device_output_frequency", T("Output frequency", "输出频率"), "Hz", "FLOAT", None,
         T("Output frequency.", "输出频率。")),
        ("output.current", "winpower_device_output_current", T("Output current", "输出电流"), "A", "FLOAT", None,
         T("Output current.", "输出电流。")),
        ("temperature", "winpower_device_ups_temperature", T("Temperature", "温度"), "°C", "FLOAT", None,
         T("The UPS's internal temperature.", "UPS 内部温度。")),
        ("connected", "winpower_device_connected", T("Connected to WinPower", "与 WinPower 的连接"), "", "UNSIGNED", "connected",
         T("1 when WinPower talks to the UPS.", "WinPower 能与该 UPS 通信时为 1。")),
        ("on_battery", "winpower_device_on_battery", T("On battery", "电池供电"), "", "UNSIGNED", "yes/no",
         T("1 in WinPower mode 4 (battery): mains has failed. A battery self-test is not counted here.",
           "WinPower 模式 4（电池）时为 1：市电已中断。电池自检不算在内。")),
        ("battery_test", "winpower_device_battery_test_running", T("Battery self-test running", "电池自检进行中"), "", "UNSIGNED", "yes/no",
         T("1 during a battery self-test (mode 5: on battery on purpose, mains present).",
           "电池自检期间为 1（模式 5：市电正常，有意切到电池）。")),
        ("on_bypass", "winpower_device_on_bypass", T("On bypass", "旁路供电"), "", "UNSIGNED", "yes/no",
         T("1 in WinPower mode 2 (bypass).", "WinPower 模式 2（旁路）时为 1。")),
        ("alarm", "winpower_device_alarm", T("Alarm", "告警"), "", "UNSIGNED", "yes/no",
         T("1 while the UPS reports an alarm.", "UPS 报告告警时为 1。")),
        ("fault", "winpower_device_fault", T("Fault", "故障"), "", "UNSIGNED", "yes/no",
         T("1 while the UPS reports a fault code or is in fault mode.", "UPS 报告故障码或处于故障模式时为 1。")),
        ("mode", "winpower_device_mode", T("Operating mode", "工作模式"), "", "UNSIGNED", "mode",
         T("WinPower's mode code.", "WinPower 的模式代码。")),
        ("transfers", "winpower_device_battery_transfers_total", T("Transfers to battery", "转电池次数"), "", "FLOAT", None,
         T("Outages seen by the exporter's ledger (kept across restarts).", "导出器的停电记录中看到的停电次数（重启后保留）。")),
        ("on_battery.seconds", "winpower_device_on_battery_seconds_total", T("Time on battery", "电池供电累计时间"), "s", "FLOAT", None,
         T("Seconds on battery in outages, in total.", "停电时以电池供电的累计秒数。")),
    ]


def http_template():
    t = HTTP
    ups_prototypes = []
    for suffix, family, name, units, value_type, vmap, description in http_ups_items():
        item = {
            "uuid": uid(t, "ups", suffix),
            "name": T(f"UPS {{#DEVICE_NAME}} ({{#SERVER.NAME}}): {name.en}", f"UPS {{#DEVICE_NAME}}（{{#SERVER.NAME}}）：{name.zh}"),
            "type": "DEPENDENT",
            "key": f'wpexporter.ups.{suffix}["{{#SERVER}}","{{#DEVICE_ID}}"]',
            "delay": "0",
            "value_type": value_type,
            "units": units,
            "description": description,
            "preprocessing": [dict(pattern(family + DEVICE), error_handler="CUSTOM_ERROR", error_handler_params=MISSING)],
            "master_item": {"key": MASTER},
            "tags": [{"tag": "component", "value": "ups"}, {"tag": "ups", "value": "{#DEVICE_NAME}"},
                     {"tag": "server", "value": "{#SERVER.NAME}"}],
        }
        if vmap:
            item["valuemap"] = {"name": {"connected": "wpexporter connection", "yes/no": "wpexporter yes/no",
                                         "mode": "WinPower mode"}[vmap]}
        ups_prototypes.append(item)
    ups_prototypes.append({
        "uuid": uid(t, "ups", "model"),
        "name": T("UPS {#DEVICE_NAME} ({#SERVER.NAME}): Model", "UPS {#DEVICE_NAME}（{#SERVER.NAME}）：型号"),
        "type": "DEPENDENT", "key": 'wpexporter.ups.model["{#SERVER}","{#DEVICE_ID}"]', "delay": "0",
        "history": "7d", "trends": "0", "value_type": "CHAR",
        "description": T("Model and firmware as WinPower reports them.", "WinPower 报告的型号与固件版本。"),
        "preprocessing": [dict(pattern("winpower_device_info" + DEVICE, "model"),
                               error_handler="CUSTOM_ERROR", error_handler_params=MISSING),
                          {"type": "DISCARD_UNCHANGED_HEARTBEAT", "parameters": ["1d"]}],
        "master_item": {"key": MASTER},
        "tags": [{"tag": "component", "value": "inventory"}, {"tag": "ups", "value": "{#DEVICE_NAME}"},
                 {"tag": "server", "value": "{#SERVER.NAME}"}],
    })

    def ref(suffix):
        return f'/{t}/wpexporter.ups.{suffix}["{{#SERVER}}","{{#DEVICE_ID}}"]'

    ups_name = T("UPS {#DEVICE_NAME}", "UPS {#DEVICE_NAME}")

    def ups_trigger(key, en, zh, expression, priority, den, dzh, recovery=None, dependencies=()):
        return trigger(t, key, T(f"{ups_name.en} (server {{#SERVER.NAME}}): {en}", f"UPS {{#DEVICE_NAME}}（服务器 {{#SERVER.NAME}}）：{zh}"),
                       expression, priority, T(den, dzh), recovery, dependencies,
                       [{"tag": "ups", "value": "{#DEVICE_NAME}"}, {"tag": "server", "value": "{#SERVER.NAME}"}])

    on_battery_expression = (f"min({ref('on_battery')},{{$WPX.ONBATT.FOR}})=1"
                             f" and last({ref('battery_test')})<>1")
    ups_triggers = [
        ups_trigger("on_battery", "on battery", "电池供电",
                    on_battery_expression, "HIGH",
                    "Mains power has failed: the UPS has run on battery for {$WPX.ONBATT.FOR}. A battery self-test "
                    "(mode 5) never fires this. It resolves once the UPS has been off battery for {$WPX.RESOLVE.AFTER}.",
                    "市电中断：UPS 已用电池供电 {$WPX.ONBATT.FOR}。电池自检（模式 5）不会触发本告警。"
                    "UPS 脱离电池供电 {$WPX.RESOLVE.AFTER} 后恢复。",
                    recovery=f"max({ref('on_battery')},{{$WPX.RESOLVE.AFTER}})=0"),
        ups_trigger("battery.low", "battery charge low", "电池电量低",
                    f"max({ref('battery.capacity')},{{$WPX.LOW.FOR}})<{{$WPX.BATTERY.LOW}}", "HIGH",
                    "The battery charge has stayed below {$WPX.BATTERY.LOW}% for {$WPX.LOW.FOR}.",
                    "电池电量持续 {$WPX.LOW.FOR} 低于 {$WPX.BATTERY.LOW}%。",
                    recovery=f"min({ref('battery.capacity')},{{$WPX.RESOLVE.AFTER}})>={{$WPX.BATTERY.LOW}}"),
        ups_trigger("runtime.low", "runtime low", "剩余续航时间不足",
                    f"max({ref('battery.runtime')},{{$WPX.LOW.FOR}})<{{$WPX.RUNTIME.LOW}}", "HIGH",
                    "The estimated runtime has stayed below {$WPX.RUNTIME.LOW} s for {$WPX.LOW.FOR}: shut down the "
                    "protected equipment or restore power.",
                    "估计续航时间持续 {$WPX.LOW.FOR} 低于 {$WPX.RUNTIME.LOW} 秒：请关闭受保护的设备或恢复供电。",
                    recovery=f"min({ref('battery.runtime')},{{$WPX.RESOLVE.AFTER}})>={{$WPX.RUNTIME.LOW}}"),
        ups_trigger("fault", "reports a fault", "报告故障",
                    f"min({ref('fault')},{{$WPX.FAULT.FOR}})=1", "HIGH",
                    "The UPS has reported a fault code or been in fault mode (WinPower mode 6) for {$WPX.FAULT.FOR}. "
                    "The load may be unprotected.",
                    "UPS 报告故障码或处于故障模式（WinPower 模式 6）已 {$WPX.FAULT.FOR}，负载可能失去保护。",
                    recovery=f"max({ref('fault')},{{$WPX.RESOLVE.AFTER}})=0"),
        ups_trigger("on_bypass", "on bypass", "旁路供电",
                    f"min({ref('on_bypass')},{{$WPX.WARN.FOR}})=1", "WARNING",
                    "The load has been fed on bypass (mode 2) for {$WPX.WARN.FOR}: a power failure now drops it.",
                    "负载经旁路供电（模式 2）已 {$WPX.WARN.FOR}：此时市电中断会直接断电。"),
        ups_trigger("alarm", "active alarm", "有告警",
                    f"min({ref('alarm')},{{$WPX.WARN.FOR}})=1 and last({ref('battery_test')})<>1", "WARNING",
                    "The UPS has had an active alarm for {$WPX.WARN.FOR}; see the WinPower console. A battery "
                    "self-test's own alarm does not fire this.",
                    "UPS 的告警已持续 {$WPX.WARN.FOR}，请查看 WinPower 控制台。电池自检自身的告警不会触发本告警。"),
        ups_trigger("disconnected", "disconnected from WinPower", "与 WinPower 断开",
                    f"max({ref('connected')},{{$WPX.WARN.FOR}})=0", "WARNING",
                    "WinPower has lost communication with the UPS for {$WPX.WARN.FOR}; its readings are unavailable.",
                    "WinPower 与该 UPS 失去通信已 {$WPX.WARN.FOR}，读数不可用。"),
        ups_trigger("load.high", "load high", "负载过高",
                    f"min({ref('load.percent')},{{$WPX.LOAD.FOR}})>{{$WPX.LOAD.HIGH}}", "WARNING",
                    "The load has stayed above {$WPX.LOAD.HIGH}% for {$WPX.LOAD.FOR}.",
                    "负载率持续 {$WPX.LOAD.FOR} 高于 {$WPX.LOAD.HIGH}%。"),
        ups_trigger("temperature.high", "temperature high", "温度过高",
                    f"min({ref('temperature')},{{$WPX.LOAD.FOR}})>{{$WPX.TEMP.HIGH}}", "WARNING",
                    "The internal temperature has stayed above {$WPX.TEMP.HIGH} °C for {$WPX.LOAD.FOR}. Heat shortens battery life.",
                    "内部温度持续 {$WPX.LOAD.FOR} 高于 {$WPX.TEMP.HIGH} °C，高温会缩短电池寿命。"),
    ]

    server_items = []
    for suffix, family, name, units, vmap, description in [
        ("up", "winpower_exporter_up", T("Collecting", "采集状态"), "", "up",
         T("1 when the last collection from the server succeeded.", "最近一次从该服务器采集成功时为 1。")),
        ("connection", "winpower_connection_status", T("Connection", "连接状态"), "", "up",
         T("1 while the exporter reaches the WinPower server.", "导出器能连上 WinPower 服务器时为 1。")),
        ("auth", "winpower_auth_status", T("Login", "登录状态"), "", "up",
         T("1 while the exporter's login to WinPower works.", "导出器登录 WinPower 成功时为 1。")),
        ("devices", "winpower_exporter_device_count", T("UPS devices", "UPS 数量"), "", None,
         T("UPS devices the server lists.", "该服务器列出的 UPS 数量。")),
        ("last_collection", "winpower_exporter_last_collection_timestamp_seconds", T("Last collection", "最近一次采集"), "unixtime", None,
         T("When the last collection attempt finished.", "最近一次采集尝试结束的时间。")),
        ("skipped", "winpower_exporter_collections_skipped_total", T("Collections skipped", "跳过的采集次数"), "", None,
         T("Collections skipped because the previous one was still running.", "因上一次仍在进行而跳过的采集次数。")),
    ]:
        item = {
            "uuid": uid(t, "server", suffix),
            "name": T(f"WinPower server {{#SERVER.NAME}}: {name.en}", f"WinPower 服务器 {{#SERVER.NAME}}：{name.zh}"),
            "type": "DEPENDENT", "key": f'wpexporter.server.{suffix}["{{#SERVER}}"]', "delay": "0",
            "value_type": "FLOAT" if suffix == "last_collection" else "UNSIGNED", "units": units,
            "description": description,
            "preprocessing": [{"type": "PROMETHEUS_TO_JSON", "parameters": [family]},
                              {"type": "JAVASCRIPT", "parameters": [T(SERVER_JS % MISSING_SERVER.en,
                                                                      SERVER_JS % MISSING_SERVER.zh)]}],
            "master_item": {"key": MASTER},
            "tags": [{"tag": "component", "value": "winpower"}, {"tag": "server", "value": "{#SERVER.NAME}"}],
        }
        if vmap:
            item["valuemap"] = {"name": "wpexporter up/down"}
        server_items.append(item)

    def sref(suffix):
        return f'/{t}/wpexporter.server.{suffix}["{{#SERVER}}"]'

    unreachable_name = T("WinPower server {#SERVER.NAME}: unreachable", "WinPower 服务器 {#SERVER.NAME}：无法访问")
    unreachable_expression = f"max({sref('connection')},{{$WPX.UNREACHABLE.FOR}})=0"
    server_triggers = [
        trigger(t, "server.unreachable", unreachable_name, unreachable_expression, "HIGH",
                T("The exporter has not reached the WinPower server for {$WPX.UNREACHABLE.FOR}. Its UPS readings "
                  "are withdrawn; energy totals are kept.",
                  "导出器已有 {$WPX.UNREACHABLE.FOR} 连不上该 WinPower 服务器。其 UPS 读数已撤下，累计电能保留。"),
                tags=[{"tag": "server", "value": "{#SERVER.NAME}"}]),
        trigger(t, "server.auth", T("WinPower server {#SERVER.NAME}: login failing", "WinPower 服务器 {#SERVER.NAME}：登录失败"),
                f"max({sref('auth')},{{$WPX.UNREACHABLE.FOR}})=0", "HIGH",
                T("Logging in to WinPower has failed for {$WPX.UNREACHABLE.FOR}: check the user name and password "
                  "the exporter uses for this server.",
                  "登录 WinPower 已失败 {$WPX.UNREACHABLE.FOR}：请检查导出器为该服务器配置的用户名和密码。"),
                dependencies=[(unreachable_name, unreachable_expression)],
                tags=[{"tag": "server", "value": "{#SERVER.NAME}"}]),
        trigger(t, "server.stale", T("WinPower server {#SERVER.NAME}: collections stale", "WinPower 服务器 {#SERVER.NAME}：采集停滞"),
                f"now()-last({sref('last_collection')})>{{$WPX.STALE.MAX}}", "WARNING",
                T("The last collection attempt finished more than {$WPX.STALE.MAX} s ago: the exporter's scheduler may be stuck. "
                  "Depends on \"/metrics unreachable\": an exporter that stopped answering is that problem alone.",
                  "最近一次采集尝试结束于 {$WPX.STALE.MAX} 秒以前：导出器的调度可能卡住了。"
                  "依赖于“/metrics 无法访问”：导出器停止应答时只报那一个问题。"),
                dependencies=[(EXPORTER_DOWN_NAME, EXPORTER_DOWN_EXPRESSION % t)],
                tags=[{"tag": "server", "value": "{#SERVER.NAME}"}]),
        trigger(t, "server.skipped", T("WinPower server {#SERVER.NAME}: collections skipped", "WinPower 服务器 {#SERVER.NAME}：采集被跳过"),
                f"max({sref('skipped')},10m)-min({sref('skipped')},10m)>0", "WARNING",
                T("Collections were skipped in the last 10 minutes because the previous one was still running: "
                  "WinPower answers slower than the collection interval.",
                  "最近 10 分钟内有采集因上一次仍在进行而被跳过：WinPower 的响应慢于采集间隔。"),
                tags=[{"tag": "server", "value": "{#SERVER.NAME}"}]),
    ]

    exporter_items = [
        {"uuid": uid(t, "master"), "name": T("wpexporter: Get /metrics", "wpexporter：读取 /metrics"),
         "type": "HTTP_AGENT", "key": MASTER, "delay": "{$WPX.INTERVAL}", "history": "0", "trends": "0",
         "value_type": "TEXT", "timeout": "{$WPX.TIMEOUT}", "url": "{$WPX.URL}",
         "authtype": "BASIC", "username": "{$WPX.USER}", "password": "{$WPX.PASSWORD}",
         "verify_peer": "YES", "verify_host": "YES",
         "description": T("The exporter's whole exposition; every other item of the template is read from it. Basic "
                          "authentication uses {$WPX.USER} and {$WPX.PASSWORD} (empty: none); an https:// URL is "
                          "verified against the Zabbix server's CA bundle (SSLCALocation).",
                          "导出器的全部指标；模板的其他监控项都由它解析。Basic 认证使用 {$WPX.USER} 与 {$WPX.PASSWORD}"
                          "（为空则不认证）；https:// 地址按 Zabbix 服务器的 CA 证书（SSLCALocation）校验。"),
         "tags": [{"tag": "component", "value": "raw"}]},
        {"uuid": uid(t, "exporter", "version"), "name": T("wpexporter: Version", "wpexporter：版本"),
         "type": "DEPENDENT", "key": "wpexporter.version", "delay": "0", "history": "7d", "trends": "0", "value_type": "CHAR",
         "description": T("The exporter's version (winpower_exporter_build_info).", "导出器的版本（winpower_exporter_build_info）。"),
         "preprocessing": [pattern("winpower_exporter_build_info", "version"),
                           {"type": "DISCARD_UNCHANGED_HEARTBEAT", "parameters": ["1d"]}],
         "master_item": {"key": MASTER}, "tags": [{"tag": "component", "value": "exporter"}]},
        {"uuid": uid(t, "exporter", "memory"), "name": T("wpexporter: Resident memory", "wpexporter：常驻内存"),
         "type": "DEPENDENT", "key": "wpexporter.memory", "delay": "0", "value_type": "FLOAT", "units": "B",
         "description": T("The exporter's resident memory (process_resident_memory_bytes).", "导出器进程的常驻内存（process_resident_memory_bytes）。"),
         "preprocessing": [pattern("process_resident_memory_bytes")],
         "master_item": {"key": MASTER}, "tags": [{"tag": "component", "value": "exporter"}]},
        {"uuid": uid(t, "exporter", "persist_failures"), "name": T("wpexporter: Energy saves failed", "wpexporter：电能保存失败次数"),
         "type": "DEPENDENT", "key": "wpexporter.energy.persist_failures", "delay": "0", "value_type": "UNSIGNED",
         "description": T("Failed saves of the energy totals (winpower_exporter_energy_persist_failures_total).",
                          "保存累计电能失败的次数（winpower_exporter_energy_persist_failures_total）。"),
         "preprocessing": [pattern("winpower_exporter_energy_persist_failures_total")],
         "master_item": {"key": MASTER}, "tags": [{"tag": "component", "value": "exporter"}]},
    ]
    exporter_triggers = [
        trigger(t, "exporter.down", EXPORTER_DOWN_NAME, EXPORTER_DOWN_EXPRESSION % t, "HIGH",
                T("Zabbix has read nothing from {$WPX.URL} for {$WPX.NODATA}. No UPS behind this exporter is monitored.",
                  "Zabbix 已有 {$WPX.NODATA} 没有从 {$WPX.URL} 读到数据，该导出器后面的 UPS 都失去监控。")),
        trigger(t, "exporter.persist", T("wpexporter: cannot save energy totals", "wpexporter：无法保存累计电能"),
                f"max(/{t}/wpexporter.energy.persist_failures,15m)-min(/{t}/wpexporter.energy.persist_failures,15m)>0",
                "WARNING",
                T("Saving the energy state failed in the last 15 minutes; totals would be lost on a restart. Check "
                  "storage.data_dir (space, permissions).",
                  "最近 15 分钟内保存电能状态失败，重启会丢失累计值。请检查 storage.data_dir（空间、权限）。")),
    ]

    def discovery(key, name, family, macros, description, items, triggers):
        return {
            "uuid": uid(t, "discovery", key), "name": name, "type": "DEPENDENT", "key": key, "delay": "0",
            "lifetime": "{$WPX.LLD.LIFETIME}", "description": description,
            "item_prototypes": items, "trigger_prototypes": triggers,
            "master_item": {"key": MASTER},
            "lld_macro_paths": [{"lld_macro": macro_name, "path": path} for macro_name, path in macros.items()],
            "preprocessing": [
                {"type": "PROMETHEUS_TO_JSON", "parameters": [family]},
                {"type": "JAVASCRIPT", "parameters": [DISCOVERY_JS]},
                {"type": "DISCARD_UNCHANGED_HEARTBEAT", "parameters": ["{$WPX.LLD.REFRESH}"]},
            ],
        }

    server_discovery = discovery(
        "wpexporter.servers.discovery", T("WinPower servers", "WinPower 服务器"), "winpower_connection_status", SERVER_MACROS,
        T("Every WinPower server the exporter collects from (one, or each entry of its `servers` section).",
          "导出器采集的每个 WinPower 服务器（一个，或其 `servers` 配置中的每一项）。"),
        server_items, server_triggers)
    ups_discovery = discovery(
        "wpexporter.ups.discovery", T("UPS devices", "UPS 设备"), "winpower_device_info", DEVICE_MACROS,
        T("Every UPS of every WinPower server behind the exporter, from winpower_device_info.",
          "导出器后面每个 WinPower 服务器的每台 UPS，来自 winpower_device_info。"),
        ups_prototypes, ups_triggers)

    macros = [
        macro("{$WPX.URL}", "http://{HOST.CONN}:9090/metrics", T("The exporter's /metrics URL.", "导出器的 /metrics 地址。")),
        macro("{$WPX.USER}", "", T("Basic-auth user of the exporter's web configuration; empty: none.",
                                    "导出器 Web 配置中的 Basic 认证用户名；为空表示不认证。")),
        macro("{$WPX.PASSWORD}", "", T("Basic-auth password (secret).", "Basic 认证密码（密文宏）。"), secret=True),
        macro("{$WPX.INTERVAL}", "30s", T("How often /metrics is read.", "读取 /metrics 的间隔。")),
        macro("{$WPX.TIMEOUT}", "10s", T("Timeout of a read of /metrics.", "读取 /metrics 的超时。")),
        macro("{$WPX.LLD.REFRESH}", "15m", T("Discovery runs at least this often when nothing changed.",
                                              "没有变化时，自动发现至少按此间隔运行一次。")),
        macro("{$WPX.LLD.LIFETIME}", "7d", T("How long a UPS or server no longer listed keeps its items.",
                                              "不再出现的 UPS 或服务器的监控项保留多久。")),
        macro("{$WPX.NODATA}", "5m", T("No data for this long: the exporter is unreachable.", "超过该时长没有数据：导出器无法访问。")),
        macro("{$WPX.ONBATT.FOR}", "30s", T("On battery for this long: a problem.", "电池供电持续该时长即告警。")),
        macro("{$WPX.RESOLVE.AFTER}", "5m", T("A power problem resolves after this long back to normal (Prometheus' keep_firing_for).",
                                               "恢复正常持续该时长后，供电类问题才解除（对应 Prometheus 的 keep_firing_for）。")),
        macro("{$WPX.LOW.FOR}", "1m", T("Battery charge or runtime low for this long: a problem.", "电量或续航低于阈值持续该时长即告警。")),
        macro("{$WPX.BATTERY.LOW}", "30", T("Battery charge threshold, %.", "电池电量阈值（%）。")),
        macro("{$WPX.RUNTIME.LOW}", "600", T("Runtime threshold, seconds.", "续航时间阈值（秒）。")),
        macro("{$WPX.FAULT.FOR}", "1m", T("A fault for this long: a problem.", "故障持续该时长即告警。")),
        macro("{$WPX.WARN.FOR}", "2m", T("Bypass, alarm or disconnection for this long: a warning.", "旁路、告警或断开持续该时长即警告。")),
        macro("{$WPX.LOAD.FOR}", "5m", T("Load or temperature high for this long: a warning.", "负载或温度过高持续该时长即警告。")),
        macro("{$WPX.LOAD.HIGH}", "80", T("Load threshold, %.", "负载率阈值（%）。")),
        macro("{$WPX.TEMP.HIGH}", "40", T("Temperature threshold, °C.", "温度阈值（°C）。")),
        macro("{$WPX.UNREACHABLE.FOR}", "2m", T("WinPower unreachable or its login failing for this long: a problem.",
                                                 "WinPower 无法访问或登录失败持续该时长即告警。")),
        macro("{$WPX.STALE.MAX}", "120", T("Seconds since the last collection before it is stale.", "距上次采集超过该秒数即视为停滞。")),
    ]
    valuemaps = [
        valuemap(t, "wpexporter yes/no", ON_OFF),
        valuemap(t, "wpexporter connection", CONNECTED),
        valuemap(t, "wpexporter up/down", UP),
        valuemap(t, "WinPower mode", WINPOWER_MODES),
    ]
    return {
        "uuid": uid(t), "template": t, "name": T(t, "wpexporter（HTTP）"),
        "description": T("Every UPS of every WinPower server behind one wpexporter, read from its /metrics (one Zabbix host "
                         "per exporter). See docs/zabbix.md in wpexporter's sources.",
                         "从一个 wpexporter 的 /metrics 读取其后每个 WinPower 服务器的每台 UPS（每个导出器一个 Zabbix 主机）。"
                         "说明见 wpexporter 源码中的 docs/zh-CN/zabbix.md。"),
        "groups": [{"name": GROUP}],
        "items": exporter_items, "triggers": exporter_triggers,
        "discovery_rules": [server_discovery, ups_discovery],
        "tags": [{"tag": "class", "value": "power"}, {"tag": "target", "value": "wpexporter"}],
        "macros": macros, "valuemaps": valuemaps,
    }


# --- UPS-MIB by SNMP ---------------------------------------------------------------------------

MIB = "1.3.6.1.2.1.33.1"
# upsWellKnownAlarms (RFC 1628), by their last sub-identifier.
ALARMS = ["BatteryBad", "OnBattery", "LowBattery", "DepletedBattery", "TempBad", "InputBad", "OutputBad",
          "OutputOverload", "OnBypass", "BypassBad", "OutputOffAsRequested", "UpsOffAsRequested", "ChargerFailed",
          "UpsOutputOff", "UpsSystemOff", "FanFailure", "FuseFailure", "GeneralFault", "DiagnosticTestFailed",
          "CommunicationsLost", "AwaitingPower", "ShutdownPending", "ShutdownImminent", "TestInProgress"]
# Alarms with a trigger of their own (on battery, low battery, bypass) or that are no problem (a test).
ALARMS_ELSEWHERE = ["OnBattery", "LowBattery", "DepletedBattery", "OnBypass", "TestInProgress"]

ALARM_JS = """var rows = JSON.parse(value), names = %s;
for (var i = 0; i < rows.length; i++) {
    var oid = String(rows[i]['{#ALARM_DESCR}'] || '');
    var match = /^(?:\\.?1|iso)\\.3\\.6\\.1\\.2\\.1\\.33\\.1\\.6\\.3\\.(\\d+)$/.exec(oid);
    rows[i]['{#ALARM_NAME}'] = match && names[match[1] - 1] ? 'ups' + 'Alarm' + names[match[1] - 1] : oid;
}
return JSON.stringify(rows);""" % ("[" + ", ".join(f"'{name}'" for name in ALARMS) + "]")


def snmp_template():
    t = SNMP

    def item(key, oid, name, value_type, units, description, valuemap_name=None, multiplier=None, delay="{$UPS.INTERVAL}",
             component="ups"):
        entry = {"uuid": uid(t, "item", key), "name": name, "type": "SNMP_AGENT", "snmp_oid": oid, "key": key,
                 "delay": delay, "value_type": value_type, "units": units, "description": description,
                 "tags": [{"tag": "component", "value": component}]}
        if value_type in ("CHAR", "TEXT"):
            entry.update(history="7d", trends="0")
        if valuemap_name:
            entry["valuemap"] = {"name": valuemap_name}
        if multiplier:
            entry["preprocessing"] = [{"type": "MULTIPLIER", "parameters": [multiplier]}]
        return entry

    items = [
        item("ups.ident.model", f"{MIB}.1.2.0", T("Model", "型号"), "CHAR", "", T("upsIdentModel.", "upsIdentModel。"),
             delay="{$UPS.INVENTORY.INTERVAL}", component="inventory"),
        item("ups.ident.name", f"{MIB}.1.5.0", T("Name", "名称"), "CHAR", "", T("upsIdentName.", "upsIdentName。"),
             delay="{$UPS.INVENTORY.INTERVAL}", component="inventory"),
        item("ups.battery.status", f"{MIB}.2.1.0", T("Battery status", "电池状态"), "UNSIGNED", "",
             T("upsBatteryStatus: normal, low or depleted.", "upsBatteryStatus：正常、电量低或耗尽。"), "UPS-MIB battery status"),
        item("ups.battery.seconds_on_battery", f"{MIB}.2.2.0", T("Time on battery", "电池供电时长"), "UNSIGNED", "s",
             T("upsSecondsOnBattery: 0 on mains.", "upsSecondsOnBattery：市电供电时为 0。")),
        item("ups.battery.runtime", f"{MIB}.2.3.0", T("Runtime remaining", "剩余续航时间"), "UNSIGNED", "s",
             T("upsEstimatedMinutesRemaining, in seconds.", "upsEstimatedMinutesRemaining，换算为秒。"), multiplier="60"),
        item("ups.battery.charge", f"{MIB}.2.4.0", T("Battery charge", "电池电量"), "UNSIGNED", "%",
             T("upsEstimatedChargeRemaining.", "upsEstimatedChargeRemaining。")),
        item("ups.battery.voltage", f"{MIB}.2.5.0", T("Battery voltage", "电池电压"), "FLOAT", "V",
             T("upsBatteryVoltage (0.1 V in the MIB).", "upsBatteryVoltage（MIB 中单位为 0.1 V）。"), multiplier="0.1"),
        item("ups.battery.temperature", f"{MIB}.2.7.0", T("Temperature", "温度"), "FLOAT", "°C",
             T("upsBatteryTemperature: the UPS's temperature.", "upsBatteryTemperature：UPS 的温度。")),
        item("ups.input.line_bads", f"{MIB}.3.1.0", T("Input line bads", "输入异常次数"), "UNSIGNED", "",
             T("upsInputLineBads: transfers to battery.", "upsInputLineBads：转电池的次数。")),
        item("ups.output.source", f"{MIB}.4.1.0", T("Output source", "输出来源"), "UNSIGNED", "",
             T("upsOutputSource: normal, bypass, battery … A battery self-test stays normal.",
               "upsOutputSource：正常、旁路、电池等。电池自检时仍为正常。"), "UPS-MIB output source"),
        item("ups.output.frequency", f"{MIB}.4.2.0", T("Output frequency", "输出频率"), "FLOAT", "Hz",
             T("upsOutputFrequency (0.1 Hz in the MIB).", "upsOutputFrequency（MIB 中单位为 0.1 Hz）。"), multiplier="0.1"),
        item("ups.alarms", f"{MIB}.6.1.0", T("Alarms present", "当前告警数"), "UNSIGNED", "",
             T("upsAlarmsPresent: rows of upsAlarmTable.", "upsAlarmsPresent：upsAlarmTable 的行数。")),
        item("ups.test.result", f"{MIB}.7.3.0", T("Last self-test", "最近一次自检"), "UNSIGNED", "",
             T("upsTestResultsSummary.", "upsTestResultsSummary。"), "UPS-MIB test result"),
    ]
    for entry in items:
        entry["name"] = T(f"UPS: {entry['name'].en}", f"UPS：{entry['name'].zh}")

    def ref(key):
        return f"/{t}/{key}"

    def ups_trigger(key, en, zh, expression, priority, den, dzh, recovery=None):
        return trigger(t, key, T(f"UPS {{HOST.NAME}}: {en}", f"UPS {{HOST.NAME}}：{zh}"), expression, priority,
                       T(den, dzh), recovery)

    source = ref("ups.output.source")
    triggers = [
        ups_trigger("on_battery", "on battery", "电池供电",
                    f"min({source},{{$UPS.ONBATT.FOR}})=5", "HIGH",
                    "upsOutputSource has been battery(5) for {$UPS.ONBATT.FOR}: mains power has failed. A battery "
                    "self-test keeps the source normal and never fires this. Resolves after {$UPS.RESOLVE.AFTER} off battery.",
                    "upsOutputSource 已为 battery(5) {$UPS.ONBATT.FOR}：市电中断。电池自检时输出来源仍为正常，"
                    "不会触发本告警。脱离电池供电 {$UPS.RESOLVE.AFTER} 后恢复。",
                    recovery=f"count({source},{{$UPS.RESOLVE.AFTER}},\"eq\",5)=0"),
        ups_trigger("battery.low", "battery low", "电池电量低",
                    f"max({ref('ups.battery.charge')},{{$UPS.LOW.FOR}})<{{$UPS.BATTERY.LOW}} or last({ref('ups.battery.status')})>=3",
                    "HIGH",
                    "The charge has stayed below {$UPS.BATTERY.LOW}% for {$UPS.LOW.FOR}, or upsBatteryStatus says low or depleted.",
                    "电量持续 {$UPS.LOW.FOR} 低于 {$UPS.BATTERY.LOW}%，或 upsBatteryStatus 为电量低或耗尽。",
                    recovery=f"min({ref('ups.battery.charge')},{{$UPS.RESOLVE.AFTER}})>={{$UPS.BATTERY.LOW}} and "
                             f"max({ref('ups.battery.status')},{{$UPS.RESOLVE.AFTER}})<3"),
        ups_trigger("runtime.low", "runtime low", "剩余续航时间不足",
                    f"max({ref('ups.battery.runtime')},{{$UPS.LOW.FOR}})<{{$UPS.RUNTIME.LOW}}", "HIGH",
                    "The estimated runtime has stayed below {$UPS.RUNTIME.LOW} s for {$UPS.LOW.FOR}.",
                    "估计续航时间持续 {$UPS.LOW.FOR} 低于 {$UPS.RUNTIME.LOW} 秒。",
                    recovery=f"min({ref('ups.battery.runtime')},{{$UPS.RESOLVE.AFTER}})>={{$UPS.RUNTIME.LOW}}"),
        ups_trigger("fault", "fault", "故障",
                    f"min({source},{{$UPS.FAULT.FOR}})=1", "HIGH",
                    "upsOutputSource has been other(1) for {$UPS.FAULT.FOR}: wpexporter serves a UPS in fault mode so. "
                    "Other alarms of the UPS come from upsAlarmTable (discovered).",
                    "upsOutputSource 已为 other(1) {$UPS.FAULT.FOR}：wpexporter 以此表示故障模式。"
                    "UPS 的其他告警来自 upsAlarmTable（自动发现）。",
                    recovery=f"count({source},{{$UPS.RESOLVE.AFTER}},\"eq\",1)=0"),
        ups_trigger("on_bypass", "on bypass", "旁路供电",
                    f"min({source},{{$UPS.WARN.FOR}})=4", "WARNING",
                    "upsOutputSource has been bypass(4) for {$UPS.WARN.FOR}.", "upsOutputSource 已为 bypass(4) {$UPS.WARN.FOR}。"),
        ups_trigger("temperature.high", "temperature high", "温度过高",
                    f"min({ref('ups.battery.temperature')},{{$UPS.LOAD.FOR}})>{{$UPS.TEMP.HIGH}}", "WARNING",
                    "The temperature has stayed above {$UPS.TEMP.HIGH} °C for {$UPS.LOAD.FOR}.",
                    "温度持续 {$UPS.LOAD.FOR} 高于 {$UPS.TEMP.HIGH} °C。"),
        ups_trigger("nodata", "no SNMP data", "无 SNMP 数据",
                    f"nodata({ref('ups.alarms')},{{$UPS.NODATA}})=1", "HIGH",
                    "upsAlarmsPresent has not been read for {$UPS.NODATA}: the agent does not answer (address, port, "
                    "community or SNMPv3 user and context).",
                    "{$UPS.NODATA} 内没有读到 upsAlarmsPresent：代理无应答（请检查地址、端口、团体名或 SNMPv3 用户与上下文）。"),
    ]

    alarm_discovery = {
        "uuid": uid(t, "discovery", "alarms"), "name": T("UPS alarms", "UPS 告警"), "type": "SNMP_AGENT",
        "snmp_oid": f"discovery[{{#ALARM_DESCR}},{MIB}.6.2.1.2]", "key": "ups.alarm.discovery",
        "delay": "{$UPS.ALARM.DISCOVERY}", "lifetime": "{$UPS.ALARM.LIFETIME}",
        "description": T("The rows of upsAlarmTable, one item and trigger each. Alarms with a trigger of their own "
                         "(on battery, low or depleted battery, bypass) and a self-test's are left out.",
                         "upsAlarmTable 的每一行，各有一个监控项与触发器。已有专门触发器的告警（电池供电、电量低或耗尽、旁路）"
                         "和自检的告警不在其中。"),
        "filter": {"conditions": [{"macro": "{#ALARM_NAME}", "value": "^upsAlarm(" + "|".join(ALARMS_ELSEWHERE) + ")$",
                                   "operator": "NOT_MATCHES_REGEX", "formulaid": "A"}]},
        "preprocessing": [{"type": "JAVASCRIPT", "parameters": [ALARM_JS]}],
        "item_prototypes": [{
            "uuid": uid(t, "alarm", "descr"), "name": T("UPS alarm {#ALARM_NAME}", "UPS 告警 {#ALARM_NAME}"),
            "type": "SNMP_AGENT", "snmp_oid": f"{MIB}.6.2.1.2.{{#SNMPINDEX}}", "key": "ups.alarm[{#SNMPINDEX}]",
            "delay": "{$UPS.INTERVAL}", "history": "7d", "trends": "0", "value_type": "CHAR",
            "description": T("upsAlarmDescr of the row: present while the alarm is.", "该行的 upsAlarmDescr：告警存在时才有值。"),
            "tags": [{"tag": "component", "value": "alarm"}],
        }],
        "trigger_prototypes": [trigger(
            t, "alarm", T("UPS {HOST.NAME}: alarm {#ALARM_NAME}", "UPS {HOST.NAME}：告警 {#ALARM_NAME}"),
            f"nodata(/{t}/ups.alarm[{{#SNMPINDEX}}],{{$UPS.ALARM.NODATA}})=0", "WARNING",
            T("The UPS lists {#ALARM_NAME} in upsAlarmTable. upsAlarmCommunicationsLost: the UPS cannot be read "
              "(disconnected, stale, WinPower unreachable). Resolves once the row has been gone for {$UPS.ALARM.NODATA}.",
              "UPS 在 upsAlarmTable 中列出 {#ALARM_NAME}。upsAlarmCommunicationsLost 表示读不到该 UPS"
              "（已断开、数据过期或 WinPower 无法访问）。该行消失 {$UPS.ALARM.NODATA} 后恢复。"))],
    }

    lines = []
    for direction, table, fields in [
        ("input", f"{MIB}.3.3.1", [("voltage", 3, T("voltage", "电压"), "V", None),
                                   ("frequency", 2, T("frequency", "频率"), "Hz", "0.1")]),
        ("output", f"{MIB}.4.4.1", [("voltage", 2, T("voltage", "电压"), "V", None),
                                    ("current", 3, T("current", "电流"), "A", "0.1"),
                                    ("power", 4, T("active power", "有功功率"), "W", None),
                                    ("load", 5, T("load", "负载率"), "%", None)]),
    ]:
        label = T("Input", "输入") if direction == "input" else T("Output", "输出")
        prototypes = []
        for field, column, name, units, multiplier in fields:
            prototype = {
                "uuid": uid(t, direction, field), "name": T(f"UPS: {label.en} line {{#SNMPINDEX}}: {name.en}",
                                                            f"UPS：{label.zh}第 {{#SNMPINDEX}} 相{name.zh}"),
                "type": "SNMP_AGENT", "snmp_oid": f"{table}.{column}.{{#SNMPINDEX}}",
                "key": f"ups.{direction}.{field}[{{#SNMPINDEX}}]", "delay": "{$UPS.INTERVAL}",
                "value_type": "FLOAT" if multiplier else "UNSIGNED", "units": units,
                "description": T(f"Column {column} of the {direction} table ({table}).", f"{label.zh}表（{table}）的第 {column} 列。"),
                "tags": [{"tag": "component", "value": direction}],
            }
            if multiplier:
                prototype["preprocessing"] = [{"type": "MULTIPLIER", "parameters": [multiplier]}]
            prototypes.append(prototype)
        rule = {
            "uuid": uid(t, "discovery", direction), "name": T(f"{label.en} lines", f"{label.zh}相线"), "type": "SNMP_AGENT",
            # The index column is not-accessible (RFC 1628): the rows are walked on the table's first
            # readable column, the line's frequency (input) or voltage (output).
            "snmp_oid": f"discovery[{{#SNMPVALUE}},{table}.2]", "key": f"ups.{direction}.discovery",
            "delay": "{$UPS.LINE.DISCOVERY}", "lifetime": "{$UPS.ALARM.LIFETIME}",
            "description": T(f"The rows of the UPS-MIB's {direction} table.", f"UPS-MIB {label.zh}表的每一行。"),
            "item_prototypes": prototypes,
        }
        if direction == "output":
            rule["trigger_prototypes"] = [trigger(
                t, "output.load.high", T("UPS {HOST.NAME}: output line {#SNMPINDEX} load high", "UPS {HOST.NAME}：输出第 {#SNMPINDEX} 相负载过高"),
                f"min(/{t}/ups.output.load[{{#SNMPINDEX}}],{{$UPS.LOAD.FOR}})>{{$UPS.LOAD.HIGH}}", "WARNING",
                T("The line's load has stayed above {$UPS.LOAD.HIGH}% for {$UPS.LOAD.FOR}.",
                  "该相负载率持续 {$UPS.LOAD.FOR} 高于 {$UPS.LOAD.HIGH}%。"))]
        lines.append(rule)

    macros = [
        macro("{$SNMP_COMMUNITY}", "", T("SNMPv1/v2c community; with wpexporter, community@ups-name selects the UPS.",
                                          "SNMPv1/v2c 团体名；对 wpexporter 用 community@UPS名称 选择 UPS。"), secret=True),
        macro("{$UPS.SNMPV3.USER}", "", T("SNMPv3 security name (enter {$UPS.SNMPV3.USER} in the host's SNMP interface).",
                                           "SNMPv3 安全名（在主机的 SNMP 接口中填写 {$UPS.SNMPV3.USER}）。")),
        macro("{$UPS.SNMPV3.CONTEXT}", "", T("SNMPv3 context name: the UPS's name with wpexporter.",
                                              "SNMPv3 上下文名：对 wpexporter 即 UPS 的名称。")),
        macro("{$UPS.SNMPV3.AUTHPASS}", "", T("SNMPv3 authentication passphrase (secret).", "SNMPv3 认证口令（密文宏）。"), secret=True),
        macro("{$UPS.SNMPV3.PRIVPASS}", "", T("SNMPv3 privacy passphrase (secret).", "SNMPv3 加密口令（密文宏）。"), secret=True),
        macro("{$UPS.INTERVAL}", "1m", T("How often readings are polled.", "轮询读数的间隔。")),
        macro("{$UPS.INVENTORY.INTERVAL}", "1h", T("How often the identification is polled.", "轮询标识信息的间隔。")),
        macro("{$UPS.ALARM.DISCOVERY}", "1m", T("How often upsAlarmTable is walked.", "遍历 upsAlarmTable 的间隔。")),
        macro("{$UPS.LINE.DISCOVERY}", "1h", T("How often the input and output tables are walked.", "遍历输入、输出表的间隔。")),
        macro("{$UPS.ALARM.LIFETIME}", "1d", T("How long a row no longer listed keeps its item.", "不再出现的行的监控项保留多久。")),
        macro("{$UPS.ALARM.NODATA}", "3m", T("An alarm row gone for this long: its problem resolves.", "告警行消失该时长后，问题解除。")),
        macro("{$UPS.NODATA}", "5m", T("No answer for this long: a problem.", "无应答持续该时长即告警。")),
        macro("{$UPS.ONBATT.FOR}", "30s", T("On battery for this long: a problem.", "电池供电持续该时长即告警。")),
        macro("{$UPS.RESOLVE.AFTER}", "5m", T("On battery, battery low, runtime low and fault resolve after this long back to normal (Prometheus' keep_firing_for).",
                                               "电池供电、电量低、续航不足和故障恢复正常持续该时长后才解除（相当于 Prometheus 的 keep_firing_for）。")),
        macro("{$UPS.LOW.FOR}", "1m", T("Battery charge or runtime low for this long: a problem.", "电量或续航低于阈值持续该时长即告警。")),
        macro("{$UPS.BATTERY.LOW}", "30", T("Battery charge threshold, %.", "电池电量阈值（%）。")),
        macro("{$UPS.RUNTIME.LOW}", "600", T("Runtime threshold, seconds.", "续航时间阈值（秒）。")),
        macro("{$UPS.FAULT.FOR}", "1m", T("A fault for this long: a problem.", "故障持续该时长即告警。")),
        macro("{$UPS.WARN.FOR}", "2m", T("Bypass for this long: a warning.", "旁路持续该时长即警告。")),
        macro("{$UPS.LOAD.FOR}", "5m", T("Load or temperature high for this long: a warning.", "负载或温度过高持续该时长即警告。")),
        macro("{$UPS.LOAD.HIGH}", "80", T("Load threshold, %.", "负载率阈值（%）。")),
        macro("{$UPS.TEMP.HIGH}", "40", T("Temperature threshold, °C.", "温度阈值（°C）。")),
    ]
    valuemaps = [
        valuemap(t, "UPS-MIB battery status", [(1, T("unknown", "未知")), (2, T("batteryNormal", "正常")),
                                               (3, T("batteryLow", "电量低")), (4, T("batteryDepleted", "耗尽"))]),
        valuemap(t, "UPS-MIB output source", [(1, T("other", "其他（故障）")), (2, T("none", "无输出")), (3, T("normal", "正常")),
                                              (4, T("bypass", "旁路")), (5, T("battery", "电池")), (6, T("booster", "升压")),
                                              (7, T("reducer", "降压"))]),
        valuemap(t, "UPS-MIB test result", [(1, T("donePass", "通过")), (2, T("doneWarning", "警告")), (3, T("doneError", "错误")),
                                            (4, T("aborted", "中止")), (5, T("inProgress", "进行中")),
                                            (6, T("noTestsInitiated", "未做过自检"))]),
    ]
    return {
        "uuid": uid(t), "template": t, "name": T(t, "UPS-MIB（SNMP）"),
        "description": T("One UPS per host through the IETF UPS-MIB (RFC 1628): wpexporter's SNMP agent (one host per "
                         "UPS: community@name or the SNMPv3 context) or any RFC 1628 card. See docs/zabbix.md in wpexporter's sources.",
                         "通过 IETF UPS-MIB（RFC 1628）监控每台 UPS（每个主机一台）：wpexporter 的 SNMP 代理"
                         "（每台 UPS 一个主机：community@名称 或 SNMPv3 上下文），或任何 RFC 1628 网卡。"
                         "说明见 wpexporter 源码中的 docs/zh-CN/zabbix.md。"),
        "groups": [{"name": GROUP}],
        "items": items, "triggers": triggers,
        "discovery_rules": [alarm_discovery] + lines,
        "tags": [{"tag": "class", "value": "power"}, {"tag": "target", "value": "ups"}],
        "macros": macros, "valuemaps": valuemaps,
    }


# --- Output --------------------------------------------------------------------------------------

class Dumper(yaml.SafeDumper):
    pass


def _string(dumper, value):
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else "'")


Dumper.add_representer(str, _string)


def document(template, language):
    body = tr(template, language)
    # Triggers of a template's items are the export's own (as Zabbix exports triggers on several items).
    triggers = body.pop("triggers")
    export = {"zabbix_export": {"version": "6.0",
                                "groups": [{"uuid": uid("group", GROUP), "name": GROUP}],
                                "templates": [body], "triggers": triggers}}
    header = (f"# Generated by scripts/gen-zabbix.py ({'English' if language == 'en' else 'Chinese'}); do not edit.\n"
              "# Zabbix 6.0 and 6.2: Configuration > Templates > Import; 6.4 and later: Data collection > Templates > Import (docs/zabbix.md).\n")
    return header + yaml.dump(export, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=100000)


def outputs():
    for build, name in ((http_template, "wpexporter_by_http.yaml"), (snmp_template, "ups_mib_by_snmp.yaml")):
        template = build()
        yield name, document(template, "en")
        yield f"zh-CN/{name}", document(template, "zh")


if __name__ == "__main__":
    generated.run("scripts/gen-zabbix.py", "deploy/zabbix", outputs)
