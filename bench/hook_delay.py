#!/usr/bin/env python3
"""How long a webhook trails the write behind it, and what it adds to the
stream consumer's DynamoDB bill: against a running `make dev` (whose log
is kept in a file, see below), a receiver in this script on 127.0.0.1
answers every delivery with 200; a repository gets a hook to it (issues
events, JSON, a secret), and issues are filed there one at a time, each
timed from the create's answer until its `opened` delivery arrives. It
prints the median, p90 and worst delay and the size of one delivery's
body.

The cost is the stream function's own accounting: its one JSON line per
batch (`"message":"batch"`, `db_write_units`, `db_read_units`) in make
dev's output. The same number of issues, titles of the same length, is
filed in a repository without a hook first (the control) and then in the
hooked one; each phase's cost is the sum over the batch lines written
during it, and the difference per issue is what a delivered event adds
(the event's payload, delivery and attempt items, and their reads). Every
issue is followed by a wait on the stream pump (GET $PUMP_URL/settle) in
both phases, so that each batch holds the same changes in both. The
request path is compared too: the create's own request line
(`db_write_units`) with and without the hook.

Usage: make dev >.local/dev.log 2>&1 &   (make dev prints its functions'
       lines to its output; DEV_LOG names the file, .local/dev.log unless
       set)
       (with CARGO_LAMBDA_IGNORE_FILE naming a file that holds `*`, an
       edit elsewhere in the checkout does not restart every function
       during the run)
       hook_delay.py [RUNS]   (default 100; API_URL or
       http://127.0.0.1:9000, the admin token in .local/admin-token, the
       pump's status URL from $PUMP_URL or make dev's
       .local/stream-pump.log)
"""
import hashlib
import hmac
import http.server
import json
import os
import re
import secrets
import statistics
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
LOCAL = os.path.join(HERE, "..", ".local")
API = os.environ.get("API_URL", "http://127.0.0.1:9000").rstrip("/") + "/api/v1"
TOKEN = open(os.path.join(LOCAL, "admin-token")).read().strip()
DEV_LOG = os.environ.get("DEV_LOG", os.path.join(LOCAL, "dev.log"))
SECRET = "bench"
WAIT_S = 60  # the most a delivery may take before the run fails


def call(method, path, body=None):
    req = urllib.request.Request(
        API + path,
        data=json.dumps(body).encode() if body is not None else None,
        method=method,
        headers={"Authorization": "token " + TOKEN, "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req) as r:
        return json.loads(r.read() or b"null")


def pump_url():
    """make dev's pump status API: $PUMP_URL, else the last start in
    .local/stream-pump.log (`stream-pump started ... status=URL`)."""
    if os.environ.get("PUMP_URL"):
        return os.environ["PUMP_URL"].rstrip("/")
    found = None
    for line in open(os.path.join(LOCAL, "stream-pump.log"), errors="replace"):
        m = re.search(r"stream-pump started.*status=(http://[0-9.:]+)", line)
        if m:
            found = m.group(1)
    if not found:
        sys.exit("no pump status URL: set PUMP_URL (make dev prints it)")
    return found


def get_json(url, timeout=200):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


def settle(pump):
    """Waits until everything written so far has been through the stream
    function, and what that wrote in turn (a delivery's insert, then its
    attempt's update): until a settle leaves the pump's count of delivered
    records where the one before left it."""
    before = None
    while True:
        get_json(pump + "/settle?timeout_ms=150000")
        time.sleep(0.5)
        get_json(pump + "/settle?timeout_ms=150000")
        now = get_json(pump + "/stats")["records_delivered"]
        if now == before:
            return
        before = now


class Receiver:
    """An HTTP server on a free loopback port, answering 200 to every POST
    and recording (arrival, headers, raw body, JSON body)."""

    def __init__(self):
        self.got = []
        self.cond = threading.Condition()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                at = time.monotonic()
                try:
                    doc = json.loads(body)
                except ValueError:
                    doc = None
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()
                with receiver.cond:
                    # Header names in lower case: as HTTP/1.1 senders please.
                    receiver.got.append((at, {k.lower(): v for k, v in self.headers.items()}, body, doc))
                    receiver.cond.notify_all()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = "http://127.0.0.1:%d/hook" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, number, action="opened"):
        """The delivery of `action` for issue `number`, waited for."""
        def match():
            for d in self.got:
                doc = d[3]
                if isinstance(doc, dict) and doc.get("action") == action \
                        and (doc.get("issue") or {}).get("number") == number:
                    return d
            return None
        with self.cond:
            if not self.cond.wait_for(match, timeout=WAIT_S):
                sys.exit("no %s delivery of issue %d within %d s" % (action, number, WAIT_S))
            return match()


def log_size():
    return os.path.getsize(DEV_LOG)


def log_lines(start, end):
    """make dev's output between two offsets, as the JSON lines it holds
    (the emulator's own lines, and any before the first '{', are skipped)."""
    with open(DEV_LOG, "rb") as f:
        f.seek(start)
        chunk = f.read(end - start)
    out = []
    for raw in chunk.split(b"\n"):
        i = raw.find(b"{")
        if i < 0:
            continue
        try:
            out.append(json.loads(raw[i:]))
        except ValueError:
            continue
    return out


def phase_cost(lines, issues_path):
    """Sums of the stream's batch lines, and the create requests' lines."""
    batches = [l for l in lines if l.get("message") == "batch"]
    creates = [l for l in lines if l.get("message") == "request" and l.get("method") == "POST"
               and l.get("path") == issues_path]
    return {
        "batches": len(batches),
        "records": sum(b.get("records", 0) for b in batches),
        "write": sum(b.get("db_write_units", 0) for b in batches),
        "read": sum(b.get("db_read_units", 0) for b in batches),
        "handled_by": sorted({h for b in batches for h in b.get("handled_by", [])}),
        "creates": creates,
    }


def title(i):
    # The same length in both phases: the index writes what the title holds.
    return "hook delay issue %04d" % i


def percentile(sorted_values, p):
    return sorted_values[min(len(sorted_values) - 1, int(round(p / 100 * (len(sorted_values) - 1))))]


def describe(values):
    values = sorted(values)
    if not values:
        return "none"
    if values[0] == values[-1]:
        return "%g" % values[0]
    return "%g to %g (median %g)" % (values[0], values[-1], statistics.median(values))


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    if not os.path.exists(DEV_LOG):
        sys.exit("%s: no such file (run make dev >.local/dev.log 2>&1, or set DEV_LOG)" % DEV_LOG)
    pump = pump_url()
    receiver = Receiver()
    me = call("GET", "/user")["login"]
    tag = secrets.token_hex(4)
    # Names of the same length, so payloads and index entries match.
    plain, hooked = "hookc" + tag, "hookd" + tag
    call("POST", "/user/repos", {"name": plain})
    call("POST", "/user/repos", {"name": hooked})
    hook = call("POST", "/repos/%s/%s/hooks" % (me, hooked), {
        "type": "gitea",
        "config": {"url": receiver.url, "content_type": "json", "secret": SECRET},
        "events": ["issues"],
        "active": True,
    })

    # One issue in each first, not counted: the function instances' and
    # the sender's first use.
    call("POST", "/repos/%s/%s/issues" % (me, plain), {"title": title(0)})
    created = call("POST", "/repos/%s/%s/issues" % (me, hooked), {"title": title(0)})
    start = time.monotonic()
    warm_ms = (receiver.wait_for(created["number"])[0] - start) * 1000
    settle(pump)

    # Control: no hook.
    path = "/repos/%s/%s/issues" % (me, plain)
    before = log_size()
    for i in range(1, runs + 1):
        call("POST", path, {"title": title(i)})
        get_json(pump + "/settle?timeout_ms=150000")
    settle(pump)
    control = phase_cost(log_lines(before, log_size()), "/api/v1" + path)

    # With the hook: each issue's delivery waited for.
    path = "/repos/%s/%s/issues" % (me, hooked)
    before = log_size()
    delays, sizes, bad_sigs, deliveries = [], [], 0, []
    for i in range(1, runs + 1):
        created = call("POST", path, {"title": title(i)})
        # From the create's answer: how long until the receiver has the
        # delivery (body read).
        start = time.monotonic()
        at, headers, body, doc = receiver.wait_for(created["number"])
        delays.append((at - start) * 1000)
        sizes.append(len(body))
        deliveries.append(headers.get("x-gitea-delivery"))
        want = hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
        if headers.get("x-gitea-signature") != want:
            bad_sigs += 1
        get_json(pump + "/settle?timeout_ms=150000")
    settle(pump)
    with_hook = phase_cost(log_lines(before, log_size()), "/api/v1" + path)
    one = [d for d in receiver.got if (d[3] or {}).get("issue", {}).get("number") == created["number"]][-1]
    opened = [d for d in receiver.got if (d[3] or {}).get("action") == "opened"]

    delays.sort()
    print("hook delay over %d issues: median %.0f ms, p90 %.0f ms, worst %.0f ms "
          "(from the create's answer until the receiver has the delivery; first one, not counted: %.0f ms)"
          % (runs, statistics.median(delays), percentile(delays, 90), delays[-1], warm_ms))
    print("deliveries received: %d (%d distinct ids over the counted issues), signatures wrong: %d; "
          "hook %s, %s" % (len(receiver.got), len(set(deliveries)), bad_sigs, hook.get("id"), receiver.url))
    print("one delivery's body: %d bytes (all: %s), Content-Type %s, X-Gitea-Event %s, X-Gitea-Event-Type %s"
          % (len(one[2]), describe(sizes), one[1].get("content-type"), one[1].get("x-gitea-event"),
             one[1].get("x-gitea-event-type")))
    print()
    print("stream function, per phase (sum of its batch lines while the phase ran):")
    for name, c in (("without a hook", control), ("with the hook", with_hook)):
        print("  %-15s %4d batches, %4d records, write units %8.1f (%.2f per issue), read units %8.1f (%.2f per issue); handlers: %s"
              % (name, c["batches"], c["records"], c["write"], c["write"] / runs, c["read"], c["read"] / runs,
                 ", ".join(c["handled_by"])))
    print("  added by the hook per delivered event: %.2f write units, %.2f read units (%d deliveries of `opened`)"
          % ((with_hook["write"] - control["write"]) / runs, (with_hook["read"] - control["read"]) / runs,
             len(opened) - 1))
    print()
    print("request path, POST /repos/{owner}/{repo}/issues (the create's own request line):")
    for name, c in (("without a hook", control), ("with the hook", with_hook)):
        lines = c["creates"]
        print("  %-15s %3d lines, write units %s, read units %s, calls %s"
              % (name, len(lines), describe([l.get("db_write_units", 0) for l in lines]),
                 describe([l.get("db_read_units", 0) for l in lines]),
                 describe([l.get("db_round_trips", 0) for l in lines])))
    if len(control["creates"]) != runs or len(with_hook["creates"]) != runs:
        print("  (expected %d create lines per phase: is DEV_LOG make dev's output?)" % runs)


if __name__ == "__main__":
    main()
