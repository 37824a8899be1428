#!/usr/bin/env bash
# The history database failing under a running exporter (tests_08_history/failures.sh: its data
# directory a tmpfs of the case's own, and what every failure must show): another process holds a
# write transaction for a minute (the sqlite3 command, as an operator might leave it), then lets
# go: the writer fails saying the database is locked, collections and the front ends go on for the
# whole minute, and the history writes again once the lock is gone. About 75 s.
#
#   IntegrationTests/tests_08_history/test_03_write_lock.sh
set -euo pipefail
# shellcheck source=IntegrationTests/tests_08_history/failures.sh
source "$(dirname "$0")/failures.sh"

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
echo "$name: passed"
