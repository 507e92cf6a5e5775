#!/usr/bin/env bash
# `make dev`: DynamoDB Local with its data kept outside the checkout (see
# below), the table and first admin (bootstrap), then the whole API under
# `cargo lambda watch` on http://localhost:${PORT:-9000}/api/v1, and the
# stream pump delivering the table's changes to the stream function.
# Ctrl-C stops everything.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
. scripts/lib.sh

PORT="${PORT:-9000}"
DDB_PORT="${DDB_PORT:-8000}"
export TABLE_NAME="${TABLE_NAME:-serverless-forge}"
export DYNAMODB_ENDPOINT="${DYNAMODB_ENDPOINT:-http://127.0.0.1:$DDB_PORT}"
export ROOT_URL="${ROOT_URL:-http://localhost:$PORT/}"
# Webhooks may call receivers on this machine only (crates/base/src/outbound).
export HOOK_ALLOWED_HOSTS="${HOOK_ALLOWED_HOSTS:-loopback}"

started=$SECONDS
ensure_cargo_lambda
scripts/dynamodb-local.sh install
mkdir -p .local
# Secrets at rest are sealed under a local key instead of KMS.
use_secrets_key "$ROOT/.local/secrets.key"

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

# DynamoDB Local's files live outside the checkout (DDB_DATA_DIR chooses
# where): `cargo lambda watch` runs a file watcher per function instance
# (12 functions x 4), each over the whole checkout, git-ignored files too,
# and SQLite rewrites its journal on every write. With the data in
# .local/data, the watchers took most of a core under write load, and kept
# it while the stream consumer caught up after it (issue 32,
# docs/benchmarks.md). .local/dynamodb-data-dir names the place.
DDB_DATA_DIR="${DDB_DATA_DIR:-$STATE_DIR/dynamodb}"
case "$DDB_DATA_DIR/" in
  "$ROOT"/*) echo "warning: DDB_DATA_DIR ($DDB_DATA_DIR) is inside the checkout: cargo lambda watch will spend CPU on its every write" >&2 ;;
esac
# The data of a make dev from before, kept in .local/data: moved out once.
if [ -d .local/data ] && [ ! -e "$DDB_DATA_DIR" ]; then
  mkdir -p "$(dirname "$DDB_DATA_DIR")"
  mv .local/data "$DDB_DATA_DIR"
  echo "moved .local/data to $DDB_DATA_DIR"
fi
echo "$DDB_DATA_DIR" >.local/dynamodb-data-dir

if ! curl -s -o /dev/null "$DYNAMODB_ENDPOINT"; then
  scripts/dynamodb-local.sh run "$DDB_PORT" "$DDB_DATA_DIR" >.local/dynamodb.log 2>&1 &
  pids+=($!)
  wait_http "$DYNAMODB_ENDPOINT" 60
fi

# Reuse the token of the first run, so scripts keep working across restarts.
if [ -z "${BOOTSTRAP_ADMIN_TOKEN:-}" ] && [ -s .local/admin-token ]; then
  export BOOTSTRAP_ADMIN_TOKEN="$(cat .local/admin-token)"
fi
export BOOTSTRAP_TOKEN_FILE="$ROOT/.local/admin-token"
# Build every function now, exactly as the emulator's `cargo run --bin
# <fn>` asks for it, so that no first request waits for a compiler.
echo "building the functions (the first time takes a few minutes)..."
cargo build $(printf -- '-p %s ' $(ls functions))
# The local stand-in for the stream's event source mapping, and then the
# operator tools (tools/ops), each built on its own so that its crates'
# features stay out of the functions' build.
cargo build -p stream-pump
cargo run --quiet -p ops --bin bootstrap
echo "admin token: in .local/admin-token (or \$BOOTSTRAP_ADMIN_TOKEN when set)"

cargo lambda watch --invoke-address 127.0.0.1 --invoke-port "$PORT" --concurrency "${CONCURRENCY:-4}" &
watch=$!
pids+=("$watch")
export API_URL="http://127.0.0.1:$PORT"
wait_http "$API_URL/api/v1/user" 120
# One instance of each function up before the URL is printed.
warm_functions 1
warm_stream 1
# The table's changes into the stream function, from where the last run
# stopped (its checkpoint; delete it to replay the stream's last 24 hours).
start_pump .local/stream-pump.log --checkpoint "$ROOT/.local/stream-pump.json"
# Where scripts and benches (bench/write_load.py) find this run's pump and
# database; the pump's port is a free one, chosen anew each run.
echo "$PUMP_URL" >.local/pump-url
echo "$DYNAMODB_ENDPOINT" >.local/dynamodb-url
echo "stream pump: $PUMP_URL/stats (log: .local/stream-pump.log)"
echo "serving http://localhost:$PORT/api/v1 (ready after $((SECONDS - started)) s; Ctrl-C stops)"
wait "$watch"
