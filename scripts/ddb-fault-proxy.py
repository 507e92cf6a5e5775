#!/usr/bin/env python3
"""A loopback proxy in front of DynamoDB Local that fails the calls of one
function only, for the fault test (scripts/fault-test.sh, tests/tests/fault.rs).

    scripts/ddb-fault-proxy.py LISTEN_PORT UPSTREAM_URL

Every function under `cargo lambda watch` shares one DYNAMODB_ENDPOINT, so
the proxy tells callers apart by the user agent: each function's client
names itself (`app/<function>`, crates/store/src/db/connect.rs). The switch lives
here, in a test tool, and nowhere in the functions' binaries.

Control (JSON), on the same port:
    POST /__fault {"app": "stream", "mode": "throttle" | "timeout" | "off", "rate": 0.5}
    GET  /__fault -> {"app": ..., "mode": ..., "rate": ..., "faulted": {mode: count}, "passed": n}

`rate` (1 unless given) is the share of the app's calls that fail, each
drawn at random: below 1, some of a batch's calls fail and others (such as
parking the change) get through.

- throttle: answers DynamoDB's ThrottlingException at once; nothing reaches
  the database (as AWS throttles).
- timeout: forwards the call, then holds the answer past the client's
  attempt time-out (HOLD_SECONDS): the call may have been applied, and the
  caller does not know.
Only 127.0.0.1 is listened on and forwarded to.
"""

import http.client
import json
import random
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse

# Past DB_ATTEMPT_TIMEOUT_MS (2 s by default).
HOLD_SECONDS = 2.5
THROTTLED = json.dumps({
    "__type": "com.amazonaws.dynamodb.v20120810#ThrottlingException",
    "message": "Rate of requests exceeds the allowed throughput (fault test).",
}).encode()
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade"}

state = {"app": "", "mode": "off", "rate": 1.0, "faulted": {}, "passed": 0}
lock = threading.Lock()
local = threading.local()


def upstream():
    """This thread's keep-alive connection to DynamoDB Local."""
    if getattr(local, "conn", None) is None:
        local.conn = http.client.HTTPConnection(UP.hostname, UP.port, timeout=60)
    return local.conn


def caller_is(app, headers):
    agent = " ".join(headers.get_all("x-amz-user-agent", []) + headers.get_all("user-agent", []))
    return bool(app) and re.search(r"(^|\s)app/" + re.escape(app) + r"(\s|$)", agent) is not None


class Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path.startswith("/__fault"):
            with lock:
                self.reply(200, json.dumps(state).encode(), [("Content-Type", "application/json")])
        else:
            self.forward(b"")

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.startswith("/__fault"):
            wanted = json.loads(body or b"{}")
            with lock:
                state["app"] = wanted.get("app", state["app"])
                state["mode"] = wanted.get("mode", "off")
                state["rate"] = float(wanted.get("rate", 1.0))
                self.reply(200, json.dumps(state).encode(), [("Content-Type", "application/json")])
            return
        self.forward(body)

    def forward(self, body):
        with lock:
            hit = caller_is(state["app"], self.headers) and random.random() < state["rate"]
            mode = state["mode"] if hit else "off"
            if mode != "off":
                state["faulted"][mode] = state["faulted"].get(mode, 0) + 1
            else:
                state["passed"] += 1
        if mode == "throttle":
            self.reply(400, THROTTLED, [("Content-Type", "application/x-amz-json-1.0"),
                                        ("x-amzn-RequestId", "fault-test")])
            return
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        for attempt in (1, 2):
            try:
                conn = upstream()
                conn.request(self.command, self.path, body=body, headers=headers)
                answer = conn.getresponse()
                data = answer.read()
                break
            except Exception as e:
                local.conn = None
                # A kept-alive connection DynamoDB Local closed meanwhile:
                # once more on a new one, as an HTTP client would.
                stale = isinstance(e, (http.client.RemoteDisconnected, ConnectionResetError,
                                       BrokenPipeError))
                if attempt == 1 and stale:
                    continue
                # DynamoDB Local stopped or gone: drop the connection.
                self.close_connection = True
                self.reply(502, str(e).encode())
                return
        if mode == "timeout":
            time.sleep(HOLD_SECONDS)
        try:
            self.reply(answer.status, data, [(k, v) for k, v in answer.getheaders()
                                             if k.lower() not in HOP_BY_HOP | {"content-length"}])
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


if __name__ == "__main__":
    port, UP = int(sys.argv[1]), urlparse(sys.argv[2])
    assert UP.hostname in ("127.0.0.1", "localhost", "::1"), "loopback only"
    server = ThreadingHTTPServer(("127.0.0.1", port), Proxy)
    server.daemon_threads = True
    server.serve_forever()
