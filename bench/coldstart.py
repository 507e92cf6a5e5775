#!/usr/bin/env python3
"""Binary sizes and cold starts of every function beside a hello-world floor.

For each function binary and for bench/hello (a lambda_http function that
only says hello, built in the same run with the same release profile), runs
the process against a minimal Lambda Runtime API and measures:

- init: process start until its first poll of the Runtime API
  (`GET /2018-06-01/runtime/invocation/next`), i.e. Lambda's init phase;
- first response: process start until the first event's response.

Runs are interleaved (one cold start of every binary per round) so that the
load of the machine falls on all of them alike. Sizes are those of the x86_64
release binaries and, when built, of cargo-lambda's arm64 bootstraps.
DynamoDB Local must be running with the table bootstrapped (scripts/bench.sh
does all of that).

Usage: coldstart.py BIN_DIR HELLO_BIN ADMIN_TOKEN [--arm64-dir DIR] [--runs N]
"""
import argparse
import base64
import os
import queue
import statistics
import time
import uuid

import json

from lambda_bench import Fleet, Runtime, basic, invoke_event, load_router, spawn

# The stream consumer's cold start: its sample batch (a DynamoDB stream
# event, as Lambda's event source mapping sends it), answered with no
# failures.
STREAM_EVENT = "events/stream-change-batch.json"


class FirstPoll(queue.Queue):
    """The Runtime API's event queue, noting when the function first asks."""

    def __init__(self):
        super().__init__()
        self.at = None

    def get(self, *args, **kwargs):
        if self.at is None:
            self.at = time.perf_counter()
        return super().get(*args, **kwargs)


def cold_start(binary, method, path, headers, body, want):
    """(init ms, first response ms) of one fresh process."""
    runtime = Runtime()
    runtime.events = polls = FirstPoll()
    start = time.perf_counter()
    proc = spawn(binary, runtime, {})
    try:
        if method == "EVENT":
            with open(path) as f:
                _, out, _ = invoke_event(runtime, json.load(f))
            status = 200 if out == {"batchItemFailures": []} else 500
        else:
            _, status, out, _ = runtime.invoke(method, path, headers, body)
        done = time.perf_counter()
    finally:
        proc.kill()
        proc.wait()
    if status != want:
        raise RuntimeError("%s %s %s: expected %s, got %s %s" % (binary, method, path, want, status, out))
    return (polls.at - start) * 1000, (done - start) * 1000


def fixtures(fleet, admin):
    """One request per function that reaches the database where the function
    does, with the data it needs created through the warm fleet:
    (function, method, path, headers, body, expected status). The stream
    consumer's is its sample batch (method EVENT, path the event file)."""
    suffix = uuid.uuid4().hex[:8]
    user, password = "cold" + suffix, "cold-password-" + suffix

    def call(method, path, headers, body, want):
        _, status, out, _ = fleet.invoke(method, path, headers, body)
        if status != want:
            raise RuntimeError("set-up %s %s: expected %s, got %s %s" % (method, path, want, status, out))
        return out

    call("POST", "/api/v1/admin/users", admin,
         {"username": user, "email": user + "@example.com", "password": password}, 201)
    utok = {"authorization": "token " + call("POST", "/api/v1/users/%s/tokens" % user, basic(user, password),
                                             {"name": "cold", "scopes": ["all"]}, 201)["sha1"]}
    dtok = {"authorization": "Bearer " + call("POST", "/api/v1/users/%s/tokens" % user, basic(user, password),
                                              {"name": "deploy", "scopes": ["root"]}, 201)["sha1"]}
    repo = "/api/v1/repos/%s/cold" % user
    call("POST", "/api/v1/user/repos", utok, {"name": "cold"}, 201)
    call("POST", repo + "/issues", utok, {"title": "cold"}, 201)
    pem = "-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n-----END OPENSSH PRIVATE KEY-----\n" % base64.b64encode(
        os.urandom(96)).decode()
    key = call("POST", "/api/v1/security/keys", dtok, {"name": "k", "private_key": pem}, 201)
    server = call("POST", "/api/v1/servers", dtok,
                  {"name": "s", "ip": "203.0.113.9", "private_key_uuid": key["uuid"]}, 201)
    project = call("POST", "/api/v1/projects", dtok, {"name": "p"}, 201)
    image = {"project_uuid": project["uuid"], "server_uuid": server["uuid"], "environment_name": "production",
             "docker_registry_image_name": "nginx", "ports_exposes": "80"}
    app = call("POST", "/api/v1/applications/dockerimage", dtok, image, 201)
    return [
        ("accounts", "GET", "/api/v1/user", utok, None, 200),
        ("repos", "GET", repo, utok, None, 200),
        ("milestones", "GET", repo + "/milestones", utok, None, 200),
        ("issues", "GET", repo + "/issues/1", utok, None, 200),
        ("issue-search", "GET", repo + "/issues", utok, None, 200),
        ("app-create", "POST", "/api/v1/applications/dockerimage", dtok, image, 201),
        ("app-crud", "GET", "/api/v1/applications/" + app["uuid"], dtok, None, 200),
        ("infra", "GET", "/api/v1/projects/" + project["uuid"], dtok, None, 200),
        ("docs", "GET", "/swagger.v1.json", {}, None, 200),
        ("fallback", "GET", "/api/v1/no-such-route", {}, None, 404),
        ("stream", "EVENT", STREAM_EVENT, {}, None, 200),
    ]


def mib(path):
    return "%.2f MiB" % (os.path.getsize(path) / 1048576) if path and os.path.exists(path) else "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin_dir")
    ap.add_argument("hello")
    ap.add_argument("admin_token")
    ap.add_argument("--arm64-dir", help="cargo-lambda's output (target/lambda): <function>/bootstrap")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--cargo-toml", default="Cargo.toml")
    args = ap.parse_args()

    fleet = Fleet(args.bin_dir, load_router(args.cargo_toml))
    try:
        cases = fixtures(fleet, {"authorization": "token " + args.admin_token})
    finally:
        fleet.stop()
    cases.append(("hello-lambda", "GET", "/", {}, None, 200))
    binaries = {f: args.hello if f == "hello-lambda" else os.path.join(args.bin_dir, f) for f, *_ in cases}
    init = {f: [] for f in binaries}
    first = {f: [] for f in binaries}
    for _ in range(args.runs):
        for f, method, path, headers, body, want in cases:
            i, r = cold_start(binaries[f], method, path, headers, body, want)
            init[f].append(i)
            first[f].append(r)

    floor = statistics.median(init["hello-lambda"])
    print("Cold starts, %d interleaved runs each; init = process start to the first poll of the"
          " Runtime API; ratio = init median / hello-world init median." % args.runs)
    print()
    print("| function | x86_64 binary | arm64 bootstrap | init min / median / max (ms) "
          "| first response median (ms) | hello-world init median (ms) | ratio |")
    print("|---|---|---|---|---|---|---|")
    for f in binaries:
        arm = os.path.join(args.arm64_dir, f, "bootstrap") if args.arm64_dir else None
        med = statistics.median(init[f])
        print("| %s | %s | %s | %.1f / %.1f / %.1f | %.1f | %.1f | %.1f× |" % (
            f, mib(binaries[f]), mib(arm), min(init[f]), med, max(init[f]),
            statistics.median(first[f]), floor, med / floor))


if __name__ == "__main__":
    main()
