#!/usr/bin/env bash
# The SNMP agent under load (figures in docs/performance.md, "The SNMP agent"; not part of CI:
# about a minute). One `wpexporter server` collects 1,000 simulated UPSs every 5 s and serves
# them over SNMP; then:
#   1. a GetBulk walk (SNMPv2c, max-repetitions 25) of one UPS's UPS-MIB (`community@name` of
#      the 500th UPS), 300 times from one client: p50, p99, max;
#   2. /metrics under wrk (2 threads, 10 connections, 15 s) without SNMP traffic, then while a
#      manager walks every one of the 1,000 UPSs every minute (17 walks a second, each of a
#      different UPS by `community@name`, as an NMS polls), then every 5 s (200 walks a
#      second): scrape p99 of each (goal: within 10 %); then with walks back to back, as fast
#      as one client can, for the ceiling;
#   3. before 2, without wrk: the exporter's CPU per second (from /proc) collecting alone, then
#      with 200 walks a second, beside the client's own CPU: what the walks cost the process.
#
#   Benchmarks/measure/snmp-load.sh          # uses .build/release/wpexporter (swift build -c release --product wpexporter)
#
# Loopback only; the agent's port is one the kernel gave a moment before. Installs wrk when
# missing. The client encodes its requests itself (a few lines of BER), so its own cost is
# small beside the agent's.
set -euo pipefail
cd "$(dirname "$0")/../.."
name=snmp-load
export WPEXPORTER_BIN="${WPEXPORTER_BIN:-.build/release/wpexporter}"
scripts/ci/tools.sh measure   # wrk
# shellcheck source=IntegrationTests/harness.sh
source IntegrationTests/harness.sh

printf 'communities:\n  - community: load-community\n' >"$work/snmp-users.yml"
chmod 600 "$work/snmp-users.yml"
agent_port=$(python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start_simulator 1000
start_exporter "$work/exporter.log" --snmp.listen "127.0.0.1:$agent_port" --snmp.users_file "$work/snmp-users.yml" \
    --nut.listen 127.0.0.1:0 --scheduler.collection_interval 5s
echo "$name: 1,000 UPSs; exporter $base, SNMP 127.0.0.1:$agent_port; $(nproc) cores, $(uname -r)"

cat >"$work/walk.py" <<'PY'
import socket, sys, time

def length(n):
    if n < 128:
        return bytes([n])
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(body)]) + body

def tlv(tag, content):
    return bytes([tag]) + length(len(content)) + content

def integer(value):
    return tlv(0x02, value.to_bytes(max(1, (value.bit_length() + 8) // 8), "big", signed=True))

def oid(text):
    parts = [int(p) for p in text.split(".")]
    out = bytes([parts[0] * 40 + parts[1]])
    for p in parts[2:]:
        chunk = [p & 0x7F]
        p >>= 7
        while p:
            chunk.insert(0, 0x80 | (p & 0x7F))
            p >>= 7
        out += bytes(chunk)
    return tlv(0x06, out)

def read(data, at):
    tag = data[at]
    n = data[at + 1]
    at += 2
    if n & 0x80:
        count = n & 0x7F
        n = int.from_bytes(data[at:at + count], "big")
        at += count
    return tag, at, at + n

def decode_oid(content):
    parts = [content[0] // 40, content[0] % 40]
    value = 0
    for b in content[1:]:
        value = (value << 7) | (b & 0x7F)
        if not b & 0x80:
            parts.append(value)
            value = 0
    return ".".join(map(str, parts))

def bindings(reply):
    """The (oid, tag) pairs of a response's variable bindings."""
    _, at, _ = read(reply, 0)                 # message SEQUENCE
    for _ in range(2):                        # version, community
        _, _, end = read(reply, at)
        at = end
    _, at, end = read(reply, at)              # the PDU
    for _ in range(3):                        # request-id, error-status, error-index
        _, _, after = read(reply, at)
        at = after
    _, at, end = read(reply, at)              # the bindings SEQUENCE
    out = []
    while at < end:
        _, inner, after = read(reply, at)
        _, oat, oend = read(reply, inner)
        tag = reply[oend]
        out.append((decode_oid(reply[oat:oend]), tag))
        at = after
    return out

def walk(sock, address, community, root, request_id):
    cursor, count, requests = root, 0, 0
    while True:
        request_id += 1
        requests += 1
        pdu = tlv(0xA5, integer(request_id) + integer(0) + integer(25) + tlv(0x30, tlv(0x30, oid(cursor) + b"\x05\x00")))
        sock.sendto(tlv(0x30, integer(1) + tlv(0x04, community) + pdu), address)
        try:
            reply, _ = sock.recvfrom(65535)
        except socket.timeout:
            raise SystemExit(f"no answer within 5 s to GetBulk {request_id} after {count} instances")
        done = False
        for name, tag in bindings(reply):
            if tag == 0x82 or not name.startswith(root + "."):
                done = True
                break
            cursor, count = name, count + 1
        if done:
            return count, requests, request_id

port, community, mode = int(sys.argv[1]), sys.argv[2].encode(), sys.argv[3]
address = ("127.0.0.1", port)
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.settimeout(5)
root = "1.3.6.1.2.1.33"
request_id = 0
if mode == "measure":
    for _ in range(30):
        _, _, request_id = walk(sock, address, community, root, request_id)
    times = []
    for _ in range(300):
        start = time.perf_counter()
        count, requests, request_id = walk(sock, address, community, root, request_id)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    print(f"{count} instances in {requests} GetBulk requests, 300 walks: p50 {times[150]:.2f} ms, "
          f"p99 {times[296]:.2f} ms, max {times[-1]:.2f} ms")
else:
    # `seconds[:rate[:names file]]`: walks for that long, at `rate` walks a second (0: back to
    # back), each of the next UPS of the names file by `community@name` (none: the default).
    parts = mode.split(":")
    seconds, rate = float(parts[0]), float(parts[1]) if len(parts) > 1 else 0.0
    names = open(parts[2]).read().split() if len(parts) > 2 else [""]
    walks, late, times = 0, 0, []
    start = time.monotonic()
    while time.monotonic() < start + seconds:
        if rate > 0:
            due = start + walks / rate
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            elif pause < -0.5:
                late += 1
        name = names[walks % len(names)]
        selector = community + (b"@" + name.encode() if name else b"")
        began = time.perf_counter()
        _, _, request_id = walk(sock, address, selector, root, request_id)
        times.append((time.perf_counter() - began) * 1000)
        walks += 1
    times.sort()
    print(f"{walks} walks in {seconds:.0f} s ({walks / seconds:.0f}/s), walk p50 {times[len(times) // 2]:.2f} ms, "
          f"p99 {times[len(times) * 99 // 100]:.2f} ms{f', {late} more than 0.5 s late' if late else ''}, "
          f"client CPU {time.process_time() * 1000 / seconds:.0f} ms/s")
PY

# The 500th UPS's name: the agent names UPSs as the NUT server does, and NUT lists them.
nut_port=$(listening_port "$work/exporter.log")
target=$(python3 - "$nut_port" "$work/names.txt" <<'PY'
import socket, sys
sys.path.insert(0, "scripts")
from nutclient import ask
conn = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
listing = ask(conn, "LIST UPS", "END LIST UPS\n").decode()
names = [line.split(" ")[1] for line in listing.splitlines() if line.startswith("UPS ")]
open(sys.argv[2], "w").write("\n".join(names) + "\n")
# From the 500th on, the first UPS with a fresh reading (the simulator disconnects a few).
for name in names[499:] + names[:499]:
    if ask(conn, f"GET VAR {name} ups.status", "\n").startswith(b"VAR "):
        print(name)
        break
PY
)
python3 "$work/walk.py" "$agent_port" "load-community@$target" measure | sed "s/^/$name: walk of $target: /"

# The exporter's own CPU (user + system, from /proc), without wrk: collections only, then
# with 200 walks a second; what the walks cost the process, apart from the client's.
hz=$(getconf CLK_TCK)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$server/stat"; }
before=$(cpu_ticks)
sleep 15
idle=$(( ($(cpu_ticks) - before) * 1000 / hz / 15 ))
before=$(cpu_ticks)
walking=$(python3 "$work/walk.py" "$agent_port" "load-community" "15:200:$work/names.txt")
busy=$(( ($(cpu_ticks) - before) * 1000 / hz / 15 ))
echo "$name: exporter CPU without wrk: $idle ms/s collecting, $busy ms/s with 200 walks/s ($walking)"

wrk_p99 "no SNMP traffic"
python3 "$work/walk.py" "$agent_port" "load-community" "16:17:$work/names.txt" >"$work/walkers-0.log" 2>&1 &
walker0=$!
wrk_p99 "every UPS walked every minute (17 walks/s)"
wait "$walker0" || true
echo "$name: the manager meanwhile: $(cat "$work/walkers-0.log")"
python3 "$work/walk.py" "$agent_port" "load-community" "16:200:$work/names.txt" >"$work/walkers-1.log" 2>&1 &
walker1=$!
wrk_p99 "every UPS walked every 5 s (200 walks/s)"
wait "$walker1" || true
echo "$name: the manager meanwhile: $(cat "$work/walkers-1.log")"
python3 "$work/walk.py" "$agent_port" "load-community" "16:0:$work/names.txt" >"$work/walkers-2.log" 2>&1 &
walker2=$!
wrk_p99 "walks back to back from one client"
wait "$walker2" || true
echo "$name: the client meanwhile: $(cat "$work/walkers-2.log")"
echo "$name: the agent's counters: $(curl -s "$base/metrics" | grep '^winpower_exporter_snmp_requests_total' | grep -v ' 0$' | sed 's/winpower_exporter_snmp_requests_total//' | tr '\n' ' ')"
