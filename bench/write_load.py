#!/usr/bin/env python3
"""Write load against a running `make dev` (issue 32): concurrent clients
create labelled issues and comment on them for a while, and the run
reports what a user of the stack would see:

- the `q` delay: for a sample of the creates, the time from the create's
  answer until `GET /repos/issues/search?q=<a word only that title holds>`
  finds the issue (p50, p99, worst; the search index trails the table);
- request latency per kind of request (p50, p99), throughput, and every
  answer that was not the expected one: each 5xx, 4xx and connection error
  counted by status;
- the stream pump's counters over the run (`GET $PUMP_URL/stats`: records
  delivered, failed invocations, retries, and the changes skipped for good),
  after waiting for it to catch up (`GET $PUMP_URL/settle`);
- with --check-data, `make check-data` afterwards: the drift it finds, by
  kind.

It sets up its own users (site admin token: $BOOTSTRAP_ADMIN_TOKEN or
.local/admin-token), one public repository per --repos with three labels
each; the clients share the repositories round robin, as a team shares
its repositories. Every loop is bounded by the run's deadline, every
request by a timeout, and it only talks to loopback.

Usage: write_load.py [--clients 30] [--duration 600] [--repos 10]
                     [--comments 2] [--sample 5] [--warmup 30] [--check-data]
  API_URL       make dev's address (default http://127.0.0.1:9000)
  PUMP_URL      the pump's status API (default: .local/pump-url, which
                make dev writes, else the last start in
                .local/stream-pump.log)
  DYNAMODB_ENDPOINT  for --check-data (default: .local/dynamodb-url, else
                http://127.0.0.1:8000); TABLE_NAME as make dev's

The idle CPU measurement of the issue follows it:
  bench/write_load.py && bench/idle_cpu.py --wait 120
"""
import argparse
import base64
import collections
import ipaddress
import json
import os
import random
import re
import secrets
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
LOCAL = os.path.join(ROOT, ".local")
REQUEST_TIMEOUT_S = 30
# How long a sampled create may stay unfound by search before it counts as
# missing (a lost index change never shows; a consumer far behind shows
# late, and that lag is what is measured).
Q_GIVE_UP_S = 300
# Polling a sample: every 100 ms for its first 3 s (the delay's
# resolution where the target, p99 <= 2 s, lies), then every second, so
# that samples waiting on a lagging index add little search load (a
# search is one of the dearer requests: at 6 samples polled every 500 ms,
# issue-search took a fifth of a core).
Q_POLL_FAST_S, Q_POLL_SLOW_S, Q_FAST_FOR_S = 0.1, 1.0, 3
# Samples being polled at once, at most: a create is not sampled while
# this many are in flight (at most 40 searches a second of their own).
Q_IN_FLIGHT = 4


def loopback_only(url):
    """Refuses any address that is not this machine's loopback."""
    host = urllib.parse.urlsplit(url).hostname or ""
    if host == "localhost":
        return url
    try:
        if ipaddress.ip_address(host).is_loopback:
            return url
    except ValueError:
        pass
    sys.exit("%s: not a loopback address; this bench only talks to this machine" % url)


def read_local(name):
    try:
        with open(os.path.join(LOCAL, name)) as f:
            return f.read().strip() or None
    except OSError:
        return None


def pump_url():
    """make dev's pump status API: $PUMP_URL, .local/pump-url, or the last
    start in .local/stream-pump.log (`stream-pump started ... status=URL`)."""
    url = os.environ.get("PUMP_URL") or read_local("pump-url")
    if not url:
        try:
            for line in open(os.path.join(LOCAL, "stream-pump.log"), errors="replace"):
                m = re.search(r"stream-pump started.*status=(http://[0-9.:\[\]]+)", line)
                if m:
                    url = m.group(1)
        except OSError:
            pass
    return loopback_only(url.rstrip("/")) if url else None


class Api:
    """JSON over HTTP with a token, timed; every answer is counted."""

    def __init__(self, base, stats):
        self.base = base
        self.stats = stats

    def call(self, kind, method, path, token=None, body=None, auth=None, want=(200, 201)):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = "token " + token
        if auth:
            headers["Authorization"] = "Basic " + base64.b64encode(auth.encode()).decode()
        req = urllib.request.Request(
            self.base + path,
            data=json.dumps(body).encode() if body is not None else None,
            method=method,
            headers=headers,
        )
        start = time.monotonic()
        status, data = None, None
        try:
            with urllib.request.urlopen(req, timeout=REQUEST_TIMEOUT_S) as r:
                status, data = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, data = e.code, e.read()
        except Exception as e:  # refused, reset, timed out
            status, data = "error: %s" % type(e).__name__, None
        ms = (time.monotonic() - start) * 1000
        self.stats.record(kind, status, ms, status in want)
        if status not in want:
            return None
        return json.loads(data or b"null")


class Stats:
    """Latencies and answers per kind of request, shared by the threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.ms = collections.defaultdict(list)
        self.status = collections.defaultdict(collections.Counter)
        self.q_delays = []
        self.q_missing = 0

    def record(self, kind, status, ms, ok):
        with self.lock:
            if ok:
                self.ms[kind].append(ms)
            self.status[kind][status] += 1

    def count(self, kind=None, pred=lambda s: True):
        with self.lock:
            kinds = [kind] if kind else list(self.status)
            return sum(n for k in kinds for s, n in self.status[k].items() if pred(s))


def pct(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def is_5xx(s):
    return isinstance(s, int) and s >= 500


class QSampler:
    """Polls search by `q` for sampled creates, each in its own thread, from
    the create's answer until found (or Q_GIVE_UP_S)."""

    def __init__(self, api, stats):
        self.api, self.stats = api, stats
        self.slots = threading.BoundedSemaphore(Q_IN_FLIGHT)
        self.threads = []

    def offer(self, word, token, answered_at):
        if not self.slots.acquire(blocking=False):
            return  # enough in flight: this one is not sampled
        t = threading.Thread(target=self._poll, args=(word, token, answered_at), daemon=True)
        self.threads.append(t)
        t.start()

    def _poll(self, word, token, answered_at):
        try:
            give_up = answered_at + Q_GIVE_UP_S
            while time.monotonic() < give_up:
                found = self.api.call("GET search?q=", "GET",
                                      "/repos/issues/search?q=%s&state=all&type=issues" % word, token=token)
                if found:
                    with self.stats.lock:
                        self.stats.q_delays.append((time.monotonic() - answered_at) * 1000)
                    return
                fast = time.monotonic() - answered_at < Q_FAST_FOR_S
                time.sleep(Q_POLL_FAST_S if fast else Q_POLL_SLOW_S)
            with self.stats.lock:
                self.stats.q_missing += 1
        finally:
            self.slots.release()

    def join(self):
        """Waits for the samples in flight (each ends within its give-up
        time and one request's timeout)."""
        until = time.monotonic() + Q_GIVE_UP_S + REQUEST_TIMEOUT_S
        for t in self.threads:
            t.join(timeout=max(0, until - time.monotonic()))


def setup(api, admin, repos, tag):
    """Users (one per repository), their tokens, public repositories with
    three labels each: [(owner, repo, token, [label ids])]."""
    out = []
    for i in range(repos):
        user = "load%s%02d" % (tag, i)
        password = "load-password-" + tag
        if api.call("setup", "POST", "/admin/users", token=admin,
                    body={"username": user, "email": user + "@example.com", "password": password}) is None:
            sys.exit("could not create user %s: is the admin token make dev's? (%s)"
                     % (user, dict(api.stats.status["setup"])))
        tok = api.call("setup", "POST", "/users/%s/tokens" % user, auth="%s:%s" % (user, password),
                       body={"name": "load", "scopes": ["write:repository", "write:issue", "read:user"]})
        if tok is None:
            sys.exit("could not make a token for %s" % user)
        token = tok["sha1"]
        repo = "load" + tag
        if api.call("setup", "POST", "/user/repos", token=token, body={"name": repo}) is None:
            sys.exit("could not create repository %s/%s" % (user, repo))
        labels = []
        for name, color in (("bug", "#ee0701"), ("feature", "#0e8a16"), ("docs", "#1d76db")):
            label = api.call("setup", "POST", "/repos/%s/%s/labels" % (user, repo), token=token,
                             body={"name": name, "color": color})
            if label is None:
                sys.exit("could not create label %s in %s/%s" % (name, user, repo))
            labels.append(label["id"])
        out.append((user, repo, token, labels))
    return out


def client(n, api, target, deadline, comments, sample_every, sampler, counts):
    """One client until the deadline: create an issue (one or two labels, a
    word only its title holds), then `comments` comments on one of its own
    recent issues; every `sample_every`-th create is offered to the q
    sampler."""
    owner, repo, token, labels = target
    rng = random.Random(n)
    mine = []
    i = 0
    while time.monotonic() < deadline:
        i += 1
        word = "q" + secrets.token_hex(6)
        created = api.call("POST issues", "POST", "/repos/%s/%s/issues" % (owner, repo), token=token, body={
            "title": "load %s %d-%d" % (word, n, i),
            "body": "written by bench/write_load.py, client %d" % n,
            "labels": rng.sample(labels, rng.randint(1, 2)),
        })
        answered_at = time.monotonic()
        if created:
            counts[0] += 1
            mine.append(created["number"])
            del mine[:-10]
            if i % sample_every == 0:
                sampler.offer(word, token, answered_at)
        for _ in range(comments):
            if not mine or time.monotonic() >= deadline:
                break
            number = rng.choice(mine)
            if api.call("POST comments", "POST", "/repos/%s/%s/issues/%d/comments" % (owner, repo, number),
                        token=token, body={"body": "comment %d on #%d by client %d" % (i, number, n)}):
                counts[1] += 1
        if not created:
            # Do not spin on a failing server: the errors are counted.
            time.sleep(0.5)


def get_json(url, timeout):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


def settle(pump, wait_s):
    """Waits (at most wait_s) until the pump has delivered every change made
    so far, and what those in turn wrote: until a settle leaves the count
    of delivered records where the one before left it."""
    deadline = time.monotonic() + wait_s
    before = None
    while time.monotonic() < deadline:
        try:
            get_json(pump + "/settle?timeout_ms=60000", 90)
        except urllib.error.HTTPError as e:
            if e.code != 504:
                raise
            # Still busy after a minute: say how far it got, and wait on.
            stats = get_json(pump + "/stats", 10)
            print("  pump: %d records delivered, %d pending, %d skipped, last error %s"
                  % (stats["records_delivered"], stats.get("pending_records", 0),
                     stats.get("skipped_records", 0), stats.get("last_error")), flush=True)
            continue
        now = get_json(pump + "/stats", 10)["records_delivered"]
        if now == before:
            return True
        before = now
        time.sleep(1)
    return False


def check_data():
    """`make check-data` on make dev's table: (drift by kind, items, exit)."""
    env = dict(os.environ)
    env.setdefault("DYNAMODB_ENDPOINT", read_local("dynamodb-url") or "http://127.0.0.1:8000")
    loopback_only(env["DYNAMODB_ENDPOINT"])
    # -s: make would print the recipe's command line before the report.
    out = subprocess.run(["make", "-s", "--no-print-directory", "check-data"], cwd=ROOT, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=3600)
    try:
        report = json.loads(out.stdout[out.stdout.index(b"{"):])
    except ValueError:
        sys.stderr.write(out.stderr.decode(errors="replace"))
        return None, None, out.returncode
    kinds = collections.Counter(f.get("what", "?") for f in report.get("drift", []))
    return kinds, report.get("items_scanned"), out.returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=30)
    ap.add_argument("--duration", type=float, default=600, help="seconds of load")
    ap.add_argument("--repos", type=int, default=10, help="repositories the clients share")
    ap.add_argument("--comments", type=int, default=2, help="comments after each create")
    ap.add_argument("--sample", type=int, default=5, help="offer every Nth create of a client to the q sampler")
    ap.add_argument("--warmup", type=float, default=30,
                    help="seconds of load before the measured run (not counted)")
    ap.add_argument("--settle-wait", type=float, default=1800,
                    help="seconds to wait at most, after the load, for the stream pump to catch up")
    ap.add_argument("--check-data", action="store_true", help="run make check-data at the end")
    args = ap.parse_args()
    if not (1 <= args.clients <= 200 and 0 < args.duration <= 24 * 3600 and 1 <= args.repos <= 100
            and 0 <= args.comments <= 20 and args.sample >= 1 and 0 <= args.settle_wait <= 6 * 3600
            and 0 <= args.warmup <= 600):
        sys.exit("out of bounds: 1-200 clients, up to 24 h, 1-100 repos, 0-20 comments")

    api_url = loopback_only(os.environ.get("API_URL", "http://127.0.0.1:9000").rstrip("/"))
    admin = os.environ.get("BOOTSTRAP_ADMIN_TOKEN") or read_local("admin-token")
    if not admin:
        sys.exit("no admin token: set BOOTSTRAP_ADMIN_TOKEN or run make dev once (.local/admin-token)")
    pump = pump_url()
    stats = Stats()
    api = Api(api_url + "/api/v1", stats)
    before = get_json(pump + "/stats", 10) if pump else None

    tag = secrets.token_hex(3)
    targets = setup(api, admin, args.repos, tag)
    print("set up %d users and repositories (load%s..), %d clients for %.0f s against %s"
          % (len(targets), tag, args.clients, args.duration, api_url), flush=True)

    if args.warmup > 0:
        # `cargo lambda watch` starts a function's instances as requests
        # queue for them (seconds each, one at a time): the first requests
        # wait behind those starts, some past the clients' timeout. The
        # run measures the stack once it runs, as on AWS after a minute.
        warm_stats = Stats()
        warm_api = Api(api_url + "/api/v1", warm_stats)
        warm_until = time.monotonic() + args.warmup
        warm = [threading.Thread(target=client, daemon=True, args=(
            n, warm_api, targets[n % len(targets)], warm_until, args.comments, 10 ** 9, None, [0, 0]))
            for n in range(args.clients)]
        for t in warm:
            t.start()
        for t in warm:
            t.join(timeout=args.warmup + 2 * REQUEST_TIMEOUT_S)
        print("warmed up for %.0f s: %d requests, %d not answered in time"
              % (args.warmup, warm_stats.count(), warm_stats.count(pred=lambda s: not isinstance(s, int))),
              flush=True)

    start = time.monotonic()
    deadline = start + args.duration
    sampler = QSampler(api, stats)
    counts = [[0, 0] for _ in range(args.clients)]
    threads = [threading.Thread(target=client, daemon=True, args=(
        n, api, targets[n % len(targets)], deadline, args.comments, args.sample, sampler, counts[n]))
        for n in range(args.clients)]
    for t in threads:
        t.start()
    next_report = start + 30
    while any(t.is_alive() for t in threads):
        time.sleep(1)
        if time.monotonic() >= next_report:
            next_report += 30
            with stats.lock:
                q = list(stats.q_delays)
            print("  %4.0f s: %d issues, %d comments, %d 5xx, q delay p50 %.0f ms p99 %.0f ms (%d samples)"
                  % (time.monotonic() - start, sum(c[0] for c in counts), sum(c[1] for c in counts),
                     stats.count(pred=is_5xx), pct(q, 50), pct(q, 99), len(q)), flush=True)
        if time.monotonic() > deadline + 2 * REQUEST_TIMEOUT_S:
            break  # a client stuck past its last request's timeout
    elapsed = time.monotonic() - start
    sampler.join()

    issues, comments = sum(c[0] for c in counts), sum(c[1] for c in counts)
    print()
    print("load: %d clients, %.0f s, %d repositories" % (args.clients, elapsed, len(targets)))
    print("written: %d issues (%.1f/s), %d comments (%.1f/s), %.1f writes/s"
          % (issues, issues / elapsed, comments, comments / elapsed, (issues + comments) / elapsed))
    q = sorted(stats.q_delays)
    print("q delay (create answered -> search by q finds it): p50 %.0f ms, p99 %.0f ms, worst %.0f ms "
          "over %d samples; %d not found within %d s"
          % (pct(q, 50), pct(q, 99), q[-1] if q else float("nan"), len(q), stats.q_missing, Q_GIVE_UP_S))
    print("requests:")
    for kind in sorted(stats.status):
        ms = stats.ms[kind]
        answers = ", ".join("%s: %d" % (s, n) for s, n in sorted(stats.status[kind].items(), key=str))
        print("  %-16s p50 %6.0f ms  p99 %6.0f ms  answers {%s}" % (kind, pct(ms, 50), pct(ms, 99), answers))
    errors_5xx = stats.count(pred=is_5xx)
    failed = stats.count(pred=lambda s: not isinstance(s, int))
    print("5xx answers: %d; connection errors and timeouts: %d" % (errors_5xx, failed))

    if pump:
        print("waiting for the stream pump to catch up (at most %d s)..." % args.settle_wait, flush=True)
        t0 = time.monotonic()
        settled = settle(pump, args.settle_wait)
        after = get_json(pump + "/stats", 10)
        keys = ("records_delivered", "invocations", "failures", "retries", "skipped_records", "unreachable")
        delta = {k: after.get(k, 0) - (before or {}).get(k, 0) for k in keys}
        print("stream pump over the run (%s after %.0f s): %s; pending %d, backing off %s, last error %s"
              % ("settled" if settled else "NOT settled", time.monotonic() - t0,
                 ", ".join("%s %d" % kv for kv in delta.items()), after.get("pending_records", 0),
                 after.get("backing_off") or "none", after.get("last_error")))
        print("skipped changes: %d during the run, %d since the pump started"
              % (delta["skipped_records"], after.get("skipped_records", 0)))
    else:
        print("stream pump: no status URL (set PUMP_URL); its counters are not reported")

    if args.check_data:
        print("running make check-data...", flush=True)
        kinds, items, code = check_data()
        if kinds is None:
            print("check-data: no report (exit %d)" % code)
        else:
            print("check-data: %d drift in %s items%s" % (sum(kinds.values()), items,
                  "".join("\n  %-40s %d" % kv for kv in kinds.most_common())))
    print("load ended at %s" % time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
