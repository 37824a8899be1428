# shellcheck shell=bash disable=SC2034,SC2154  # sourced: sets variables for its caller, reads $name
# Shared by the torture scripts (sourced, not run): the binary, a scratch directory cleaned on
# exit with every background job, the simulator with 1,000 devices (or a fleet of simulated
# servers), the exporter, latency percentiles and the exporter's peak RSS.
#
#   name=my-script; source IntegrationTests/harness.sh     # from the repository root
#
# Sets: binary, work (scratch directory). Functions below.
binary="${WPEXPORTER_BIN:-.build/release/wpexporter}"
[ -x "$binary" ] || { echo "$name: build it first: swift build -c release --product wpexporter" >&2; exit 64; }
work=$(mktemp -d)
upsmon_groups=()
declare -A upsmon_pids
# stop_upsmons: stops every upsmon start_upsmon started (each whole process group).
stop_upsmons() { for group in "${upsmon_groups[@]}"; do kill -- "-$group" 2>/dev/null || true; done; upsmon_groups=(); }
# exit_hooks: commands the caller adds (eval'd first on exit), for what it started outside its
# jobs and process groups (a daemon that left them).
exit_hooks=()
# On exit: run the exit hooks, stop the simulator, the exporter and the attackers this script
# started (its jobs), and its upsmons.
trap 'for hook in "${exit_hooks[@]}"; do eval "$hook" || true; done; stop_upsmons; kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

# start_simulator [DEVICES [ARG...]]: `wpexporter simulate` with DEVICES devices (default 1,000)
# on a free loopback port, extra arguments appended (later flags win: `--port "$sim_port"` starts
# it again on the same port); sets sim_port and simulator (PID).
start_simulator() {
    "$binary" simulate --port 0 --devices "${1:-1000}" "${@:2}" >"$work/sim.log" 2>&1 &
    simulator=$!
    for _ in $(seq 100); do grep -q '127.0.0.1:' "$work/sim.log" && break; sleep 0.1; done
    sim_port=$(grep -o '127.0.0.1:[0-9]*' "$work/sim.log" | head -1 | cut -d: -f2)
}

# start_fleet N DEVICES: `wpexporter simulate --servers N` with DEVICES devices per server on
# free loopback ports; sets fleet_ports (server 0 first).
start_fleet() {
    "$binary" simulate --servers "$1" --port 0 --devices "$2" >"$work/fleet.log" 2>&1 &
    local listed
    for _ in $(seq 100); do
        listed=$(grep -sc 'server [0-9]*: http://127.0.0.1:' "$work/fleet.log" || true)
        [ "${listed:-0}" -ge "$1" ] && break
        sleep 0.1
    done
    mapfile -t fleet_ports < <(grep -o 'server [0-9]*: http://127.0.0.1:[0-9]*' "$work/fleet.log" | cut -d: -f4)
    [ "${#fleet_ports[@]}" -eq "$1" ] || { echo "$name: the simulators did not start" >&2; cat "$work/fleet.log" >&2; exit 1; }
}

# launch_exporter LOG [ARG...]: the exporter against the simulator, loopback, 1 s collections,
# extra arguments appended (later flags win, e.g. a second --data-dir); waits until it
# listens, not for its first collection. Sets server (PID), port and base (URL).
# Prefix with `env VAR=... ` through the exporter_env array (e.g. LD_PRELOAD).
exporter_env=()
launch_exporter() {
    local log=$1
    shift
    env "${exporter_env[@]}" "$binary" server --winpower.url "http://127.0.0.1:$sim_port" \
        --winpower.username admin --winpower.password admin --port 0 --server.host 127.0.0.1 \
        --data-dir "$work/data" --scheduler.collection_interval 1s --energy.max_gap 1m \
        --logging.format json "$@" >"$log" 2>&1 &
    server=$!
    for _ in $(seq 200); do grep -qs 'exporter listening' "$log" && break; sleep 0.1; done
    port=$(listening_port "$log" 'exporter listening')
    [ -n "$port" ] || { echo "$name: exporter did not start" >&2; cat "$log" >&2; exit 1; }
    base="http://127.0.0.1:$port"
}

# listening_port LOG [PATTERN]: the loopback port of the first line of LOG matching PATTERN
# (default '"line server listening"', the NUT server's JSON message; '"udp server listening"'
# the SNMP agent's; 'exporter listening' the HTTP listener's); empty when there is none (never a
# silent exit under set -e: the caller names the problem).
listening_port() {
    grep "${2:-\"line server listening\"}" "$1" | grep -o '127.0.0.1:[0-9]*' | head -1 | cut -d: -f2 || true
}

# start_exporter LOG [ARG...]: launch_exporter, then waits until ready (the first collection).
start_exporter() {
    launch_exporter "$@"
    for _ in $(seq 900); do curl -sf ${ready_auth:+-u "$ready_auth"} "$base/-/ready" >/dev/null && break; sleep 0.1; done
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
