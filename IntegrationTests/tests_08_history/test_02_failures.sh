#!/usr/bin/env bash
# The history database failing under a running exporter, one way after another: the disk full,
# then the directory read-only (a read-only bind mount over the data directory while the writer
# must open the file again), the `sqlite3` command holding a write transaction for a minute, and
# the file corrupted. The data directory is a small tmpfs of the case's own (mounted here, with a
# second, writable view of it; unmounted on exit); the simulator takes UPS 0 off mains every
# 8 s, so the writer has journal events to write every few seconds. Each failure must be named in
# a warning of the log naming the file (when writes start failing, and again when the cause
# changes), counted in winpower_exporter_history_write_failures_total and shown in /health's
# `history` section, and the history must write again once the cause is gone (the corrupt file
# excepted: it is left as it is). All the while collections go on (the last success
# moves), and /metrics, NUT (`upsc`) and SNMP (`snmpget`) answer within a second: nothing waits
# on the database. About two minutes.
#
#   IntegrationTests/tests_08_history/test_02_failures.sh
#
# Needs to mount a tmpfs (root with CAP_SYS_ADMIN, as CI runs); says it skipped otherwise.
# Installs sqlite3, nut-client and snmp (Debian) when missing.
set -euo pipefail
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

# 1. The disk full: a file takes every free block.
recovered_before=$(recoveries)
baseline
dd if=/dev/zero of="$work/rw/filler" bs=64k 2>/dev/null || true
break_check "a full disk" 'full'

# 2. The directory read-only: a read-only bind mount over it while the writer, having failed,
#    must open the file again; the disk freed underneath (through the writable view).
baseline
mount --bind "$work/rw" "$work/data"
mount -o remount,bind,ro "$work/data"
rm -f "$work/rw/filler"
break_check "a read-only directory" 'read.?only|unable to open'
umount -l "$work/data"
recovered "a read-only directory (after a full disk)" "$recovered_before"

# 3. Another process holds a write transaction for a minute (the sqlite3 command, as an operator
#    might leave it), then lets go.
recovered_before=$(recoveries)
fifo="$work/sqlite3.in"
mkfifo "$fifo"
sqlite3 "$db" <"$fifo" >"$work/sqlite3.out" 2>&1 &
holder=$!
exec 7>"$fifo"
baseline
# Waits up to 5 s for the writer's own transaction, then holds the lock (and says so).
echo ".timeout 5000" >&7
echo "BEGIN IMMEDIATE; INSERT INTO event (time, server, device, kind, code, detail) VALUES (0, '', NULL, 'reloaded', NULL, 'held'); SELECT 'held';" >&7
wait_for 10 grep -qx held "$work/sqlite3.out" || fail "sqlite3 did not take the write lock: $(cat "$work/sqlite3.out")"
held_since=$(date +%s)
break_check "a write lock held by sqlite3" 'locked|busy'
responsive "a write lock held by sqlite3, later"
sleep_until=$((held_since + 60))
while [ "$(date +%s)" -lt "$sleep_until" ]; do collecting "a write lock held by sqlite3 (held $(( $(date +%s) - held_since )) s)"; done
echo "ROLLBACK;" >&7
exec 7>&-
wait "$holder" || true
recovered "a write lock held by sqlite3 for a minute" "$recovered_before"

# 4. The file corrupted under the writer: pages past the first overwritten. It is left as it is.
stop_exporter
python3 - "$db" <<'PY'
import os, sys
path = sys.argv[1]
size = os.path.getsize(path)
with open(path, "r+b") as f:
    for offset in range(4096, size, 8192):
        f.seek(offset)
        f.write(os.urandom(4096))
PY
rm -f "$db-wal" "$db-shm"
before=$(sha256sum "$db" | cut -d' ' -f1)
start_exporter "$work/exporter-2.log" --nut.listen 127.0.0.1:0 --snmp.listen 127.0.0.1:0 --snmp.users_file "$work/snmp-users.yml"
nut_port=$(listening_port "$work/exporter-2.log")
agent_port=$(listening_port "$work/exporter-2.log" '"udp server listening"')
warnings() { grep -c 'the history database cannot be written' "$work/exporter-2.log" || true; }
wait_for 40 failing || fail "a corrupt file: the writer does not fail"
error=$(history last_error)
grep -qiE 'malformed|corrupt|not a database' <<<"$error" || fail "a corrupt file: /health's error does not say it: $error"
[ "$(warnings)" -ge 1 ] || fail "a corrupt file: no warning"
collecting "a corrupt file"
responsive "a corrupt file"
[ "$(sha256sum "$db" | cut -d' ' -f1)" = "$before" ] || fail "a corrupt file: the file was changed"
echo "$name: a corrupt file: warned, /health says: $error; the file left as it is"
echo "$name: passed"
