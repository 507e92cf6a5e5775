#!/usr/bin/env python3
"""A recording proxy in front of DynamoDB Local, to see what one request of
a function reads: every call's operation, the partition it reads (a
listing's `IX#...`, a document's `IXD#...`), its limit, how many items came
back and the read units DynamoDB charged. The functions' own log line has
only the totals; `scale.py explain` uses this to show where they go.

    proxy = Proxy(upstream)        # e.g. http://127.0.0.1:8000
    ... point the function's DYNAMODB_ENDPOINT at proxy.url ...
    calls = proxy.take()           # what was called since the last take

It forwards requests unchanged (DynamoDB Local does not check signatures)
and asks for no extra capacity figures: the function asks for them itself.
"""
import http.client
import json
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def _value(v):
    if not isinstance(v, dict):
        return str(v)
    for k in ("S", "N"):
        if k in v:
            return v[k]
    return json.dumps(v)


def _key(item):
    return "%s | %s" % (_value(item.get("pk", "")), _value(item.get("sk", "")))


def _kind(pk, sk=""):
    """A short name for what a key is."""
    if pk.startswith("IX#"):
        return "listing " + pk[3:]
    if pk.startswith("IXC#"):
        return "counters"
    if pk.startswith("CURSOR#"):
        return "cursor"
    if sk.startswith("IXD#"):
        return "document"
    if sk.startswith("ISSUE#"):
        return "issue"
    if sk.startswith("COMMENT#"):
        return "comment"
    if pk.startswith("OWNER#"):
        return "owner " + sk.split("#")[0].lower()
    if pk.startswith("REPO#") and sk == "PROFILE":
        return "repo counters"
    if pk.startswith("REPO#"):
        return "repo " + sk.split("#")[0].lower()
    if pk.startswith("TEAM#"):
        return "team " + sk.split("#")[0].lower()
    if pk.startswith("TOKEN#"):
        return "token"
    return pk.split("#")[0].lower()


def summarise(op, req, res):
    """One line's worth of a call."""
    out = {"op": op}
    cap = res.get("ConsumedCapacity")
    if isinstance(cap, list):
        out["units"] = sum(c.get("CapacityUnits", 0) for c in cap)
    elif isinstance(cap, dict):
        out["units"] = cap.get("CapacityUnits", 0)
    if op == "Query":
        values = req.get("ExpressionAttributeValues", {})
        pk = _value(values.get(":pk", next(iter(values.values()), "")))
        what = _kind(pk)
        if not pk.startswith("IX#"):
            # Which part of the partition: the values besides its key.
            rest = [_value(v) for k, v in values.items() if k != ":pk"]
            what = "%s %s" % (pk, " ".join(rest)) if rest else pk
        out["what"] = ("%s: " % req["IndexName"] if req.get("IndexName") else "") + what
        out["limit"] = req.get("Limit")
        out["items"] = res.get("Count")
        out["more"] = bool(res.get("LastEvaluatedKey"))
        out["start"] = "after" if req.get("ExclusiveStartKey") else ""
    elif op == "BatchGetItem":
        kinds = {}
        n = 0
        for table in req.get("RequestItems", {}).values():
            for k in table.get("Keys", []):
                kind = _kind(_value(k.get("pk", "")), _value(k.get("sk", "")))
                kinds[kind] = kinds.get(kind, 0) + 1
                n += 1
            out["strong"] = bool(table.get("ConsistentRead"))
        out["what"] = ", ".join("%d %s" % (c, k) for k, c in sorted(kinds.items()))
        out["items"] = sum(len(v) for v in res.get("Responses", {}).values())
    elif op in ("GetItem", "PutItem", "UpdateItem", "DeleteItem"):
        key = req.get("Key") or req.get("Item") or {}
        out["what"] = _kind(_value(key.get("pk", "")), _value(key.get("sk", "")))
        out["strong"] = bool(req.get("ConsistentRead"))
    else:
        out["what"] = ""
    return out


class Proxy:
    def __init__(self, upstream):
        self.upstream = urllib.parse.urlparse(upstream)
        self.calls = []
        self.lock = threading.Lock()
        proxy = self
        local = threading.local()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                conn = getattr(local, "conn", None)
                if conn is None:
                    conn = local.conn = http.client.HTTPConnection(proxy.upstream.hostname, proxy.upstream.port)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection",)}
                started = time.perf_counter()
                conn.request("POST", self.path, body=body, headers=headers)
                res = conn.getresponse()
                data = res.read()
                ms = (time.perf_counter() - started) * 1000
                op = (self.headers.get("X-Amz-Target") or "").split(".")[-1]
                try:
                    line = summarise(op, json.loads(body or b"{}"), json.loads(data or b"{}"))
                except ValueError:
                    line = {"op": op, "what": "?"}
                line["ms"] = round(ms, 1)
                with proxy.lock:
                    proxy.calls.append(line)
                self.send_response(res.status)
                for k, v in res.getheaders():
                    if k.lower() not in ("content-length", "connection", "transfer-encoding"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except OSError:
                    pass  # the function was stopped meanwhile

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address):
                pass  # a connection the stopped function left

        self.server = Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]

    def take(self):
        with self.lock:
            out, self.calls = self.calls, []
        return out


def table(calls):
    """The calls as markdown rows."""
    lines = ["| # | call | what | limit | items | units |", "|---|---|---|---|---|---|"]
    for i, c in enumerate(calls, 1):
        extra = []
        if c.get("strong"):
            extra.append("strong")
        if c.get("more"):
            extra.append("more")
        if c.get("start"):
            extra.append(c["start"])
        lines.append("| %d | %s%s | %s | %s | %s | %s |" % (
            i, c["op"], " (%s)" % ", ".join(extra) if extra else "", c.get("what", ""),
            c.get("limit") or "", c.get("items", ""), c.get("units", "")))
    return "\n".join(lines)
