#!/usr/bin/env bash
# The Chinese WeCom (企业微信) example as a real Alertmanager runs it:
# Debian's Alertmanager with deploy/alertmanager/alertmanager.yml and the fragment
# deploy/alertmanager/wecom.zh-CN.yml merged in, the template
# deploy/alertmanager/templates/wecom.zh-CN.tmpl, and WeCom's API played by a local receiver on
# 127.0.0.1 that records every request. An UPSOnBattery alert with the annotations of
# deploy/prometheus/alerts.zh-CN.yml (rendered for one UPS) is posted to Alertmanager's API, then
# resolved; the check proves that
#   - amtool accepts the merged configuration and its template;
#   - Alertmanager asks for a token with the configured corp ID and secret and sends one text
#     message to the configured agent and department, "【告警】UPSOnBattery（1 条）" with the Chinese
#     summary, description, severity and start time in Beijing time;
#   - the resolution arrives as "【已恢复】…" with its end time.
# The example's webhook receivers (another host's name) are pointed at the same local receiver,
# and the WeCom route's group_wait and group_interval shortened to 1 s and 2 s, so nothing leaves
# this machine and the check takes seconds (about 10 s). Every port is bound as port 0 and read
# back (the receiver writes its own, Alertmanager logs the address it bound). Does not run
# wpexporter.
#
#   IntegrationTests/tests_04_prometheus/test_05_alertmanager_wecom.sh
set -euo pipefail
binary_needed=no
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh tests prometheus   # prometheus-alertmanager, amtool, python3 and PyYAML, curl

# --- WeCom's API (gettoken, message/send) and the webhooks, recorded -------------------------
python3 - "$work" >"$work/receiver.log" 2>&1 <<'PY' &
import json, sys
sys.path.insert(0, "IntegrationTests")
from recording_receiver import Receiver, serve
class Handler(Receiver):
    def do_GET(self):
        path, query = self.url()
        if path != "/cgi-bin/gettoken":
            return self.send_error(404)
        ok = query.get("corpid") == "ww-test-corp" and query.get("corpsecret") == "test-secret"
        self.record("gettoken", corpid=query.get("corpid"), secret_ok=ok)
        self.reply({"errcode": 0, "errmsg": "ok", "access_token": "test-token", "expires_in": 7200} if ok
                   else {"errcode": 40001, "errmsg": "invalid credential"})
    def do_POST(self):
        path, query = self.url()
        body = json.loads(self.raw_body() or b"null")
        if path == "/cgi-bin/message/send":
            self.record("send", token=query.get("access_token", ""), body=body)
            self.reply({"errcode": 0, "errmsg": "ok"})
        elif path.startswith("/webhook"):
            self.record("webhook", path=path)
            self.reply({})
        else:
            self.send_error(404)
serve(Handler, sys.argv[1])
PY
wait_for 10 test -f "$work/receiver.port" || fail "the local WeCom receiver did not start"
receiver="http://127.0.0.1:$(cat "$work/receiver.port")"

# --- The example merged into the shipped configuration -----------------------------------------
python3 - "$work" "$receiver" <<'PY'
import os, re, sys, yaml
work, receiver = sys.argv[1], sys.argv[2]
base = yaml.safe_load(open("deploy/alertmanager/alertmanager.yml", encoding="utf-8"))
fragment = yaml.safe_load(open("deploy/alertmanager/wecom.zh-CN.yml", encoding="utf-8"))
base["templates"] = base.get("templates", []) + [os.path.abspath("deploy/alertmanager/templates/wecom.zh-CN.tmpl")]
for receiver_config in base["receivers"]:
    for hook in receiver_config.get("webhook_configs", []):
        hook["url"] = re.sub(r"^https?://[^/]+", receiver + "/webhook", hook["url"])
for receiver_config in fragment["receivers"]:
    for wechat in receiver_config["wechat_configs"]:
        wechat.update(corp_id="ww-test-corp", api_secret="test-secret", api_url=receiver + "/cgi-bin/")
base["receivers"] += fragment["receivers"]
routes = fragment["route"]["routes"]
for route in routes:
    route.update(group_wait="1s", group_interval="2s")
base["route"]["routes"] = routes + base["route"].get("routes", [])
yaml.safe_dump(base, open(os.path.join(work, "alertmanager.yml"), "w", encoding="utf-8"), allow_unicode=True, sort_keys=False)
PY
amtool check-config "$work/alertmanager.yml" >"$work/amtool.txt" 2>&1 || fail "amtool check-config: $(cat "$work/amtool.txt")"
grep -q "SUCCESS" "$work/amtool.txt" || fail "amtool check-config: $(cat "$work/amtool.txt")"

# --- Alertmanager ---------------------------------------------------------------------------------
start_listening "$work/alertmanager.log" /-/ready env TZ=Asia/Shanghai prometheus-alertmanager \
    --config.file="$work/alertmanager.yml" --storage.path="$work/data" --cluster.listen-address= --log.level=debug
api="http://127.0.0.1:$listener_port/api/v2/alerts"
version=$(dpkg-query -W -f '${Version}' prometheus-alertmanager 2>/dev/null || echo unknown)

# The alert as Prometheus would send it with the Chinese rules: UPSOnBattery's annotations of
# alerts.zh-CN.yml rendered for one UPS of a single-server exporter (no server label).
python3 - "$work" <<'PY'
import datetime, json, re, sys, yaml
work = sys.argv[1]
labels = {"alertname": "UPSOnBattery", "severity": "warning", "instance": "127.0.0.1:9090", "job": "wpexporter",
          "device_id": "5e1a7a0c-0001", "device_name": "机房 A", "device_type": "1"}
rules = yaml.safe_load(open("deploy/prometheus/alerts.zh-CN.yml", encoding="utf-8"))
rule = next(r for g in rules["groups"] for r in g["rules"] if r["alert"] == "UPSOnBattery")
def render(text):
    text = re.sub(r"\{\{ with \$labels\.(\w+) \}\}(.*?)\{\{ end \}\}",
                  lambda m: m.group(2).replace("{{ . }}", labels[m.group(1)]) if m.group(1) in labels else "", text)
    text = re.sub(r"\{\{ \$labels\.(\w+) \}\}", lambda m: labels[m.group(1)], text)
    assert "{{" not in text, text
    return text
annotations = {key: render(value) for key, value in rule["annotations"].items()}
start = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
alert = {"labels": labels, "annotations": annotations, "startsAt": start.isoformat()}
json.dump([alert], open(f"{work}/firing.json", "w"), ensure_ascii=False)
json.dump([{**alert, "endsAt": (start + datetime.timedelta(seconds=5)).isoformat()}], open(f"{work}/resolved.json", "w"), ensure_ascii=False)
shanghai = datetime.timezone(datetime.timedelta(hours=8))
# The end shown is when the condition cleared: endsAt less the rule's keep_firing_for (5m).
json.dump({"annotations": annotations, "start": start.astimezone(shanghai).strftime("%Y-%m-%d %H:%M:%S"),
           "end": (start + datetime.timedelta(seconds=5) - datetime.timedelta(minutes=5)).astimezone(shanghai).strftime("%Y-%m-%d %H:%M:%S")},
          open(f"{work}/expected.json", "w"), ensure_ascii=False)
PY
curl -sf -X POST -H 'Content-Type: application/json' --data-binary @"$work/firing.json" "$api" >/dev/null \
    || fail "Alertmanager refused the alert"

# sent MARKER: writes to message.json the first message/send request whose content starts with
# MARKER; status 1 when there is none yet.
sent() {
    [ -f "$work/requests.jsonl" ] && python3 - "$work/requests.jsonl" "$1" >"$work/message.json" 2>/dev/null <<'PY'
import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    request = json.loads(line)
    if request["kind"] == "send" and request["body"]["text"]["content"].startswith(sys.argv[2]):
        json.dump(request, sys.stdout, ensure_ascii=False)
        sys.exit(0)
sys.exit(1)
PY
}
# waits_for MARKER: sent, polled for 30 s at most.
waits_for() {
    wait_for 30 sent "$1" || fail "no WeCom message starting with $1 within 30 s; requests: $(cat "$work/requests.jsonl" 2>/dev/null)"
}

check_message() {  # MARKER: the recorded message is the configured agent's text with the alert's texts
    python3 - "$work/message.json" "$work/expected.json" "$1" <<'PY'
import json, sys
request, expected, marker = json.load(open(sys.argv[1], encoding="utf-8")), json.load(open(sys.argv[2], encoding="utf-8")), sys.argv[3]
body, content = request["body"], request["body"]["text"]["content"]
problems = []
if request["token"] != "test-token":
    problems.append(f"access_token {request['token']!r}")
if body.get("msgtype") != "text" or str(body.get("agentid")) != "1000002" or body.get("toparty") != "2":
    problems.append(f"msgtype {body.get('msgtype')!r}, agentid {body.get('agentid')!r}, toparty {body.get('toparty')!r}")
first = content.splitlines()[0]
if first != f"{marker}UPSOnBattery（1 条）":
    problems.append(f"first line {first!r}")
for text in (expected["annotations"]["summary"], expected["annotations"]["description"], "级别：警告", "开始：" + expected["start"]):
    if text not in content:
        problems.append(f"{text!r} missing")
if "warning" in content:
    problems.append("the severity in English")
if marker == "【已恢复】" and "结束：" + expected["end"] not in content:
    problems.append(f"no end time {expected['end']} (endsAt less keep_firing_for)")
if len(content.encode()) > 2048:
    problems.append(f"{len(content.encode())} bytes, over WeCom's 2048")
if problems:
    sys.exit("; ".join(problems) + "\n" + content)
print(content.replace("\n", " / "))
PY
}

waits_for "【告警】"
firing=$(check_message "【告警】") || fail "the firing message: $firing"
python3 -c 'import json, sys; r = [json.loads(l) for l in open(sys.argv[1])]; g = [x for x in r if x["kind"] == "gettoken"]; sys.exit(0 if g and all(x["secret_ok"] and x["corpid"] == "ww-test-corp" for x in g) else 1)' \
    "$work/requests.jsonl" || fail "gettoken was not asked with the configured corp ID and secret"
curl -sf -X POST -H 'Content-Type: application/json' --data-binary @"$work/resolved.json" "$api" >/dev/null \
    || fail "Alertmanager refused the resolution"
waits_for "【已恢复】"
resolved=$(check_message "【已恢复】") || fail "the resolved message: $resolved"
echo "$name: Alertmanager $version sent to the WeCom API: $firing"
echo "$name: and on resolution: $resolved"
echo "$name: ok"
