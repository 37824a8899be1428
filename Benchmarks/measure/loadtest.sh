#!/usr/bin/env bash
# Load test for WPServer (not part of CI): wrk against a release build serving a 60 KB and a
# 2 MB body at 10 and 100 connections, idle RSS of a server-only binary, and the latency of
# a fresh request while a second process holds 5,000 idle connections.
#
#   Benchmarks/measure/loadtest.sh [SECONDS]         # seconds per wrk run, default 10
#   Benchmarks/measure/loadtest.sh --tls [SECONDS]   # HTTPS with keep-alive instead (see the TLS block)
#   Benchmarks/measure/loadtest.sh --build-only      # build the server-only binary, answer one request, stop
#                                         # (CI: keeps the hand-made build from rotting)
#
# Installs wrk (Debian package) when missing. Prints requests/s, p50/p99 latency and peak RSS.
set -euo pipefail
cd "$(dirname "$0")/../.."

tls=0 build_only=0
if [ "${1:-}" = "--tls" ]; then tls=1; shift; fi
if [ "${1:-}" = "--build-only" ]; then build_only=1; shift; fi
seconds="${1:-10}"
work=.build/loadtest
mkdir -p "$work/modules"

if [ "$build_only" = 0 ]; then scripts/ci/tools.sh measure; fi   # wrk

echo "loadtest: building a server-only binary (WPServer and the modules it needs, $([ "$build_only" = 1 ] && echo "unoptimised, build check" || echo release))"
clang -O2 -c Sources/WPCSystem/WPCSystem.c -I Sources/WPCSystem/include -o "$work/WPCSystem.o"
clang -O2 -c Sources/WPCSecurityShim/security_shim.c -I Sources/WPCSecurityShim/include -o "$work/WPCSecurityShim.o"
cat > "$work/modules/module.modulemap" <<MAP
module WPCSystem {
    header "$PWD/Sources/WPCSystem/include/WPCSystem.h"
    export *
}
module WPCSecurityShim {
    header "$PWD/Sources/WPCSecurityShim/include/security_shim.h"
    export *
}
MAP
# Neither module uses regexes: skip the implicit string-processing import, so the binary does
# not load the regex runtime libraries (about 0.9 MB of RSS).
noregex=(-Xfrontend -disable-implicit-string-processing-module-import)
# The modules use `package` access across each other: compile them as one package, as SwiftPM does.
# --build-only compiles without optimisation: it checks that the build works, quickly.
optimize=-O
if [ "$build_only" = 1 ]; then optimize=-Onone; fi
# The upcoming features Package.swift enables for every target (an import's access level among them).
features=(-enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility
          -enable-upcoming-feature InternalImportsByDefault)
flags=("$optimize" -wmo -parse-as-library -swift-version 6 -package-name wpexporter "${features[@]}" "${noregex[@]}" -I "$work/modules" -I Sources/WPCZlib)
# WPServer and the Swift modules it depends on, dependencies first, read from the package
# description (the C modules are the two above, and zlib's).
read -r -a modules < <(swift package dump-package | python3 -c '
import json, sys
from pathlib import Path
targets = {t["name"]: t for t in json.load(sys.stdin)["targets"]}
order = []
def visit(name):
    if name in order or not any(Path("Sources", name).rglob("*.swift")):
        return
    for dependency in targets[name]["dependencies"]:
        visit(next(iter(dependency.values()))[0])
    order.append(name)
visit("WPServer")
print(" ".join(order))')
objects=()
for module in "${modules[@]}"; do
    find "Sources/$module" -name '*.swift' -print0 | sort -z | xargs -0 swiftc "${flags[@]}" -module-name "$module" \
        -emit-module -emit-module-path "$work/modules/$module.swiftmodule" -c -o "$work/$module.o"
    objects+=("$work/$module.o")
done
swiftc "$optimize" -swift-version 6 -package-name wpexporter "${noregex[@]}" -I "$work/modules" -I Sources/WPCZlib Benchmarks/measure/loadtest/ServerOnlyMain.swift \
    "${objects[@]}" "$work/WPCSystem.o" "$work/WPCSecurityShim.o" -lz -ldl \
    -o "$work/http-serve-only"

if [ "$build_only" = 1 ]; then
    "$work/http-serve-only" 0 > "$work/server.out" &
    server=$!
    trap 'kill $server 2>/dev/null || true' EXIT
    for _ in $(seq 1 100); do grep -q listening "$work/server.out" 2>/dev/null && break; sleep 0.1; done
    port=$(awk '/listening/ {print $2}' "$work/server.out")
    [ -n "$port" ] || { echo "loadtest: the server-only binary did not start"; cat "$work/server.out"; exit 1; }
    bytes=$(curl -fsS --max-time 10 "http://127.0.0.1:$port/small" | wc -c)
    echo "loadtest: built $work/http-serve-only; GET /small answered $bytes bytes"
    exit 0
fi

ulimit -n "$(ulimit -Hn)"
# --- TLS block: a throwaway certificate, the same binary serving HTTPS (TLS_CERT/TLS_KEY), wrk
# over keep-alive connections (one handshake per connection), then exit.
if [ "$tls" = 1 ]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=127.0.0.1 \
        -keyout "$work/tls.key" -out "$work/tls.crt" 2>/dev/null
    TLS_CERT="$work/tls.crt" TLS_KEY="$work/tls.key" "$work/http-serve-only" 0 > "$work/server.out" &
    server=$!
    trap 'kill $server 2>/dev/null || true' EXIT
    for _ in $(seq 1 100); do grep -q listening "$work/server.out" 2>/dev/null && break; sleep 0.1; done
    port=$(awk '/listening/ {print $2}' "$work/server.out")
    curl -sf --cacert "$work/tls.crt" -o /dev/null "https://127.0.0.1:$port/small"
    for path in small 60k; do
        for connections in 10 100; do
            result=$(wrk -t2 -c"$connections" -d"${seconds}s" --latency "https://127.0.0.1:$port/$path")
            printf '%-5s %3d connections (TLS): %10s req/s  p50 %-9s p99 %-9s %s\n' "$path" "$connections" \
                "$(awk '/Requests\/sec/ {print $2}' <<<"$result")" "$(awk '$1 == "50%" {print $2}' <<<"$result")" \
                "$(awk '$1 == "99%" {print $2}' <<<"$result")" "$(grep -E "Socket errors|Non-2xx" <<<"$result" | tr '\n' ' ' || true)"
        done
    done
    echo "peak RSS under TLS load: $(awk '$1 == "VmHWM:" {print $2 / 1024 " MB"}' "/proc/$server/status")"
    exit 0
fi
# --- end TLS block
"$work/http-serve-only" 0 > "$work/server.out" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
    grep -q listening "$work/server.out" 2>/dev/null && break
    sleep 0.1
done
port=$(awk '/listening/ {print $2}' "$work/server.out")
rss() { awk -v key="$1:" '$1 == key {print $2 / 1024 " MB"}' "/proc/$server/status"; }

sleep 1
echo "idle RSS after start: $(rss VmRSS)"
curl -s --retry 5 --retry-connrefused -o /dev/null "http://127.0.0.1:$port/small"
echo "idle RSS after one request: $(rss VmRSS)"

for path in 60k 2m; do
    for connections in 10 100; do
        result=$(wrk -t2 -c"$connections" -d"${seconds}s" --latency "http://127.0.0.1:$port/$path")
        rps=$(awk '/Requests\/sec/ {print $2}' <<<"$result")
        p50=$(awk '$1 == "50%" {print $2}' <<<"$result")
        p99=$(awk '$1 == "99%" {print $2}' <<<"$result")
        errors=$(grep -E "Socket errors|Non-2xx" <<<"$result" | tr '\n' ' ' || true)
        printf '%-4s %3d connections: %10s req/s  p50 %-9s p99 %-9s %s\n' "$path" "$connections" "$rps" "$p50" "$p99" "$errors"
    done
done
echo "peak RSS under load: $(rss VmHWM)"

echo "holding 5000 idle connections from a second process"
python3 Benchmarks/measure/loadtest/idle_connections.py "$port" 5000 50
echo "RSS with the idle connections gone: $(rss VmRSS), peak $(rss VmHWM)"

# --- Exporter scrape scenarios (Benchmarks/measure/loadtest/scrape.sh runs them on its own too).
kill "$server" 2>/dev/null || true
Benchmarks/measure/loadtest/scrape.sh "$seconds"
