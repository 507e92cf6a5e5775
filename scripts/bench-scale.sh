#!/usr/bin/env bash
# `make bench-scale`: issue listings on repositories of 100 and 10,000
# issues, and search as 40, 400 and 2,000 public repositories are added
# (ordinary user with private repositories of their own, anonymous, site
# admin), on the release issue-search binary against DynamoDB Local.
# Seeds data straight into the table.
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
user_token="$(python3 -c 'import secrets; print(secrets.token_hex(20))')"
cargo build --release -p issue-search
cargo build --quiet -p api-tests --bin seed
seed() { target/debug/seed "$@" >/dev/null; }
cargo run --quiet -p shared --bin bootstrap >/dev/null
seed root small 1 100
seed root big 1 10000
seed user scaler "$user_token"
seed scaler mine 3 10 private
bin=../target/release/issue-search
(cd bench && python3 scale.py lists "$bin" "$BOOTSTRAP_ADMIN_TOKEN" root)
have=2
for want in 40 400 2000; do
  seed root "many$want" $((want - have)) 5
  have=$want
  text=""
  [ "$want" -le 400 ] && text="--text"
  (cd bench && python3 scale.py search "$bin" "$BOOTSTRAP_ADMIN_TOKEN" "$user_token" root "$want" $text)
done
