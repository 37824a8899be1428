#!/usr/bin/env bash
# Before/after runtime figures (issue 36): builds each given revision in release mode in its
# own checkout under .build/runtime-figures/<commit>/ and measures them alternately on this
# machine (round 1: every revision in order, round 2: again, ...), then prints each round and
# the medians per revision. Not part of CI; figures go to docs/performance.md ("Runtime
# before and after").
#
#   Benchmarks/measure/runtime-figures.sh [--rounds N] [--seconds S] [REVISION...]
#       REVISION   git revisions, default: a290403 (before) HEAD (after)
#       --rounds   rounds of alternating measurements, default 3
#       --seconds  duration of every wrk run, default 10
#   Benchmarks/measure/runtime-figures.sh --build-only [REVISION...]   # build (or reuse) and stop
#
# Per revision and round:
#   threads idle    `wpexporter server` collecting 1 simulated server × 100 devices, read from
#                   /proc/PID/status once /metrics shows its second collection (no scrapes but
#                   the polling)
#   threads 10 srv  the same with 10 simulated servers × 100 devices each, once /metrics shows
#                   a second collection of every server
#   /metrics p99    wrk, 10 connections, 2 threads, S seconds, Accept-Encoding: gzip (as
#                   Prometheus asks), against that 10-server exporter (1,000 devices)
#   cycle-1000      `wpbench collector.cycle-1000`: median wall time and median CPU time of a
#                   whole collection cycle of 1,000 devices (30 cycles)
#   embedder        Benchmarks/measure/embedder-latency built against the revision: HTTPServer with its
#                   default configuration serving MetricsHandler over 10,000 series (rendered
#                   per request) and /ping (a constant body); wrk with 10 connections on
#                   /metrics (gzip) and, at the same time, a second wrk with 2 connections on
#                   /ping, each sending a request every 10 ms (a probe: up to 200 req/s), both
#                   S seconds; p99 of both, and the median time of one /metrics
#                   request alone (render and gzip, 5 requests) for comparison. Then the same
#                   with /ping-prerendered, the constant route declared pre-rendered where the
#                   revision can say so (WPRouter.get(preRendered: true), which may run on the
#                   event loop); in a revision without that, the same as /ping
#
# One simulator (`wpexporter simulate --servers 10 --devices 100`, the first revision's binary)
# serves every exporter of the run, so they all collect the same thing. Collection interval
# 5 s. Loopback only: every process binds port 0 and its port is read from its output.
# Builds of different revisions never share a directory; a revision already built (a
# .build/runtime-figures/<commit>/built stamp for the same Package.swift and Sources/) is
# reused. Installs wrk when missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

rounds=3 seconds=10 build_only=0 revisions=()
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) rounds=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --build-only) build_only=1; shift ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "runtime-figures: unknown option $1 (see --help)" >&2; exit 64 ;;
        *) revisions+=("$1"); shift ;;
    esac
done
[ ${#revisions[@]} -gt 0 ] || revisions=(a290403 HEAD)
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "runtime-figures: --rounds wants a positive integer, not '$rounds'" >&2; exit 64; }
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "runtime-figures: --seconds wants a positive integer, not '$seconds'" >&2; exit 64; }

commits=()
for revision in "${revisions[@]}"; do
    commit=$(git rev-parse --verify --quiet "$revision^{commit}") \
        || { echo "runtime-figures: '$revision' is not a git revision here" >&2; exit 64; }
    commits+=("${commit:0:12}")
done

# --- Builds: .build/runtime-figures/<commit>/wpexporter is a detached worktree of the commit
# with its own .build; <commit>/embedder-latency is Benchmarks/measure/embedder-latency built against it.
# A commit whose Package.swift and Sources/ are those of a commit built before (a later commit
# that changed only docs or scripts) reuses that build: <commit>/source-key names the trees.
source_key() { git rev-parse "$1:Package.swift" "$1:Sources" | git hash-object --stdin | cut -c1-12; }
build() {  # $1: commit (12 hex digits); sets built_dir
    local key stamp
    key=$(source_key "$1")
    built_dir="$root/.build/runtime-figures/$1"
    for stamp in "$root"/.build/runtime-figures/*/source-key; do
        if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ]; then built_dir=$(dirname "$stamp"); break; fi
    done
    local source="$built_dir/wpexporter" embedder="$built_dir/embedder-latency"
    if [ -f "$built_dir/built" ] && diff -rq --exclude=.build "$root/Benchmarks/measure/embedder-latency" "$embedder" >/dev/null 2>&1; then
        echo "runtime-figures: $1 reuses the build in ${built_dir#"$root"/} (same Package.swift and Sources/)"
        return
    fi
    rm -f "$built_dir/built"
    mkdir -p "$built_dir"
    if [ ! -d "$source" ]; then
        git worktree prune
        git worktree add --detach --quiet "$source" "$1"
    fi
    echo "runtime-figures: building $(git -C "$source" rev-parse --short=12 HEAD) (release) in ${built_dir#"$root"/}, log in its build.log"
    (
        cd "$source"
        swift build -c release --product wpexporter
        swift build -c release --product wpbench
    ) >"$built_dir/build.log" 2>&1 || { tail -30 "$built_dir/build.log" >&2; exit 1; }
    # The embedder's pre-rendered route exists where WPRouter.get takes `preRendered:` (the
    # revisions that run handlers off the event loop by default).
    local defines=()
    if grep -rqs 'preRendered: Bool' "$source"/Sources/WPServer/; then defines=(-Xswiftc -DPRE_RENDERED_ROUTES); fi
    mkdir -p "$embedder"
    rm -rf "$embedder/Package.swift" "$embedder/Sources"
    cp -R "$root/Benchmarks/measure/embedder-latency/Package.swift" "$root/Benchmarks/measure/embedder-latency/Sources" "$embedder/"
    (cd "$embedder" && swift build -c release "${defines[@]}") >>"$built_dir/build.log" 2>&1 \
        || { tail -30 "$built_dir/build.log" >&2; exit 1; }
    echo "$key" >"$built_dir/source-key"
    touch "$built_dir/built"
}
dirs=()
for commit in "${commits[@]}"; do build "$commit"; dirs+=("$built_dir"); done
revision_binary() { echo "${dirs[$1]}/wpexporter/.build/release/$2"; }          # $1: revision index
embedder_binary() { echo "${dirs[$1]}/embedder-latency/.build/release/EmbedderLatency"; }
if [ "$build_only" = 1 ]; then exit 0; fi

scripts/ci/tools.sh measure   # wrk
ulimit -n "$(ulimit -Hn)"

name=runtime-figures
# The scratch directory ($work), every background job stopped at exit, start_fleet (the
# simulator: the first revision's binary).
# shellcheck source=IntegrationTests/harness.sh
WPEXPORTER_BIN=$(revision_binary 0 wpexporter) source IntegrationTests/harness.sh
set -o errtrace
trap 'echo "runtime-figures: failed (status $?) at line $LINENO: $BASH_COMMAND" >&2' ERR
# The probe of the second route: each connection sends a request every 10 ms (wrk's delay()),
# so the probe measures waiting, not competing for the cores with /metrics.
printf 'function delay()\n    return 10\nend\n' >"$work/probe.lua"

wait_for_text() {  # $1: file, $2: pattern; waits up to 60 s for the pattern in the file
    for _ in $(seq 600); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    echo "runtime-figures: no \"$2\" in $1:" >&2; cat "$1" >&2; exit 1
}
stop() {  # $1: pid
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}
machine() { echo "nproc $(nproc), load average $(cut -d' ' -f1-3 /proc/loadavg)"; }
threads() { awk '$1 == "Threads:" {print $2}' "/proc/$1/status"; }
to_ms() {  # a wrk latency such as 812.00us, 12.34ms, 1.02s -> milliseconds
    awk -v v="$1" 'BEGIN {
        n = v + 0; unit = v; sub(/^[0-9.]+/, "", unit)
        if (unit == "us") n /= 1000; else if (unit == "s") n *= 1000; else if (unit == "m") n *= 60000
        printf "%.2f", n }'
}
p99_ms_of() { to_ms "$(awk '$1 == "99%" {print $2}' "$1")"; }
wrk_errors() { grep -E "Socket errors|Non-2xx" "$1" | tr -s ' ' | tr '\n' ' ' || true; }

results="$work/results"  # lines: revision-index round name value
record() { echo "$1 $2 $3 $4" >>"$results"; }

# The simulator: 10 servers × 100 devices, every exporter's source.
start_fleet 10 100
urls=()
for fleet_port in "${fleet_ports[@]}"; do urls+=("http://127.0.0.1:$fleet_port"); done

start_revision_exporter() {  # $1: revision index, $2: number of servers; sets exporter_pid and exporter_url
    local config="$work/exporter-$2.yaml"
    {
        printf 'winpower:\n  username: admin\n  password: admin\n'
        printf 'scheduler:\n  collection_interval: 5s\n'
        printf 'server:\n  host: 127.0.0.1\n  port: 0\n'
        printf 'storage:\n  data_dir: %s\n  sync_write: false\n' "$work/data-$1-$2"
        printf 'logging:\n  level: info\n'
        printf 'servers:\n'
        for ((i = 0; i < $2; i++)); do printf '  - name: wp-%02d\n    base_url: %s\n' "$i" "${urls[$i]}"; done
    } >"$config"
    chmod 600 "$config"
    rm -rf "$work/data-$1-$2"
    : >"$work/exporter.log"  # emptied here: the job may open it after the waiting below begins
    "$(revision_binary "$1" wpexporter)" server --config "$config" >>"$work/exporter.log" 2>&1 &
    exporter_pid=$!
    # The address from its log line, once a request to it gets an answer.
    local address
    for _ in $(seq 600); do
        address=$(grep -o 'exporter listening.*' "$work/exporter.log" 2>/dev/null | grep -o '127\.0\.0\.1:[0-9]*' | head -1 || true)
        [ -n "$address" ] && curl -s -o /dev/null --max-time 5 "http://$address/-/ready" && break
        address=
        sleep 0.1
    done
    [ -n "$address" ] || { echo "runtime-figures: the exporter did not listen within 60 s:" >&2; cat "$work/exporter.log" >&2; exit 1; }
    exporter_url="http://$address"
}
# Polls /metrics every 0.2 s (up to 120 s) until every one of $1 servers shows at least 2
# collections (winpower_exporter_collection_duration_seconds_count).
wait_for_collections() {
    for _ in $(seq 600); do
        settled=$(curl -s --max-time 5 "$exporter_url/metrics" | awk '
            /^winpower_exporter_collection_duration_seconds_count\{/ && $NF >= 2 {n++} END {print n + 0}')
        [ "$settled" -ge "$1" ] && return 0
        sleep 0.2
    done
    echo "runtime-figures: $1 servers not collected twice within 120 s" >&2; tail -20 "$work/exporter.log" >&2; exit 1
}

measure() {  # $1: revision index, $2: round
    local index=$1 round=$2 commit=${commits[$1]} label="${revisions[$1]}"
    echo "-- round $round, $label ($commit); $(machine)"

    start_revision_exporter "$index" 1
    wait_for_collections 1
    local idle; idle=$(threads "$exporter_pid")
    stop "$exporter_pid"
    record "$index" "$round" threads_idle "$idle"

    start_revision_exporter "$index" 10
    wait_for_collections 10
    local busy; busy=$(threads "$exporter_pid")
    record "$index" "$round" threads_10 "$busy"
    wrk -t2 -c10 -d"${seconds}s" --latency -H 'Accept-Encoding: gzip' "$exporter_url/metrics" >"$work/wrk-exporter" 2>&1
    local scrape; scrape=$(p99_ms_of "$work/wrk-exporter")
    record "$index" "$round" metrics_p99_ms "$scrape"
    echo "   threads idle (1 server) $idle, with 10 servers $busy ($(threads "$exporter_pid") after the wrk run)"
    echo "   /metrics 10 connections: p99 $scrape ms, $(awk '/Requests\/sec/ {print $2}' "$work/wrk-exporter") req/s $(wrk_errors "$work/wrk-exporter")"
    stop "$exporter_pid"

    "$(revision_binary "$index" wpbench)" collector.cycle-1000 >"$work/wpbench.out" 2>&1
    local wall cpu
    wall=$(awk '/^== / {inside = ($2 == "collector.cycle-1000:")} inside && /whole cycle:/ {print $(NF - 3)}' "$work/wpbench.out")
    cpu=$(awk '/^== / {inside = ($2 == "collector.cycle-1000:")} inside && /CPU time of the process per cycle/ {print $(NF - 1)}' "$work/wpbench.out")
    if [ -z "$wall" ] || [ -z "$cpu" ]; then
        echo "runtime-figures: no cycle figures from wpbench:" >&2; cat "$work/wpbench.out" >&2; exit 1
    fi
    record "$index" "$round" cycle1000_ms "$wall"
    record "$index" "$round" cycle1000_cpu_ms "$cpu"
    echo "   collector.cycle-1000: median $wall ms wall, $cpu ms CPU"

    : >"$work/embedder.out"  # emptied before it starts, as the exporter's log
    "$(embedder_binary "$index")" 10000 >>"$work/embedder.out" 2>&1 &
    local embedder=$!
    wait_for_text "$work/embedder.out" "listening"
    local url; url="http://127.0.0.1:$(awk '/listening/ {print $2}' "$work/embedder.out")"
    local alone=()
    for _ in 1 2 3 4 5 6; do
        alone+=("$(curl -s -o /dev/null -w '%{time_total}' -H 'Accept-Encoding: gzip' "$url/metrics")")
    done
    # The first request warms up; the median of the other 5, in ms.
    local render; render=$(printf '%s\n' "${alone[@]:1}" | sort -g | awk '{v[NR] = $1 * 1000} END {printf "%.2f", v[3]}')
    record "$index" "$round" embedder_render_ms "$render"
    echo "   embedder: one /metrics alone $render ms (gzip, 10,000 series)"
    local route
    for route in ping ping-prerendered; do
        wrk -t1 -c2 -d"${seconds}s" --latency -s "$work/probe.lua" "$url/$route" >"$work/wrk-ping" 2>&1 &
        local ping=$!
        wrk -t1 -c10 -d"${seconds}s" --latency -H 'Accept-Encoding: gzip' "$url/metrics" >"$work/wrk-embedder" 2>&1
        wait "$ping"
        local metrics_p99 ping_p99
        metrics_p99=$(p99_ms_of "$work/wrk-embedder")
        ping_p99=$(p99_ms_of "$work/wrk-ping")
        record "$index" "$round" "embedder_metrics_p99_ms_$route" "$metrics_p99"
        record "$index" "$round" "embedder_${route}_p99_ms" "$ping_p99"
        echo "   embedder, /metrics at 10 connections with /$route at 2: /metrics p99 $metrics_p99 ms" \
            "($(awk '/Requests\/sec/ {print $2}' "$work/wrk-embedder") req/s $(wrk_errors "$work/wrk-embedder")), /$route p99 $ping_p99 ms" \
            "($(awk '/Requests\/sec/ {print $2}' "$work/wrk-ping") req/s $(wrk_errors "$work/wrk-ping"))"
    done
    stop "$embedder"
}

echo "runtime-figures: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -srm), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "runtime-figures: $(machine); $rounds round(s), wrk runs of $seconds s"
for index in "${!commits[@]}"; do
    echo "runtime-figures: revision $index: ${revisions[$index]} = ${commits[$index]} $(git log -1 --format=%s "${commits[$index]}" | cut -c1-72)"
    echo "runtime-figures:   built in ${dirs[$index]#"$root"/}"
done
echo "runtime-figures: simulator: 10 servers × 100 devices (the binary of ${commits[0]}), collection interval 5 s"
for ((round = 1; round <= rounds; round++)); do
    for index in "${!commits[@]}"; do measure "$index" "$round"; done
done

echo
echo "== every round (threads; milliseconds)"
names=(threads_idle threads_10 metrics_p99_ms cycle1000_ms cycle1000_cpu_ms embedder_render_ms
       embedder_metrics_p99_ms_ping embedder_ping_p99_ms embedder_metrics_p99_ms_ping-prerendered embedder_ping-prerendered_p99_ms)
titles=("threads, idle (1 server)" "threads, 10 servers" "/metrics p99, 10 conn" "cycle-1000 median wall" "cycle-1000 median CPU"
        "embedder /metrics alone" "embedder /metrics p99 (a)" "embedder /ping p99 (a)" "embedder /metrics p99 (b)"
        "embedder /ping-pre p99 (b)")
for index in "${!commits[@]}"; do
    for n in "${!names[@]}"; do
        printf '%-10s %-28s %s\n' "${revisions[$index]}" "${titles[$n]}" \
            "$(awk -v i="$index" -v name="${names[$n]}" '$1 == i && $3 == name {printf "%s ", $4}' "$results")"
    done
done
echo
echo "== medians over $rounds round(s)"
printf '%-28s' "figure"
for index in "${!commits[@]}"; do printf ' %14s' "${revisions[$index]}"; done
echo
for n in "${!names[@]}"; do
    printf '%-28s' "${titles[$n]}"
    for index in "${!commits[@]}"; do
        printf ' %14s' "$(awk -v i="$index" -v name="${names[$n]}" '$1 == i && $3 == name {print $4}' "$results" | sort -g \
            | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2}')"
    done
    echo
done
echo "(a) with /ping probed beside (2 connections, a request every 10 ms each); (b) with /ping-prerendered instead (WPRouter.get(preRendered: true)"
echo "    where the revision has it, else the same closure as /ping). Thread counts and milliseconds."
echo "runtime-figures: done; $(machine)"
