#!/usr/bin/env bash
# The history database failing under a running exporter (tests_08_history/failures.sh: its data
# directory a tmpfs of the case's own, and what every failure must show): the file corrupted while
# the exporter is stopped (pages past the first overwritten), then the exporter started on it: the
# writer fails saying the file is malformed, collections and the front ends go on, and the file is
# left as it is (never rewritten or removed). About 20 s.
#
#   IntegrationTests/tests_08_history/test_04_corrupt_file.sh
set -euo pipefail
# shellcheck source=IntegrationTests/tests_08_history/failures.sh
source "$(dirname "$0")/failures.sh"

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
