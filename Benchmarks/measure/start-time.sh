#!/usr/bin/env bash
# Start time of `wpexporter server`: from exec to the first answer on /metrics, and to the first
# /metrics with the simulated devices (the first collection done), against `wpexporter simulate`
# (3 devices) on loopback. Each run gets a free port (bound to port 0, then released).
#
#   Benchmarks/measure/start-time.sh [path/to/wpexporter] [runs, default 20]
#
# Prints the median and the range over the runs, in milliseconds (docs/performance.md).
set -euo pipefail
binary=${1:-.build/release/wpexporter}
runs=${2:-20}
work=$(mktemp -d)
sim=""
cleanup() {
    if [[ -n "$sim" ]]; then kill "$sim" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

"$binary" simulate --port 0 --devices 3 >"$work/sim.log" 2>&1 &
sim=$!
deadline=$((SECONDS + 10))
until grep -q '127.0.0.1:' "$work/sim.log"; do
    [[ $SECONDS -lt $deadline ]] || { echo "simulator did not start"; cat "$work/sim.log"; exit 1; }
    sleep 0.05
done
sim_port=$(grep -o '127.0.0.1:[0-9]*' "$work/sim.log" | head -1 | cut -d: -f2)

python3 - "$binary" "$sim_port" "$runs" "$work" <<'PY'
import os, signal, socket, statistics, subprocess, sys, time, urllib.request

binary, sim_port, runs, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
first, ready = [], []
for run in range(runs):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    env = dict(os.environ, WINPOWER_EXPORTER_WINPOWER_PASSWORD="admin")
    start = time.monotonic()
    process = subprocess.Popen([binary, "server", "--port", str(port), "--server.host", "127.0.0.1",
                                "--winpower.base_url", f"http://127.0.0.1:{sim_port}", "--winpower.username", "admin",
                                "--data-dir", f"{work}/data-{run}", "--log-level", "warn"],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    answered = None
    deadline = start + 10
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=1) as response:
                body = response.read()
            now = time.monotonic()
            answered = answered or now
            if b"\nwinpower_device_connected{" in body:
                ready.append((now - start) * 1000)
                break
        except OSError:
            pass
        time.sleep(0.002)
    else:
        process.kill()
        sys.exit(f"run {run}: no /metrics with devices within 10 s")
    first.append((answered - start) * 1000)
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=10)

def summary(values):
    return f"median {statistics.median(values):.1f} ms (min {min(values):.1f}, max {max(values):.1f})"
print(f"{binary}: {runs} runs")
print(f"  first /metrics answer:      {summary(first)}")
print(f"  first /metrics with devices: {summary(ready)}")
PY
