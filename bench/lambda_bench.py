#!/usr/bin/env python3
"""Cold start, latency and DynamoDB cost of a function binary.

Runs the real (release) binary against a minimal Lambda Runtime API served
here, so what is measured is the binary itself: process start, configuration,
client set-up and the first request (cold), then warm requests. Each request's
DynamoDB round trips and capacity units come from the function's own
per-request log line. DynamoDB Local must be running with the table
bootstrapped (scripts/bench.sh does all of that).

Usage: lambda_bench.py BIN_DIR ADMIN_TOKEN [--runs N]

Requests are routed to the function binaries by the local router in
Cargo.toml, exactly as `cargo lambda watch` and API Gateway route them.
"""
import argparse
import base64
import collections
import json
import os
import queue
import re
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


def invoke_event(runtime, event, timeout=60):
    """Hands a raw event (not an HTTP request: e.g. a DynamoDB stream batch)
    to the function behind `runtime`: (request id, its answer, ms)."""
    rid = str(uuid.uuid4())
    runtime.responses[rid] = queue.Queue()
    start = time.perf_counter()
    runtime.events.put((rid, event))
    kind, data = runtime.responses[rid].get(timeout=timeout)
    elapsed = (time.perf_counter() - start) * 1000
    if kind != "response":
        raise RuntimeError("function error: %s" % data[:500])
    return rid, json.loads(data), elapsed


def spawn(binary, runtime, logs, wrapper=(), env=None):
    """Starts `binary` (under `wrapper`, e.g. qemu-user, when given) against
    `runtime`, with `env` over the usual Lambda variables. Each request's log
    line (or batch line) lands in `logs` by request id; the last lines of output, whatever
    they are, stay in `proc.tail` for error messages."""
    full_env = dict(os.environ)
    full_env.update({
        "AWS_LAMBDA_RUNTIME_API": runtime.address, "AWS_LAMBDA_FUNCTION_NAME": "bench",
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256", "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
        "AWS_LAMBDA_LOG_STREAM_NAME": "bench", "AWS_LAMBDA_LOG_GROUP_NAME": "bench",
        "AWS_LAMBDA_LOG_LEVEL": "INFO",
    })
    full_env.update(env or {})
    proc = subprocess.Popen([*wrapper, binary], env=full_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    proc.tail = collections.deque(maxlen=40)

    def read():
        for line in proc.stdout:
            proc.tail.append(line.rstrip())
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            # The request line, or the stream consumer's line per batch.
            if entry.get("message") in ("request", "batch"):
                logs[entry["request_id"]] = entry

    threading.Thread(target=read, daemon=True).start()
    return proc


def basic(user, password):
    return {"authorization": "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()}


def load_router(cargo_toml):
    """(method, compiled path regex, function, path template) from the local
    router, literal routes first: like API Gateway, `/repos/issues/search`
    wins over `/repos/{owner}/{repo}`."""
    import re
    import tomllib
    with open(cargo_toml, "rb") as f:
        router = tomllib.load(f)["workspace"]["metadata"]["lambda"]["watch"]["router"]
    table = []
    for path, routes in router.items():
        rx = re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", path) + "$")
        # The catch-all (a plain string) and unserved methods go to the
        # fallback function, which benchmarks do not call.
        for r in routes if isinstance(routes, list) else []:
            if r["function"] != "fallback":
                table.append((r["method"], rx, r["function"], path))
    table.sort(key=lambda t: t[3].count("{"))
    return table


class Fleet:
    """One warm process per function, requests routed like API Gateway."""

    def __init__(self, bin_dir, router):
        self.bin_dir, self.router = bin_dir, router
        self.procs, self.runtimes, self.logs = {}, {}, {}

    def function_for(self, method, path):
        for m, rx, f, _ in self.router:
            if m == method and rx.match(path):
                return f
        raise KeyError("%s %s has no route" % (method, path))

    def warm(self, method, path, headers):
        """Authenticates `headers` on the function serving `path` through
        one of its GET routes (whatever it answers), so the request measured
        next finds its token cached, as on a warm instance."""
        f = self.function_for(method, path)
        for m, _, g, template in self.router:
            if m == "GET" and g == f:
                self.invoke("GET", re.sub(r"\{[^}]+\}", "0", template), headers)
                return

    def invoke(self, method, path, headers=None, body=None, query=""):
        f = self.function_for(method, path)
        if f not in self.procs:
            self.runtimes[f] = Runtime()
            self.procs[f] = spawn(os.path.join(self.bin_dir, f), self.runtimes[f], self.logs)
        return self.runtimes[f].invoke(method, path, headers, body, query)

    def stop(self):
        for p in self.procs.values():
            p.kill()


def cold_starts(binary, runs, method, path, headers, body=None):
    times = []
    for _ in range(runs):
        runtime = Runtime()
        start = time.perf_counter()
        proc = spawn(binary, runtime, {})
        _, status, _, _ = runtime.invoke(method, path, headers, body)
        times.append((time.perf_counter() - start) * 1000)
        assert 200 <= status < 300, (binary, path, status)
        proc.kill()
        proc.wait()
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin_dir")
    ap.add_argument("admin_token")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--cargo-toml", default="Cargo.toml")
    args = ap.parse_args()
    admin = {"authorization": "token " + args.admin_token}
    fleet = Fleet(args.bin_dir, load_router(args.cargo_toml))
    rows = []

    def call(method, path, headers, body, want, query, label):
        rid, status, out, ms = fleet.invoke(method, path, headers, body, query)
        if want is not None and status != want:
            raise RuntimeError("%s: expected %s, got %s %s" % (label, want, status, out))
        for _ in range(100):
            if rid in fleet.logs:
                break
            time.sleep(0.01)
        return status, out, ms, fleet.logs.get(rid, {})

    def run(label, method, path, headers, body=None, want=None, query=""):
        # A GET is the minimum over 3 calls (the first may find the token
        # cache cold); a write runs once, after its function has seen the
        # token.
        if method == "GET":
            calls = [call(method, path, headers, body, want, query, label) for _ in range(3)]
        else:
            fleet.warm(method, path, headers)
            calls = [call(method, path, headers, body, want, query, label)]
        cost = lambda c: (c[3].get("db_sequential") or 0, c[3].get("db_round_trips") or 0,
                          c[3].get("db_read_units") or 0)
        status, out, _, log = min(calls, key=cost)
        ms = min(c[2] for c in calls)
        rows.append((label, status, "%s (%s)" % (log.get("db_sequential"), log.get("db_round_trips")), log.get("db_read_units"),
                     log.get("db_write_units"), log.get("db_calls"), ms))
        return calls[0][1]

    suffix = uuid.uuid4().hex[:8]
    user, password, org = "bench" + suffix, "bench-password-" + suffix, "org" + suffix
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
    run("PUT /user/blocks/{u}", "PUT", "/api/v1/user/blocks/root", utok, want=204)
    run("DELETE /user/blocks/{u}", "DELETE", "/api/v1/user/blocks/root", utok, want=204)

    repo = "/api/v1/repos/%s/web" % org
    run("POST /orgs/{o}/repos", "POST", "/api/v1/orgs/%s/repos" % org, utok, {"name": "web", "private": True}, want=201)
    run("GET /repos/{o}/{r} (owner)", "GET", repo, utok, want=200)
    run("GET /repos/{o}/{r} (site admin)", "GET", repo, admin, want=200)
    run("PATCH /repos/{o}/{r}", "PATCH", repo, utok, {"description": "bench"}, want=200)
    run("PUT /repos/{o}/{r}/collaborators/{u}", "PUT", repo + "/collaborators/root", utok, {"permission": "write"}, want=204)
    run("POST /repos/{o}/{r}/labels", "POST", repo + "/labels", utok, {"name": "bug", "color": "#ee0701"}, want=201)
    run("GET /repos/{o}/{r}/labels", "GET", repo + "/labels", utok, want=200)
    ms = run("POST /repos/{o}/{r}/milestones", "POST", repo + "/milestones", utok,
             {"title": "v1", "due_on": "2030-01-01T00:00:00Z"}, want=201)
    for i in range(20):
        fleet.invoke("POST", repo + "/milestones", utok, {"title": "m%d" % i})
    run("GET /repos/{o}/{r}/milestones (21 milestones)", "GET", repo + "/milestones", utok, want=200)
    run("GET /repos/{o}/{r}/milestones/{id}", "GET", repo + "/milestones/%d" % ms["id"], utok, want=200)
    run("GET /repos/{o}/{r}/milestones/{title}", "GET", repo + "/milestones/v1", utok, want=200)
    run("PATCH /repos/{o}/{r}/milestones/{id}", "PATCH", repo + "/milestones/%d" % ms["id"], utok,
        {"state": "closed"}, want=200)
    ms2 = run("POST /repos/{o}/{r}/milestones (for issues)", "POST", repo + "/milestones", utok, {"title": "v2"}, want=201)
    label = fleet.invoke("GET", repo + "/labels", utok)[2][0]["id"]
    run("POST /repos/{o}/{r}/issues (writer fields)", "POST", repo + "/issues", utok,
        {"title": "bench", "body": "cc @root", "labels": [label], "milestone": ms2["id"],
         "assignees": ["root"], "due_date": "2030-01-01T00:00:00Z"}, want=201)
    run("POST /repos/{o}/{r}/issues (plain)", "POST", repo + "/issues", utok, {"title": "plain"}, want=201)
    run("GET /repos/{o}/{r}/issues/{n}", "GET", repo + "/issues/1", utok, want=200)
    run("GET /repos/{o}/{r}/issues (first page)", "GET", repo + "/issues", utok, want=200, query="state=all")
    run("PATCH /repos/{o}/{r}/issues/{n} (close)", "PATCH", repo + "/issues/1", utok, {"state": "closed"}, want=201)
    run("PATCH /repos/{o}/{r}/issues/{n} (body)", "PATCH", repo + "/issues/2", utok, {"body": "new"}, want=201)
    run("POST /repos/{o}/{r}/issues/{n}/deadline", "POST", repo + "/issues/2/deadline", utok,
        {"due_date": "2031-01-01T00:00:00Z"}, want=201)
    run("POST /repos/{o}/{r}/issues/{n}/dependencies", "POST", repo + "/issues/2/dependencies", utok,
        {"owner": org, "repo": "web", "index": 1}, want=201)
    run("POST /repos/{o}/{r}/pulls", "POST", repo + "/pulls", utok, {"title": "pr", "head": "f", "base": "main"}, want=201)
    run("POST /repos/{o}/{r}/pulls/{n}/merge", "POST", repo + "/pulls/3/merge", utok, {"Do": "merge"}, want=200)
    run("GET /repos/{o}/{r}/pulls (first page)", "GET", repo + "/pulls", utok, want=200, query="state=all")
    run("DELETE /repos/{o}/{r}/issues/{n}", "DELETE", repo + "/issues/2", utok, want=204)
    run("DELETE /repos/{o}/{r}/milestones/{id}", "DELETE", repo + "/milestones/%d" % ms["id"], utok, want=204)

    # Deploy API: a root token of the user's own team.
    dtok = run("POST /users/{u}/tokens (root, deploy team)", "POST", "/api/v1/users/%s/tokens" % user,
               basic(user, password), {"name": "deploy", "scopes": ["root"]}, want=201)
    dtok = {"authorization": "Bearer " + dtok["sha1"]}
    pem = "-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n-----END OPENSSH PRIVATE KEY-----\n" % base64.b64encode(
        os.urandom(96)).decode()
    key = run("POST /security/keys", "POST", "/api/v1/security/keys", dtok, {"name": "k", "private_key": pem}, want=201)
    server = run("POST /servers", "POST", "/api/v1/servers", dtok,
                 {"name": "s", "ip": "203.0.113.9", "private_key_uuid": key["uuid"]}, want=201)
    run("GET /servers/{uuid}", "GET", "/api/v1/servers/" + server["uuid"], dtok, want=200)
    project = run("POST /projects", "POST", "/api/v1/projects", dtok, {"name": "p"}, want=201)
    run("GET /projects/{uuid}", "GET", "/api/v1/projects/" + project["uuid"], dtok, want=200)
    gh = run("POST /provider-apps", "POST", "/api/v1/provider-apps", dtok,
             {"name": "gh", "api_url": "https://api.github.com", "html_url": "https://github.com", "app_id": 1,
              "installation_id": 2, "client_id": "c", "client_secret": "s", "private_key_uuid": key["uuid"]}, want=201)
    place = {"project_uuid": project["uuid"], "server_uuid": server["uuid"], "environment_name": "production"}
    git = dict(place, git_repository="https://github.com/coollabsio/coolify-examples", git_branch="main",
               build_pack="nixpacks", ports_exposes="3000")
    app = run("POST /applications/public (generated domain)", "POST", "/api/v1/applications/public", dtok, git,
              want=201)
    domains = ",".join("https://%s-%d.example.com" % (suffix, i) for i in range(3))
    app3 = run("POST /applications/public (3 domains, instant_deploy)", "POST", "/api/v1/applications/public", dtok,
               dict(git, domains=domains, instant_deploy=True), want=201)
    run("POST /applications/public (domain conflict)", "POST", "/api/v1/applications/public", dtok,
        dict(git, domains=domains), want=409)
    run("POST /applications/private-provider-app", "POST", "/api/v1/applications/private-provider-app", dtok,
        dict(git, provider_app_uuid=gh["uuid"]), want=201)
    run("POST /applications/private-deploy-key", "POST", "/api/v1/applications/private-deploy-key", dtok,
        dict(git, private_key_uuid=key["uuid"]), want=201)
    run("POST /applications/dockerfile", "POST", "/api/v1/applications/dockerfile", dtok,
        dict(place, dockerfile="FROM nginx\nEXPOSE 80\n"), want=201)
    run("POST /applications/dockerimage", "POST", "/api/v1/applications/dockerimage", dtok,
        dict(place, docker_registry_image_name="nginx", ports_exposes="80"), want=201)
    run("POST /applications/dockercompose", "POST", "/api/v1/applications/dockercompose", dtok,
        dict(place, docker_compose_raw="services:\n  web:\n    image: nginx\n"), want=201)
    for i in range(18):
        fleet.invoke("POST", "/api/v1/applications/public", dtok, dict(git, name="app-%02d" % i))
    run("GET /applications (25 applications)", "GET", "/api/v1/applications", dtok, want=200)
    run("GET /applications/{uuid}", "GET", "/api/v1/applications/" + app["uuid"], dtok, want=200)
    run("PATCH /applications/{uuid} (settings)", "PATCH", "/api/v1/applications/" + app["uuid"], dtok,
        {"name": "renamed", "health_check_enabled": True}, want=200)
    run("PATCH /applications/{uuid} (1 domain swapped)", "PATCH", "/api/v1/applications/" + app3["uuid"], dtok,
        {"domains": domains.rsplit(",", 1)[0] + ",https://%s-new.example.com" % suffix}, want=200)
    run("GET /deployments", "GET", "/api/v1/deployments", dtok, want=200)
    run("GET /deployments/{uuid}", "GET", "/api/v1/deployments/" + app3["deployment_uuid"], dtok, want=200)
    run("GET /deployments/applications/{uuid}", "GET", "/api/v1/deployments/applications/" + app3["uuid"], dtok,
        want=200)
    run("DELETE /applications/{uuid}", "DELETE", "/api/v1/applications/" + app3["uuid"], dtok, want=200)

    # A deployment's lifecycle (docs/deploy-runner.md): variables, a
    # trigger, and a runner's calls, idle and with work.
    envs = "/api/v1/applications/%s/envs" % app["uuid"]
    run("POST /applications/{uuid}/envs", "POST", envs, dtok,
        {"key": "DATABASE_URL", "value": "postgres://app:secret@db:5432/app"}, want=201)
    run("PATCH /applications/{uuid}/envs/bulk (19 new)", "PATCH", envs + "/bulk", dtok,
        {"data": [{"key": "K%02d" % i, "value": "v" * 40} for i in range(19)]}, want=201)
    run("GET /applications/{uuid}/envs (20, values shown)", "GET", envs, dtok, want=200)
    runner = run("POST /servers/{uuid}/runners", "POST", "/api/v1/servers/%s/runners" % server["uuid"], dtok,
                 {"name": "bench"}, want=201)
    rtok = {"authorization": "Bearer " + runner["token"]}
    # The first poll also drops the queue entry a deleted application left
    # (app3's) and records the runner's last_seen_at (once a minute); the
    # second is what an idle runner costs every 30 s.
    run("POST /runner/v1/claim (first poll)", "POST", "/runner/v1/claim", rtok, want=204)
    run("POST /runner/v1/claim (idle)", "POST", "/runner/v1/claim", rtok, want=204)
    run("POST /deploy?uuid= (1 application)", "POST", "/api/v1/deploy", dtok, want=200, query="uuid=" + app["uuid"])
    job = run("POST /runner/v1/claim (a job, 20 variables)", "POST", "/runner/v1/claim", rtok, want=200)
    dep = "/runner/v1/deployments/" + job["deployment_uuid"]
    run("POST /runner/v1/deployments/{uuid}/heartbeat", "POST", dep + "/heartbeat", rtok, want=200)
    run("POST /runner/v1/deployments/{uuid}/logs (100 lines)", "POST", dep + "/logs", rtok,
        {"lines": [{"output": "step %03d %s" % (i, "x" * 70), "type": "stdout"} for i in range(100)]}, want=200)
    run("POST /runner/v1/deployments/{uuid}/end", "POST", dep + "/end", rtok, {"status": "finished"}, want=200)
    run("GET /deployments/{uuid} (100 log lines)", "GET", "/api/v1/deployments/" + job["deployment_uuid"], dtok,
        want=200)
    restart = run("POST /applications/{uuid}/restart", "POST", "/api/v1/applications/%s/restart" % app["uuid"], dtok,
                  want=200)
    run("POST /deployments/{uuid}/cancel", "POST", "/api/v1/deployments/%s/cancel" % restart["deployment_uuid"],
        dtok, want=200)

    warm = [fleet.invoke("GET", "/api/v1/user", admin)[3] for _ in range(50)]
    fleet.stop()

    print("| function | release binary (x86_64) | cold start min / median / max (ms) |")
    print("|---|---|---|")
    colds = [("accounts", "GET", "/api/v1/user", admin), ("repos", "GET", repo, utok),
             ("milestones", "GET", repo + "/milestones", utok), ("issues", "GET", repo + "/issues/1", utok),
             ("app-crud", "GET", "/api/v1/applications/" + app["uuid"], dtok),
             ("infra", "GET", "/api/v1/projects/" + project["uuid"], dtok),
             ("app-create", "POST", "/api/v1/applications/dockerimage", dtok,
              dict(place, docker_registry_image_name="nginx", ports_exposes="80"))]
    for f, method, path, headers, *body in colds:
        binary = os.path.join(args.bin_dir, f)
        t = cold_starts(binary, args.runs, method, path, headers, *body)
        print("| %s | %.2f MiB | %.0f / %.0f / %.0f |" % (f, os.path.getsize(binary) / 1048576, min(t),
                                                        statistics.median(t), max(t)))
    print()
    print("warm GET /user (50 runs): median %.1f ms, p90 %.1f ms"
          % (statistics.median(warm), sorted(warm)[int(len(warm) * 0.9) - 1]))
    print()
    print("| request | status | sequential round trips (calls) | read units | write units | calls | latency ms |")
    print("|---|---|---|---|---|---|---|")
    for label, status, rt, rcu, wcu, calls, ms_ in rows:
        print("| %s | %s | %s | %s | %s | %s | %.1f |" % (label, status, rt, rcu, wcu, calls, ms_))


if __name__ == "__main__":
    main()
