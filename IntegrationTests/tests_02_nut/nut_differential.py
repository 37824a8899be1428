#!/usr/bin/env python3
"""Sends the same NUT commands to two servers and compares the replies byte for byte.

usage: nut_differential.py REFERENCE_PORT BRIDGE_PORT UPS

REFERENCE_PORT is the real upsd (dummy-ups serving the bridge's variables for UPS), BRIDGE_PORT
the exporter's NUT server. Each command runs on a fresh connection (a few need a login first);
a reply is read until its last line (END LIST ..., or one line) or 0.5 s of silence. Prints one
line per command: `same`, `differs by design: <why>`, or `DIFFERS` with both replies, and exits
1 when any command differs that is not listed by design (docs/nut.md lists them too).
"""
import socket
import sys

reference_port, bridge_port, ups = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
UPS = ups.upper()

# Commands whose replies differ on purpose, and why. dummy-ups makes every variable of its
# .dev file read-write and has one instant command (load.off); the bridge is read-only.
BY_DESIGN = {
    "VER": "the bridge names itself (wpexporter) in the version text",
    f"LIST RW {ups}": "dummy-ups makes every variable writable; the bridge is read-only (empty list)",
    f"LIST CMD {ups}": "dummy-ups has the instant command load.off; the bridge has none",
    f"GET TYPE {ups} ups.status": "dummy-ups marks its variables RW; the bridge's are read-only",
    f"GET TYPE {ups} battery.charge": "dummy-ups marks its variables RW (NUMBER); the bridge's are read-only",
    f"GET TYPE {ups} device.model": "dummy-ups marks its variables RW (STRING:32); the bridge's are read-only",
    f"GET CMDDESC {ups} load.off": "load.off exists on dummy-ups only",
    f"GET CMDDESC {ups} test.battery.start": "the bridge has no instant commands, so no command descriptions",
    f"GET VAR {ups} server.version": "the bridge's version (the exporter's), not upsd's",
    f"GET VAR {ups} server.info": "the bridge names itself, as in VER",
    f"INSTCMD {ups} load.off": "load.off exists on dummy-ups only (the bridge has no instant commands)",
    f"USERNAME monuser / PASSWORD s3cret-nut / INSTCMD {ups} load.off": "load.off exists on dummy-ups only",
    f"SET VAR {ups} ups.status OB": "the bridge is read-only",
}

COMMANDS = [
    ["VER"], ["NETVER"], ["PROTVER"], ["HELP"], ["STARTTLS"], [""], ["VER extra"], ["HELP me"],
    ["LIST UPS"], ["LIST UPS extra"], [f"LIST VAR {ups}"], [f"LIST VAR {UPS}"], [f"LIST VAR {ups} extra"],
    [f"LIST RW {ups}"], [f"LIST CMD {ups}"], [f"LIST ENUM {ups} ups.status"], [f"LIST RANGE {ups} ups.status"],
    [f"LIST ENUM {ups} no.such.var"], [f"LIST ENUM {ups}"], [f"LIST CLIENT {ups}"], ["LIST CLIENTS " + ups],
    ["LIST VAR nosuchups"], ["LIST"], ["LIST FOO"], ["LIST FOO bar"],
    [f"GET VAR {ups} ups.status"], [f"GET VAR {UPS} UPS.STATUS"], [f'GET VAR "{ups}" "battery.charge"'],
    [f"GET VAR {ups} no.such.var"], ["GET VAR nosuchups ups.status"], [f"GET VAR {ups}"], ["GET VAR"],
    [f"GET VAR {ups} server.version"], [f"GET VAR {ups} server.info"],
    [f"GET TYPE {ups} ups.status"], [f"GET TYPE {ups} battery.charge"], [f"GET TYPE {ups} device.model"],
    [f"GET DESC {ups} ups.status"], [f"GET DESC {ups} battery.charge"], [f"GET DESC {ups} input.voltage"],
    [f"GET DESC {ups} no.such.var"], [f"GET CMDDESC {ups} test.battery.start"], [f"GET CMDDESC {ups} load.off"],
    [f"GET UPSDESC {ups}"], [f"GET NUMLOGINS {ups}"], ["GET NUMLOGINS nosuchups"], [f"GET FOO {ups}"], ["GET"],
    ["FOO"], ["foo bar"], ["USERNAME monuser"], ["PASSWORD x"], [f"LOGIN {ups}"], ["LOGOUT"],
    ["USERNAME monuser", "USERNAME again"], ["PASSWORD x", "PASSWORD y"],
    ["USERNAME monuser", "PASSWORD s3cret-nut", f"LOGIN {ups}"],
    ["USERNAME monuser", "PASSWORD wrong", f"LOGIN {ups}"],
    ["USERNAME monuser", "PASSWORD s3cret-nut", "LOGIN nosuchups"],
    ["USERNAME monuser", "PASSWORD s3cret-nut", f"LOGIN {ups}", f"LOGIN {ups}"],
    ["USERNAME monuser", "PASSWORD s3cret-nut", f"LOGIN {ups}", f"GET NUMLOGINS {ups}"],
    [f"SET VAR {ups} ups.status OB"], [f"INSTCMD {ups} load.off"],
    ["SET"], ["SET VAR"], [f"SET VAR {ups} ups.status"], ["SET VAR nosuchups ups.status OB"], ["SET FOO bar"],
    ["SET TRACKING ON", "GET TRACKING", "GET TRACKING 1234"], ["SET TRACKING maybe"],
    ["USERNAME monuser", "PASSWORD s3cret-nut", f"SET VAR {ups} ups.status OB"],
    ["USERNAME monuser", "PASSWORD s3cret-nut", "SET VAR nosuchups ups.status OB"],
    ["USERNAME monuser", "PASSWORD s3cret-nut", f"INSTCMD {ups}"],
    ["USERNAME monuser", "PASSWORD s3cret-nut", "INSTCMD nosuchups load.off"],
    ["USERNAME monuser", "PASSWORD s3cret-nut", f"INSTCMD {ups} test.battery.start"],
    ["USERNAME monuser", "PASSWORD s3cret-nut", "SET TRACKING ON", "GET TRACKING"],
    [f'GET VAR {ups} "ups.status'],  # an unterminated quote: no reply until it closes
    [f"GET VAR {ups} ups.status # a comment"],
    # Roles: PRIMARY/MASTER and FSD need upsmon primary, LOGIN an upsmon role.
    ["PRIMARY " + ups], ["MASTER " + ups], ["FSD " + ups],
    ["USERNAME monuser", "PASSWORD s3cret-nut", f"PRIMARY {ups}", f"MASTER {ups}", "PRIMARY nosuchups", "PRIMARY",
     f"PRIMARY {ups} extra"],
    ["USERNAME monuser", "PASSWORD wrong", f"PRIMARY {ups}", f"FSD {ups}"],
    ["USERNAME watcher", "PASSWORD s3cret-sec", f"LOGIN {ups}", f"PRIMARY {ups}", f"MASTER {ups}", f"FSD {ups}",
     f"GET NUMLOGINS {ups}", f"LIST CLIENT {ups}"],
    ["USERNAME reader", "PASSWORD s3cret-read", f"LOGIN {ups}", f"PRIMARY {ups}", f"FSD {ups}", f"GET VAR {ups} ups.status",
     f"GET NUMLOGINS {ups}"],
    ["USERNAME monuser", "PASSWORD s3cret-nut", "FSD", "FSD nosuchups", f"FSD {ups} extra"],
]
# Last, as FSD stays set until the server restarts: a primary sets it (the UPS is on mains), and
# every client sees it, under any spelling of the name.
FINAL = [
    ["USERNAME monuser", "PASSWORD s3cret-nut", f"LOGIN {ups}", f"FSD {UPS}", f"GET VAR {ups} ups.status"],
    [f"GET VAR {ups} ups.status"], [f"GET VAR {UPS} ups.status"], [f"LIST VAR {ups}"],
]


def exchange(port, lines):
    conn = socket.create_connection(("127.0.0.1", port))
    conn.settimeout(0.5)
    replies = []
    try:
        for line in lines:
            conn.sendall(line.encode() + b"\n")
            data = b""
            while True:
                try:
                    chunk = conn.recv(65536)
                except socket.timeout:
                    break
                if not chunk:
                    break
                data += chunk
                text = data.decode(errors="replace")
                if text.endswith("\n") and (not text.startswith("BEGIN ") or text.splitlines()[-1].startswith("END ")):
                    break
            replies.append(data.decode(errors="replace"))
    finally:
        conn.close()
    return replies


def normalized(text):
    # dummy-ups adds its own driver.* variables (the bridge has its own: driver.name ...) and,
    # without a manufacturer in its file, device.mfr and ups.mfr "Dummy Manufacturer" (WinPower
    # reports no manufacturer, so the bridge has none).
    return "".join(line + "\n" for line in text.splitlines()
                   if not line.upper().startswith(f"VAR {UPS} DRIVER.") and not line.endswith('"Dummy Manufacturer"'))


# GET DESC of every variable the bridge serves for the UPS.
listing = exchange(bridge_port, [f"LIST VAR {ups}"])[0]
COMMANDS += [[f"GET DESC {ups} {line.split(' ')[2]}"] for line in listing.splitlines() if line.startswith("VAR ")]
COMMANDS += FINAL

unexpected = 0
for lines in COMMANDS:
    key = " / ".join(lines)
    reference = [normalized(reply) for reply in exchange(reference_port, lines)]
    bridge = [normalized(reply) for reply in exchange(bridge_port, lines)]
    if reference == bridge:
        print(f"same                {key!r}")
    elif key in BY_DESIGN:
        print(f"differs by design   {key!r}: {BY_DESIGN[key]}")
    else:
        unexpected += 1
        print(f"DIFFERS             {key!r}\n    upsd:   {reference!r}\n    bridge: {bridge!r}")
print(f"{len(COMMANDS)} commands; {unexpected} unexpected differences")
sys.exit(1 if unexpected else 0)
