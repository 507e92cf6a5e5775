#!/usr/bin/env bash
# `make smoke`: builds what `sam deploy` would upload (`sam build`: every
# function's arm64 `bootstrap` in .aws-sam/build), prints their sizes, then
# starts each one under qemu-user against a minimal Lambda Runtime API and
# DynamoDB Local, where it must answer its sample event from events/
# (scripts/smoke-arm64.py says what each must answer).
#
# Needs: the SAM CLI and cargo-lambda (in .venv, as .ci/run installs them),
# `rustup target add aarch64-unknown-linux-gnu`, Debian's qemu-user and
# libc6-arm64-cross, Java for DynamoDB Local. BUILD=0 skips the build.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
. scripts/lib.sh
export PATH="$ROOT/.venv/bin:$PATH"
# The CLI's usage reports go nowhere on machines without internet access.
export SAM_CLI_TELEMETRY=0
mkdir -p .local
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

need() { command -v "$1" >/dev/null || { echo "smoke: $1 missing ($2)" >&2; exit 1; }; }
need sam "pip install aws-sam-cli into .venv; see .ci/run"
need cargo-lambda "pip install cargo-lambda into .venv; see .ci/run"
need qemu-aarch64 "apt-get install qemu-user"
[ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ] ||
  { echo "smoke: the arm64 C library is missing (apt-get install libc6-arm64-cross)" >&2; exit 1; }

if [ "${BUILD:-1}" != 0 ]; then
  started=$SECONDS
  # `sam build` runs `cargo lambda build --release --arm64 --bin <fn>` for
  # one function after another, each ending in a single-threaded LTO link.
  # One cargo run for all of them first links two at a time; `sam build`
  # then finds every binary fresh and copies it (Cargo.toml's
  # default-members give its `--bin` builds the features of this `-p`
  # list, so they are the same artifacts scripts/bench.sh measures).
  cargo lambda build --release --arm64 $(printf -- '-p %s ' $(ls functions))
  sam build
  echo "sam build (with the cargo-lambda build before it): $((SECONDS - started)) s"
fi
echo
echo "arm64 bootstraps in .aws-sam/build:"
for f in .aws-sam/build/*/bootstrap; do
  python3 -c 'import os, sys; print("  %-22s %.2f MiB" % (sys.argv[1], os.path.getsize(sys.argv[2]) / 1048576))' \
    "$(basename "$(dirname "$f")")" "$f"
done
echo

# The table named in env.local.json, with the first admin and a token, in a
# DynamoDB Local of this run's own.
start_dynamodb smoke
export TABLE_NAME="$(python3 -c 'import json; print(json.load(open("env.local.json"))["Parameters"]["TABLE_NAME"])')"
export BOOTSTRAP_ADMIN_TOKEN="$(python3 -c 'import secrets; print(secrets.token_hex(20))')"
cargo run --quiet -p ops --bin bootstrap >/dev/null
python3 scripts/smoke-arm64.py .aws-sam/build "$BOOTSTRAP_ADMIN_TOKEN" "$DYNAMODB_ENDPOINT"
