#!/usr/bin/env bash
# Opens the Swagger UI page of a running API (`/api/swagger`) in Debian's
# headless Chromium, as a person would, and checks what it shows and what
# it loaded:
#   - one operation block per operation of the OpenAPI document the API
#     serves, and the document's title;
#   - every request the page made went to the API itself and got a 2xx
#     (the page, its assets, the document): a missing or broken asset, page
#     or document fails the check, and so does any outside URL;
#   - no script error and no Content-Security-Policy refusal in the console.
# Expects API_URL (scripts/test.sh exports it). Takes a few seconds.
# Leaves in .local/browser/: dom.html (the page as rendered), netlog.json
# (Chromium's record of its requests), chromium.log (its console).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
: "${API_URL:?API_URL must name the API under test, e.g. http://127.0.0.1:9000}"

chromium="$(command -v chromium || true)"
if [ -z "$chromium" ]; then
  echo "browser check: chromium is not installed (apt-get install chromium; .ci/run does)," \
    "or skip the check with SKIP_BROWSER_CHECK=1" >&2
  exit 1
fi

out=.local/browser
rm -rf "$out"
mkdir -p "$out"
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
api="${API_URL%/}"
curl -fsS --max-time 120 "$api/swagger.v1.json" -o "$out/swagger.v1.json"

# The flags this machine needs (root, no GPU, no network of Chromium's
# own), a fresh profile, and virtual time: the page's scripts run until
# nothing is left to do, without waiting in real time.
started=$(date +%s%N)
status=0
timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic \
  --no-first-run --disable-background-networking --disable-component-update \
  --disable-sync --user-data-dir="$profile" \
  --enable-logging=stderr --log-level=0 --log-net-log="$out/netlog.json" \
  --virtual-time-budget=15000 --dump-dom "$api/api/swagger" \
  >"$out/dom.html" 2>"$out/chromium.log" || status=$?
elapsed_ms=$((($(date +%s%N) - started) / 1000000))

python3 - "$out" "$api" "$status" "$elapsed_ms" <<'PY'
import html, json, re, sys
from urllib.parse import urlsplit

out, api, status, elapsed_ms = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
problems = []
if status:
    problems.append(f"chromium exited {status} (see {out}/chromium.log)")

# What the document holds: Swagger UI shows an operation once per tag
# (untagged ones under "default").
doc = json.load(open(f"{out}/swagger.v1.json"))
methods = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
ops = [op for item in doc["paths"].values() for m, op in item.items() if m in methods]
expected = sum(max(1, len(op.get("tags", []))) for op in ops)

dom = open(f"{out}/dom.html", encoding="utf-8", errors="replace").read()
rendered = len(re.findall(r'class="opblock opblock-', dom))
if rendered != expected:
    missing = [op.get("operationId") for op in ops
               if f'-{op.get("operationId")}"' not in dom]
    problems.append(f"{rendered} operation blocks rendered, the document has {expected}"
                    + (f"; missing e.g. {missing[:5]}" if missing else ""))
title = doc["info"]["title"]
if html.escape(title, quote=False) not in dom:
    problems.append(f"the document's title {title!r} is not on the page")

# Every request the page made (Chromium's own background requests have no
# page as initiator): to the API, answered 2xx.
origin = "{0.scheme}://{0.netloc}".format(urlsplit(api))
try:
    net = json.load(open(f"{out}/netlog.json"))
except (OSError, ValueError) as e:  # Chromium died before closing it
    net = {"constants": {"logEventTypes": {}}, "events": []}
    problems.append(f"no network log: {e}")
kinds = {v: k for k, v in net["constants"]["logEventTypes"].items()}
requests = {}
for e in net["events"]:
    kind, p = kinds.get(e["type"]), e.get("params", {})
    r = requests.setdefault(e["source"]["id"], {})
    if kind == "REQUEST_ALIVE" and "url" in p:
        r["url"] = p["url"]
    elif kind == "URL_REQUEST_START_JOB" and "method" in p:
        r["page"] = p.get("initiator") == origin or p.get("request_type") == "main frame"
    elif kind == "HTTP_TRANSACTION_READ_RESPONSE_HEADERS":
        r["status"] = p["headers"][0]
    elif "net_error" in p:
        r["error"] = p["net_error"]
loaded = [r for r in requests.values() if r.get("page") and "url" in r]
for r in loaded:
    line = r.get("status", f"no answer (net error {r.get('error')})")
    ok = re.match(r"HTTP/\S+ 2\d\d", line) and r["url"].startswith(origin + "/")
    print(f"  {line:<24} {r['url']}")
    if not ok:
        problems.append(f"{r['url']}: {line}")
if len(loaded) < 4:
    problems.append(f"the page made {len(loaded)} requests: page, stylesheet, scripts, document expected")

# The console: script errors and Content-Security-Policy refusals.
console = [l.split("] ", 1)[-1] for l in open(f"{out}/chromium.log", errors="replace")
           if ":CONSOLE" in l]
for line in console:
    print(f"  console: {line.strip()[:300]}")
    if re.search(r"Uncaught|Content Security Policy|Refused to|Error", line):
        problems.append(f"console: {line.strip()[:300]}")

if problems:
    print("browser check FAILED:", *problems, sep="\n  ", file=sys.stderr)
    sys.exit(1)
print(f"browser check: {rendered} of {expected} operations rendered, {len(loaded)} requests "
      f"all served by the API, no console error, in {elapsed_ms / 1000:.1f}s")
PY
