#!/usr/bin/env python3
"""Issue listing and search at scale: request units, round trips and latency
of the issue-search function (release binary) on repositories of 100 and
10,000 issues and a search over 200+ repositories. Run by scripts/bench-scale.sh.

Usage: scale.py BINARY ADMIN_TOKEN OWNER
"""
import statistics
import sys
import time

from lambda_bench import Runtime, spawn


def main():
    binary, token, owner = sys.argv[1:4]
    runtime = Runtime()
    logs = {}
    proc = spawn(binary, runtime, logs)
    auth = {"authorization": "token " + token}
    rows = []

    def measure(label, path, query="", headers=auth, runs=5):
        lat = []
        for _ in range(runs):
            rid, status, body, ms = runtime.invoke("GET", path, headers, None, query)
            assert status == 200, (label, status, body)
            lat.append(ms)
        for _ in range(100):
            if rid in logs:
                break
            time.sleep(0.01)
        log = logs.get(rid, {})
        rows.append((label, len(body), "%s (%s)" % (log.get("db_sequential"), log.get("db_round_trips")),
                     log.get("db_read_units"), statistics.median(lat)))

    for size, repo in (("100", "small-0"), ("10,000", "big-0")):
        base = "/api/v1/repos/%s/%s/issues" % (owner, repo)
        measure("list, %s issues, first page (open)" % size, base)
        measure("list, %s issues, first page, state=all" % size, base, "state=all")
        measure("list, %s issues, page 5 of 30" % size, base, "page=5&limit=30")
        measure("list, %s issues, filtered (q=...7)" % size, base, "q=issue%207&state=all", runs=3)
    measure("search, owner (%s: 200+ repos), first page" % owner, "/api/v1/repos/issues/search", "owner=" + owner, runs=3)
    measure("search, all visible repos, first page", "/api/v1/repos/issues/search", "", runs=3)
    measure("search, all visible repos, q filter", "/api/v1/repos/issues/search", "q=issue%203%20of%20many", runs=3)
    proc.kill()
    print("| request | items | sequential round trips (calls) | read units | median latency ms |")
    print("|---|---|---|---|---|")
    for label, n, rt, rcu, ms in rows:
        print("| %s | %s | %s | %s | %.0f |" % (label, n, rt, rcu, ms))


if __name__ == "__main__":
    main()
