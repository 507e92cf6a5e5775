#!/usr/bin/env python3
"""How long the search index trails a write: against a running `make dev`,
create an issue holding a word nothing else holds, then search for that
word until it is found; repeated, it prints the median and the worst.

Usage: index_delay.py [RUNS]   (API_URL and the admin token of make dev:
       $API_URL or http://127.0.0.1:9000, .local/admin-token)
"""
import json
import os
import secrets
import statistics
import sys
import time
import urllib.request

API = os.environ.get("API_URL", "http://127.0.0.1:9000").rstrip("/") + "/api/v1"
TOKEN = open(os.path.join(os.path.dirname(__file__), "..", ".local", "admin-token")).read().strip()


def call(method, path, body=None):
    req = urllib.request.Request(
        API + path,
        data=json.dumps(body).encode() if body is not None else None,
        method=method,
        headers={"Authorization": "token " + TOKEN, "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req) as r:
        return json.loads(r.read() or b"null")


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    repo = "delay" + secrets.token_hex(4)
    call("POST", "/user/repos", {"name": repo})
    me = call("GET", "/user")["login"]
    delays = []
    for _ in range(runs):
        word = "w" + secrets.token_hex(6)
        call("POST", "/repos/%s/%s/issues" % (me, repo), {"title": "delay " + word})
        # From the create's answer: how long a client that just filed an
        # issue waits before search finds it.
        start = time.monotonic()
        while True:
            found = call("GET", "/repos/issues/search?q=%s&state=all" % word)
            if found:
                break
            time.sleep(0.01)
        delays.append((time.monotonic() - start) * 1000)
    delays.sort()
    print("index delay over %d writes: median %.0f ms, worst %.0f ms (from the create's answer until search by q finds it)"
          % (runs, statistics.median(delays), delays[-1]))


if __name__ == "__main__":
    main()
