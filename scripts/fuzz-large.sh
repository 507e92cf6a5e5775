#!/usr/bin/env bash
# Fuzzes the listings whose pages Lambda's 6 MB response limit makes the
# API trim (`body` and the other long fields left out, named in
# `X-Omitted-Fields`), so that schema-checking clients and fuzzers meet
# those pages too. Seeds, through the API as the bootstrap admin, a
# repository of 20 issues and 20 comments on its first issue, each with
# the longest body in the character JSON escapes the most (a page of them
# is ~8 MB before trimming); then runs scripts/fuzz.sh over the issue,
# pull and comment listings and search, every case pointed at that
# repository (scripts/fuzz-large.toml), and fails unless some answer was
# trimmed and every answer matches docs/openapi.yaml.
# Expects API_URL and BOOTSTRAP_ADMIN_TOKEN, as scripts/fuzz.sh does.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
: "${API_URL:?API_URL must name the API under test}"
: "${BOOTSTRAP_ADMIN_TOKEN:?BOOTSTRAP_ADMIN_TOKEN must hold the bootstrap admin token}"

seeded="$(python3 - <<'PY'
import json, os, time, urllib.request

api, token = os.environ["API_URL"].rstrip("/"), os.environ["BOOTSTRAP_ADMIN_TOKEN"]
body = "\u0001" * 65_536


def call(method, path, payload=None):
    req = urllib.request.Request(
        f"{api}/api/v1{path}",
        method=method,
        data=json.dumps(payload).encode() if payload is not None else None,
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=60) as res:
        return json.loads(res.read() or b"null")


owner = call("GET", "/user")["login"]
repo = call("POST", "/user/repos", {"name": f"fuzz-large-{int(time.time())}"})["name"]
numbers = [
    call("POST", f"/repos/{owner}/{repo}/issues", {"title": f"large {i}", "body": body})["number"]
    for i in range(20)
]
for _ in range(20):
    call("POST", f"/repos/{owner}/{repo}/issues/{numbers[0]}/comments", {"body": body})
print(owner, repo, numbers[0])
PY
)"
read -r FUZZ_OWNER FUZZ_REPO FUZZ_INDEX <<<"$seeded"
export FUZZ_OWNER FUZZ_REPO FUZZ_INDEX
echo "fuzz-large: seeded $FUZZ_OWNER/$FUZZ_REPO (issue $FUZZ_INDEX holds the comments)"

list="GET /api/v1/repos/{owner}/{repo}"
FUZZ_OUT=.local/fuzz-large FUZZ_CONFIG=scripts/fuzz-large.toml \
  FUZZ_MAX_EXAMPLES="${FUZZ_MAX_EXAMPLES:-5}" scripts/fuzz.sh \
  --checks response_schema_conformance \
  --include-name "$list/issues" \
  --include-name "$list/pulls" \
  --include-name "$list/issues/comments" \
  --include-name "$list/issues/{index}/comments" \
  --include-name "GET /api/v1/repos/issues/search"

# The run must have met trimmed pages, or it proved nothing; and every
# answer must match the document (fuzz.sh judges only server errors).
python3 - <<'PY'
import json, sys

trimmed, mismatches = 0, []
for line in open(".local/fuzz-large/events.ndjson"):
    event = json.loads(line)
    if "ScenarioFinished" not in event:
        continue
    recorder = event["ScenarioFinished"]["recorder"]
    for interaction in recorder.get("interactions", {}).values():
        response = interaction.get("response") or {}
        headers = {k.lower() for k in (response.get("headers") or {})}
        trimmed += "x-omitted-fields" in headers
    for checks in recorder.get("checks", {}).values():
        for check in checks:
            if check["name"] == "response_schema_conformance" and check["status"] != "success":
                mismatches.append(json.dumps(check)[:500])
for m in mismatches[:5]:
    print(f"fuzz-large: an answer does not match the document: {m}", file=sys.stderr)
if trimmed == 0:
    print("fuzz-large: no answer left fields out: the run never reached the large pages", file=sys.stderr)
if mismatches or trimmed == 0:
    sys.exit(1)
print(f"fuzz-large: {trimmed} answers left fields out (X-Omitted-Fields), all matching the document")
PY
