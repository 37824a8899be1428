#!/usr/bin/env bash
# Notifications (docs/notifications.md) through a scheduled outage, told to local receivers that
# check what the real services check:
#   - DingTalk: `timestamp` within an hour of the receiver's clock and `sign` =
#     Base64(HMAC-SHA256(secret, "timestamp\nsecret")) in the query, markdown with a title and a
#     text of at most 20,000 bytes, `access_token` as configured; a wrong one is answered
#     errcode 310000 as DingTalk does;
#   - Feishu: `timestamp` within an hour and `sign` = Base64(HMAC-SHA256(key "timestamp\nsecret",
#     empty message)) in the body, an interactive card; code 19021 otherwise;
#   - WeCom: markdown content of at most 4,096 bytes, `key` as configured; the first two tries
#     answered HTTP 500 and errcode -1 (busy), as a receiver that fails twice;
#   - the JSON webhook: `X-Wpexporter-Signature` = sha256 HMAC of "<timestamp>.<body>";
#   - Uptime Kuma: `status` up or down with a `msg`.
# Device 0 (routed by its id; the simulator's device 1 runs on battery all along) goes on battery for 3 s (within the 5 s hold: one message) and later for 12 s (two
# messages). Each event receiver must get exactly those three messages, DingTalk and WeCom in
# Chinese, Feishu and the webhook in English, WeCom's after two failures and two retries (the
# counters say so); Uptime Kuma must have been told down with the reason, then up. About 45 s.
#
#   IntegrationTests/tests_06_end_to_end/test_03_notifications.sh
#
# Loopback only; the receiver and both wpexporter processes bind port 0 and say which port.
set -euo pipefail
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh tests   # curl, python3

# --- The receivers, recorded ---------------------------------------------------------------------
python3 - "$work" >"$work/receiver.log" 2>&1 <<'PY' &
import base64, hashlib, hmac, json, sys, time
sys.path.insert(0, "IntegrationTests")
from recording_receiver import Receiver, serve
DING_SECRET, FEISHU_SECRET, HOOK_SECRET = "SECding-5a1f", "feishu-77c2", "hook-90de"
wecom_tries = [0]
def fresh(timestamp_seconds):
    return abs(time.time() - timestamp_seconds) <= 3600
class Handler(Receiver):
    def do_GET(self):
        path, query = self.url()
        if path != "/api/push/kuma-token":
            return self.send_error(404)
        self.record("kuma", status=query.get("status"), msg=query.get("msg", ""))
        self.reply({"ok": True})
    def do_POST(self):
        path, query = self.url()
        raw = self.raw_body()
        body = json.loads(raw or b"null")
        if path == "/robot/send":
            ts = query.get("timestamp", "0")
            expected = base64.b64encode(hmac.new(DING_SECRET.encode(), f"{ts}\n{DING_SECRET}".encode(), hashlib.sha256).digest()).decode()
            ok = (query.get("access_token") == "ding-token" and query.get("sign") == expected and fresh(int(ts) / 1000)
                  and body.get("msgtype") == "markdown" and len(body["markdown"]["text"].encode()) <= 20000)
            self.record("dingtalk", ok=ok, title=body["markdown"]["title"], text=body["markdown"]["text"])
            return self.reply({"errcode": 0, "errmsg": "ok"} if ok else {"errcode": 310000, "errmsg": "sign not match"})
        if path == "/open-apis/bot/v2/hook/feishu-token":
            ts = body.get("timestamp", "0")
            expected = base64.b64encode(hmac.new(f"{ts}\n{FEISHU_SECRET}".encode(), b"", hashlib.sha256).digest()).decode()
            ok = body.get("sign") == expected and fresh(int(ts)) and body.get("msg_type") == "interactive"
            card = body.get("card", {})
            self.record("feishu", ok=ok, title=card["header"]["title"]["content"], text=card["elements"][0]["content"])
            return self.reply({"code": 0, "msg": "success"} if ok else {"code": 19021, "msg": "sign match fail or timestamp is not within one hour from current time"})
        if path == "/cgi-bin/webhook/send":
            wecom_tries[0] += 1
            if wecom_tries[0] == 1:
                self.record("wecom-failed", attempt=1)
                return self.reply({"errmsg": "internal error"}, 500)
            if wecom_tries[0] == 2:
                self.record("wecom-failed", attempt=2)
                return self.reply({"errcode": -1, "errmsg": "system busy"})
            content = body["markdown"]["content"]
            ok = query.get("key") == "wecom-key" and body.get("msgtype") == "markdown" and len(content.encode()) <= 4096
            self.record("wecom", ok=ok, text=content)
            return self.reply({"errcode": 0, "errmsg": "ok"} if ok else {"errcode": 93000, "errmsg": "invalid webhook url"})
        if path == "/hook":
            ts = self.headers.get("X-Wpexporter-Timestamp", "0")
            expected = "sha256=" + hmac.new(HOOK_SECRET.encode(), ts.encode() + b"." + raw, hashlib.sha256).hexdigest()
            ok = self.headers.get("X-Wpexporter-Signature") == expected and fresh(int(ts))
            self.record("webhook", ok=ok, event=body.get("kind"), title=body.get("title"), text=body.get("text"))
            return self.reply({}, 200 if ok else 401)
        self.send_error(404)
serve(Handler, sys.argv[1])
PY
wait_for 10 test -f "$work/receiver.port" || fail "the local receiver did not start"
receiver="http://127.0.0.1:$(cat "$work/receiver.port")"

printf 'SECding-5a1f\n' >"$work/ding.secret"
chmod 600 "$work/ding.secret"
cat >"$work/config.yaml" <<EOF
notifications:
  hold_time: 5s
  time_zone: Asia/Shanghai
  receivers:
    - name: ding
      type: dingtalk
      url: $receiver/robot/send?access_token=ding-token
      secret_file: $work/ding.secret
      language: zh-CN
    - name: feishu
      type: feishu
      url: $receiver/open-apis/bot/v2/hook/feishu-token
      secret: feishu-77c2
    - name: wecom
      type: wecom
      url: $receiver/cgi-bin/webhook/send?key=wecom-key
      language: zh-CN
    - name: hook
      type: webhook
      url: $receiver/hook
      secret: hook-90de
    - name: kuma
      type: uptime_kuma
      url: $receiver/api/push/kuma-token
  routes:
    - events: [on_battery, mains_back]
      ups: [$(device_id 0)]
      receivers: [ding, feishu, wecom, hook]
    - ups: [$(device_id 0)]
      receivers: [kuma]
EOF
chmod 600 "$work/config.yaml"

# Device 0 on battery for [4,7) and [20,32) seconds after the simulator starts.
start_simulator 2 --outage-schedule "4+3,20+12"
start_exporter "$work/exporter.log" --config "$work/config.yaml"

count() { grep -sc "\"kind\": \"$1\"" "$work/requests.jsonl" || true; }
all_told() {
    [ "$(count dingtalk)" -ge 3 ] && [ "$(count feishu)" -ge 3 ] && [ "$(count wecom)" -ge 3 ] && [ "$(count webhook)" -ge 3 ]
}
wait_for 90 all_told || fail "not every receiver got three messages; requests: $(cat "$work/requests.jsonl" 2>/dev/null)"
# The heartbeat after the second outage says up again.
kuma_up_after_down() {
    python3 - "$work/requests.jsonl" <<'PY'
import json, sys
statuses = [r["status"] for r in map(json.loads, open(sys.argv[1], encoding="utf-8")) if r["kind"] == "kuma"]
sys.exit(0 if "down" in statuses and statuses[-1] == "up" and statuses.index("down") < len(statuses) - 1 else 1)
PY
}
wait_for 30 kuma_up_after_down || fail "Uptime Kuma was not told down then up: $(grep kuma "$work/requests.jsonl" || true)"
curl -fsS "$base/metrics" >"$work/metrics.txt"
curl -fsS "$base/health" >"$work/health.json"
stop_exporter

python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
requests = [json.loads(line) for line in open(f"{work}/requests.jsonl", encoding="utf-8")]
def of(kind): return [r for r in requests if r["kind"] == kind]
problems = []
for kind in ("dingtalk", "feishu", "wecom", "webhook"):
    got = of(kind)
    if len(got) != 3: problems.append(f"{kind}: {len(got)} messages, expected 3")
    if not all(r["ok"] for r in got): problems.append(f"{kind}: a request the receiver refused: {got}")
ding, feishu, wecom, hook = of("dingtalk"), of("feishu"), of("wecom"), of("webhook")
# The short outage: one message, its start and its end; then the long one's start, then its end.
expect_zh = [("转电池供电", "随后: 市电恢复"), ("转电池供电", None), ("市电恢复", None)]
for kind, messages in (("dingtalk", ding), ("wecom", wecom)):
    for message, (event, then) in zip(messages, expect_zh):
        if f"事件: {event}" not in message["text"] or (then and then not in message["text"]) or (not then and "随后" in message["text"]):
            problems.append(f"{kind}: expected {event} {then or ''}: {message['text']}")
        if "UTC+08:00" not in message["text"]: problems.append(f"{kind}: no local time with its offset: {message['text']}")
expect_en = [("on battery", "Then: mains back"), ("on battery", None), ("mains back", None)]
for kind, messages in (("feishu", feishu), ("webhook", hook)):
    for message, (event, then) in zip(messages, expect_en):
        if f"Event: {event}" not in message["text"] or (then and then not in message["text"]) or (not then and "Then" in message["text"]):
            problems.append(f"{kind}: expected {event} {then or ''}: {message['text']}")
if [r["event"] for r in hook] != ["on_battery", "on_battery", "mains_back"]:
    problems.append(f"webhook kinds: {[r['event'] for r in hook]}")
if len(of("wecom-failed")) != 2: problems.append(f"wecom: {len(of('wecom-failed'))} failed tries, expected 2")
kuma = of("kuma")
down = [r for r in kuma if r["status"] == "down"]
if not down or "on battery" not in down[0]["msg"]: problems.append(f"kuma: no down status with the reason: {kuma}")
metrics = {}
for line in open(f"{work}/metrics.txt", encoding="utf-8"):
    if line.startswith("winpower_exporter_notifications_"):
        name, value = line.rsplit(" ", 1)
        metrics[name] = float(value)
for name, value in (('winpower_exporter_notifications_sent_total{receiver="wecom"}', 3),
                    ('winpower_exporter_notifications_failed_total{receiver="wecom"}', 2),
                    ('winpower_exporter_notifications_retried_total{receiver="wecom"}', 2),
                    ('winpower_exporter_notifications_sent_total{receiver="ding"}', 3),
                    ('winpower_exporter_notifications_dropped_total{receiver="ding"}', 0)):
    if metrics.get(name) != value: problems.append(f"{name} = {metrics.get(name)}, expected {value}")
health = json.load(open(f"{work}/health.json", encoding="utf-8"))
receivers = {r["name"]: r for r in health.get("notifications", {}).get("receivers", [])}
if receivers.get("wecom", {}).get("sent") != 3 or receivers.get("wecom", {}).get("state") != "ok":
    problems.append(f"/health notifications: {health.get('notifications')}")
log = open(f"{work}/exporter.log", encoding="utf-8").read()
for secret in ("ding-token", "SECding-5a1f", "feishu-77c2", "feishu-token", "wecom-key", "hook-90de", "kuma-token"):
    if secret in log or secret in json.dumps(health): problems.append(f"the secret {secret} is in the log or /health")
if problems:
    print("\n".join(problems)); sys.exit(1)
print(f"dingtalk, wecom (zh-CN), feishu, webhook (en): 3 messages each, signatures valid; wecom after 2 failures; "
      f"uptime kuma {len(kuma)} statuses ({len(down)} down)")
PY
echo "$name: ok"
