# shellcheck shell=bash disable=SC2034  # sets variables its cases read
# Sourced by this group's failure cases (never run alone): the history database of a running
# exporter whose data directory is a small tmpfs of the case's own (mounted here, with a second,
# writable view of it in $work/rw; unmounted on exit); the simulator takes UPS 0 off mains every
# 8 s, so the writer has journal events to write every few seconds. When sourced, the exporter
# (with its NUT server and SNMP agent) has written its history and journaled an outage. A
# case that cannot mount a tmpfs exits 0 here, saying it skipped (run it as root with
# CAP_SYS_ADMIN, as CI does). Installs sqlite3, nut-client and snmp (Debian) when missing.
#
# Each failure must be named in a warning of the log naming the file (when writes start failing,
# and again when the cause changes), counted in winpower_exporter_history_write_failures_total
# and shown in /health's `history` section, and the history must write again once the cause is
# gone. All the while collections go on (the last success moves), and /metrics, NUT (`upsc`) and
# SNMP (`snmpget`) answer within a second: nothing waits on the database. The cases use:
#
#   baseline; break_check CAUSE PATTERN   the failure's warning, count, /health (PATTERN), and
#                                         collections and front ends going on through it
#   recoveries; recovered WHAT BEFORE     the history writing again, and saying so
#   collecting WHAT; responsive WHAT      collections succeeding; the front ends within a second
#   history FIELD; failing; writing       /health's history section
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh history   # sqlite3
scripts/ci/tools.sh nut       # upsc
scripts/ci/tools.sh snmp      # snmpget

mkdir -p "$work/data"
if ! mount -t tmpfs -o size=6m,mode=0755 tmpfs "$work/data" 2>"$work/mount.err"; then
    echo "$name: skipped: a tmpfs cannot be mounted here ($(cat "$work/mount.err")); run it as root with CAP_SYS_ADMIN"
    exit 0
fi
exit_hooks+=("umount -l '$work/data' 2>/dev/null || true; umount -l '$work/data' 2>/dev/null || true; umount -l '$work/rw' 2>/dev/null || true")
mkdir -p "$work/rw"
mount --bind "$work/data" "$work/rw"

schedule=$(python3 -c 'print(",".join(f"{start}+4" for start in range(6, 900, 8)))')
start_simulator 3 --outage-schedule "$schedule"
printf 'communities:\n  - community: hist0ry-c\n' >"$work/snmp-users.yml"
chmod 600 "$work/snmp-users.yml"
start_exporter "$work/exporter.log" --nut.listen 127.0.0.1:0 --snmp.listen 127.0.0.1:0 --snmp.users_file "$work/snmp-users.yml"
nut_port=$(listening_port "$work/exporter.log")
agent_port=$(listening_port "$work/exporter.log" '"udp server listening"')
if [ -z "$nut_port" ] || [ -z "$agent_port" ]; then fail "no NUT server or SNMP agent"; fi
db="$work/data/history.db"

# history FIELD: the history section of /health, one field.
history() { curl -s --max-time 5 "$base/health" | python3 -c "import json, sys; print(json.load(sys.stdin)['history'].get('$1'))"; }
failures() { curl -sf --max-time 5 "$base/metrics" | awk '$1 == "winpower_exporter_history_write_failures_total" {print int($2)}'; }
last_collection() { curl -sf --max-time 5 "$base/metrics" | awk '$1 == "winpower_exporter_last_collection_timestamp_seconds" {print $2}'; }
failing() { [ "$(history state)" = failing ]; }
writing() { [ "$(history state)" = ok ]; }
warnings() { grep -c 'the history database cannot be written' "$work/exporter.log" || true; }
# responsive WHAT: /metrics, NUT and SNMP each answer within a second (timed here, not assumed).
responsive() {
    local started elapsed
    started=$(date +%s%N)
    curl -sf --max-time 1 "$base/metrics" >/dev/null || fail "$1: /metrics did not answer within 1 s"
    upsc -l "127.0.0.1:$nut_port" >/dev/null 2>&1 || fail "$1: NUT did not answer"
    snmpget -v2c -c hist0ry-c -t 1 -r 0 -Oqv "127.0.0.1:$agent_port" 1.3.6.1.2.1.33.1.1.1.0 >/dev/null \
        || fail "$1: SNMP did not answer within 1 s"
    elapsed=$(( ($(date +%s%N) - started) / 1000000 ))
    [ "$elapsed" -lt 3000 ] || fail "$1: /metrics, NUT and SNMP took $elapsed ms together"
    echo "$name: $1: /metrics, NUT and SNMP answered in $elapsed ms together"
}
# collecting WHAT: collections go on, and succeed, while the history fails.
collecting() {
    local before
    before=$(last_collection)
    wait_for 10 sh -c "[ \"\$(curl -sf '$base/metrics' | awk '\$1 == \"winpower_exporter_last_collection_timestamp_seconds\" {print \$2}')\" != '$before' ]" \
        || fail "$1: collections stopped (the last stays at $before)"
    local metrics
    metrics=$(curl -sf "$base/metrics")  # whole: `grep -q` ending a pipe early fails it under pipefail
    grep -qx 'winpower_exporter_last_collection_success 1' <<<"$metrics" || fail "$1: the last collection failed"
}

wait_for 30 writing || fail "the history never wrote: $(history last_error)"
wait_for 30 sh -c "[ \"\$(sqlite3 -readonly '$db' \"SELECT count(*) FROM event WHERE kind = 'on_battery'\")\" -ge 1 ]" \
    || fail "no outage journaled"

# says PATTERN: the writer fails and /health's history error matches PATTERN.
says() { failing && history last_error | grep -qiE "$1"; }
# baseline: the failures counted and warnings logged so far (read before a failure is caused).
baseline() { count_before=$(failures); warned_before=$(warnings); }
# break_check CAUSE PATTERN: waits until the writer fails saying PATTERN, then checks (against
# the baseline) the warning, the count, collection and the front ends.
break_check() {
    local cause=$1 pattern=$2
    wait_for 40 says "$pattern" || fail "$cause: the writer does not fail saying /$pattern/ (/health: $(history state): $(history last_error))"
    local error
    error=$(history last_error)
    [ "$(failures)" -gt "$count_before" ] || fail "$cause: winpower_exporter_history_write_failures_total did not grow"
    [ "$(warnings)" -gt "$warned_before" ] || fail "$cause: no warning in the log"
    grep 'the history database cannot be written' "$work/exporter.log" | tail -1 | grep -qF "$db" \
        || fail "$cause: the warning does not name the file"
    collecting "$cause"
    responsive "$cause"
    echo "$name: $cause: warned, counted ($(failures)), /health says: $error"
}
recoveries() { grep -c 'the history database takes writes again' "$work/exporter.log" || true; }
recovered() {
    local before=$2
    wait_for 40 writing || fail "$1: the history does not write again: $(history last_error)"
    [ "$(recoveries)" -gt "$before" ] || fail "$1: no word that it writes again"
    echo "$name: $1: the history writes again"
}
