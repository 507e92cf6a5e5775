#!/usr/bin/env bash
# The fault tests (tests/tests/fault.rs) with a DynamoDB Local, an API and a
# stream pump of its own: one freezes its database (SIGSTOP), which would
# stall every other test sharing one; the other fails the stream consumer's
# calls alone, through scripts/ddb-fault-proxy.py, a loopback proxy that
# the functions (and only they) reach DynamoDB Local by. Expects the
# function binaries and the test executables to be built (scripts/test.sh
# builds them first).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
. scripts/lib.sh

ensure_cargo_lambda
mkdir -p .local
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT INT TERM

ddb_port="$(free_port)"
scripts/dynamodb-local.sh run "$ddb_port" >.local/dynamodb-fault.log 2>&1 &
ddb_pid=$!
pids+=("$ddb_pid")
export DYNAMODB_ENDPOINT="http://127.0.0.1:$ddb_port"
wait_http "$DYNAMODB_ENDPOINT" 90

# The functions' way to the database, which the test can fail for one of
# them (the stream consumer) at a time.
proxy_port="$(free_port)"
python3 scripts/ddb-fault-proxy.py "$proxy_port" "$DYNAMODB_ENDPOINT" >.local/ddb-fault-proxy.log 2>&1 &
pids+=($!)
export FAULT_PROXY_URL="http://127.0.0.1:$proxy_port"
wait_http "$FAULT_PROXY_URL/__fault" 30

api_port="$(free_port)"
export TABLE_NAME="fault-$api_port"
export ROOT_URL="http://127.0.0.1:$api_port/" API_URL="http://127.0.0.1:$api_port"
export BOOTSTRAP_ADMIN_TOKEN="$(python3 -c 'import secrets; print(secrets.token_hex(20))')"
export BOOTSTRAP_ADMIN_PASSWORD="admin-password-$api_port"
export AWS_LAMBDA_LOG_LEVEL="${AWS_LAMBDA_LOG_LEVEL:-WARN}"
# The test's webhook receiver is on loopback; failed sends retried in
# seconds (as scripts/test.sh sets them).
export HOOK_ALLOWED_HOSTS="${HOOK_ALLOWED_HOSTS:-loopback}"
export HOOK_RETRY_SECONDS="${HOOK_RETRY_SECONDS:-1,1,1}"
# Secrets at rest sealed as under scripts/test.sh (run alone: a key of its
# own).
[ -n "${SECRETS_KEY_FILE:-}" ] || use_secrets_key "$ROOT/.local/secrets-fault.key"
cargo run --quiet -p ops --bin bootstrap >/dev/null

DYNAMODB_ENDPOINT="$FAULT_PROXY_URL" cargo lambda watch --invoke-address 127.0.0.1 --invoke-port "$api_port" \
  --concurrency 8 --ignore-changes >"$LOG_DIR/watch-fault.log" 2>&1 &
pids+=($!)
wait_http "$API_URL/api/v1/user" 120
warm_functions 8
# Background work runs off the table's stream here too: the test waits for
# the pump to settle before it checks the data.
warm_stream 1
start_pump .local/stream-pump-fault.log

cargo build --quiet -p ops --bin check_data
exe=$(cargo test -p api-tests --test fault --no-run --message-format=json 2>/dev/null |
  python3 -c 'import json,sys
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m.get("executable") and m["target"]["name"]=="fault": print(m["executable"])')
# One test at a time: each fault would disturb the other.
FAULT_DDB_PID="$ddb_pid" CHECK_DATA="${CARGO_TARGET_DIR:-$ROOT/target}/debug/check_data" \
  bash -c "cd tests && '$exe' --nocapture --test-threads=1"
