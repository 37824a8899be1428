#!/usr/bin/env bash
# Attacks 1, 2 and 4 to 10 of the hardening work against the exporter serving 1,000 simulated
# devices, loopback only. Each attack runs for SECONDS against a fresh exporter while
# legitimate scrapes of /metrics (plain and gzip) and /-/healthy are timed; the attackers
# (attacker.py beside this file) stop themselves and everything is killed on exit.
#
#   IntegrationTests/tests_05_torture/test_05_http_attacks.sh [--check|--survive] [SECONDS]
#   ATTACKS="2 5" IntegrationTests/tests_05_torture/test_05_http_attacks.sh ...   # a subset (default 1 2 4 5 6 7 8 9 10)
#
# The default, --survive 5 (about 60 s with the debug build), is CI's run; docs/security.md's
# measurements are --check 15 (and longer) with WPEXPORTER_BIN=.build/release/wpexporter.
#
#   1 chunked POST /metrics of 1-byte chunks with 1000-byte extensions, one connection
#   2 300 connections from 127.0.0.2 with a wrong basic-auth password (cost-10 bcrypt)
#   4 400 connections announcing Content-Length: 1048576 and holding the body open
#   5 the exporter under `ulimit -n 128` and 200 idle connections
#   6 the NUT port (nut.max_connections 64): 300 connections sending a line a byte a second
#     and 4 pipelining junk commands, while a logged-in monitor polls GET VAR every 100 ms
#   7 NUT churn (nut.max_connections 256, the default): 300 silent connections reconnecting as
#     fast as they are closed, while talking clients connect afresh: upsc every 300 ms (when
#     installed) and a login (USERNAME, PASSWORD, LOGIN, LOGOUT) every 300 ms
#   8 as 7, each of the 300 connections sending one byte (`G`); the talking clients stop after
#     20 of each (NUT_TALKS to change)
#   9 as 8, each sending part of a line (`GET VAR ups ups.sta`)
#  10 as 8, each sending a complete `VER` line (answered)
#
# Goals: scrape median ≤ 100 ms and max ≤ 1 s, /-/healthy ≤ 100 ms, peak RSS ≤ 100 MB; attack 2
# also authenticated scrape p99 ≤ 250 ms and no collection skipped; attack 6 also the monitor's
# GET VAR p99 ≤ 100 ms, never disconnected; attack 7 also no failed poll or login, attacks 8–10
# at most one of 20 failed (upsc and logins each). Each is printed PASS/FAIL.
# Exit status: by default (--survive, spelled out in CI) 0 unless the exporter dies, or
# /-/healthy fails every probe of an attack or after it: latency is reported only, since shared
# CI machines are noisy. --check also fails on any missed goal.
set -euo pipefail
enforce=""
case "${1:-}" in
    --check) enforce=1; shift ;;
    --survive) shift ;;
esac
seconds="${1:-5}"
# shellcheck source=IntegrationTests/harness.sh
source "$(dirname "$0")/../harness.sh"
scripts/ci/tools.sh tests prometheus   # python3, curl, htpasswd
attacker=IntegrationTests/tests_05_torture/attacker.py
skipped_family=winpower_exporter_collections_skipped_total
failed=0 dead=0

verdict() {  # verdict WHAT VALUE LIMIT: PASS when VALUE ≤ LIMIT
    if awk -v v="$2" -v l="$3" 'BEGIN {exit !(v <= l)}'; then echo "    PASS $1: $2 ≤ $3"
    else echo "    FAIL $1: $2 > $3"; failed=1; fi
}

# run_attack TITLE ATTACKER-ARG...: a fresh exporter (extra exporter arguments in
# exporter_args), the attacker for $seconds, legitimate scrapes meanwhile, then the figures.
run_attack() {
    local title=$1
    shift
    local number=${title#attack }
    number=${number%%:*}
    case " ${ATTACKS:-1 2 4 5 6 7 8 9 10} " in *" $number "*) ;; *) return ;; esac
    local log="$work/server-$((++attack_number)).log"
    rm -rf "$work/data"
    start_exporter "$log" "${exporter_args[@]}"
    local skipped_before
    skipped_before=$(counter "$skipped_family" "${auth[@]}")
    echo "$name: $title (${seconds}s)"
    local target=$port monitor="" flood=""
    if [ -n "${nut_attack:-}" ]; then
        target=$(listening_port "$log")
    fi
    if [ "${nut_attack:-}" = churn ]; then
        # Talking clients, each on a fresh connection: upsc (when installed) and a login.
        python3 - "$target" "$seconds" "${churn_talks:-0}" >"$work/talkers.out" 2>"$work/talkers.err" <<'PY' &
import shutil, socket, subprocess, sys, time
sys.path.insert(0, "scripts")
from nutclient import ask, first_ups
port, seconds, talks = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
    conn.settimeout(5)
    name = first_ups(conn)  # before the churn builds up
time.sleep(1)  # as the scrapes: the churn builds up first
deadline = time.monotonic() + seconds - 1.5
upsc = shutil.which("upsc")
counts = {"upsc": [0, 0], "login": [0, 0]}
times = {"upsc": [], "login": []}
while time.monotonic() < deadline and not (talks and counts["login"][1] >= talks):
    if upsc:
        counts["upsc"][1] += 1
        started = time.perf_counter()
        try:
            run = subprocess.run([upsc, f"{name}@127.0.0.1:{port}", "ups.status"], capture_output=True, timeout=10)
            counts["upsc"][0] += run.returncode == 0 and run.stdout.strip() != b""
        except subprocess.TimeoutExpired:
            pass
        times["upsc"].append((time.perf_counter() - started) * 1000)
    counts["login"][1] += 1
    started = time.perf_counter()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
            conn.settimeout(5)
            if all(ask(conn, line).startswith(b"OK") for line in
                   ("USERNAME monuser", "PASSWORD attack-secret", "LOGIN " + name, "LOGOUT")):
                counts["login"][0] += 1
    except (OSError, SystemExit):
        pass
    times["login"].append((time.perf_counter() - started) * 1000)
    time.sleep(0.3)
for kind, (good, total) in counts.items():
    if total:
        spent = sorted(times[kind])
        print(f"{kind} {good} {total} {spent[len(spent) // 2]:.1f} {spent[-1]:.1f}")
PY
        monitor=$!
    elif [ -n "${nut_attack:-}" ]; then
        # The monitor: logged in like upsmon, one GET VAR every 100 ms, each timed.
        python3 - "$target" "$seconds" >"$work/monitor.ms" 2>"$work/monitor.err" <<'PY' &
import socket, sys, time
sys.path.insert(0, "scripts")
from nutclient import ask, first_ups
port, seconds = int(sys.argv[1]), float(sys.argv[2])
conn = socket.create_connection(("127.0.0.1", port))
conn.settimeout(5)
ups = first_ups(conn)
for line in ("USERNAME monuser", "PASSWORD attack-secret", "LOGIN " + ups):
    assert ask(conn, line).startswith(b"OK"), line
deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
    start = time.perf_counter()
    reply = ask(conn, f"GET VAR {ups} ups.status")
    print(f"{(time.perf_counter() - start) * 1000:.2f}" if reply.startswith(b"VAR ") else "60000", flush=True)
    time.sleep(0.1)
PY
        monitor=$!
        python3 "$attacker" nut-flood "$target" "$seconds" 4 >"$work/flood.log" &
        flood=$!
    fi
    python3 "$attacker" "$1" "$target" "$seconds" "${@:2}" &
    local attack=$!
    : >"$work/plain.ms"; : >"$work/gzip.ms"; : >"$work/healthy.ms"
    sleep 1  # let the attack build up before measuring
    local end=$(( $(date +%s) + seconds - 1 ))
    while [ "$(date +%s)" -lt "$end" ] && kill -0 "$server" 2>/dev/null; do
        probe "$work/plain.ms" "$base/metrics" "${auth[@]}"
        probe "$work/gzip.ms" "$base/metrics" -H 'Accept-Encoding: gzip' "${auth[@]}"
        probe "$work/healthy.ms" "$base/-/healthy"
        sleep 0.1
    done
    wait "$attack" || true
    if [ "${nut_attack:-}" = churn ]; then
        wait "$monitor" 2>/dev/null || true
        monitor=""
    elif [ -n "$monitor" ]; then
        wait "$monitor" 2>/dev/null || { echo "    FAIL the logged-in NUT monitor: $(cat "$work/monitor.err")"; dead=1; }
        wait "$flood" 2>/dev/null || true
        cat "$work/flood.log"
    fi
    if ! kill -0 "$server" 2>/dev/null; then
        echo "    FAIL the exporter exited"; tail -5 "$log"; dead=1; return
    fi
    summary "/metrics" "$work/plain.ms"; local plain_p50=$p50 plain_p99=$p99 plain_max=$max
    summary "/metrics gzip" "$work/gzip.ms"; local gzip_p50=$p50 gzip_max=$max
    summary "/-/healthy" "$work/healthy.ms"; local healthy_max=$max
    if [ "$failures" -gt 0 ] && [ "$failures" = "$count" ]; then echo "    FAIL /-/healthy never answered"; dead=1; fi
    local rss skipped saves_failed
    rss=$(rss_peak_mb "$server")
    skipped=$(( $(counter "$skipped_family" "${auth[@]}") - skipped_before ))
    saves_failed=$(grep -c 'saving energy totals failed' "$log" || true)
    echo "  peak RSS ${rss} MB; collections skipped +${skipped}; energy saves failed: ${saves_failed}"
    verdict "scrape median (plain)" "$plain_p50" 100
    verdict "scrape median (gzip)" "$gzip_p50" 100
    verdict "scrape worst (plain)" "$plain_max" 1000
    verdict "scrape worst (gzip)" "$gzip_max" 1000
    verdict "/-/healthy worst" "$healthy_max" 100
    verdict "peak RSS MB" "$rss" 100
    if [ -n "${auth[*]}" ]; then
        verdict "authenticated scrape p99" "$plain_p99" 250
        verdict "collections skipped" "$skipped" 0
    fi
    if [ -n "$monitor" ]; then
        summary "NUT GET VAR" "$work/monitor.ms"
        verdict "NUT monitor p99" "$p99" 100
        verdict "NUT monitor failures" "$failures" 0
    fi
    if [ "${nut_attack:-}" = churn ]; then
        local kind good total median worst
        while read -r kind good total median worst; do
            echo "  $kind on a fresh connection: $good of $total answered, median ${median} ms, worst ${worst} ms"
            verdict "$kind failures" "$((total - good))" "${churn_failures_allowed:-0}"
        done < <(grep -E '^(upsc|login) [0-9]+ [0-9]+ ' "$work/talkers.out")
        grep -q '^login ' "$work/talkers.out" \
            || { echo "    FAIL the talking clients did not run: $(tail -3 "$work/talkers.err" | tr '\n' ' ')"; failed=1; }
        echo "  NUT connections: $(curl -sf "$base/metrics" "${auth[@]}" | grep '^winpower_exporter_nut_connections_total' | tr '\n' ' ')"
    fi
    # /-/healthy must still answer once the attack is over.
    curl -sf -m 5 "$base/-/healthy" >/dev/null || { echo "    FAIL /-/healthy stopped answering"; dead=1; }
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
}

echo "$name: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), binary $binary, ${seconds}s per attack"
start_simulator 1000
attack_number=0 exporter_args=() auth=()

run_attack "attack 1: chunked POST /metrics, 1000-byte chunk extensions, one connection" chunked

password=scrape-secret
hash=$(htpasswd -nbBC 10 prometheus "$password" | cut -d: -f2-)
printf 'basic_auth_users:\n  prometheus: %s\nunauthenticated_paths: [/-/healthy]\n' "$hash" >"$work/web.yml"
exporter_args=(--web.config.file "$work/web.yml") auth=(-u "prometheus:$password") ready_auth="prometheus:$password"
run_attack "attack 2: 300 connections from 127.0.0.2, wrong basic-auth password (bcrypt cost 10)" auth 300 127.0.0.2
exporter_args=() auth=() ready_auth=""

run_attack "attack 4: 400 connections announcing Content-Length: 1048576, body held open" bodies 400

exporter_env=(prlimit --nofile=128:128)
run_attack "attack 5: ulimit -n 128 (soft and hard), 200 idle connections" idle 200
exporter_env=()

printf 'users:\n  monuser:\n    password: attack-secret\n    upsmon: secondary\n' >"$work/nut-users.yml"
exporter_args=(--nut.listen 127.0.0.1:0 --nut.max_connections 64 --nut.users_file "$work/nut-users.yml") nut_attack=1
run_attack "attack 6: NUT port, 300 slowloris + 4 junk floods, max 64 connections, a logged-in monitor" nut-slow 300
exporter_args=(--nut.listen 127.0.0.1:0 --nut.users_file "$work/nut-users.yml") nut_attack=churn
run_attack "attack 7: NUT port, 300 silent connections reconnecting, max 256 connections, upsc and fresh logins" idle 300
churn_talks=${NUT_TALKS:-20} churn_failures_allowed=1
run_attack "attack 8: NUT port, 300 connections sending one byte, reconnecting, max 256 connections, upsc and fresh logins" nut-byte 300
run_attack "attack 9: NUT port, 300 connections sending part of a line, reconnecting, max 256 connections, upsc and fresh logins" nut-partial 300
run_attack "attack 10: NUT port, 300 connections sending VER, reconnecting, max 256 connections, upsc and fresh logins" nut-ver 300
churn_talks=0 churn_failures_allowed=0
exporter_args=() nut_attack=""

if [ "$dead" = 1 ]; then fail "the exporter died or stopped answering"; fi
if [ "$failed" = 1 ]; then
    echo "$name: some goals missed (above)${enforce:+; --check: failing}"
    [ -z "$enforce" ] || fail "goals missed (--check)"
else
    echo "$name: all goals met"
fi
