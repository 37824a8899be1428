"""A local HTTP receiver for the integration cases that play a remote service (WeCom's API,
chat robots, webhooks, Uptime Kuma): each request it is given is recorded as one JSON line of
WORK/requests.jsonl, answers are JSON, and once it listens on 127.0.0.1 (port 0) it writes the
port it got to WORK/receiver.port.

    import sys; sys.path.insert(0, "IntegrationTests")
    from recording_receiver import Receiver, serve
    class Handler(Receiver):
        def do_POST(self):
            self.record("hook", body=self.body_json())
            self.reply({"ok": True})
    serve(Handler, work)
"""
import http.server
import json
import os
import urllib.parse


class Receiver(http.server.BaseHTTPRequestHandler):
    """A request handler that records and answers JSON; subclasses define do_GET, do_POST."""

    work = "."

    def log_message(self, *args):
        pass

    def record(self, kind, **data):
        """Appends {"kind": kind, ...data} to requests.jsonl."""
        with open(os.path.join(self.work, "requests.jsonl"), "a", encoding="utf-8") as out:
            out.write(json.dumps({"kind": kind, **data}, ensure_ascii=False) + "\n")

    def reply(self, body, status=200):
        """Answers `body` as JSON with `status`."""
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def url(self):
        """The request's path and its query as a dict (first value of each parameter)."""
        url = urllib.parse.urlparse(self.path)
        return url.path, {k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()}

    def raw_body(self):
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))


def serve(handler, work):
    """Serves `handler` on 127.0.0.1, a port of the system's choosing, until killed."""
    handler.work = work
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    with open(os.path.join(work, "receiver.port.tmp"), "w") as out:
        out.write(str(server.server_address[1]))
    os.rename(os.path.join(work, "receiver.port.tmp"), os.path.join(work, "receiver.port"))
    server.serve_forever()
