"""Small NUT client helpers for the scripts that talk to the exporter's NUT port (cases of the
integration suite under IntegrationTests/, the NUT and SNMP load measurements): import with
`sys.path.insert(0, "scripts")` from the repository root."""


def ask(conn, line, end=b"\n"):
    """Sends one command line (str or bytes, without its newline) on `conn` and returns the
    reply (bytes) once it ends with `end` (b"\\n" for a one-line reply, b"END LIST ...\\n" for a
    list); exits when the server closes the connection first."""
    if isinstance(line, str):
        line = line.encode()
    if isinstance(end, str):
        end = end.encode()
    conn.sendall(line + b"\n")
    data = b""
    while not data.endswith(end):
        chunk = conn.recv(65536)
        if not chunk:
            raise SystemExit("NUT connection closed")
        data += chunk
    return data


def first_ups(conn):
    """The name of the first UPS `LIST UPS` lists."""
    listing = ask(conn, "LIST UPS", "END LIST UPS\n").decode()
    return next(line.split(" ")[1] for line in listing.splitlines() if line.startswith("UPS "))
