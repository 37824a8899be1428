#!/usr/bin/env python3
"""A UPS page's range switch and event filter clicked in headless Chromium, through the DevTools
protocol (the standard library only: a WebSocket client of its own, on loopback).

    inplace.py CHROMIUM PROFILE-DIR PAGE-URL ARTIFACTS-DIR

Loads PAGE-URL (a UPS page at its default 24 h range), then for 7 days, 30 days and 1 year clicks
the range switch's link as a person would and waits until the page's script has replaced the
charts in place: the address follows (`range=` in location.href), the switch marks the range, the
charts are there, and the document is the same one (a marker set before the first click is still
set: no reload happened). Then clicks the "Power" filter and reads the event list: only power
events. Back (history.back) gives the earlier range. A screenshot after each range goes to
ARTIFACTS-DIR (inplace-RANGE.png). Exit status 0 when every check holds; each failure is printed.
"""
import base64
import json
import os
import socket
import struct
import subprocess
import sys
import time
import urllib.request

chromium, profile, url, artifacts = sys.argv[1:5]


class DevTools:
    """One WebSocket connection to a page target: sends commands, reads their answers."""

    def __init__(self, ws_url):
        rest = ws_url[len("ws://"):]
        hostport, path = rest.split("/", 1)
        host, port = hostport.split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise RuntimeError("DevTools closed during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError(f"DevTools refused the WebSocket: {head[:200]!r}")
        self.next_id = 0

    def _send(self, text):
        payload = text.encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        elif len(payload) < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", len(payload))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def _exact(self, count):
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise RuntimeError("DevTools closed the connection")
            data += chunk
        return data

    def _receive(self):
        message = b""
        while True:
            first, second = self._exact(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack(">H", self._exact(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self._exact(8))[0]
            payload = self._exact(length)
            if first & 0x0F == 0x8:
                raise RuntimeError("DevTools closed the WebSocket")
            message += payload
            if first & 0x80:
                return json.loads(message)

    def call(self, method, **params):
        self.next_id += 1
        self._send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            answer = self._receive()
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    def until(self, what, expression, seconds=30):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                value = self.evaluate(expression)
            except RuntimeError:
                value = None  # a page loading has no context to evaluate in yet: ask again
            if value:
                return value
            time.sleep(0.1)
        raise RuntimeError(f"not within {seconds} s: {what}")


problems = []
browser = subprocess.Popen(
    [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--remote-debugging-port=0",
     "--remote-debugging-address=127.0.0.1", f"--user-data-dir={profile}", "--window-size=1280,1000",
     "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "about:blank"],
    stdout=subprocess.DEVNULL, stderr=open(os.path.join(profile + ".log"), "w"))
try:
    port_file = os.path.join(profile, "DevToolsActivePort")
    deadline = time.monotonic() + 60
    while not (os.path.exists(port_file) and open(port_file).read().strip()):
        if time.monotonic() > deadline or browser.poll() is not None:
            raise RuntimeError("Chromium did not open its DevTools port")
        time.sleep(0.1)
    port = int(open(port_file).read().split()[0])
    targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30))
    page = next(t for t in targets if t.get("type") == "page")
    tools = DevTools(page["webSocketDebuggerUrl"])
    tools.call("Page.enable")
    tools.call("Runtime.enable")
    tools.call("Page.navigate", url=url)
    tools.until("the UPS page loaded with its script", "document.readyState === 'complete' && !!document.getElementById('history')")
    tools.evaluate("window.__samePage = true")

    def shot(name):
        data = tools.call("Page.captureScreenshot", format="png")["data"]
        with open(os.path.join(artifacts, name), "wb") as out:
            out.write(base64.b64decode(data))

    shot("inplace-24h.png")
    for range_, label in [("7d", "7 days"), ("30d", "30 days"), ("1y", "1 year")]:
        tools.evaluate(f"document.querySelector('nav.ranges a[href*=\"range={range_}\"]').click()")
        try:
            tools.until(f"the page switched to {range_} in place",
                        f"location.href.indexOf('range={range_}') >= 0 && "
                        f"(document.querySelector('nav.ranges a[aria-current]') || {{}}).textContent === '{label}'")
        except RuntimeError as error:
            problems.append(str(error))
            continue
        if not tools.evaluate("window.__samePage === true"):
            problems.append(f"{range_}: the page was reloaded, not switched in place")
        charts = tools.evaluate("document.querySelectorAll('#history figure.chart svg').length")
        if not charts or charts < 6:
            problems.append(f"{range_}: {charts} charts")
        shot(f"inplace-{range_}.png")
        print(f"{range_}: switched in place, {charts} charts")
    tools.evaluate("document.querySelector('nav.kinds a[href*=\"kind=on_battery\"]').click()")
    try:
        tools.until("the power filter applied", "location.href.indexOf('kind=on_battery') >= 0 && "
                    "(document.querySelector('nav.kinds a[aria-current]') || {}).textContent === 'Power'")
        kinds = tools.evaluate("Array.from(document.querySelectorAll('#event-list tbody tr td:nth-child(2)')).map(function (td) { return td.textContent; })")
        if not kinds:
            problems.append("the power filter lists no event")
        elif any(kind not in ("on battery", "mains back", "low battery", "battery no longer low", "on bypass", "bypass ended")
                 for kind in kinds):
            problems.append(f"the power filter lists {sorted(set(kinds))}")
        else:
            print(f"power filter: {len(kinds)} events ({', '.join(sorted(set(kinds)))})")
    except RuntimeError as error:
        problems.append(str(error))
    tools.evaluate("history.back()")
    try:
        tools.until("back to 1 year", "location.href.indexOf('range=1y') >= 0 && location.href.indexOf('kind=') < 0 && "
                    "(document.querySelector('nav.ranges a[aria-current]') || {}).textContent === '1 year'")
        print("back: 1 year again")
    except RuntimeError as error:
        problems.append(str(error))
finally:
    browser.terminate()
    try:
        browser.wait(timeout=10)
    except subprocess.TimeoutExpired:
        browser.kill()

for problem in problems:
    print(f"FAIL: {problem}")
sys.exit(1 if problems else 0)
