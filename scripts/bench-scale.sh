#!/usr/bin/env bash
# `make bench-scale`: whether every search filter costs O(page). Seeds
# (tests/src/bin/seed/, straight into the table, as the stream consumer
# would have filed it) 40, 400 and 2,000 public repositories with 2,000
# issues, then 20,000 issues, beside 500 private repositories; after each
# point, bench/scale.py asks the release issue-search function (and the
# issues function, for comments) every filter as four callers and reads
# each request's DynamoDB calls and read units from its log line. It
# prints the tables and the checks (markdown, also kept in
# .local/scale-report.md) and exits 1 when an O(page) row fails them.
# SEED_CONCURRENCY sets the seed's BatchWriteItem calls in flight (8).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
. scripts/lib.sh
began=$(date +%s)
mkdir -p .local
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

# The seed is built for release: it turns 20,000 issues into 2.7 million
# items, and in a debug build it takes a fifth of the machine from
# DynamoDB Local.
cargo build --quiet --release -p api-tests --bin seed
cargo build --quiet -p ops --bin bootstrap
DYNAMODB_HEAP=6g start_dynamodb scale
export TABLE_NAME="scale-$(date +%s)"
export BOOTSTRAP_ADMIN_TOKEN="$(python3 -c 'import secrets; print(secrets.token_hex(20))')"
user_token="$(python3 -c 'import secrets; print(secrets.token_hex(20))')"
user500_token="$(python3 -c 'import secrets; print(secrets.token_hex(20))')"
tokens=("$BOOTSTRAP_ADMIN_TOKEN" "$user_token" "$user500_token")
target/debug/bootstrap >/dev/null
rm -f .local/scale-build.secs
# The release build (minutes when cold) overlaps the first seeding steps.
(
  t0=$(date +%s)
  cargo build --release -p issue-search -p issues >.local/scale-build.log 2>&1
  echo $(($(date +%s) - t0)) >.local/scale-build.secs
) &
build_pid=$!
pids+=("$build_pid")
state="$ROOT/.local/scale-state.json"
results="$ROOT/.local/scale-results.json"
rm -f "$state" "$results"

seeding=0
measuring=0
step() { # seconds of "$@" added to the variable named $1
  local var="$1" t0
  shift
  t0=$(date +%s)
  "$@"
  printf -v "$var" '%d' $((${!var} + $(date +%s) - t0))
}
step seeding target/release/seed setup "$state" "$user_token" "$user500_token"
for point in 1 2 3 4; do
  step seeding target/release/seed point "$state" "$point"
  if [ "$point" = 1 ]; then
    wait "$build_pid" || { cat .local/scale-build.log >&2; exit 1; }
  fi
  step measuring bash -c 'cd bench && python3 scale.py measure "$@"' _ \
    "$state" "$point" ../target/release "$results" "${tokens[@]}"
done

status=0
(cd bench && python3 scale.py report "$results" "$state" ../target/release "${tokens[@]}") \
  >.local/scale-report.md || status=$?
cat .local/scale-report.md
ended=$(date +%s)
echo
echo "make bench-scale: $(((ended - began) / 60)) min $(((ended - began) % 60)) s" \
  "(seeding $seeding s, measuring $measuring s, the rest $((ended - began - seeding - measuring)) s;" \
  "the release build took $(cat .local/scale-build.secs) s, beside the first seeding steps)"
exit "$status"
