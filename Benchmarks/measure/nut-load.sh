#!/usr/bin/env bash
# The NUT server under load (figures in docs/performance.md, "The NUT server"; not part of CI:
# about a minute). One `wpexporter server` collects 1,000 simulated UPSs every 5 s and serves
# them over NUT; then:
#   1. LIST VAR of one UPS, 2,000 times on one connection (as upsc and upsmon ask): p50, p99,
#      max (goal: p99 ≤ 1 ms);
#   2. /metrics under wrk (2 threads, 10 connections, 15 s) without NUT clients, then with 100
#      NUT clients connected, logged in and idle: scrape p99 of both (goal: within 10 %).
#
#   Benchmarks/measure/nut-load.sh          # uses .build/release/wpexporter (swift build -c release --product wpexporter)
#
# Loopback only; every port is picked by the kernel. Installs wrk when missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
name=nut-load
scripts/ci/tools.sh measure   # wrk
export WPEXPORTER_BIN="${WPEXPORTER_BIN:-.build/release/wpexporter}"   # the release build by default
# shellcheck source=IntegrationTests/harness.sh
source IntegrationTests/harness.sh

start_simulator 1000
printf 'users:\n  monuser:\n    password: load-secret\n    upsmon: secondary\n' >"$work/nut-users.yml"
start_exporter "$work/exporter.log" --nut.listen 127.0.0.1:0 --nut.users_file "$work/nut-users.yml" \
    --scheduler.collection_interval 5s
nut_port=$(listening_port "$work/exporter.log")
[ -n "$nut_port" ] || { echo "$name: no NUT listener" >&2; exit 1; }
echo "$name: 1,000 UPSs; exporter $base, NUT 127.0.0.1:$nut_port; $(nproc) cores, $(uname -r)"

python3 - "$nut_port" <<'PY'
import socket, sys, time
sys.path.insert(0, "scripts")
from nutclient import ask
port = int(sys.argv[1])

conn = socket.create_connection(("127.0.0.1", port))
listing = ask(conn, "LIST UPS", "END LIST UPS\n").decode()
names = [line.split(" ")[1] for line in listing.splitlines() if line.startswith("UPS ")]
ups = names[0]
request = f"LIST VAR {ups}".encode()
end = f"END LIST VAR {ups}\n".encode()
for _ in range(200):  # warm-up
    ask(conn, request, end)
times = []
for _ in range(2000):
    start = time.perf_counter()
    reply = ask(conn, request, end)
    times.append((time.perf_counter() - start) * 1000)
times.sort()
variables = reply.count(b"\nVAR ") + reply.startswith(b"VAR ")
print(f"nut-load: {len(names)} UPSs listed; LIST VAR {ups} ({variables} variables, {len(reply)} bytes), 2000 times: "
      f"p50 {times[1000]:.3f} ms, p99 {times[1979]:.3f} ms, max {times[-1]:.3f} ms")
PY

wrk_p99 "no NUT clients"
python3 - "$nut_port" 100 >"$work/idle.log" 2>&1 <<'PY' &
import socket, sys, time
port, count = int(sys.argv[1]), int(sys.argv[2])
held = []
for _ in range(count):
    conn = socket.create_connection(("127.0.0.1", port))
    conn.sendall(b"USERNAME monuser\nPASSWORD load-secret\nLOGIN " + b"ups\n")
    held.append(conn)
print(f"holding {len(held)} NUT connections", flush=True)
time.sleep(3600)
PY
for _ in $(seq 100); do grep -qs holding "$work/idle.log" && break; sleep 0.1; done
open=$(curl -s "$base/metrics" | awk '$1 == "winpower_exporter_nut_connections_open" {print $2}')
echo "$name: $(cat "$work/idle.log"); the exporter counts $open open"
wrk_p99 "100 idle NUT clients"
