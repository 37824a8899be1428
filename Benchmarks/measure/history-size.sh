#!/usr/bin/env bash
# The history database's size per UPS for a retention (docs/performance.md, "History database
# size"): the `sqlite3` command fills a database of schema 2 (docs/storage.md, "History") with
# UPSS UPSs × the slots each tier keeps — 5-minute slots of 60 samples (a 5 s collection
# interval), hourly ones of 720, daily ones of 17,280 —, time after time as the writer adds them,
# with means in the ranges a UPS reports (load 500–600 W, charge 95–100 %, runtime 83–100 min,
# 230–235 V, 50 Hz, 26–27 °C) and least and greatest up to 100 W, 2 %, 0.5 %, 5 min, 5 V,
# 0.1 Hz and 1 °C from the mean, then prints each tier's bytes per UPS after a WAL checkpoint.
# No exporter needed; about a minute.
#
#   Benchmarks/measure/history-size.sh [UPSS [FIVE_MINUTE_DAYS [HOURLY_DAYS [DAILY_DAYS]]]]
#       defaults: 100 UPSs, 30, 45 and 1830 days (the history.* defaults)
set -euo pipefail
upss=${1:-100} five=${2:-30} hourly=${3:-45} daily=${4:-1830}
command -v sqlite3 >/dev/null || { echo "history-size: needs the sqlite3 command (Debian sqlite3)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db="$work/history.db"
columns=""
for metric in load_w load_pct charge runtime_s in_v out_v in_hz temp_c; do
    columns+=", ${metric} INTEGER, ${metric}_below INTEGER, ${metric}_above INTEGER"
done
sqlite3 "$db" "PRAGMA journal_mode = WAL;
CREATE TABLE ups (id INTEGER PRIMARY KEY, server TEXT NOT NULL, device TEXT NOT NULL, UNIQUE (server, device));
CREATE TABLE slot (tier INTEGER NOT NULL, ups INTEGER NOT NULL, start INTEGER NOT NULL, samples INTEGER NOT NULL$columns,
    mode INTEGER, energy_wh INTEGER, PRIMARY KEY (tier, ups, start)) WITHOUT ROWID;" >/dev/null
fill() {  # $1 tier, $2 slots, $3 slot seconds, $4 samples per slot
    sqlite3 "$db" "WITH RECURSIVE u(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM u WHERE id < $upss),
      t(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM t WHERE k < $2 - 1)
    INSERT INTO slot SELECT $1, u.id, 1700000000 + t.k * $3, $4,
      500 + abs(random()) % 100, abs(random()) % 100, abs(random()) % 100,
      250 + abs(random()) % 50, abs(random()) % 20, abs(random()) % 20,
      950 + abs(random()) % 50, abs(random()) % 5, abs(random()) % 5,
      5000 + abs(random()) % 1000, abs(random()) % 300, abs(random()) % 300,
      2300 + abs(random()) % 50, abs(random()) % 50, abs(random()) % 50,
      2300 + abs(random()) % 10, abs(random()) % 50, abs(random()) % 50,
      4998 + abs(random()) % 4, abs(random()) % 10, abs(random()) % 10,
      260 + abs(random()) % 10, abs(random()) % 10, abs(random()) % 10,
      3, 1000000 + t.k * $3 / 6 + u.id
    FROM t, u ORDER BY t.k, u.id; PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
    stat -c %s "$db"
}
before=$(stat -c %s "$db")
after_five=$(fill 0 $((five * 288)) 300 60)
after_hourly=$(fill 1 $((hourly * 24)) 3600 720)
after_daily=$(fill 2 "$daily" 86400 17280)
echo "history-size: $upss UPSs; sqlite $(sqlite3 --version | cut -d' ' -f1)"
printf '5-minute slots, %s days: %s bytes per UPS\n' "$five" $(((after_five - before) / upss))
printf 'hourly slots, %s days: %s bytes per UPS\n' "$hourly" $(((after_hourly - after_five) / upss))
printf 'daily slots, %s days: %s bytes per UPS\n' "$daily" $(((after_daily - after_hourly) / upss))
printf 'all: %s bytes per UPS (%s bytes for %s UPSs)\n' $((after_daily / upss)) "$after_daily" "$upss"
