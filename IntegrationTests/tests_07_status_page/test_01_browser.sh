#!/usr/bin/env bash
# The status pages in a real browser: headless Chromium (Debian's `chromium`) loads /status and a
# UPS page from `wpexporter server` against `wpexporter simulate` with six devices (one of each
# state: on mains, on battery, disconnected, fault, battery test, bypass) and a scheduled outage
# of device 0, whose alias is hostile (markup, quotes, 10 KB). In English and in Chinese (by
# Accept-Language): every UPS named, the UPSs on battery first and marked, the page updated in
# place by its script from /status.json (the DOM read after the script ran) with a sparkline per
# UPS and the fleet's latest events from the history database, a UPS page's charts as inline SVG
# for 24 h, 30 days and a year (its range switch marking the one shown), its events listed,
# why it needs attention in words, the outage listed, the hostile alias as text, no console
# error or refused request, nothing asked of any host but the exporter (the browser's net log:
# every request the page initiated). Then the range switch and the event filter are clicked
# through the DevTools protocol (inplace.py): 7 days, 30 days, 1 year and the power events
# replace the charts and the list in place (the address follows, no reload), back returns.
# Screenshots of each page, at 1280 and 390 px wide, are kept in
# $INTEGRATION_ARTIFACTS/status_page (default .build/integration/artifacts/status_page), with
# the DOMs, and of device 1's page in each language (`ups-docs-*.png`, a plain alias: the
# screenshots docs/status-page.md shows). The markup as served (/, /status and a UPS page, in both languages) is then parsed
# by html5lib, an implementation of the WHATWG HTML parsing rules: any parse error (a misnested
# or stray tag, a bad attribute, a missing doctype) fails. About 60 s.
#
#   IntegrationTests/tests_07_status_page/test_01_browser.sh
#
# Loopback only: the browser resolves no other host (--host-resolver-rules), so a request to
# anywhere else would fail and be logged.
set -euo pipefail
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh tests browser

artifacts=${INTEGRATION_ARTIFACTS:-.build/integration/artifacts}/status_page
mkdir -p "$artifacts"
hostile="<script>alert(\"x\")</script>' onmouseover='y' &amp;$(python3 -c 'print("<b>é" * 2500, end="")')"

start_simulator 6 --outage-schedule "0:2+600" --alias "$hostile"
start_exporter "$work/exporter.log" --winpower.max_text_bytes 16384
# The outage of device 0 has begun (2 s after the simulator started) and been read.
on_battery() { curl -fsS "$base/status.json" | python3 -c 'import json, sys; sys.exit(0 if [u["state"] for u in json.load(sys.stdin)["ups"]].count("battery") == 2 else 1)'; }
wait_for 20 on_battery || fail "device 0's outage was not seen"
# Eight days of history for every UPS (an outage about every third day, journaled) in the live
# database, so the charts have something to show (`wpbench --child history-fill`).
swift build --product wpbench >/dev/null
wait_for 30 test -f "$work/data/history.db" || fail "no history.db in the data directory"
devices=(); for index in 0 1 2 3 4 5; do devices+=("$(device_id "$index")"); done
.build/debug/wpbench --child history-fill "$work/data" 8 "${devices[@]}" >"$work/fill.log" || fail "history-fill: $(cat "$work/fill.log")"

# browser OUTPUT-STEM URL BUDGET [FLAG...]: the DOM after BUDGET ms of virtual time (for /status,
# past one refresh of its script; a UPS page, which reloads itself, is read at once), a
# screenshot, and the browser's log.
chromium_flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --enable-logging=stderr --v=0
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1")
browser() {
    local stem=$1 url=$2 budget=$3
    shift 3
    local common=("${chromium_flags[@]}" "$@")
    timeout 90 chromium "${common[@]}" --virtual-time-budget="$budget" --log-net-log="$work/$stem.netlog" --dump-dom "$url" \
        >"$artifacts/$stem.html" 2>"$work/$stem-dom.err" || fail "chromium could not load $url"
    # Every request the page made (its origin the initiator; the browser's own background
    # requests have none) went to the exporter.
    python3 - "$work/$stem.netlog" "$base" <<'PY' || fail "$url: the page asked a host other than the exporter"
import json, sys
log, base = sys.argv[1], sys.argv[2]
events = json.load(open(log, encoding="utf-8")).get("events", [])
asked = {e["params"]["url"] for e in events
         if isinstance(e.get("params"), dict) and "url" in e["params"] and e["params"].get("initiator") == base}
outside = sorted(u for u in asked if not u.startswith(base + "/"))
if outside or not asked:
    print(f"requests outside {base}: {outside}" if outside else "no request of the page seen in the net log"); sys.exit(1)
print(f"{len(asked)} requests of the page, all to {base}: {sorted(u[len(base):] for u in asked)}")
PY
    timeout 90 chromium "${common[@]}" --window-size=1280,1000 --screenshot="$artifacts/$stem.png" "$url" \
        >/dev/null 2>"$work/$stem-shot.err" || fail "chromium could not take a screenshot of $url"
    timeout 90 chromium "${common[@]}" --window-size=390,844 --screenshot="$artifacts/$stem-phone.png" "$url" \
        >/dev/null 2>>"$work/$stem-shot.err" || fail "chromium could not take a phone screenshot of $url"
    [ -s "$artifacts/$stem.png" ] || fail "no screenshot of $url"
    # The page's console and the network: nothing refused, nothing failed. (Chromium's own
    # complaints about D-Bus and the GPU in a container are not the page's.)
    if grep -hE 'CONSOLE|Refused|Content.Security.Policy|net::ERR' "$work/$stem-dom.err" "$work/$stem-shot.err"; then
        fail "$url: the browser logged a console message, a refused or a failed request"
    fi
}

check() {  # check KIND LANGUAGE DOM [RANGE]
    python3 - "$1" "$2" "$3" "${4:-24h}" "$hostile" "$(device_id 0)" "$(device_id 1)" <<'PY'
import html, html.parser, sys
kind, language, path, shown, hostile, outage_id, battery_id = sys.argv[1:]
text = open(path, encoding="utf-8").read()

class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.rows, self.scripts, self.tags, self.links, self.classes = [], [], [], {}, {}, {}
        self.html_lang = None
        self.link = None
    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        for name in (attrs.get("class") or "").split():
            self.classes[f"{tag}.{name}"] = self.classes.get(f"{tag}.{name}", 0) + 1
        for name, value in attrs.items():
            if name.startswith("on") or name == "style":
                problems.append(f"inline {name} on <{tag}>")
            if name in ("src", "href") and value and value.startswith(("http:", "https:", "//")) and tag != "svg":
                problems.append(f"external {name}={value}")
        if tag == "html": self.html_lang = attrs.get("lang")
        if tag == "script": self.scripts.append(attrs.get("src"))
        if tag == "tr" and self.in_table("ups-table") and any(t == "tbody" for t, _ in self.stack):
            self.rows.append([attrs.get("class", ""), None])
        if tag == "a" and "/status/ups?device=" in (attrs.get("href") or ""):
            device = attrs["href"].split("device=")[1][:36]
            # The first link to each UPS (the table's; the latest events link it again).
            self.link = device if device not in self.links else None
            self.links.setdefault(device, "")
            if self.rows and self.rows[-1][1] is None and self.in_table("ups-table"): self.rows[-1][1] = device
        self.stack.append((tag, attrs.get("id")))
    def handle_endtag(self, tag):
        while self.stack:
            top, _ = self.stack.pop()
            if top == tag: break
        if tag == "a": self.link = None
    def handle_data(self, data):
        if self.link: self.links[self.link] += data
    def in_table(self, table_id):
        return any(tag == "table" and ident == table_id for tag, ident in self.stack)

problems = []
page = Page()
page.feed(text)
want_lang = {"en": "en", "zh": "zh-CN"}[language]
if page.html_lang != want_lang: problems.append(f"html lang {page.html_lang}, not {want_lang}")
if [s for s in page.scripts if s != "/status/status.js"]: problems.append(f"scripts {page.scripts}")
if page.tags.get("b"): problems.append("a <b> element: the alias became markup")
if kind == "status":
    ids = [row[1] for row in page.rows]
    expected = {f"5e1a7a0c-{i:04x}-4b35-b0dd-{i:012x}" for i in range(6)}
    if set(ids) != expected or len(ids) != 6: problems.append(f"rows {ids}")
    states = [row[0].split()[0] if row[0] else "" for row in page.rows]
    if states[:2] != ["state-battery", "state-battery"] or not all("attention" in row[0] for row in page.rows[:2]):
        problems.append(f"the UPSs on battery are not first and marked: {page.rows}")
    if set(ids[:2]) != {outage_id, battery_id}: problems.append(f"first rows {ids[:2]}")
    word = {"en": "on battery", "zh": "电池供电"}[language]
    if text.count(word) < 2: problems.append(f"'{word}' not shown twice")
    if "\n<tr" in text.split('id="ups-table"')[1].split("</table>")[0]:
        problems.append("the table was not updated in place by the script (its rows are still the server's)")
    if page.links.get(outage_id) != hostile: problems.append("the hostile alias is not its link's text, whole")
    if page.classes.get("svg.spark", 0) != 6: problems.append(f"{page.classes.get('svg.spark', 0)} sparklines, not one per UPS")
    if 'id="latest-events"' not in text: problems.append("no latest events")
    elif word not in text.split('id="latest-events"')[1].split("</table>")[0]: problems.append(f"'{word}' not among the latest events")
else:
    charts = page.classes.get("figure.chart", 0)
    if charts < 6: problems.append(f"{charts} charts")
    if shown == "24h" and not (page.tags.get("polyline") or page.tags.get("circle")): problems.append("no point in the charts")
    if 'id="outages"' not in text: problems.append("no outage table")
    current = text.split('<nav class="ranges"')[1].split("</nav>")[0] if '<nav class="ranges"' in text else ""
    if f"range={shown}&amp;" not in current.split('aria-current="page"')[0].rsplit("<a ", 1)[-1]:
        problems.append(f"the range switch does not mark {shown}")
    if 'id="event-list"' not in text: problems.append("no event list")
    if '<details class="exposition">' not in text: problems.append("the /metrics lines are not behind a disclosure")
    if kind == "ups-battery":
        reason = {"en": "Mains failed", "zh": "市电中断"}[language]
        if reason not in text.split('id="reasons"')[-1].split("</section>")[0]: problems.append("why it needs attention is not said")
    title = text.split("<h1>")[1].split("</h1>")[0]
    if kind == "ups" and html.unescape(title) != hostile: problems.append("the hostile alias is not the heading's text, whole")
if problems:
    print(f"FAIL {kind} {language}: " + "; ".join(problems)); sys.exit(1)
print(f"{kind} {language}: ok ({len(page.rows)} rows, {page.tags.get('svg', 0)} svg)")
PY
}

browser status-en "$base/status" 15000 --accept-lang=en-US
check status en "$artifacts/status-en.html" || fail "/status in English"
browser status-zh "$base/status" 15000 --accept-lang=zh-CN,zh
check status zh "$artifacts/status-zh.html" || fail "/status in Chinese"
ups="$base/status/ups?device=$(device_id 0)"
browser ups-en "$ups" 2000 --accept-lang=en-US
check ups en "$artifacts/ups-en.html" || fail "the UPS page in English"
browser ups-zh "$ups" 2000 --accept-lang=zh-CN
check ups zh "$artifacts/ups-zh.html" || fail "the UPS page in Chinese"
# The range switch as links (what a browser without the script follows), both languages.
battery_ups="$base/status/ups?device=$(device_id 1)"
browser ups-30d-en "$battery_ups&range=30d" 2000 --accept-lang=en-US
check ups-battery en "$artifacts/ups-30d-en.html" 30d || fail "the UPS page's 30 days in English"
browser ups-1y-zh "$battery_ups&range=1y&lang=zh" 2000
check ups-battery zh "$artifacts/ups-1y-zh.html" 1y || fail "the UPS page's year in Chinese"
# The range switch and the power filter clicked, in place (the DevTools protocol on loopback).
python3 "$(dirname "$0")/inplace.py" chromium "$work/devtools-profile" "$battery_ups&lang=en" "$artifacts" \
    || fail "the UPS page's range switch or event filter in place"
# The documentation's screenshots: device 1's page (on battery, a plain alias; device 0's heading
# is the 10 KB hostile alias, which fills the first screen in either language).
for language in en zh; do
    timeout 90 chromium "${chromium_flags[@]}" --window-size=1280,1000 --screenshot="$artifacts/ups-docs-$language.png" \
        "$base/status/ups?device=$(device_id 1)&lang=$language" >/dev/null 2>"$work/ups-docs-$language.err" \
        || fail "chromium could not take a screenshot of device 1's page ($language)"
done
cmp -s "$artifacts/ups-docs-en.png" "$artifacts/ups-docs-zh.png" && fail "device 1's page looks the same in English and Chinese"
# The markup as the exporter serves it, by the HTML standard's parsing rules.
for path in "/" "/status?lang=en" "/status?lang=zh" "/status/ups?device=$(device_id 0)&lang=en" \
            "/status/ups?device=$(device_id 1)&lang=zh" "/status/ups?device=$(device_id 1)&range=30d&kind=on_battery,mains_back" \
            "/status/ups?device=$(device_id 1)&range=fortnight"; do
    curl -sS "$base$path" >"$work/served.html" || fail "$path not served"
    python3 - "$work/served.html" "$path" <<'PY' || fail "$path: the markup has HTML parse errors"
import html5lib, sys
path, where = sys.argv[1], sys.argv[2]
text = open(path, encoding="utf-8").read()
parser = html5lib.HTMLParser()
parser.parse(text)
for (line, column), error, data in parser.errors:
    print(f"{where}: line {line} column {column}: {error} {data}")
sys.exit(1 if parser.errors else 0)
PY
done
echo "$name: the served markup of /, /status and a UPS page parses with no error (html5lib)"
echo "$name: screenshots in $artifacts: $(cd "$artifacts" && echo ./*.png)"
