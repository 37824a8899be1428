#!/usr/bin/env python3
"""Loopback attackers for test_05_http_attacks.sh beside this file. Each runs for SECONDS and stops
itself; it prints one line of counts (connections opened, responses by status) at the end.

  attacker.py chunked PORT SECONDS            attack 1: one connection, chunks with 1000-byte extensions
  attacker.py auth PORT SECONDS N SOURCE      attack 2: N connections, wrong basic-auth password
  attacker.py bodies PORT SECONDS N           attack 4: N connections announce 1 MiB bodies, hold them
  attacker.py idle PORT SECONDS N             attack 5: N idle connections
  attacker.py nut-slow PORT SECONDS N         attack 6: N NUT connections sending a line a byte a second
  attacker.py nut-flood PORT SECONDS N        attack 6: N NUT connections pipelining junk and
                                              unknown-UPS commands as fast as they are read
  attacker.py nut-byte PORT SECONDS N         attack 8: N NUT connections sending one byte
  attacker.py nut-partial PORT SECONDS N      attack 9: N NUT connections sending part of a line
  attacker.py nut-ver PORT SECONDS N          attack 10: N NUT connections sending a complete VER
Closed connections are reopened until the time is up.
"""
import base64
import collections
import socket
import sys
import threading
import time

counts = collections.Counter()
lock = threading.Lock()


def count(key):
    with lock:
        counts[key] += 1


def connect(port, source, deadline):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(max(0.1, min(2.0, deadline - time.monotonic())))
    if source:
        sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    count("connections")
    return sock


def note_status(data):
    """Counts the status of the first response in data (b"HTTP/1.1 413 ..."), or 'closed'."""
    parts = data.split(b" ", 2)
    count(parts[1].decode() if len(parts) > 1 and data.startswith(b"HTTP/") else "closed")


def hold(sock, deadline):
    """Reads until the peer closes or the time is up; counts the response seen, if any."""
    seen = b""
    while time.monotonic() < deadline:
        sock.settimeout(max(0.05, min(0.5, deadline - time.monotonic())))
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            data = b""
        if not data:
            note_status(seen)
            return
        seen = seen or data


def worker(port, deadline, source, send):
    while time.monotonic() < deadline:
        try:
            sock = connect(port, source, deadline)
        except OSError:
            count("connect-failed")
            time.sleep(0.05)
            continue
        try:
            send(sock, deadline)
            hold(sock, deadline)
        except OSError:
            count("reset")
        finally:
            sock.close()


def chunked(sock, deadline):
    sock.sendall(b"POST /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
    chunk = b"1;" + b"a" * 1000 + b"\r\nX\r\n"
    block = chunk * 64
    sock.settimeout(0.5)
    while time.monotonic() < deadline:
        try:
            sock.sendall(block)
            count("chunk-blocks")
        except socket.timeout:
            return
        # Stops sending when the server answered (it may refuse the head at once).
        sock.setblocking(False)
        try:
            if sock.recv(1, socket.MSG_PEEK) is not None:
                return
        except BlockingIOError:
            pass
        finally:
            sock.settimeout(0.5)


def wrong_password(sock, deadline):
    token = base64.b64encode(b"prometheus:wrong").decode()
    sock.sendall(f"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic {token}\r\n"
                 "Connection: close\r\n\r\n".encode())


def big_body(sock, deadline):
    sock.sendall(b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n" + b"x" * 4096)


def nothing(sock, deadline):
    pass


def nut_slow(sock, deadline):
    """A NUT line that never ends: one byte a second (slowloris)."""
    for byte in b"GET VAR ups ups.status" * 100:
        if time.monotonic() >= deadline:
            return
        sock.sendall(bytes([byte]))
        time.sleep(1)


JUNK = (b"LIST VAR nosuchups\n" b"GET VAR \"x\\\"y\" z\n" b"\x00\xff\xfe junk # comment\n" b"USERNAME a=b\n"
        b"HELP me\n") * 200


def nut_flood(sock, deadline):
    """Pipelines junk and error-provoking NUT commands, reading the replies."""
    sock.settimeout(0.5)
    while time.monotonic() < deadline:
        sock.sendall(JUNK)
        count("nut-batches")
        try:
            while sock.recv(1 << 20):
                pass
        except socket.timeout:
            pass


def nut_byte(sock, deadline):
    sock.sendall(b"G")


def nut_partial(sock, deadline):
    sock.sendall(b"GET VAR ups ups.sta")


def nut_ver(sock, deadline):
    sock.sendall(b"VER\n")


def main(argv):
    mode, port, seconds = argv[1], int(argv[2]), float(argv[3])
    deadline = time.monotonic() + seconds
    n, source, send = 1, None, chunked
    if mode == "auth":
        n, source, send = int(argv[4]), argv[5], wrong_password
    elif mode == "bodies":
        n, send = int(argv[4]), big_body
    elif mode == "idle":
        n, send = int(argv[4]), nothing
    elif mode == "nut-slow":
        n, send = int(argv[4]), nut_slow
    elif mode == "nut-flood":
        n, send = int(argv[4]), nut_flood
    elif mode == "nut-byte":
        n, send = int(argv[4]), nut_byte
    elif mode == "nut-partial":
        n, send = int(argv[4]), nut_partial
    elif mode == "nut-ver":
        n, send = int(argv[4]), nut_ver
    elif mode != "chunked":
        sys.exit(f"attacker.py: unknown mode {mode}")
    threads = [threading.Thread(target=worker, args=(port, deadline, source, send), daemon=True)
               for _ in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()) + 5)
    print(f"  attacker {mode}: " + ", ".join(f"{k}={v}" for k, v in sorted(counts.items())), flush=True)


if __name__ == "__main__":
    main(sys.argv)
