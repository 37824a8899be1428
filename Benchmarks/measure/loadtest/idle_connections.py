#!/usr/bin/env python3
"""Holds N idle keep-alive connections to a server, then times fresh requests.

usage: idle_connections.py PORT [N] [REQUESTS]
Prints the p50 and max latency of REQUESTS fresh GET /small requests (each on a new
connection) while N other connections stay open and silent.
"""
import resource
import socket
import sys
import time

port = int(sys.argv[1])
count = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
requests = int(sys.argv[3]) if len(sys.argv) > 3 else 50

soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

idle = []
for _ in range(count):
    s = socket.create_connection(("127.0.0.1", port))
    idle.append(s)

def fresh_request():
    start = time.perf_counter()
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /small HTTP/1.1\r\nHost: load\r\nConnection: close\r\n\r\n")
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    elapsed = time.perf_counter() - start
    if not data.startswith(b"HTTP/1.1 200"):
        raise SystemExit("unexpected response: %r" % data[:80])
    return elapsed

latencies = sorted(fresh_request() for _ in range(requests))
# The idle connections must all still be open (the server did not drop them).
alive = 0
for s in idle:
    s.setblocking(False)
    try:
        alive += 0 if s.recv(1) == b"" else 1
    except BlockingIOError:
        alive += 1
print("idle connections held: %d of %d" % (alive, count))
print("fresh request latency with %d idle connections: p50 %.2f ms, max %.2f ms"
      % (count, latencies[len(latencies) // 2] * 1000, latencies[-1] * 1000))
for s in idle:
    s.close()
