# shellcheck shell=bash
# Sourced by this group's cases (never run alone): a real Zabbix 6.0 for the case — Debian's
# zabbix_server (PostgreSQL) and frontend, a PostgreSQL cluster in the case's scratch directory,
# the API through the frontend's PHP (`php -S` on 127.0.0.1:8080) — in network and mount
# namespaces of the case's own: PostgreSQL, zabbix_server's trapper and the frontend listen on
# their usual fixed ports, which nothing else can reach, and the frontend's configuration file is
# bound over /etc/zabbix there only. Needs root for the namespaces; PostgreSQL runs as its
# postgres user. About 13 s until the API answers and the server polls.
#
# When sourced, it re-runs the case ($0) inside the namespaces (IntegrationTests/netns.sh), then
# sources the harness and starts Zabbix; the case goes on with `$check` (zabbix_check.py: the API)
# and `$began`.
netns_tools="tests zabbix" netns_flags="--net --mount"   # curl, python3, net-snmp's tools, Zabbix, PostgreSQL
# shellcheck source=IntegrationTests/netns.sh
source "$(dirname "$0")/../netns.sh"
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
# shellcheck disable=SC2034  # read by the case that sources this file
check=IntegrationTests/tests_10_zabbix/zabbix_check.py
began=$SECONDS

# --- PostgreSQL: a cluster in the scratch directory, as the postgres user -------------------------
pg_bins=(/usr/lib/postgresql/*/bin)
pg_bin=${pg_bins[-1]}   # the newest installed (Debian 12: 15)
chmod 711 "$work"
mkdir -p "$work/pg"
chown postgres: "$work/pg"
as_postgres() { su postgres -s /bin/sh -c "$1"; }
as_postgres "'$pg_bin/initdb' -D '$work/pg/data' -U postgres -A trust -E UTF8 --locale C.UTF-8 >'$work/pg/initdb.log' 2>&1" \
    || fail "initdb failed"
exit_hooks+=("as_postgres \"'$pg_bin/pg_ctl' -D '$work/pg/data' -m immediate stop\" >/dev/null 2>&1")
# fsync off: a scratch database, thrown away at the end.
as_postgres "'$pg_bin/pg_ctl' -D '$work/pg/data' -l '$work/pg/postgresql.log' -w -o \"-k '$work/pg' -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off\" start" >/dev/null \
    || fail "PostgreSQL did not start"
psql -h 127.0.0.1 -U postgres -q -v ON_ERROR_STOP=1 -c "CREATE ROLE zabbix LOGIN PASSWORD 'zabbix'" \
    -c "CREATE DATABASE zabbix OWNER zabbix ENCODING 'UTF8' TEMPLATE template0" || fail "cannot create Zabbix's database"
schema=/usr/share/zabbix-server-pgsql
for part in schema images data; do zcat "$schema/$part.sql.gz"; done |
    PGPASSWORD=zabbix psql -h 127.0.0.1 -U zabbix -d zabbix -q -v ON_ERROR_STOP=1 >"$work/schema.log" 2>&1 \
    || fail "Zabbix's schema ($schema) did not load"
echo "$name: PostgreSQL and Zabbix's schema ready after $((SECONDS - began)) s"

# --- zabbix_server, in the foreground; the frontend's PHP on 127.0.0.1:8080 -----------------------
mkdir -p "$work/zabbix" "$work/etc"
cat >"$work/zabbix/zabbix_server.conf" <<CONF
LogFile=$work/zabbix/server.log
LogFileSize=0
PidFile=$work/zabbix/server.pid
SocketDir=$work/zabbix
DBHost=127.0.0.1
DBName=zabbix
DBUser=zabbix
DBPassword=zabbix
ListenIP=127.0.0.1
AllowRoot=1
CacheUpdateFrequency=1
ProblemHousekeepingFrequency=60
StartPollers=3
StartPollersUnreachable=1
StartTrappers=2
StartPingers=0
StartDiscoverers=0
StartHTTPPollers=0
StartPreprocessors=2
Timeout=5
CONF
# In a session of its own, stopped before PostgreSQL: with its database gone it retries forever
# and takes no SIGTERM.
setsid /usr/sbin/zabbix_server -f -c "$work/zabbix/zabbix_server.conf" >"$work/zabbix/stdout.log" 2>&1 &
zabbix_pid=$!
zabbix_stopped() { ! kill -0 -- "-$zabbix_pid" 2>/dev/null; }
stop_zabbix() {
    kill -TERM -- "-$zabbix_pid" 2>/dev/null || return 0
    wait_for 30 zabbix_stopped || kill -KILL -- "-$zabbix_pid" 2>/dev/null || true
    wait "$zabbix_pid" 2>/dev/null || true
}
exit_hooks=(stop_zabbix "${exit_hooks[@]}")
# Debian's frontend reads /etc/zabbix/zabbix.conf.php: ours is bound there in this mount namespace.
cat >"$work/etc/zabbix.conf.php" <<'PHP'
<?php
$DB['TYPE'] = 'POSTGRESQL';
$DB['SERVER'] = '127.0.0.1';
$DB['PORT'] = '5432';
$DB['DATABASE'] = 'zabbix';
$DB['USER'] = 'zabbix';
$DB['PASSWORD'] = 'zabbix';
$DB['SCHEMA'] = '';
$DB['ENCRYPTION'] = false;
$DB['DOUBLE_IEEE754'] = true;
$ZBX_SERVER = '127.0.0.1';
$ZBX_SERVER_PORT = '10051';
$ZBX_SERVER_NAME = 'wpexporter check';
$IMAGE_FORMAT_DEFAULT = IMAGE_FORMAT_PNG;
PHP
mkdir -p /etc/zabbix
mount --bind "$work/etc" /etc/zabbix
php -S 127.0.0.1:8080 -t /usr/share/zabbix >"$work/php.log" 2>&1 &
api_answers() { curl -sf -m 10 -H 'Content-Type: application/json-rpc' -d '{"jsonrpc":"2.0","method":"apiinfo.version","params":{},"id":1}' \
    http://127.0.0.1:8080/api_jsonrpc.php | grep -q '"result"'; }
wait_for 60 api_answers || fail "Zabbix's API does not answer on 127.0.0.1:8080"
wait_for 60 grep -qs 'server #[0-9]* started \[poller' "$work/zabbix/server.log" || fail "zabbix_server did not start its pollers"
version=$(dpkg-query -W -f '${Version}' zabbix-server-pgsql)
echo "$name: Zabbix $version (server, frontend and API) ready after $((SECONDS - began)) s"

