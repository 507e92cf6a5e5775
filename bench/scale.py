#!/usr/bin/env python3
"""Whether every search filter costs O(page): DynamoDB calls, sequential
round trips, read units and latency of the release issue-search function
(and the issues function, for comments) as repositories and issues are
added. Run by scripts/bench-scale.sh, which seeds the table
(tests/src/bin/seed/) and calls:

  scale.py measure STATE POINT BIN_DIR RESULTS ADMIN_TOKEN USER_TOKEN USER500_TOKEN
      after point POINT (1-4) is seeded: the search rows for four callers,
      and at points 1 and 4 the rows of a repository's own listings;
      appends to RESULTS (JSON)
  scale.py report RESULTS [STATE BIN_DIR ADMIN_TOKEN USER_TOKEN USER500_TOKEN]
      the tables (markdown) and the checks; exits 1 when an O(page) row
      fails them. With the rest (DynamoDB Local still up), each failing
      row is asked again through a recording proxy (bench/ddb_trace.py)
      and its calls are listed: which listings, documents and issues it
      read, and what each cost
  scale.py explain STATE BIN_DIR TOKEN|- PATH QUERY
      one request's calls, the same way

Costs come from each request's log line (the function's own accounting
of every DynamoDB call). A row is O(page) unless docs/search.md's "Search and
listings" names its shape among those that cannot be (`since`/`before`
when many issues match, `team=` for a team given some repositories,
sorting by comments); an O(page) row passes when its calls and read units
stay within 20 % across the four points (max <= 1.2 x min) and at or under
60 calls and 200 read units everywhere. Flatness is judged on calls and
read units, not time.
"""
import base64
import datetime
import json
import os
import queue
import statistics
import sys
import time
import urllib.parse
import uuid

from lambda_bench import Runtime, spawn

POINTS = {
    "1": "40 repos, 2,000 issues",
    "2": "400 repos, 2,000 issues",
    "3": "2,000 repos, 2,000 issues",
    "4": "2,000 repos, 20,000 issues",
}
CALLERS = ["anonymous", "user", "user500", "admin"]
CALLER_NAMES = {
    "anonymous": "anonymous",
    "user": "ordinary user (alice)",
    "user500": "user with 500 private repositories (bob)",
    "admin": "site admin (root)",
}
FLAT = 1.2
# Rows that read next to nothing (a 400, a caller without relations) move
# by a counter item or two: within these, a row is flat whatever the ratio.
SLACK_CALLS = 1
SLACK_UNITS = 2
MAX_CALLS = 60
MAX_UNITS = 200
# What a listing route may read (shared/src/http/route.rs, Limits::LISTING).
ROUTE_CALLS = 150
ROUTE_UNITS = 3000
RUNS = 3


def iso(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Function:
    """One warm release binary behind a minimal Lambda runtime."""

    def __init__(self, binary, env=None):
        self.runtime = Runtime()
        self.logs = {}
        self.proc = spawn(binary, self.runtime, self.logs, env=env)

    def call(self, path, query, headers):
        """(status, headers, body, ms, log line) of one GET."""
        rt = self.runtime
        rid = str(uuid.uuid4())
        hdrs = {"host": "bench.local", "x-forwarded-proto": "http"}
        hdrs.update(headers)
        event = {
            "version": "2.0", "routeKey": "$default", "rawPath": path, "rawQueryString": query,
            "headers": hdrs, "isBase64Encoded": False, "body": None,
            "requestContext": {
                "accountId": "000000000000", "apiId": "bench", "domainName": "bench.local",
                "domainPrefix": "bench", "requestId": rid, "routeKey": "$default", "stage": "$default",
                "time": "01/Jan/2026:00:00:00 +0000", "timeEpoch": 0,
                "http": {"method": "GET", "path": path, "protocol": "HTTP/1.1",
                         "sourceIp": "127.0.0.1", "userAgent": "bench"},
            },
        }
        rt.responses[rid] = queue.Queue()
        start = time.perf_counter()
        rt.events.put((rid, event))
        kind, data = rt.responses[rid].get(timeout=120)
        ms = (time.perf_counter() - start) * 1000
        if kind != "response":
            raise RuntimeError("function error: %s\n%s" % (data[:500], "\n".join(self.proc.tail)))
        res = json.loads(data)
        text = res.get("body") or ""
        if res.get("isBase64Encoded"):
            text = base64.b64decode(text).decode()
        for _ in range(200):
            if rid in self.logs:
                break
            time.sleep(0.005)
        body = json.loads(text) if text.strip() else None
        out_headers = {k.lower(): v for k, v in (res.get("headers") or {}).items()}
        log = self.logs.pop(rid, {})
        if res.get("statusCode", 200) >= 500:
            # What the function logged about it besides the request line.
            log = dict(log, detail=[line[:400] for line in self.proc.tail
                                    if rid in line and '"message":"request"' not in line])
        return res.get("statusCode"), out_headers, body, ms, log

    def measure(self, path, query, headers, runs=RUNS):
        """Median latency of `runs` calls; costs of the last one (every run
        asks the same, so costs repeat; the first may differ by a cursor)."""
        lat = []
        for _ in range(runs):
            status, hdrs, body, ms, log = self.call(path, query, headers)
            lat.append(ms)
        shown = len(body) if isinstance(body, list) else None
        return {
            "path": path, "query": query, "status": status,
            "calls": log.get("db_round_trips"), "seq": log.get("db_sequential"),
            "units": log.get("db_read_units"), "writes": log.get("db_write_units"),
            "ms": statistics.median(lat), "shown": shown, "total": hdrs.get("x-total-count"),
            "ops": log.get("db_calls"),
            "message": body.get("message") if isinstance(body, dict) else None,
            "detail": log.get("detail"),
        }

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def search_rows(st, caller):
    """(label, query, O(page), expected status) of the search rows for a
    caller."""
    common, rare = st["common_word"], st["rare_word"]
    owner = st["filter_owner"]
    since, before = iso(st["since"]), iso(st["before"])
    # Each signed-in caller names a team they belong to (bob: his team that
    # includes every repository; alice: hers, given 3 repositories). The
    # site admin and anonymous callers ask for alice's (anonymous ones get
    # 400: a team is only known to its organisation).
    if caller == "user500":
        team, team_opage = "owner=%s&team=%s" % (st["private_org"], st["private_team"]), True
    else:
        team, team_opage = "owner=%s&team=%s" % (st["team_org"], st["team"]), caller == "anonymous"
    return [
        ("no filter", "", True, 200),
        ("q (common: %s, %.0f %%)" % (common, 100 * st["common_share"]), "q=" + common, True, 200),
        ("q (rare: %s, 12 issues)" % rare, "q=" + rare, True, 200),
        ("labels=bug", "labels=bug", True, 200),
        ("milestones=v1", "milestones=v1", True, 200),
        ("since (2 days ago: ~50 public, 20 private)", "since=" + since, True, 200),
        ("before (60 days ago: most)", "before=" + before, False, 200),
        ("owner=" + owner, "owner=" + owner, True, 200),
        ("team (%s)" % team.split("&")[1], team, team_opage, 400 if caller == "anonymous" else 200),
        ("assigned", "assigned=true", True, 200),
        ("created", "created=true", True, 200),
        ("mentioned", "mentioned=true", True, 200),
        ("review_requested", "review_requested=true", True, 200),
        ("reviewed", "reviewed=true", True, 200),
        ("type=pulls", "type=pulls", True, 200),
        ("state=closed", "state=closed", True, 200),
        ("q=%s&labels=bug" % common, "q=%s&labels=bug" % common, True, 200),
        ("type=pulls&labels=bug", "type=pulls&labels=bug", True, 200),
        ("owner=%s&type=pulls&state=all" % owner, "owner=%s&type=pulls&state=all" % owner, True, 200),
    ]


# The anonymous requests the search issue measured before the index
# (615 repositories, 1,037 issues): calls (sequential) / read units / time.
ISSUE_ROWS = [
    ("none (`type=issues&state=open`)", "type=issues&state=open"),
    ("`labels=bug&state=all`", "labels=bug&state=all"),
    ("`milestones=v1&state=all`", "milestones=v1&state=all"),
    ("`q=<common word>&state=all`", None),
    ("`since=2000-01-01T00:00:00Z`", "since=2000-01-01T00:00:00Z"),
]
ISSUE_BEFORE = {
    "none (`type=issues&state=open`)": "9 (4) / 23.5 / 0.03 s",
    "`labels=bug&state=all`": "3,205 (845) / 1,682.5 / 6.7 s",
    "`milestones=v1&state=all`": "2,962 (604) / 1,723.5 / 6.1 s",
    "`q=<common word>&state=all`": "2,371 (46) / 1,618.5 / 5.2 s (`q=crash`)",
    "`since=2000-01-01T00:00:00Z`": "1,192 (7) / 1,612.0 / 3.6 s",
    "deep page of a repository's issues (10,000)": "999 read units",
    "deep page of an issue's comments (40)": "1,475.5 read units (200 comments of 60 KB)",
}


def repo_rows(st, repo, label_id):
    since = iso(st["since"])
    base = "/api/v1/repos/%s/%s" % (repo["owner"], repo["name"])
    return [
        ("issues?labels=bug", "search", base + "/issues", "labels=bug"),
        ("issues?milestones=v1", "search", base + "/issues", "milestones=v1"),
        ("issues?q=" + st["common_word"], "search", base + "/issues", "q=" + st["common_word"]),
        ("issues?since=(2 days)", "search", base + "/issues", "since=" + since),
        ("issues?created_by=" + st["user"], "search", base + "/issues", "created_by=" + st["user"]),
        ("pulls?labels=<bug>", "search", base + "/pulls", "labels=%d" % label_id),
        ("pulls?sort=recentupdate", "search", base + "/pulls", "sort=recentupdate"),
        ("issues/1/comments?since=(2 days)", "issues", base + "/issues/1/comments", "since=" + since),
    ]


def measure(state_path, point, bin_dir, results_path, admin, user, user500):
    st = json.load(open(state_path))
    results = json.load(open(results_path)) if os.path.exists(results_path) else {}
    tokens = {"anonymous": {}, "user": {"authorization": "token " + user},
              "user500": {"authorization": "token " + user500}, "admin": {"authorization": "token " + admin}}
    search = Function(os.path.join(bin_dir, "issue-search"))
    path = "/api/v1/repos/issues/search"
    started = time.perf_counter()
    try:
        for caller in CALLERS:
            search.call(path, "", tokens[caller])  # token cache, connections
            rows = results.setdefault("search", {}).setdefault(caller, {})
            for label, query, opage, want in search_rows(st, caller):
                m = search.measure(path, query, tokens[caller])
                m.update(opage=opage, want=want)
                rows.setdefault(label, {})[point] = m
        if point == "4":
            rows = results.setdefault("issue21", {})
            for label, query in ISSUE_ROWS:
                query = query or "q=%s&state=all" % st["common_word"]
                rows[label] = search.measure(path, query, tokens["anonymous"])
        if point in ("1", "4"):
            issues = Function(os.path.join(bin_dir, "issues"))
            try:
                repo_measure(st, point, search, issues, tokens["user"], results)
            finally:
                issues.stop()
    finally:
        search.stop()
    results.setdefault("seconds", {})[point] = time.perf_counter() - started
    results["state"] = {k: v for k, v in st.items() if k not in ("repos", "private_repos", "vocabulary")}
    json.dump(results, open(results_path, "w"), indent=1)
    print("measured point %s (%s) in %.0f s" % (point, POINTS[point], results["seconds"][point]))


def repo_measure(st, point, search, issues, auth, results):
    fns = {"search": search, "issues": issues}
    big, small = st["repos"][st["big"]], st["repos"][st["small"]]
    issues.call("/api/v1/repos/%s/%s/issues/1/comments" % (small["owner"], small["name"]), "", auth)
    rows = results.setdefault("repo", {})
    for key, repo in (("small", small), ("big", big)):
        bug = next(i for i, n in repo["labels"] if n == "bug")
        for label, fn, path, query in repo_rows(st, repo, bug):
            rows.setdefault(label, {})["%s@%s" % (key, point)] = fns[fn].measure(path, query, auth)
        rows_meta = results.setdefault("repo_sizes", {})
        rows_meta["%s@%s" % (key, point)] = repo["last_index"]
    if point != "4":
        return
    deep = results.setdefault("issue21", {})
    for label, fn, path in (
            ("deep page of a repository's issues (10,000)", search,
             "/api/v1/repos/%s/%s/issues" % (big["owner"], big["name"])),
            ("deep page of an issue's comments (40)", issues,
             "/api/v1/repos/%s/%s/issues/1/comments" % (big["owner"], big["name"]))):
        deep[label] = fn.measure(path, "page=4294967295", auth)
    # Pages 1..5 of a filtered listing in order (each later page starts at
    # the cursor the page before left), page 5 asked straight away (another
    # query identity: no cursor), and a deep page of the unfiltered list.
    base = "/api/v1/repos/%s/%s/issues" % (big["owner"], big["name"])
    walk = results.setdefault("walk", {})
    q = "labels=bug&state=all"
    for page in range(1, 6):
        walk["page %d (in order)" % page] = search.measure(base, "%s&page=%d" % (q, page), auth)
    walk["page 5 (straight away)"] = search.measure(base, "%s&fresh=1&page=5" % q, auth)
    walk["page 100, unfiltered (straight away)"] = search.measure(base, "state=all&page=100", auth)


# --- Report -----------------------------------------------------------------

def cell(m):
    if m is None:
        return "-"
    status = "" if m["status"] == 200 else " **%s**" % m["status"]
    return "%s (%s) / %s / %.0f ms%s" % (m["calls"], m["seq"], fmt_units(m["units"]), m["ms"], status)


def fmt_units(u):
    return "-" if u is None else ("%.1f" % u).rstrip("0").rstrip(".")


def spread(values):
    values = [v or 0 for v in values]
    lo, hi = min(values), max(values)
    if hi == 0:
        return 1.0
    if lo == 0:
        return float("inf")
    return hi / lo


def flat(values, slack):
    values = [v or 0 for v in values]
    return max(values) <= FLAT * min(values) or max(values) - min(values) <= slack


def verdict(ms, opage, want):
    """(pass: bool or None, text)."""
    bad_status = [m for m in ms if m["status"] != want]
    calls = spread([m["calls"] for m in ms])
    units = spread([m["units"] for m in ms])
    top_calls = max(m["calls"] or 0 for m in ms)
    top_units = max(m["units"] or 0 for m in ms)
    notes = []
    if bad_status:
        notes.append("status %s" % ",".join(str(m["status"]) for m in bad_status))
        notes.extend("logged: %s" % " | ".join(m["detail"]) for m in bad_status if m.get("detail"))
    if not flat([m["calls"] for m in ms], SLACK_CALLS):
        notes.append("calls x%.2f" % calls)
    if not flat([m["units"] for m in ms], SLACK_UNITS):
        notes.append("units x%.2f" % units)
    if top_calls > MAX_CALLS:
        notes.append("%d calls" % top_calls)
    if top_units > MAX_UNITS:
        notes.append("%s units" % fmt_units(top_units))
    if not opage:
        within = top_calls <= ROUTE_CALLS and top_units <= ROUTE_UNITS
        statuses = sorted({m["status"] for m in ms if m["status"] != 200})
        return None, "not O(page): x%.2f calls, x%.2f units%s%s" % (
            calls, units, "" if within else ", past the route's budget",
            "; status %s" % ", ".join(map(str, statuses)) if statuses else "")
    if notes:
        return False, "**FAIL** (%s)" % "; ".join(notes)
    return True, "PASS (x%.2f, x%.2f)" % (calls, units)


def explain_calls(bin_dir, auth, path, query):
    """The request's status, log line and calls, read through the proxy."""
    from ddb_trace import Proxy
    proxy = Proxy(os.environ["DYNAMODB_ENDPOINT"])
    binary = "issues" if path.endswith("/comments") else "issue-search"
    fn = Function(os.path.join(bin_dir, binary), env={"DYNAMODB_ENDPOINT": proxy.url})
    try:
        fn.call(path, "", auth)
        proxy.take()
        status, hdrs, body, ms, log = fn.call(path, query, auth)
        return status, hdrs, log, proxy.take()
    finally:
        fn.stop()


def print_explained(bin_dir, auth, path, query, title):
    from ddb_trace import table
    status, hdrs, log, calls = explain_calls(bin_dir, auth, path, query)
    docs = sum(int(part.split()[0]) for c in calls if c["op"] == "BatchGetItem"
               for part in c.get("what", "").split(", ") if part.endswith(" document"))
    entries = sum(c.get("items") or 0 for c in calls if c["op"] == "Query" and "listing" in c.get("what", ""))
    print("#### %s\n" % title)
    print("`GET %s?%s`: status %s, %s calls, %s read units; %d listing entries and %d documents read "
          "(through a recording proxy: the numbers may differ a little from the measured run)\n"
          % (path, query, status, log.get("db_round_trips"), fmt_units(log.get("db_read_units")), entries, docs))
    print(table(calls))
    print()


def explain(state_path, bin_dir, token, path, query):
    auth = {} if token == "-" else {"authorization": "token " + token}
    print_explained(bin_dir, auth, path, query, "%s?%s" % (path, query))


def report(results_path, explain_args=None):
    r = json.load(open(results_path))
    st = r["state"]
    points = [p for p in POINTS if p in r.get("seconds", {})]
    failed, passed, other = [], 0, 0
    print("## Search (`GET /repos/issues/search`), first page (limit 30)\n")
    print("Each cell: calls (sequential round trips) / read units / median latency of %d runs "
          "(costs of the last run). Verdict: an O(page) row passes when its calls and its read units "
          "each stay within x%.1f across the points (or within %d call / %d read units, for rows that "
          "read next to nothing) and at or under %d calls and %d read units at every point. Rows that "
          "are not O(page) are shown, not judged.\n" % (RUNS, FLAT, SLACK_CALLS, SLACK_UNITS, MAX_CALLS, MAX_UNITS))
    for caller in CALLERS:
        rows = r["search"][caller]
        print("### %s\n" % CALLER_NAMES[caller])
        print("| filter | O(page) | %s | shown / total (last) | verdict |" % " | ".join(POINTS[p] for p in points))
        print("|---|---|%s---|---|" % ("---|" * len(points)))
        for label, by_point in rows.items():
            ms = [by_point.get(p) for p in points]
            present = [m for m in ms if m]
            last = present[-1]
            ok, text = verdict(present, last["opage"], last["want"])
            if ok is True:
                passed += 1
            elif ok is False:
                failed.append((caller, label, text, present))
            else:
                other += 1
            total = ("%s / %s" % (last["shown"], last["total"]) if last["status"] == 200
                     else (last["message"] or "")[:50])
            print("| %s | %s | %s | %s | %s |" % (label, "yes" if last["opage"] else "no",
                                                 " | ".join(cell(m) for m in ms), total, text))
        print()

    repo_failed, repo_info = [], []
    if "repo" in r:
        sizes = r["repo_sizes"]
        cols = [c for c in ("small@4", "big@1", "big@4") if c in sizes]
        print("## A repository's own listings (as alice), first page\n")
        print("`ada/small` holds %d issues; `ada/big` %s issues at the first point and %s at the last. "
              "Gated: `big` as it grows 10-fold (calls and read units within x%.1f, at or under %d and %d). "
              "Shown, not gated: `big` against `small`, which cannot hold: a filter on 20 issues matches "
              "fewer than a page, and the walk past the page (the exact `X-Total-Count`) ends at once.\n"
              % (sizes.get("small@4", 20), "{:,}".format(sizes.get("big@1", 0)),
                 "{:,}".format(sizes.get("big@4", 0)), FLAT, MAX_CALLS, MAX_UNITS))
        print("| listing | %s | big 1,000 -> 10,000 (gated) | big vs small |" % " | ".join(
            "%s, %s issues" % (c.split("@")[0], "{:,}".format(sizes[c])) for c in cols))
        print("|---|%s---|---|" % ("---|" * len(cols)))
        for label, by in r["repo"].items():
            ms = [by.get(c) for c in cols]
            growth = verdict([by["big@1"], by["big@4"]], True, 200) if "big@1" in by and "big@4" in by else (None, "-")
            vs = verdict([by["small@4"], by["big@4"]], True, 200) if "small@4" in by and "big@4" in by else (None, "-")
            vs_text = vs[1].replace("**FAIL**", "not flat").replace("PASS", "flat")
            if growth[0] is False:
                repo_failed.append(("%s (big, 1,000 -> 10,000)" % label, growth[1], by["big@4"]))
            if vs[0] is False:
                repo_info.append(label)
            print("| %s | %s | %s | %s |" % (label, " | ".join(cell(m) for m in ms), growth[1], vs_text))
        print()
    if "walk" in r:
        print("## Paging `ada/big` (10,000 issues)\n")
        print("| request | calls (seq) / read units / ms | shown / total | within the route's budget "
              "(%d calls, %d read units) |" % (ROUTE_CALLS, ROUTE_UNITS))
        print("|---|---|---|---|")
        walk = r["walk"]
        for label, m in walk.items():
            within = m["status"] == 200 and m["calls"] <= ROUTE_CALLS and m["units"] <= ROUTE_UNITS
            if not within:
                repo_failed.append((label, "past the route's budget", m))
            print("| `%s` %s | %s | %s / %s | %s |" % (m["query"], label, cell(m), m["shown"], m["total"],
                                                   "yes" if within else "**no**"))
        first = walk.get("page 1 (in order)")
        second = walk.get("page 2 (in order)")
        later = [m for k, m in walk.items() if "(in order)" in k and k not in ("page 1 (in order)",
                                                                                "page 2 (in order)")]
        if first and second and later:
            # Page 2 finds page 1 again and leaves a cursor (a first page
            # leaves none: most callers ask for it alone); from page 3 on,
            # each page starts at the cursor the page before left.
            def within(m, factor):
                return (m["units"] <= factor * first["units"]
                        and m["calls"] <= factor * first["calls"] + SLACK_CALLS)
            ok = within(second, 2) and all(within(m, FLAT) for m in later)
            print("\nPaging in order: page 2 read %s calls and %s read units (at most twice page 1's "
                  "%s and %s: it finds page 1 again, then leaves a cursor); pages 3-5, each from the "
                  "cursor the page before left, %s-%s calls and %s-%s read units (within x%.1f of "
                  "page 1): %s\n"
                  % (second["calls"], fmt_units(second["units"]), first["calls"], fmt_units(first["units"]),
                     min(m["calls"] for m in later), max(m["calls"] for m in later),
                     fmt_units(min(m["units"] for m in later)), fmt_units(max(m["units"] for m in later)),
                     FLAT, "PASS" if ok else "**FAIL**"))
            if not ok:
                worst = max([second] + later, key=lambda m: (m["units"], m["calls"]))
                repo_failed.append(("paging in order", "cost more than allowed (the costliest: %s)"
                                    % worst["query"], worst))

    if "issue21" in r:
        print("## The search issue's requests, before and after\n")
        print("Before: `make dev` holding 615 repositories and 1,037 issues, every visible repository "
              "read. After: %s, from the index; anonymous, but the deep pages as alice (`page=4294967295`). Each cell: calls (sequential) / read units / time.\n"
              % POINTS["4"])
        print("| request | before | after | shown / total |")
        print("|---|---|---|---|")
        for label, m in r["issue21"].items():
            after = "%s (%s) / %s / %.0f ms%s" % (m["calls"], m["seq"], fmt_units(m["units"]), m["ms"],
                                                  "" if m["status"] == 200 else " **%s**" % m["status"])
            print("| %s | %s | %s | %s / %s |" % (label, ISSUE_BEFORE.get(label, "-"), after,
                                                 m["shown"], m["total"]))
        print()

    steps = st.get("steps", [])
    if steps:
        print("## Seeding (BatchWriteItem, straight into the table)\n")
        print("| step | items written | seconds | items/s |")
        print("|---|---|---|---|")
        for name, items, secs in steps:
            print("| %s | {:,} | %.0f | {:,.0f} |".format(items, items / max(secs, 0.001)) % (name, secs))
        print("| total | {:,} | %.0f | |\n".format(sum(s[1] for s in steps)) % sum(s[2] for s in steps))

    print("## Summary\n")
    print("- search: %d O(page) rows pass, %d fail; %d rows not O(page) (shown, not judged)"
          % (passed, len(failed), other))
    for caller, label, text, _ in failed:
        print("  - %s, %s: %s" % (CALLER_NAMES[caller], label, text))
    print("- a repository's listings (growth of `big`) and paging: %d failing" % len(repo_failed))
    for label, text, _ in repo_failed:
        print("  - %s: %s" % (label, text))
    if repo_info:
        print("- not flat against the 20-issue repository (not gated): %s" % ", ".join(repo_info))
    if "seconds" in r:
        print("- measuring took %s s" % ", ".join("%.0f" % r["seconds"][p] for p in points))

    if explain_args:
        explain_rows(r, explain_args, failed, repo_failed)
    print("\nRESULT: %s" % ("PASS" if not failed and not repo_failed else "FAIL"))
    return 1 if failed or repo_failed else 0


def explain_rows(r, explain_args, failed, repo_failed, most=12):
    """Asks the failing rows again (one caller per filter: the one that
    read most) through the recording proxy, and two rows that are not
    O(page), and lists their calls."""
    state_path, bin_dir, admin, user, user500 = explain_args
    tokens = {"anonymous": {}, "user": {"authorization": "token " + user},
              "user500": {"authorization": "token " + user500}, "admin": {"authorization": "token " + admin}}
    picked = {}
    for caller, label, text, ms in failed:
        key = label.split(" (")[0]
        if key not in picked or ms[-1]["units"] > picked[key][2]["units"]:
            picked[key] = (caller, "%s, %s: %s" % (CALLER_NAMES[caller], label, text), ms[-1])
    wanted = list(picked.values())
    for label, text, m in repo_failed:
        if m.get("path"):
            wanted.append(("user", "%s: %s" % (label, text), m))
    for caller in ("user", "anonymous"):
        for label, by in r["search"][caller].items():
            m = by.get(max(by))
            if not m["opage"] and m["status"] in (200, 422):
                wanted.append((caller, "%s, %s (not O(page))" % (CALLER_NAMES[caller], label), m))
    if not wanted:
        return
    print("\n## Where they read (the last point, asked again through bench/ddb_trace.py)\n")
    for caller, title, m in wanted[:most]:
        print_explained(bin_dir, tokens[caller], m["path"], m["query"], title)


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "measure":
        measure(*args[:7])
    elif mode == "report":
        sys.exit(report(args[0], args[1:6] if len(args) >= 6 else None))
    elif mode == "explain":
        explain(*args[:5])
    else:
        sys.exit(__doc__)
