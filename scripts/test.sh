#!/usr/bin/env bash
# `make test`: the documents' links and map (scripts/check-docs.py) and the
# layers' import rules (scripts/architecture-figures.py), then
# every test of the workspace against real DynamoDB Local, then the Swagger
# UI page in headless Chromium, schemathesis over the OpenAPI document and
# the fault test, then whether the functions used exactly the DynamoDB
# actions they are granted.
# Starts an in-memory DynamoDB Local on a free port unless DYNAMODB_ENDPOINT
# is given, builds the function binaries, serves them with
# `cargo lambda watch` on a free port for the black-box tests, with the
# stream pump delivering the table's stream to the stream function (status
# API at PUMP_URL), runs `cargo test --workspace`, and stops what it
# started. Exits non-zero on any failure, and when the pump died.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
. scripts/lib.sh

failed=()
# The documents first: a second's work, and a broken link or a source file
# missing from the README's map should not wait for the build to show.
echo "== docs (scripts/check-docs.py)"
python3 scripts/check-docs.py || failed+=("check-docs")
# The layers (docs/architecture.md): no import circle, no arrow back up.
echo "== architecture (scripts/architecture-figures.py --check)"
python3 scripts/architecture-figures.py --check || failed+=("architecture")

ensure_cargo_lambda
mkdir -p .local
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

start_dynamodb test

api_port="$(free_port)"
export TABLE_NAME="blackbox-$api_port-$(date +%s)"
export ROOT_URL="http://127.0.0.1:$api_port/"
export API_URL="http://127.0.0.1:$api_port"
export BOOTSTRAP_ADMIN_TOKEN="${BOOTSTRAP_ADMIN_TOKEN:-$(python3 -c 'import secrets; print(secrets.token_hex(20))')}"
export BOOTSTRAP_ADMIN_PASSWORD="${BOOTSTRAP_ADMIN_PASSWORD:-admin-password-$api_port}"
# Lambda's ApplicationLogLevel, as the functions read it: warnings and
# errors, plus the one line per request, which is kept at every level.
export AWS_LAMBDA_LOG_LEVEL="${AWS_LAMBDA_LOG_LEVEL:-WARN}"
# Tests that revoke a token expect the next call, on any instance, to fail;
# the cache has tests of its own (crates/people/src/auth/cache.rs and
# functions/accounts/tests/handlers.rs).
export TOKEN_CACHE_TTL_SECONDS="${TOKEN_CACHE_TTL_SECONDS:-0}"
# Webhook tests deliver to receivers they start on 127.0.0.1; nothing else
# may be called (crates/base/src/outbound).
export HOOK_ALLOWED_HOSTS="${HOOK_ALLOWED_HOSTS:-loopback}"
# Retries of failed deliveries in seconds, not an hour.
export HOOK_RETRY_SECONDS="${HOOK_RETRY_SECONDS:-1,1,1}"
# A running deployment without a heartbeat fails after seconds, not 90.
export RUNNER_SILENCE_SECONDS="${RUNNER_SILENCE_SECONDS:-4}"
# Secrets at rest are sealed under a key of this run's own.
use_secrets_key "$ROOT/.local/secrets-test.key"
# Each function process appends the DynamoDB actions it uses (and any its
# grant refused) here, once each (crates/store/src/db/access.rs); checked at the
# end against the grants.
export DYNAMODB_ACTIONS_LOG="$ROOT/.local/dynamodb-actions-$api_port.log"
: >"$DYNAMODB_ACTIONS_LOG"

# Build the tests, and the function binaries exactly as the emulator's
# `cargo run --bin <fn>` will ask for them (without the test-only feature
# of `shared`), so it starts them without compiling anything.
cargo build --workspace --all-targets
cargo build $(printf -- '-p %s ' $(ls functions))
cargo run --quiet -p ops --bin bootstrap

# DynamoDB Local on 2 cores, under the whole suite at once, has stalled a
# single write past the 2 s attempt timeout (2 of 5 runs on 2026-11-28: a
# 503 in some test's setup). Here the functions wait up to 5 s an attempt;
# the defaults' behaviour under a stalled database is what
# scripts/fault-test.sh tests, on its own stack.
DB_ATTEMPT_TIMEOUT_MS="${DB_ATTEMPT_TIMEOUT_MS:-5000}" \
  DB_OPERATION_TIMEOUT_MS="${DB_OPERATION_TIMEOUT_MS:-8000}" \
  cargo lambda watch --invoke-address 127.0.0.1 --invoke-port "$api_port" \
  --concurrency "${CONCURRENCY:-4}" --ignore-changes >"$LOG_DIR/watch-test.log" 2>&1 &
pids+=($!)
wait_http "$API_URL/api/v1/user" 120

# Start every instance of every function now: the emulator starts one with
# `cargo run`, which must not wait for the build lock `cargo test` holds.
warm_functions "${CONCURRENCY:-4}"
warm_stream 1
# The table's stream into the stream function, as Lambda's event source
# mapping would (`cargo build --workspace` built it); tests that must see
# background work wait on its GET /settle (api_tests::settle).
start_pump .local/stream-pump-test.log

# Build every test executable, then run them directly rather than through
# `cargo test`: cargo would hold the build lock while the tests run, and an
# emulator instance started meanwhile (`cargo run`) would wait on it until
# the request times out.
tests_list=.local/test-executables
cargo test --workspace --no-run --message-format=json-render-diagnostics |
  python3 -c '
import json, os, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["profile"]["test"] and m.get("executable"):
        print(os.path.dirname(m["manifest_path"]), m["executable"])
' >"$tests_list"

# The black-box tests are one executable (tests/tests/api/) whose tests
# mostly wait on the API: run as many at once as the emulator has instances
# of each function, so they overlap without queueing behind each other.
export RUST_TEST_THREADS="${RUST_TEST_THREADS:-${CONCURRENCY:-4}}"

while read -r dir exe; do
  echo "== $(basename "$exe")"
  (cd "$dir" && "$exe" "$@") || failed+=("$(basename "$exe")")
  # A test executable may have held the stream consumer back
  # (api_tests::hold_stream): the next one starts with it running.
  curl -s -o /dev/null "$PUMP_URL/hold?ms=0" || true
done <"$tests_list"

# The Swagger UI page in headless Chromium: every operation renders, and
# nothing is loaded from outside the API (SKIP_BROWSER_CHECK=1 skips it).
if [ -z "${SKIP_BROWSER_CHECK:-}" ]; then
  echo "== browser check (scripts/browser-check.sh)"
  scripts/browser-check.sh || failed+=("browser-check")
fi

# Published Gitea and Coolify client libraries, unchanged, run full flows.
if [ -z "${SKIP_CLIENT_FLOWS:-}" ]; then
  echo "== client flows (scripts/client-flows.sh)"
  scripts/client-flows.sh || failed+=("client-flows")
fi

# Schemathesis over docs/openapi.yaml against the same API: no 5xx of ours.
if [ -z "${SKIP_FUZZ:-}" ]; then
  echo "== fuzz (scripts/fuzz.sh)"
  scripts/fuzz.sh || failed+=("fuzz")
  echo "== fuzz over trimmed pages (scripts/fuzz-large.sh)"
  scripts/fuzz-large.sh || failed+=("fuzz-large")
fi

# The fault test freezes a database of its own.
if [ -z "${SKIP_FAULT_TEST:-}" ]; then
  echo "== fault test (scripts/fault-test.sh)"
  scripts/fault-test.sh || failed+=("fault-test")
fi

# No function called DynamoDB outside its grant (its `routes!` table, which
# template.yaml's policy is written from), and, on a full run, each used
# every action it is granted unless the grant marks it rare
# (xtask/src/grants.rs).
echo "== DynamoDB grants ($DYNAMODB_ACTIONS_LOG)"
if (($#)); then
  if grep -a '^denied ' "$DYNAMODB_ACTIONS_LOG"; then failed+=("dynamodb-grants"); fi
else
  cargo xtask grants "$DYNAMODB_ACTIONS_LOG" || failed+=("dynamodb-grants")
fi

# The pump must have lived through the run (a crash would leave background
# work undone without failing any test that does not wait for it).
if ! kill -0 "$PUMP_PID" 2>/dev/null; then
  echo "the stream pump died (.local/stream-pump-test.log):" >&2
  tail -n 20 .local/stream-pump-test.log >&2 || true
  failed+=("stream-pump")
else
  echo "== stream pump: $(curl -s "$PUMP_URL/stats")"
fi

if ((${#failed[@]})); then
  echo "FAILED test executables: ${failed[*]}" >&2
  echo "--- last errors of the local API ($LOG_DIR/watch-test.log):" >&2
  # Request lines (and the stream consumer's batch lines) carry the
  # configured level (WARN here): leave them out.
  grep -a -v -E '"message":"(request|batch)"' "$LOG_DIR/watch-test.log" |
    grep -a -E '"level":"(ERROR|WARN)"|panicked|ERROR|error' | tail -n 40 >&2 || true
  echo "--- the stream pump's warnings (.local/stream-pump-test.log):" >&2
  grep -a -E 'WARN|ERROR' .local/stream-pump-test.log | tail -n 10 >&2 || true
  exit 1
fi
echo "all $(wc -l <"$tests_list") test executables passed"
