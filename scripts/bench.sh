#!/usr/bin/env bash
# `make bench`: release binary size, cold start, warm latency and the
# DynamoDB cost (round trips, capacity units) of the main routes of both APIs,
# measured on the real release binary against DynamoDB Local.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
. scripts/lib.sh
mkdir -p .local
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

start_dynamodb bench
export TABLE_NAME="bench-$(date +%s)"
export TOKEN_CACHE_TTL_SECONDS=30  # writes are measured on a warm token cache
export BOOTSTRAP_ADMIN_TOKEN="$(python3 -c 'import secrets; print(secrets.token_hex(20))')"
cargo build --release $(printf -- '-p %s ' $(ls functions))
cargo run --quiet -p shared --bin bootstrap >/dev/null
python3 bench/lambda_bench.py target/release "$BOOTSTRAP_ADMIN_TOKEN" --runs "${RUNS:-10}"
