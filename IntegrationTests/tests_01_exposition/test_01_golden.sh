#!/usr/bin/env bash
# The golden of the whole binary: `wpexporter server` against a simulated WinPower whose readings
# never move (`wpexporter simulate --frozen`), read once its first collection is in, through
# what operators and their tools read, each compared byte for byte with golden/ beside this file:
#   metrics.txt   /metrics (curl, the text format)
#   health.json   /health (curl), re-indented with sorted keys
#   nut.txt       every UPS's variables (NUT's own upsc: `upsc -l`, then `upsc NAME`)
#   snmp.txt      the agent's whole tree for the default UPS and each UPS by name (net-snmp's
#                 snmpwalk, v2c, numeric OIDs)
# What differs from run to run by nature is replaced by a placeholder, each rule with its reason
# in normalize() below (process figures, timestamps, durations, the build's version); nothing
# else is, so any other change to what the binary serves fails the check with a diff. A few
# seconds.
#
#   IntegrationTests/tests_01_exposition/test_01_golden.sh                  # compare
#   UPDATE_GOLDEN=1 IntegrationTests/tests_01_exposition/test_01_golden.sh  # rewrite golden/ from this run
#
# Installs nut-client and snmp (Debian) when missing. Loopback only, every port chosen by the
# kernel and read from the processes' output.
set -euo pipefail
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh nut snmp   # upsc, snmpwalk
golden=IntegrationTests/tests_01_exposition/golden
mkdir -p "$golden"
export SNMP_PERSISTENT_DIR="$work/net-snmp" SNMPCONFPATH="$work/net-snmp" HOME="$work"
mkdir -p "$work/net-snmp"

printf 'communities:\n  - community: golden-Community\n' >"$work/snmp-users.yml"
chmod 600 "$work/snmp-users.yml"
# Four devices (an online one, one on battery, one in a self-test, a disconnected one), the
# first three-phase, alarms in every shape, two readings the exporter has no metric for.
start_simulator 4 --frozen --three-phase 1 --alarm-shapes --extra-readings 2
# One collection an hour: everything below reads the first one.
start_exporter "$work/exporter.log" --scheduler.collection_interval 1h --energy.max_gap 2h \
    --nut.listen 127.0.0.1:0 \
    --snmp.listen 127.0.0.1:0 --snmp.users_file "$work/snmp-users.yml" \
    --snmp.system.name golden-host --snmp.system.contact ops@example.com --snmp.system.location "hall 2"
nut_port=$(listening_port "$work/exporter.log")
snmp_port=$(listening_port "$work/exporter.log" '"udp server listening"')
if [ -z "$nut_port" ] || [ -z "$snmp_port" ]; then fail "no NUT or SNMP listener"; fi
version=$("$binary" version --format json | python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')

# The history writer's first write (the journal's exporter_started) done: its state is "ok".
history_ok() { curl -sf "$base/health" | python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)["history"]["state"] != "ok")'; }
history_ok || wait_for 30 history_ok || fail "the history writer did not write its first event"
curl -sf "$base/metrics" >"$work/metrics.txt"
curl -s "$base/health" | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin), indent=2, sort_keys=True, ensure_ascii=False))' \
    >"$work/health.json"
{
    upsc -l "127.0.0.1:$nut_port" 2>/dev/null | while read -r ups; do
        echo "[$ups]"
        # A UPS upsc cannot read (stale, disconnected) prints its error: golden too.
        upsc "$ups@127.0.0.1:$nut_port" 2>&1 || true
    done
} >"$work/nut.txt"
# The default UPS (no context), then each UPS by name (`community@name`, named as NUT names it).
{
    for ups in "" $(upsc -l "127.0.0.1:$nut_port" 2>/dev/null); do
        echo "[${ups:-default}]"
        snmpwalk -m '' -v2c -c "golden-Community${ups:+@$ups}" -On -t 5 -r 1 "127.0.0.1:$snmp_port" .1
    done
} >"$work/snmp.txt"

# normalize FILE: the placeholders, in place. Every rule says why the value cannot be golden.
normalize() {
    python3 - "$1" "$version" "$work" <<'PY'
import re, sys
path, version, work = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path, encoding="utf-8").read()
# The build's version (and for /metrics its commit and build date) changes with every release.
text = text.replace(version, "<version>")
# The scratch directory (the data directory is in it) and the ports the kernel chose.
text = text.replace(work, "<work>")
text = re.sub(r"127\.0\.0\.1:[0-9]+", "127.0.0.1:<port>", text)
if path.endswith("metrics.txt"):
    varying = (
        # The process's own figures: memory, CPU, descriptors, threads, start time.
        r"process_[a-z_]+",
        # Wall-clock instants: collection, device updates, reloads, outage starts, token expiry.
        r"[a-z_]+_timestamp_seconds", r"winpower_token_expiry_seconds",
        # How long things took on this machine now.
        r"winpower_exporter_collection_duration_seconds_(?:bucket|sum)", r"winpower_api_response_time_seconds_(?:bucket|sum)",
        # Requests and connections: the readiness polls before the first collection vary in number.
        r"winpower_exporter_requests_total", r"winpower_exporter_request_duration_seconds_(?:bucket|sum|count)",
        r"winpower_exporter_http_connections_(?:total|open)",
    )
    pattern = re.compile(r"^((?:%s)(?:\{[^}]*\})?) \S+$" % "|".join(varying), re.M)
    text = pattern.sub(r"\1 <varies>", text)
    # Whether a readiness poll came before the first collection at all (a 503) depends on how
    # fast this machine made that collection: the series is there only when one did.
    text = re.sub(r'^winpower_exporter_requests_total\{handler="/-/ready",code="503"\} <varies>\n', "", text, flags=re.M)
    # The build's commit and date.
    text = re.sub(r'(winpower_exporter_build_info\{[^}]*)', lambda m: re.sub(r'(revision|build_date|goversion|commit)="[^"]*"', r'\1="<build>"', m.group(1)), text)
elif path.endswith("health.json"):
    # Instants, ages and durations on the wall clock of this run.
    # The SNMPv3 engine ID: random for a new data directory (kept across restarts).
    keys = ("engine_id", "uptime_seconds", "time", "last_success", "last_attempt", "last_error_time", "since", "duration_seconds",
            "last_success_timestamp", "seconds_since_last_success", "token_expires_in_seconds", "token_expiry",
            # The journal's events written so far: the first publications' arrive as the writer's thread gets to them.
            "events_written")
    text = re.sub(r'("(?:%s)": )("[^"]*"|[0-9.eE+-]+)' % "|".join(keys), r'\1"<varies>"', text)
elif path.endswith("snmp.txt"):
    # sysUpTime and the agent's own uptime in the UPS-MIB views: hundredths since it started.
    text = re.sub(r"^(\.1\.3\.6\.1\.2\.1\.1\.3\.0 = Timeticks: ).*$", r"\1<varies>", text, flags=re.M)
    # upsSecondsOnBattery grows while a device is on battery.
    text = re.sub(r"^(\.1\.3\.6\.1\.2\.1\.33\.1\.2\.2\.0 = INTEGER: ).*$", r"\1<varies>", text, flags=re.M)
open(path, "w", encoding="utf-8").write(text)
PY
}

failed=0
for file in metrics.txt health.json nut.txt snmp.txt; do
    normalize "$work/$file"
    [ -s "$work/$file" ] || { echo "$name: $file is empty" >&2; failed=1; continue; }
    if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
        cp "$work/$file" "$golden/$file"
        echo "$name: wrote $golden/$file ($(wc -l <"$golden/$file") lines)"
    elif ! diff -u "$golden/$file" "$work/$file" >"$work/$file.diff"; then
        echo "$name: $file differs from $golden/$file (UPDATE_GOLDEN=1 rewrites it when the change is meant):" >&2
        head -80 "$work/$file.diff" >&2
        failed=1
    else
        echo "$name: $file equals $golden/$file ($(wc -l <"$golden/$file") lines)"
    fi
done
exit "$failed"
