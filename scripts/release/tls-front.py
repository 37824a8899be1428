#!/usr/bin/env python3
"""A TLS front for a plain HTTP server on loopback: accepts TLS on 127.0.0.1 (a free port,
printed as `port N` on the first line of standard output) with the given certificate and key,
and relays each connection to 127.0.0.1:BACKEND_PORT. For the release checks' HTTPS WinPower
login (scripts/release/check-userland.sh); it stops with its parent's job control.

Usage: tls-front.py CERT KEY BACKEND_PORT
"""
import socket
import ssl
import sys
import threading


def relay(source, target):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, target):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def serve(client, context, backend_port):
    try:
        secure = context.wrap_socket(client, server_side=True)
    except (OSError, ssl.SSLError):
        client.close()
        return
    backend = socket.create_connection(("127.0.0.1", backend_port), timeout=30)
    threading.Thread(target=relay, args=(backend, secure), daemon=True).start()
    relay(secure, backend)


def main():
    cert, key, backend_port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    print(f"port {listener.getsockname()[1]}", flush=True)
    while True:
        client, _ = listener.accept()
        threading.Thread(target=serve, args=(client, context, backend_port), daemon=True).start()


if __name__ == "__main__":
    main()
