#!/usr/bin/env bash
# `make bench`: release binary size, cold start, warm latency and the
# DynamoDB cost (round trips, capacity units) of the main routes of both APIs,
# measured on the real release binary against DynamoDB Local; then every
# function's x86_64 and arm64 size and cold start beside a hello-world floor.
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
# Environment variable values are sealed under a local key, not KMS.
use_secrets_key "$ROOT/.local/secrets-bench.key"
# x86_64 binaries built as the Lambda ones are: the release profile plus
# .cargo/config.toml's arm64 flags (but the CPU), under --target so that
# build scripts and proc macros keep the usual flags.
x86=target/x86_64-unknown-linux-gnu/release
lambda_flags="$(python3 -c '
import tomllib
flags = tomllib.load(open(".cargo/config.toml", "rb"))["target"]["aarch64-unknown-linux-gnu"]["rustflags"]
print(" ".join("-C " + f for f in flags[1::2] if not f.startswith("target-cpu=")))')"
build_x86() {
  CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUSTFLAGS="$lambda_flags" \
    cargo build --release --target x86_64-unknown-linux-gnu "$@"
}
build_x86 $(printf -- '-p %s ' $(ls functions))
# The cold-start floor, a hello-world lambda_http function (bench/hello),
# in a build of its own so that it has no more features than it needs.
build_x86 -p hello-lambda
# The arm64 bootstraps `sam build` deploys, for their sizes (ARM64=0 skips):
# the same artifacts as `make smoke` builds (Cargo.toml's default-members),
# so nothing is compiled again after it.
arm64=()
if [ "${ARM64:-1}" != 0 ]; then
  ensure_cargo_lambda
  cargo lambda build --release --arm64 $(printf -- '-p %s ' $(ls functions))
  cargo lambda build --release --arm64 -p hello-lambda
  arm64=(--arm64-dir target/lambda)
fi
cargo run --quiet -p ops --bin bootstrap >/dev/null
python3 bench/lambda_bench.py "$x86" "$BOOTSTRAP_ADMIN_TOKEN" --runs "${RUNS:-10}" | tee .local/bench-rows.md
echo
# The same rows priced: dollars per million requests (bench/cost.py).
python3 bench/cost.py .local/bench-rows.md
echo
python3 bench/coldstart.py "$x86" "$x86/hello-lambda" "$BOOTSTRAP_ADMIN_TOKEN" \
  "${arm64[@]}" --runs "${COLD_RUNS:-20}"
