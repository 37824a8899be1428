# shellcheck shell=bash disable=SC2034,SC2154  # sourced: sets variables for its caller, reads some of its
# The one harness of the integration suite (IntegrationTests/README.md), sourced (never run) by
# every case and by some measurement scripts under Benchmarks/measure/: it goes to the repository
# root, picks the binary, makes a scratch directory that is removed on exit with every
# background job (after printing the tail of every log in it when the script fails), names a
# command that fails under set -e, and starts the simulator with 1,000 devices (or a fleet of
# simulated servers), the exporter and the Prometheus project's servers, each waited for; plus
# latency percentiles and peak RSS.
#
#   source "$(dirname "$0")/../harness.sh"      # a case, IntegrationTests/tests_NN_group/
#   source IntegrationTests/harness.sh          # a script run from the repository root
#
# Before sourcing, optionally: name (for messages; default the script's file name without .sh)
# and binary_needed=no (a script that never runs wpexporter).
# Sets: name, binary (WPEXPORTER_BIN, default .build/debug/wpexporter; a relative path is taken
# from the directory the script started in; measurements pass the release build), work (the
# scratch directory). Functions below.
name="${name:-$(basename "$0" .sh)}"
case "${WPEXPORTER_BIN:-}" in "" | /*) ;; *) WPEXPORTER_BIN="$PWD/$WPEXPORTER_BIN" ;; esac
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 64
binary="${WPEXPORTER_BIN:-.build/debug/wpexporter}"
if [ "${binary_needed:-yes}" != no ] && [ ! -x "$binary" ]; then
    case "$binary" in */release/*) build="swift build -c release --product wpexporter" ;; *) build="swift build --product wpexporter" ;; esac
    echo "$name: no $binary: build it first ($build), or set WPEXPORTER_BIN" >&2
    exit 64
fi
work=$(mktemp -d -t "$name.XXXXXX")
upsmon_groups=()
declare -A upsmon_pids
# stop_upsmons: stops every upsmon start_upsmon started (each whole process group).
stop_upsmons() { for group in "${upsmon_groups[@]}"; do kill -- "-$group" 2>/dev/null || true; done; upsmon_groups=(); }
# exit_hooks: commands the caller adds (eval'd first on exit), for what it started outside its
# jobs and process groups (a daemon that left them).
exit_hooks=()

# fail MESSAGE...: names the failure on standard error and exits 1 (the exit prints the logs).
fail() { echo "$name: FAILED: $*" >&2; exit 1; }

# show_logs: the last 40 lines of every log under the scratch directory (*.log, *.out, *.err
# and files named `log`), each under its name, on standard error.
show_logs() {
    local log
    find "$work" -type f \( -name '*.log' -o -name log -o -name '*.out' -o -name '*.err' \) 2>/dev/null | sort |
        while IFS= read -r log; do
            echo "---- $name: ${log#"$work"/} (last 40 lines)"
            tail -n 40 "$log"
        done >&2
}

# On exit: run the exit hooks, stop the simulator, the exporter, the servers and the attackers
# this script started (its jobs) and its upsmons; when the status is not 0, print the tail of
# every log first; then remove the scratch directory. SIGINT and SIGTERM end the script this way.
harness_exit() {
    local status=$? hook
    set +e
    trap - ERR
    for hook in "${exit_hooks[@]}"; do eval "$hook"; done
    stop_upsmons
    # shellcheck disable=SC2046  # one PID per word
    kill $(jobs -p) 2>/dev/null
    wait 2>/dev/null
    [ "$status" = 0 ] || show_logs
    rm -rf "$work"
    exit "$status"
}
trap harness_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# A command that fails under set -e, in a function too, is named with its file and line (a case
# that ends on one is not left without a word).
set -o errtrace
trap 'failed_status=$?; [ "$BASH_SUBSHELL" != 0 ] || echo "$name: failed (status $failed_status) at ${BASH_SOURCE[0]##*/}:$LINENO: $BASH_COMMAND" >&2' ERR

# wait_for SECONDS COMMAND...: runs COMMAND every 0.1 s until it succeeds; status 1 when
# SECONDS passed first.
wait_for() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@"; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.1
    done
}

# wait_http SECONDS URL [CURL-ARG...]: wait_for until URL answers with a 2xx status.
wait_http() {
    local seconds=$1 url=$2
    shift 2
    wait_for "$seconds" curl -sf -o /dev/null -m 2 "$@" "$url"
}

# start_simulator [DEVICES [ARG...]]: `wpexporter simulate` with DEVICES devices (default 1,000)
# on a free loopback port, extra arguments appended (later flags win); sets sim_port and
# simulator (PID). WinPower going away and coming back is simulator_down and simulator_up (the
# port stays held), never a second start on the same port.
start_simulator() {
    : >"$work/sim.log"   # emptied here: the child's redirection may come after the wait below starts
    "$binary" simulate --port 0 --devices "${1:-1000}" "${@:2}" >"$work/sim.log" 2>&1 &
    simulator=$!
    wait_for 10 grep -qs '127.0.0.1:' "$work/sim.log" || true
    sim_port=$(grep -o '127.0.0.1:[0-9]*' "$work/sim.log" | head -1 | cut -d: -f2)
    [ -n "$sim_port" ] || fail "the simulator did not start"
}

# stop_simulator: stops the simulator start_simulator started (SIGTERM) and waits for it.
stop_simulator() { kill "$simulator" 2>/dev/null || true; wait "$simulator" 2>/dev/null || true; }

# sim_said TEXT N: whether the simulator's log has N lines containing TEXT.
sim_said() { [ "$(grep -c "$1" "$work/sim.log" || true)" -ge "$2" ]; }

# simulator_down: the simulator start_simulator started goes down (SIGUSR1): connections to its
# port are refused while the port stays held, so nothing else can take it. Waits for its line.
simulator_down() {
    local seen
    seen=$(grep -c 'simulator down' "$work/sim.log" || true)
    kill -USR1 "$simulator"
    wait_for 10 sim_said 'simulator down' $((seen + 1)) || fail "the simulator did not go down"
}

# simulator_up: the simulator comes back on the same port as a restarted WinPower server
# (SIGUSR2): its time and --outage-schedule count from now, earlier tokens are unknown.
simulator_up() {
    local seen
    seen=$(grep -c 'simulator up again' "$work/sim.log" || true)
    kill -USR2 "$simulator"
    wait_for 10 sim_said 'simulator up again' $((seen + 1)) || fail "the simulator did not come back"
}

# fleet_listed N: whether the fleet's simulators printed N base URLs.
fleet_listed() { [ "$(grep -sc 'server [0-9]*: http://127.0.0.1:' "$work/fleet.log")" -ge "$1" ]; }

# start_fleet N DEVICES [ARG...]: `wpexporter simulate --servers N` with DEVICES devices per
# server on free loopback ports, extra arguments appended; sets fleet_ports (server 0 first).
start_fleet() {
    : >"$work/fleet.log"
    "$binary" simulate --servers "$1" --port 0 --devices "$2" "${@:3}" >"$work/fleet.log" 2>&1 &
    wait_for 10 fleet_listed "$1" || true
    mapfile -t fleet_ports < <(grep -o 'server [0-9]*: http://127.0.0.1:[0-9]*' "$work/fleet.log" | cut -d: -f4)
    [ "${#fleet_ports[@]}" -eq "$1" ] || fail "the simulators did not start"
}

# launch_exporter LOG [ARG...]: the exporter against the simulator, loopback, 1 s collections,
# extra arguments appended (later flags win, e.g. a second --data-dir); waits until it
# listens, not for its first collection. Sets server (PID), port and base (URL).
# Prefix with `env VAR=... ` through the exporter_env array (e.g. LD_PRELOAD); the WinPower
# credentials are the winpower_credentials array (the simulator's admin/admin; replace it to
# give them another way, e.g. --winpower.password_file, or empty it when a --config file does).
exporter_env=()
winpower_credentials=(--winpower.username admin --winpower.password admin)
launch_exporter() {
    local log=$1
    shift
    : >"$log"
    env "${exporter_env[@]}" "$binary" server --winpower.url "http://127.0.0.1:$sim_port" \
        "${winpower_credentials[@]}" --port 0 --server.host 127.0.0.1 \
        --data-dir "$work/data" --scheduler.collection_interval 1s --energy.max_gap 1m \
        --logging.format json "$@" >"$log" 2>&1 &
    server=$!
    port=$(await_port "$log" 'exporter listening')
    [ -n "$port" ] || fail "the exporter did not start"
    base="http://127.0.0.1:$port"
}

# listening_port LOG [PATTERN]: the loopback port of the first line of LOG matching PATTERN
# (default '"line server listening"', the NUT server's JSON message; '"udp server listening"'
# the SNMP agent's; 'exporter listening' the HTTP listener's; 'msg="Listening on"' a server of
# the Prometheus project's); empty when there is none (never a silent exit under set -e: the
# caller names the problem).
listening_port() {
    grep -s "${2:-\"line server listening\"}" "$1" | grep -o '127.0.0.1:[0-9]*' | head -1 | cut -d: -f2 || true
}

# wait_output SECONDS COMMAND...: runs COMMAND every 0.1 s until it prints something, and
# prints that; nothing when SECONDS passed first.
wait_output() {
    local out="" deadline=$((SECONDS + $1))
    shift
    while :; do
        out=$("$@" || true)
        if [ -n "$out" ] || [ "$SECONDS" -ge "$deadline" ]; then break; fi
        sleep 0.1
    done
    [ -z "$out" ] || echo "$out"
}

# await_port LOG [PATTERN [SECONDS]]: listening_port once LOG has such a line (waiting up to
# SECONDS, default 20); empty when none came.
await_port() { wait_output "${3:-20}" listening_port "$1" "${2:-\"line server listening\"}"; }

# socket_port PID [tcp|udp]: the loopback port a process listens on (from ss), waiting up to
# 10 s; for programs that bind port 0 and do not say which port they got (upsd, snmpd).
socket_port() {
    local flags=-Hltnp
    [ "${2:-tcp}" = udp ] && flags=-Hlunp
    # shellcheck disable=SC2016  # awk's fields
    wait_output 10 sh -c 'ss "$1" 2>/dev/null | awk -v p="pid=$2," '"'"'index($0, p) {n = split($4, a, ":"); print a[n]; exit}'"'" sh "$flags" "$1"
}

# start_exporter LOG [ARG...]: launch_exporter, then waits until ready (the first collection;
# ready_auth, USER:PASSWORD, when /-/ready needs it), 90 s at most.
start_exporter() {
    launch_exporter "$@"
    wait_http 90 "$base/-/ready" ${ready_auth:+-u "$ready_auth"} || fail "the exporter did not become ready on $base"
}

# stop_exporter: SIGTERM to the exporter launch_exporter started, then waits for it to end.
stop_exporter() { kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; }

# device_id N: the id of the simulator's device N (`wpexporter simulate`), e.g. for
# winpower.devices.overrides.
device_id() { printf '5e1a7a0c-%04x-4b35-b0dd-%012x' "$1" "$1"; }

# exporter_base LOG [SECONDS]: the base URL (http:// or https://) of the `metrics:` line that
# `wpexporter server` and `wpexporter demo` print on standard error, once there (waiting up to
# SECONDS, default 60); empty when none came.
exporter_base() {
    wait_for "${2:-60}" grep -qsE 'metrics: +https?://' "$1" || true
    grep -soE 'metrics: +https?://127\.0\.0\.1:[0-9]+' "$1" | head -1 | grep -oE 'https?://.*' || true
}

# start_demo LOG [ARG...]: `wpexporter demo` (its own simulator) on a free loopback port, 1 s
# collections, data in $work/demo-data, extra arguments appended; waits until it listens. Sets
# demo (PID) and demo_base (URL).
start_demo() {
    local log=$1
    shift
    : >"$log"
    "$binary" demo --server.host 127.0.0.1 --server.port 0 --scheduler.collection_interval 1s \
        --storage.data_dir "$work/demo-data" --logging.format console "$@" >"$log" 2>&1 &
    demo=$!
    demo_base=$(exporter_base "$log")
    [ -n "$demo_base" ] || fail "wpexporter demo did not start"
}

# start_listening LOG PATH COMMAND [ARG...]: a server of the Prometheus project (Prometheus,
# Alertmanager, the Pushgateway, snmp_exporter) with --web.listen-address=127.0.0.1:0 appended;
# waits (60 s at most) until it logged the port it bound and PATH answers there. Sets
# listener_pid and listener_port.
start_listening() {
    local log=$1 path=$2
    shift 2
    : >"$log"
    "$@" --web.listen-address=127.0.0.1:0 >"$log" 2>&1 &
    listener_pid=$!
    local program
    for program in "$@"; do case "$program" in env | *=*) ;; *) break ;; esac; done
    listener_port=$(await_port "$log" 'msg="Listening on"' 60)
    [ -n "$listener_port" ] || fail "$program did not listen"
    wait_http 60 "http://127.0.0.1:$listener_port$path" || fail "$program did not answer on 127.0.0.1:$listener_port$path"
}

# probe FILE URL [CURL-ARG...]: one request, its time in milliseconds appended to FILE
# (60000 when it failed, so a refused or dead request counts as the worst case).
probe() {
    local file=$1 url=$2
    shift 2
    local out
    out=$(curl -s -o /dev/null -m 60 -w '%{http_code} %{time_total}' "$@" "$url" || true)
    awk -v o="$out" 'BEGIN { split(o, f, " "); if (f[1] == "200") print f[2] * 1000; else print 60000 }' >>"$file"
}

# summary NAME FILE: count, median, p99, max of the milliseconds in FILE and how many failed
# (60000); sets p50, p99, max, count, failures.
summary() {
    read -r p50 p99 max < <(sort -n "$2" | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "60000 60000 60000"; exit }
        i50 = int(NR * 0.5) + 1; if (i50 > NR) i50 = NR
        i99 = int(NR * 0.99) + 1; if (i99 > NR) i99 = NR
        printf "%.1f %.1f %.1f\n", v[i50], v[i99], v[NR] }')
    count=$(wc -l <"$2") failures=$(grep -c '^60000$' "$2" || true)
    printf "  %-16s n=%d  p50=%.1f ms  p99=%.1f ms  max=%.1f ms  failed=%d\n" "$1" "$count" "$p50" "$p99" "$max" "$failures"
}

# wrk_p99 LABEL: wrk on $base/metrics for 15 s (2 threads, 10 connections); prints the
# requests/s and the p99 as "$name: /metrics under wrk, LABEL: … requests/s, p99 …" (the
# measurement scripts' scrape figure).
wrk_p99() {
    local out
    out=$(wrk -t2 -c10 -d15s --latency "$base/metrics")
    echo "$name: /metrics under wrk, $1: $(awk '$1 == "Requests/sec:" {print $2}' <<<"$out") requests/s," \
        "p99 $(awk '$1 == "99%" {print $2}' <<<"$out")"
}

# timed_fetches LABEL URL...: fetches each URL once, in order, and prints their summary under
# LABEL with the size of the first one's body (the measurement scripts' page figures).
timed_fetches() {
    local label=$1 url
    shift
    : >"$work/times"
    for url in "$@"; do probe "$work/times" "$url"; done
    summary "$label ($(curl -fsS "$1" | wc -c) bytes)" "$work/times"
}

# rss_mb PID: resident set size in MB now (VmRSS), 0 when the process is gone.
rss_mb() { awk '/^VmRSS:/ {printf "%.1f\n", $2 / 1024; f = 1} END {if (!f) print 0}' "/proc/$1/status" 2>/dev/null || echo 0; }

# rss_peak_mb PID: the process's peak resident set size in MB (VmHWM).
rss_peak_mb() { awk '/^VmHWM:/ {printf "%.1f\n", $2 / 1024; f = 1} END {if (!f) print 0}' "/proc/$1/status" 2>/dev/null || echo 0; }

# build_slow_fsync: builds Tests/Torture/slow_fsync.c, the LD_PRELOAD shim that makes fsync and
# fdatasync sleep SLOW_FSYNC_SECONDS, as $work/slow_fsync.so.
build_slow_fsync() {
    "${CC:-$(command -v cc || command -v clang)}" -O2 -shared -fPIC Tests/Torture/slow_fsync.c -o "$work/slow_fsync.so" -ldl
}

# counter FAMILY [CURL-ARG...]: the sum of a family's samples on /metrics.
counter() {
    local family=$1
    shift
    curl -s -m 60 "$@" "$base/metrics" | awk -v f="$family" '$1 == f || index($1, f "{") == 1 {s += $NF} END {printf "%d\n", s}'
}

# start_upsmon ROLE MONITOR USER PASSWORD KIND [POLLFREQ]: Debian's upsmon (nut-client, as root:
# the caller checks) in the foreground, watching MONITOR (`ups@host:port`) as KIND (primary or
# secondary), polling every POLLFREQ seconds (default 1), with files of its own in
# $work/upsmon-ROLE (its log: `log` there) and a SHUTDOWNCMD that only writes the time to
# $work/shutdown-ROLE. Sets upsmon_pids[ROLE] (a process in its mount namespace).
start_upsmon() {
    local role=$1 dir="$work/upsmon-$1" poll=${6:-1}
    mkdir -p "$dir"
    printf '#!/bin/sh\ndate +%%s.%%N > %s/shutdown-%s\n' "$work" "$role" >"$dir/shutdown.sh"
    chmod 755 "$dir/shutdown.sh"
    cat >"$dir/upsmon.conf" <<UPSMON
MONITOR $2 1 $3 $4 $5
MINSUPPLIES 1
SHUTDOWNCMD "$dir/shutdown.sh"
POLLFREQ $poll
POLLFREQALERT $poll
HOSTSYNC 20
DEADTIME 15
FINALDELAY 0
POWERDOWNFLAG $dir/killpower
RUN_AS_USER root
UPSMON
    chmod 600 "$dir/upsmon.conf"
    # upsmon's pid file is always /run/nut/upsmon.pid: each runs in a mount namespace of its
    # own with a private /run/nut, so several can run at once.
    # Each in a session of its own: upsmon forks, and the whole group is stopped at the end.
    mkdir -p /run/nut
    # shellcheck disable=SC2016  # $0 is expanded by the inner sh, on purpose
    NUT_CONFPATH="$dir" NUT_STATEPATH="$dir" setsid unshare --mount --propagation private \
        sh -c 'mount -t tmpfs none /run/nut && exec "$0" -F -u root' /lib/nut/upsmon >"$dir/log" 2>&1 &
    upsmon_groups+=("$!")
    upsmon_pids[$role]=$!
}
