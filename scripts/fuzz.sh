#!/usr/bin/env bash
# Fuzzes a running API with schemathesis over docs/openapi.yaml: every
# operation of the document, all phases (examples, coverage, fuzzing,
# stateful), only the `not_a_server_error` check, as the bootstrap admin.
# Expects API_URL and BOOTSTRAP_ADMIN_TOKEN in the environment (as
# scripts/test.sh exports them); installs the pinned schemathesis into the
# git-ignored .venv when missing. Reproducible: a fixed seed, a bounded number
# of examples per operation, no example database and no cache carried over.
#
# Reports go to .local/fuzz/: schemathesis.log (its console output),
# report.json (run summary), events.ndjson (every request and response),
# junit.xml, and summary.txt (every 5xx and unanswered request, each with a
# curl command reproducing it).
#
# Every 5xx (and every request left unanswered for FUZZ_REQUEST_TIMEOUT
# seconds, a 504 behind API Gateway) is sorted out:
#   ours          a 5xx carrying `x-request-id`: produced by our functions;
#   emulator      a 5xx without `x-request-id` for a body that is not UTF-8:
#                 `cargo lambda watch` refuses to forward it (API Gateway
#                 passes it base64-encoded and the function answers 400);
#   lost          any other 5xx without `x-request-id`, or no answer, that
#                 does not come back when the request is sent again alone:
#                 the emulator now and then drops a large answer under
#                 concurrent load and answers a bare 500 (or nothing) itself;
#   unattributed  the same, but it comes back: a crashed or hung function is
#                 answered by the emulator this way.
# Exits 1 when anything is `ours` or `unattributed` (FUZZ_STRICT=1: anything
# at all), 2 when schemathesis did not complete.
#
# Tunables: FUZZ_SEED (1), FUZZ_MAX_EXAMPLES per operation (20),
# FUZZ_WORKERS (4), FUZZ_REQUEST_TIMEOUT in seconds (30), FUZZ_STRICT (0);
# FUZZ_OUT (the reports' folder, .local/fuzz), FUZZ_CONFIG (a
# schemathesis.toml, e.g. fixed parameters). Arguments are passed on to
# `st run` (e.g. which operations): scripts/fuzz-large.sh uses all three.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

: "${API_URL:?API_URL must name the API under test, e.g. http://127.0.0.1:9000}"
: "${BOOTSTRAP_ADMIN_TOKEN:?BOOTSTRAP_ADMIN_TOKEN must hold the bootstrap admin token}"
export BOOTSTRAP_ADMIN_TOKEN
seed="${FUZZ_SEED:-1}"
max_examples="${FUZZ_MAX_EXAMPLES:-20}"
workers="${FUZZ_WORKERS:-4}"
request_timeout="${FUZZ_REQUEST_TIMEOUT:-30}"
strict="${FUZZ_STRICT:-0}"

version=4.32.5
venv="$ROOT/.venv"
if [ "$("$venv/bin/st" --version 2>/dev/null || true)" != "st, version $version" ]; then
  [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version"
fi

out="${FUZZ_OUT:-.local/fuzz}"
config=()
if [ -n "${FUZZ_CONFIG:-}" ]; then
  config=(--config-file "$ROOT/$FUZZ_CONFIG")
fi
rm -rf "$out"
mkdir -p "$out"

# The paths of the document already start with /api/v1, so the base URL is
# the root (and overrides the document's `servers`). Token query parameters
# are left out of generation: a random `token` is read before the header and
# would turn most cases into a 401. `--continue-on-failure` keeps an
# operation going after a 5xx so that one emulator 5xx cannot hide others.
# Run from inside $out: schemathesis keeps a cache (replayed by the next run)
# and the crash files `st replay <id>` reads under ./.schemathesis, which must
# neither land in the repository nor carry over between runs.
echo "fuzzing $API_URL with schemathesis $version (seed $seed, $max_examples examples per operation, $workers workers; log: $out/schemathesis.log)"
started=$SECONDS
st_status=0
(cd "$out" && exec "$venv/bin/st" --no-color "${config[@]}" run "$ROOT/docs/openapi.yaml" \
  --url "${API_URL%/}" \
  --header "Authorization: token $BOOTSTRAP_ADMIN_TOKEN" \
  --checks not_a_server_error \
  --phases examples,coverage,fuzzing,stateful \
  --max-examples "$max_examples" \
  --seed "$seed" \
  --workers "$workers" \
  --generation-database none \
  --generation-with-security-parameters false \
  --continue-on-failure \
  --request-timeout "$request_timeout" \
  --report json,ndjson,junit \
  --report-json-path report.json \
  --report-ndjson-path events.ndjson \
  --report-junit-path junit.xml \
  "$@" \
  >schemathesis.log 2>&1) || st_status=$?
fuzzed=$((SECONDS - started))

# schemathesis exits 1 on any failed check (the emulator's 5xx included), so
# the verdict comes from the recorded responses.
python3 - "$out" "$fuzzed" "$st_status" "$strict" "$request_timeout" <<'PY'
import base64, http.client, json, os, sys, time
from collections import Counter
from urllib.parse import urlsplit

out, fuzzed, st_status = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
strict, timeout = sys.argv[4] == "1", float(sys.argv[5])
token = os.environ["BOOTSTRAP_ADMIN_TOKEN"]
# Sending again is bounded: 3 tries per request, 2 minutes in all.
REPLAYS, REPLAY_BUDGET = 3, 120.0

try:
    report = json.load(open(f"{out}/report.json"))
except (OSError, ValueError):
    report = None
if report is None or not report.get("complete") or st_status not in (0, 1):
    print(f"fuzz: schemathesis did not complete (exit {st_status}); see {out}/schemathesis.log", file=sys.stderr)
    sys.exit(2)


def raw(body):
    if not body:
        return b""
    if "$base64" in body:
        return base64.b64decode(body["$base64"])
    return body.get("string", "").encode()


def utf8(data):
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def headers_of(request):
    """The request's headers but the masked ones (the token comes back below).

    Reports mask secret-looking values (an Idempotency-Key, ...); the
    placeholder would only replay a stored answer."""
    return [
        (name, value)
        for name, values in request.get("headers", {}).items()
        if name.lower() not in ("authorization", "user-agent", "x-schemathesis-testcaseid")
        for value in values
        if value != "[Filtered]"
    ]


def shell_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def curl(request):
    parts = ["curl -si -X", request["method"], '-H "Authorization: token $BOOTSTRAP_ADMIN_TOKEN"']
    parts += ["-H " + shell_quote(f"{name}: {value}") for name, value in headers_of(request)]
    command = " ".join(parts) + " " + shell_quote(request["uri"])
    body = raw(request.get("body"))
    if not body:
        return command
    # printf with \xNN escapes: the body's exact bytes, UTF-8 or not.
    escaped = "".join(chr(b) if 0x20 <= b < 0x7F and chr(b) not in "'\\%" else f"\\x{b:02x}" for b in body)
    return f"printf '{escaped}' | {command} --data-binary @-"


def send(request):
    """Sends the recorded request again, alone: (status, has x-request-id) or None."""
    url = urlsplit(request["uri"])
    connection = (http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection)(
        url.hostname, url.port, timeout=timeout
    )
    try:
        headers = dict(headers_of(request))
        headers["Authorization"] = f"token {token}"
        connection.request(
            request["method"], url.path + (f"?{url.query}" if url.query else ""),
            body=raw(request.get("body")) or None, headers=headers,
        )
        response = connection.getresponse()
        response.read()
        return response.status, response.getheader("x-request-id") is not None
    except Exception:
        return None
    finally:
        connection.close()


def settle(request, deadline):
    """`ours`, `lost` or `unattributed` for a bare 5xx or an unanswered request."""
    for attempt in range(REPLAYS):
        if time.monotonic() + timeout > deadline:
            break
        answer = send(request)
        if answer is not None and answer[1]:
            return "ours" if answer[0] >= 500 else "lost"
        time.sleep(0.5 * (attempt + 1))
    return "unattributed"


kinds = Counter()
groups = {}  # (kind, operation, status, body) -> [count, request, response headers]
tool_errors = Counter()
replay_deadline = time.monotonic() + REPLAY_BUDGET
for line in open(f"{out}/events.ndjson"):
    event = json.loads(line)
    if "NonFatalError" in event:
        error = event["NonFatalError"]
        # Requests left unanswered are found in the interactions below.
        if not any(word in error["value"]["type"] for word in ("Timeout", "Connection")):
            tool_errors[(error.get("label") or "?", f"{error['value']['type']}: {error['value']['message']}")] += 1
        continue
    if "ScenarioFinished" not in event:
        continue
    recorder = event["ScenarioFinished"]["recorder"]
    for case_id, interaction in recorder.get("interactions", {}).items():
        request, response = interaction["request"], interaction.get("response")
        if response is not None and response["status_code"] < 500:
            continue
        headers = {k.lower(): v for k, v in (response or {}).get("headers", {}).items()}
        if response is not None and "x-request-id" in headers:
            kind = "ours"
        elif response is not None and not utf8(raw(request.get("body"))):
            kind = "emulator"
        else:
            kind = settle(request, replay_deadline)
        kinds[kind] += 1
        case = recorder["cases"].get(case_id, {}).get("value", {})
        operation = f"{case.get('method', request['method'])} {case.get('path', recorder['label'])}"
        status = response["status_code"] if response else "no answer"
        text = raw(response.get("content")).decode("utf-8", "replace") if response else ""
        key = (kind, operation, status, text)
        if key in groups:
            groups[key][0] += 1
        else:
            groups[key] = [1, request, headers]

failing = {"ours", "unattributed"} | ({"emulator", "lost"} if strict else set())
details, shown = [], []  # everything (summary.txt); what the console gets
order = {"ours": 0, "unattributed": 1, "lost": 2, "emulator": 3}
for (kind, operation, status, text), (count, request, headers) in sorted(groups.items(), key=lambda g: (order[g[0][0]], g[0][1])):
    entry = [
        f"[{kind}] {operation} -> {status} ({count}x)",
        f"  content-type: {', '.join(headers.get('content-type', ['-']))}; x-request-id: {', '.join(headers.get('x-request-id', ['-']))}",
        f"  body: {text[:300]}",
        f"  reproduce: {curl(request)}",
    ]
    details += entry
    if kind in failing:
        shown += entry
for kind, what in (
    ("lost", "bare 5xx or unanswered requests under load that answered normally when sent again alone"),
    ("emulator", "bare 5xx for non-UTF-8 bodies the emulator does not forward"),
):
    operations = {key[1] for key in groups if key[0] == kind}
    if operations and kind not in failing:
        shown.append(f"[{kind}] {kinds[kind]} {what}, on {len(operations)} operations (reproductions in {out}/summary.txt)")
for (label, message), count in sorted(tool_errors.items()):
    details.append(f"[schemathesis error, not the API] {label} ({count}x): {message[:200]}")
    shown.append(details[-1])

ops = report["operations"]
summary = (
    f"fuzz: {ops['tested']}/{ops['total']} operations, {report['test_cases']['generated']} cases in {fuzzed}s: "
    f"{kinds['ours']} server errors from our functions, {kinds['unattributed']} unattributed; not ours: "
    f"{kinds['emulator']} emulator 5xx for non-UTF-8 bodies, {kinds['lost']} not reproduced alone; "
    f"{sum(tool_errors.values())} schemathesis errors"
)
with open(f"{out}/summary.txt", "w") as f:
    f.write("\n".join([summary, *details]) + "\n")
print("\n".join([*shown, summary]))
sys.exit(1 if any(kinds[k] for k in failing) else 0)
PY
