#!/usr/bin/env python3
"""Smoke run of the arm64 bootstraps `sam build` made, under qemu-user.

Each `BUILD_DIR/<LogicalId>/bootstrap` starts under
`qemu-aarch64 -L /usr/aarch64-linux-gnu` against the minimal Lambda Runtime
API of bench/lambda_bench.py, with the environment `sam local invoke
--env-vars env.local.json` would give it (but the DynamoDB endpoint, which
is the DynamoDB Local of this run instead of the Docker host's). It must
poll for an event and answer its sample event from events/, the very file
`sam local invoke -e` takes, with the status, body and headers of CASES
below. `{{admin_token}}` in an event stands for the admin token.

The events run in CASES' order against one table: the repository made by
repos' event is the one milestones, issues and issue-search read. The
stream function gets a DynamoDB stream event instead (what Lambda's event
source mapping sends) and must answer Lambda's partial batch response with
no failures, and log its one line for the batch.

Usage: smoke-arm64.py BUILD_DIR ADMIN_TOKEN DYNAMODB_ENDPOINT
Needs DynamoDB Local with env.local.json's table bootstrapped
(scripts/smoke-arm64.sh does all of that).
"""
import argparse
import base64
import json
import os
import queue
import sys
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from lambda_bench import Runtime, spawn  # noqa: E402

QEMU = ("qemu-aarch64", "-L", "/usr/aarch64-linux-gnu")
PRESENT = ...  # in an expected body: the key must be there, any value
ROOT_URL = "{root}"  # in an expected string: env.local.json's ROOT_URL
BATCH = "batchItemFailures: []"  # as a case's status: a stream batch, all done

# (event file, function, status, expected body, expected headers, reads or
# writes the table). A body dict lists keys the answer must have (others
# may be there too); a list must match item by item.
CASES = [
    ("accounts-get-user", "AccountsFunction", 200,
     {"login": "root", "is_admin": True}, {}, True),
    ("repos-create-repo", "ReposFunction", 201,
     {"full_name": "root/smoke", "private": False, "html_url": ROOT_URL + "root/smoke"}, {}, True),
    ("milestones-list-milestones", "MilestonesFunction", 200,
     [], {"x-total-count": "0"}, True),
    # root administers root/smoke: its hooks, none yet.
    ("hooks-list-hooks", "HooksFunction", 200, [], {"x-total-count": "0"}, True),
    ("issues-create-issue", "IssuesFunction", 201,
     {"number": 1, "title": "First issue", "state": "open", "user": {"login": "root"}}, {}, True),
    ("issue-search-list-issues", "IssueSearchFunction", 200,
     [{"number": 1, "title": "First issue"}], {"x-total-count": "1"}, True),
    # A project that does not exist in the caller's team: the deploy API's
    # validation answer, after looking for it.
    ("app-create-dockerimage", "AppCreateFunction", 400,
     {"message": PRESENT, "errors": {"project_uuid": PRESENT}}, {}, True),
    ("app-crud-list-applications", "AppCrudFunction", 200, [], {}, True),
    ("infra-list-projects", "InfraFunction", 200, [], {}, True),
    ("docs-get-openapi", "DocsFunction", 200,
     {"openapi": PRESENT, "paths": PRESENT}, {"content-type": "application/json"}, False),
    ("fallback-unknown-route", "FallbackFunction", 404, {"message": PRESENT}, {}, False),
    ("stream-change-batch", "StreamFunction", BATCH, {"batchItemFailures": []}, {}, False),
]


class Failed(Exception):
    pass


def mismatch(want, got, where="body"):
    """Where `got` differs from the pattern `want`, or None."""
    if want is PRESENT:
        return None
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return "%s: expected an object, got %r" % (where, got)
        for k, v in want.items():
            if k not in got:
                return "%s.%s: missing" % (where, k)
            problem = mismatch(v, got[k], "%s.%s" % (where, k))
            if problem:
                return problem
        return None
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return "%s: expected %d items, got %r" % (where, len(want), got)
        for i, (w, g) in enumerate(zip(want, got)):
            problem = mismatch(w, g, "%s[%d]" % (where, i))
            if problem:
                return problem
        return None
    return None if want == got else "%s: expected %r, got %r" % (where, want, got)


def fill_root(pattern, root):
    """The pattern with ROOT_URL replaced by the function's ROOT_URL."""
    if isinstance(pattern, dict):
        return {k: fill_root(v, root) for k, v in pattern.items()}
    if isinstance(pattern, list):
        return [fill_root(v, root) for v in pattern]
    if isinstance(pattern, str):
        return pattern.replace(ROOT_URL, root)
    return pattern


def function_env(env_vars, function):
    """What `sam local invoke --env-vars` sets: the file's Parameters, then
    the function's own section."""
    env = dict(env_vars.get("Parameters", {}))
    env.update(env_vars.get(function, {}))
    return {k: str(v) for k, v in env.items()}


def answer(runtime, proc, event, timeout):
    """Hands `event` to the process; (Lambda request id, response object)."""
    rid = str(uuid.uuid4())
    runtime.responses[rid] = queue.Queue()
    runtime.events.put((rid, event))
    deadline = time.monotonic() + timeout
    while True:
        try:
            kind, data = runtime.responses[rid].get(timeout=0.2)
            break
        except queue.Empty:
            polled = runtime.events.empty()
            if proc.poll() is not None:
                raise Failed("exited (status %s) %s" % (proc.returncode, "while answering" if polled
                                                        else "before asking for an event"))
            if time.monotonic() > deadline:
                raise Failed("no answer in %d s%s" % (timeout, "" if polled else " (it never asked for an event)"))
    if kind != "response":
        raise Failed("invocation error: %s" % data[:500])
    return rid, json.loads(data)


def check_batch(event, res, log):
    """What is wrong with the stream function's answer to a batch (and its
    log line for it); empty if nothing."""
    problems = []
    if res != {"batchItemFailures": []}:
        problems.append("answer: expected {\"batchItemFailures\": []}, got %r" % (res,))
    if log is None:
        problems.append("no batch log line")
    elif log.get("records") != len(event["Records"]) or log.get("failures") != 0:
        problems.append("log line: %r" % log)
    return problems


def check(case, rid, res, log, root):
    """What is wrong with the answer `res` (and the function's log line for
    it) to the event of `case`; empty if nothing."""
    _, _, status, body, headers, uses_table = case
    text = res.get("body") or ""
    if res.get("isBase64Encoded"):
        text = base64.b64decode(text).decode()
    try:
        got = json.loads(text)
    except ValueError:
        got = text
    got_headers = {k.lower(): v for k, v in (res.get("headers") or {}).items()}
    problems = []
    if res.get("statusCode") != status:
        problems.append("status: expected %s, got %s" % (status, res.get("statusCode")))
    problem = mismatch(fill_root(body, root), got)
    if problem:
        problems.append(problem)
    if got_headers.get("x-request-id") != rid:
        problems.append("x-request-id: expected the Lambda request id %s, got %r"
                        % (rid, got_headers.get("x-request-id")))
    for k, v in headers.items():
        if not got_headers.get(k, "").startswith(v):
            problems.append("header %s: expected %r, got %r" % (k, v, got_headers.get(k)))
    if log is None:
        problems.append("no request log line for %s" % rid)
    elif log.get("status") != status:
        problems.append("log line: status %r" % log.get("status"))
    elif uses_table and not log.get("db_round_trips"):
        problems.append("log line: no DynamoDB round trip (%r)" % log)
    return problems


def run_case(build_dir, events_dir, env_vars, endpoint, token, case, timeout):
    name, function = case[0], case[1]
    binary = os.path.join(build_dir, function, "bootstrap")
    env = function_env(env_vars, function)
    env.update({
        "DYNAMODB_ENDPOINT": endpoint,
        "AWS_LAMBDA_FUNCTION_NAME": function, "AWS_LAMBDA_LOG_GROUP_NAME": "/aws/lambda/" + function,
        "AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "smoke", "AWS_SECRET_ACCESS_KEY": "smoke",
        # Lambda's ApplicationLogLevel (the template's default); the request
        # line is kept at every level.
        "AWS_LAMBDA_LOG_LEVEL": "INFO",
    })
    with open(os.path.join(events_dir, name + ".json")) as f:
        event = json.loads(f.read().replace("{{admin_token}}", token))

    runtime, logs = Runtime(), {}
    start = time.perf_counter()
    proc = spawn(binary, runtime, logs, wrapper=QEMU, env=env)
    try:
        rid, res = answer(runtime, proc, event, timeout)
        ms = (time.perf_counter() - start) * 1000
        for _ in range(200):  # the log line may trail the response
            if rid in logs:
                break
            time.sleep(0.01)
    except Failed as e:
        raise Failed("%s: %s\n%s" % (function, e, "\n".join(proc.tail)))
    finally:
        proc.kill()
        proc.wait()

    if case[2] == BATCH:
        problems = check_batch(event, res, logs.get(rid))
    else:
        problems = check(case, rid, res, logs.get(rid), env.get("ROOT_URL", ""))
    if problems:
        raise Failed("%s (%s): %s\nresponse: %s" % (function, name, "; ".join(problems), json.dumps(res)[:1500]))
    return ms, logs[rid].get("db_round_trips", 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("admin_token")
    ap.add_argument("dynamodb_endpoint")
    ap.add_argument("--events", default="events")
    ap.add_argument("--env-vars", default="env.local.json")
    ap.add_argument("--timeout", type=int, default=120, help="seconds a function may take to answer")
    args = ap.parse_args()

    built = sorted(d for d in os.listdir(args.build_dir)
                   if os.path.isfile(os.path.join(args.build_dir, d, "bootstrap")))
    events = sorted(f[:-5] for f in os.listdir(args.events) if f.endswith(".json"))
    missing = sorted(set(built) - {c[1] for c in CASES})
    unused = sorted(set(events) - {c[0] for c in CASES})
    if missing or unused:
        sys.exit("smoke: no case for built function(s) %s; no case for event(s) %s" % (missing, unused))
    with open(args.env_vars) as f:
        env_vars = json.load(f)

    print("| function | event | arm64 bootstrap | status | DynamoDB round trips | answered after (ms, qemu) |")
    print("|---|---|---|---|---|---|")
    for case in CASES:
        try:
            ms, trips = run_case(args.build_dir, args.events, env_vars, args.dynamodb_endpoint,
                                 args.admin_token, case, args.timeout)
        except Failed as e:
            sys.exit("smoke failed: %s" % e)
        size = os.path.getsize(os.path.join(args.build_dir, case[1], "bootstrap")) / 1048576
        print("| %s | events/%s.json | %.2f MiB | %s | %s | %.0f |" % (case[1], case[0], size, case[2], trips, ms))
    print("\nall %d functions answered their events under qemu-aarch64" % len(CASES))


if __name__ == "__main__":
    main()
