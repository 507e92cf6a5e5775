#!/usr/bin/env bash
# `make bench-scale`: issue listings on repositories of 100 and 10,000
# issues, and search over 200+ repositories, on the release issue-search
# binary against DynamoDB Local. Seeds data straight into the table.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
. scripts/lib.sh
mkdir -p .local
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM
start_dynamodb scale
export TABLE_NAME="scale-$(date +%s)"
export BOOTSTRAP_ADMIN_TOKEN="$(python3 -c 'import secrets; print(secrets.token_hex(20))')"
cargo build --release -p issue-search
cargo run --quiet -p shared --bin bootstrap >/dev/null
cargo run --quiet -p api-tests --bin seed -- root small 1 100
cargo run --quiet -p api-tests --bin seed -- root big 1 10000
cargo run --quiet -p api-tests --bin seed -- root many 200 5
cd bench && python3 scale.py ../target/release/issue-search "$BOOTSTRAP_ADMIN_TOKEN" root
