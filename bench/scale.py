#!/usr/bin/env python3
"""Issue listing and search at scale: request units, round trips and latency
of the issue-search function (release binary). Run by scripts/bench-scale.sh.

Usage:
  scale.py lists BINARY ADMIN_TOKEN OWNER
      listings of repositories of 100 and 10,000 issues (OWNER's small-0, big-0)
  scale.py search BINARY ADMIN_TOKEN USER_TOKEN OWNER REPOS [--text]
      search as an ordinary user (USER_TOKEN), anonymously and as a site
      admin, with REPOS public repositories of OWNER seeded
"""
import statistics
import sys
import time

from lambda_bench import Runtime, spawn


class Bench:
    def __init__(self, binary):
        self.runtime = Runtime()
        self.logs = {}
        self.proc = spawn(binary, self.runtime, self.logs)
        self.rows = []

    def measure(self, label, path, query="", headers=None, runs=5):
        """Median latency over `runs`; round trips and units of the last
        (warm) call."""
        lat = []
        for _ in range(runs):
            rid, status, body, ms = self.runtime.invoke("GET", path, headers or {}, None, query)
            assert status == 200, (label, status, body)
            lat.append(ms)
        for _ in range(100):
            if rid in self.logs:
                break
            time.sleep(0.01)
        log = self.logs.get(rid, {})
        self.rows.append((label, len(body), "%s (%s)" % (log.get("db_sequential"), log.get("db_round_trips")),
                          log.get("db_read_units"), statistics.median(lat)))

    def print(self, header):
        self.proc.kill()
        if header:
            print("| request | items | sequential round trips (calls) | read units | median latency ms |")
            print("|---|---|---|---|---|")
        for label, n, rt, rcu, ms in self.rows:
            print("| %s | %s | %s | %s | %.0f |" % (label, n, rt, rcu, ms))


def lists(binary, token, owner):
    b = Bench(binary)
    auth = {"authorization": "token " + token}
    for size, repo in (("100", "small-0"), ("10,000", "big-0")):
        base = "/api/v1/repos/%s/%s/issues" % (owner, repo)
        b.measure("list, %s issues, first page (open)" % size, base, headers=auth)
        b.measure("list, %s issues, first page, state=all" % size, base, "state=all", auth)
        b.measure("list, %s issues, page 5 of 30" % size, base, "page=5&limit=30", auth)
        b.measure("list, %s issues, filtered (q=...7)" % size, base, "q=issue%207&state=all", auth, runs=3)
    b.print(True)


def search(binary, admin_token, user_token, owner, repos, text):
    b = Bench(binary)
    user = {"authorization": "token " + user_token}
    admin = {"authorization": "token " + admin_token}
    path = "/api/v1/repos/issues/search"
    b.measure("search, %s repos, ordinary user, first page" % repos, path, "", user)
    b.measure("search, %s repos, ordinary user, state=all" % repos, path, "state=all", user)
    b.measure("search, %s repos, ordinary user, owner=%s" % (repos, owner), path, "owner=" + owner, user)
    b.measure("search, %s repos, ordinary user, created=true" % repos, path, "created=true", user)
    b.measure("search, %s repos, anonymous, first page" % repos, path, "", {})
    b.measure("search, %s repos, site admin, first page" % repos, path, "", admin)
    b.measure("search, %s repos, site admin, page 5" % repos, path, "page=5&limit=30", admin)
    if text:
        b.measure("search, %s repos, ordinary user, q filter" % repos, path, "q=issue%203%20of%20many", user,
                  runs=1)
    b.print(False)


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "lists":
        lists(*args[:3])
    else:
        search(*args[:5], text="--text" in args)
