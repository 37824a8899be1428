#!/usr/bin/env bash
# The history database as the Debian `sqlite3` command reads it, while the exporter runs: the
# exporter against the simulator (3 UPSs) keeps history.db in its data directory; 31 days of
# history for its three UPSs are written into that live file through the writer's own store
# (`wpbench --child history-fill`: 5-minute slots, hours, days, an outage about every third day
# journaled); then each ```sql block of docs/status-page.md's "Queries with the sqlite3 command"
# runs with `sqlite3 -readonly` and must give what it promises: kWh per UPS and day for 30 days
# or more, outages per month adding up to the journal's `on_battery` events, and the lowest
# charge of each outage below 100 %. The exporter's own journal entry (`exporter_started`) is in
# the same file, and its history and events APIs answer from it. Then two SIGHUPs: a reload that
# changes history.* is journaled as `reloaded` (the writer made again journals no stop and start
# of its own), a file that does not validate as `configuration_refused` naming the key; the stop is
# journaled once. About a minute.
#
#   IntegrationTests/tests_08_history/test_01_sqlite3.sh
#
# Installs sqlite3 (Debian) when missing.
set -euo pipefail
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh history   # sqlite3

swift build --product wpbench >/dev/null
start_simulator 3
printf 'history:\n  retention_days: 30\n' >"$work/config.yml"
start_exporter "$work/exporter.log" --config "$work/config.yml"
wait_for 30 test -f "$work/data/history.db" || fail "no history.db in the data directory"
db="$work/data/history.db"
wait_for 30 sh -c "sqlite3 -readonly '$db' \"SELECT count(*) FROM event WHERE kind = 'exporter_started'\" 2>/dev/null | grep -qx 1" \
    || fail "the exporter's start is not in the journal"
devices=(); for index in 0 1 2; do devices+=("$(device_id "$index")"); done
.build/debug/wpbench --child history-fill "$work/data" 31 "${devices[@]}" >"$work/fill.log" || fail "history-fill: $(cat "$work/fill.log")"
cat "$work/fill.log"

# The queries, as the page shows them.
python3 - docs/status-page.md "$work/query" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
section = text.split("## Queries with the sqlite3 command", 1)[1].split("\n## ", 1)[0]
blocks = re.findall(r"```sql\n(.*?)```", section, re.S)
assert len(blocks) == 3, f"expected 3 sql blocks, found {len(blocks)}"
for number, block in enumerate(blocks, 1):
    open(f"{sys.argv[2]}{number}.sql", "w").write(block)
PY
run() { sqlite3 -readonly -separator '|' "$db" <"$work/query$1.sql"; }

kwh=$(run 1) || fail "query 1: $kwh"
for device in "${devices[@]}"; do
    days=$(printf '%s\n' "$kwh" | awk -F'|' -v d="$device" '$1 == d && $3 + 0 > 0 {n++} END {print n + 0}')
    [ "$days" -ge 30 ] || fail "query 1 gives $days days of kWh for $device: $(printf '%s\n' "$kwh" | head -5)"
done

outages=$(run 2) || fail "query 2: $outages"
counted=$(printf '%s\n' "$outages" | awk -F'|' '{n += $3} END {print n + 0}')
journal=$(sqlite3 -readonly "$db" "SELECT count(*) FROM event WHERE kind = 'on_battery'")
if [ "$counted" -eq 0 ] || [ "$counted" != "$journal" ]; then fail "query 2 counts $counted outages, the journal has $journal"; fi

lowest=$(run 3) || fail "query 3: $lowest"
rows=$(printf '%s\n' "$lowest" | awk -F'|' '$4 != "" && $4 + 0 < 100 {n++} END {print n + 0}')
# Each filled outage is four events (on battery, its alarm, mains back, the alarm cleared); a
# UPS the simulator has on battery now has no finished slot yet.
filled=$(sed -n 's/^filled [0-9]* slots \([0-9]*\) events.*/\1/p' "$work/fill.log")
if [ "${filled:-0}" -eq 0 ] || [ "$rows" -lt $((filled / 4)) ]; then
    fail "query 3 gives a lowest charge below 100 % for $rows outages of the $((filled / 4)) filled: $(printf '%s\n' "$lowest" | head -5)"
fi

# The APIs read the same file.
points=$(curl -sf "$base/status/history.json?device=${devices[0]}&range=30d" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["points"]))')
[ "$points" -ge 700 ] || fail "/status/history.json gives $points hourly points for 30 days"
events=$(curl -sf "$base/status/events.csv?device=${devices[0]}&kind=on_battery" | tail -n +2 | wc -l)
[ "$events" -ge 8 ] || fail "/status/events.csv gives $events outages of ${devices[0]}"
# Reloads in the journal: one that changes history.* (the writer made again: no stop and start
# journaled for it), one refused (why), then the stop; one start in all.
journaled() { [ "$(sqlite3 -readonly "$db" "SELECT count(*) FROM event WHERE kind = '$1'")" = "$2" ]; }
printf 'history:\n  retention_days: 31\n' >"$work/config.yml"
kill -HUP "$server"
wait_for 30 journaled reloaded 1 || fail "the reload is not in the journal"
printf 'history:\n  retention_days: -1\n' >"$work/config.yml"
kill -HUP "$server"
wait_for 30 journaled configuration_refused 1 || fail "the refused configuration is not in the journal"
refused=$(sqlite3 -readonly "$db" "SELECT detail FROM event WHERE kind = 'configuration_refused'")
case "$refused" in *retention_days*) ;; *) fail "the refusal does not say why: $refused" ;; esac
stop_exporter
if ! journaled exporter_started 1 || ! journaled exporter_stopped 1; then
    fail "starts and stops journaled: $(sqlite3 -readonly "$db" "SELECT kind FROM event WHERE kind LIKE 'exporter_%' OR kind IN ('reloaded', 'configuration_refused') ORDER BY id" | tr '\n' ' ')"
fi
echo "$name: passed (${counted} outages; ${points} hourly points; a reload and a refusal journaled; sqlite $(sqlite3 --version | cut -d' ' -f1))"
