#!/usr/bin/env python3
"""Cold start, latency and DynamoDB cost of a function binary.

Runs the real (release) binary against a minimal Lambda Runtime API served
here, so what is measured is the binary itself: process start, configuration,
client set-up and the first request (cold), then warm requests. Each request's
DynamoDB round trips and capacity units come from the function's own
per-request log line. DynamoDB Local must be running with the table
bootstrapped (scripts/bench.sh does all of that).

Usage: lambda_bench.py BINARY ADMIN_TOKEN [--runs N]
"""
import argparse
import base64
import json
import os
import queue
import statistics
import subprocess
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PREFIX = "/2018-06-01/runtime"


class Runtime:
    """A minimal Lambda Runtime API: hands out queued events, collects responses."""

    def __init__(self):
        self.events = queue.Queue()
        self.responses = {}
        runtime = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                if self.path != PREFIX + "/invocation/next":
                    self.send_error(404)
                    return
                rid, event = runtime.events.get()
                body = json.dumps(event).encode()
                self.send_response(200)
                self.send_header("Lambda-Runtime-Aws-Request-Id", rid)
                self.send_header("Lambda-Runtime-Deadline-Ms", str(int(time.time() * 1000) + 30000))
                self.send_header("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:us-east-1:000000000000:function:bench")
                self.send_header("Lambda-Runtime-Trace-Id", "Root=1-00000000-000000000000000000000000")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                data = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                parts = self.path[len(PREFIX):].strip("/").split("/")
                if len(parts) == 3 and parts[0] == "invocation":
                    runtime.responses[parts[1]].put((parts[2], data))
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.address = "127.0.0.1:%d" % self.server.server_address[1]

    def invoke(self, method, path, headers=None, body=None, query=""):
        rid = str(uuid.uuid4())
        hdrs = {"host": "bench.local", "x-forwarded-proto": "http"}
        hdrs.update(headers or {})
        if body is not None:
            hdrs["content-type"] = "application/json"
        event = {
            "version": "2.0", "routeKey": "$default", "rawPath": path, "rawQueryString": query,
            "headers": hdrs, "isBase64Encoded": False,
            "body": json.dumps(body) if body is not None else None,
            "requestContext": {
                "accountId": "000000000000", "apiId": "bench", "domainName": "bench.local",
                "domainPrefix": "bench", "requestId": rid, "routeKey": "$default", "stage": "$default",
                "time": "01/Jan/2026:00:00:00 +0000", "timeEpoch": 0,
                "http": {"method": method, "path": path, "protocol": "HTTP/1.1",
                         "sourceIp": "127.0.0.1", "userAgent": "bench"},
            },
        }
        self.responses[rid] = queue.Queue()
        start = time.perf_counter()
        self.events.put((rid, event))
        kind, data = self.responses[rid].get(timeout=60)
        elapsed = (time.perf_counter() - start) * 1000
        if kind != "response":
            raise RuntimeError("function error: %s" % data[:500])
        res = json.loads(data)
        text = res.get("body") or ""
        if res.get("isBase64Encoded"):
            text = base64.b64decode(text).decode()
        return rid, res.get("statusCode"), (json.loads(text) if text.strip() else None), elapsed


def spawn(binary, runtime, logs):
    env = dict(os.environ)
    env.update({
        "AWS_LAMBDA_RUNTIME_API": runtime.address, "AWS_LAMBDA_FUNCTION_NAME": "bench",
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256", "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
        "AWS_LAMBDA_LOG_STREAM_NAME": "bench", "AWS_LAMBDA_LOG_GROUP_NAME": "bench",
        "RUST_LOG": "info",
    })
    proc = subprocess.Popen([binary], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def read():
        for line in proc.stdout:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("message") == "request":
                logs[entry["request_id"]] = entry

    threading.Thread(target=read, daemon=True).start()
    return proc


def basic(user, password):
    return {"authorization": "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("admin_token")
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    admin = {"authorization": "token " + args.admin_token}

    # Cold starts: a fresh process per run (each with a runtime API of its
    # own, so a killed process's pending poll cannot swallow an event), first
    # request timed from spawn.
    colds = []
    for _ in range(args.runs):
        runtime = Runtime()
        logs = {}
        start = time.perf_counter()
        proc = spawn(args.binary, runtime, logs)
        _, status, _, _ = runtime.invoke("GET", "/api/v1/user", admin)
        colds.append((time.perf_counter() - start) * 1000)
        assert status == 200, status
        proc.kill()
        proc.wait()

    runtime = Runtime()
    logs = {}
    proc = spawn(args.binary, runtime, logs)
    suffix = uuid.uuid4().hex[:8]
    user, password, org = "bench" + suffix, "bench-password-" + suffix, "org" + suffix
    rows = []

    def run(label, method, path, headers, body=None, want=None):
        rid, status, out, ms = runtime.invoke(method, path, headers, body)
        if want is not None and status != want:
            raise RuntimeError("%s: expected %s, got %s %s" % (label, want, status, out))
        for _ in range(50):
            if rid in logs:
                break
            time.sleep(0.01)
        log = logs.get(rid, {})
        rows.append((label, status, log.get("db_round_trips"), log.get("db_read_units"),
                     log.get("db_write_units"), log.get("db_calls"), ms))
        return out

    run("GET /user (token)", "GET", "/api/v1/user", admin, want=200)
    run("POST /admin/users", "POST", "/api/v1/admin/users", admin,
        {"username": user, "email": user + "@example.com", "password": password}, want=201)
    tok = run("POST /users/{u}/tokens (Basic)", "POST", "/api/v1/users/%s/tokens" % user, basic(user, password),
              {"name": "bench", "scopes": ["all"]}, want=201)
    utok = {"authorization": "token " + tok["sha1"]}
    run("GET /users/{u}", "GET", "/api/v1/users/" + user, utok, want=200)
    run("GET /users/{u} (anonymous)", "GET", "/api/v1/users/" + user, {}, want=200)
    run("GET /users/{u}/tokens", "GET", "/api/v1/users/%s/tokens" % user, basic(user, password), want=200)
    run("POST /orgs", "POST", "/api/v1/orgs", utok, {"username": org}, want=201)
    team = run("POST /orgs/{o}/teams", "POST", "/api/v1/orgs/%s/teams" % org, utok, {"name": "devs"}, want=201)
    run("GET /orgs/{o}", "GET", "/api/v1/orgs/" + org, utok, want=200)
    run("GET /orgs/{o}/teams", "GET", "/api/v1/orgs/%s/teams" % org, utok, want=200)
    run("GET /teams/{id}", "GET", "/api/v1/teams/%d" % team["id"], utok, want=200)
    run("PUT /teams/{id}/members/{u}", "PUT", "/api/v1/teams/%d/members/root" % team["id"], utok, want=204)
    run("DELETE /teams/{id}/members/{u}", "DELETE", "/api/v1/teams/%d/members/root" % team["id"], utok, want=204)
    run("PUT /user/blocks/{u}", "PUT", "/api/v1/user/blocks/root", utok, want=204)
    run("DELETE /user/blocks/{u}", "DELETE", "/api/v1/user/blocks/root", utok, want=204)
    run("DELETE /users/{u}/tokens/{id}", "DELETE", "/api/v1/users/%s/tokens/bench" % user, basic(user, password), want=204)

    warm = []
    for _ in range(50):
        _, status, _, ms = runtime.invoke("GET", "/api/v1/user", admin)
        warm.append(ms)
    proc.kill()

    size = os.path.getsize(args.binary)
    print("binary: %s, %.2f MiB" % (args.binary, size / 1048576))
    print("cold start (spawn to first response, GET /user, %d runs): min %.0f ms, median %.0f ms, max %.0f ms"
          % (len(colds), min(colds), statistics.median(colds), max(colds)))
    print("warm GET /user (50 runs): median %.1f ms, p90 %.1f ms"
          % (statistics.median(warm), sorted(warm)[int(len(warm) * 0.9) - 1]))
    print()
    print("| request | status | round trips | read units | write units | calls | latency ms |")
    print("|---|---|---|---|---|---|---|")
    for label, status, rt, rcu, wcu, calls, ms in rows:
        print("| %s | %s | %s | %s | %s | %s | %.1f |" % (label, status, rt, rcu, wcu, calls, ms))


if __name__ == "__main__":
    main()
