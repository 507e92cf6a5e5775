# Helpers sourced by dev.sh and test.sh.

# Where the local stack keeps what it writes often while `cargo lambda
# watch` runs (DynamoDB Local's files under make dev, the emulator's logs
# under make test): outside the checkout, whose every change reaches each
# of the emulator's file watchers, one per function instance (issue 32,
# docs/benchmarks.md). One place per checkout.
STATE_DIR="${XDG_STATE_HOME:-$HOME/.local/state}/serverless-forge/$(printf %s "$ROOT" | sha256sum | cut -c1-12)"
LOG_DIR="$STATE_DIR/logs"
mkdir -p "$LOG_DIR"

# A TCP port nobody listens on.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Waits until something answers HTTP on $1 (any status), up to $2 seconds.
wait_http() {
  local url="$1" limit="${2:-60}" i=0
  until curl -s -o /dev/null "$url"; do
    i=$((i + 1))
    [ "$i" -ge "$((limit * 5))" ] && { echo "nothing answered at $url after ${limit}s" >&2; return 1; }
    sleep 0.2
  done
}

# cargo-lambda from PyPI, in the project's git-ignored virtualenv.
ensure_cargo_lambda() {
  local venv="$ROOT/.venv"
  if [ ! -x "$venv/bin/cargo-lambda" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check 'cargo-lambda==1.9.2'
  fi
  export PATH="$venv/bin:$PATH"
}

# Starts an in-memory DynamoDB Local on a free port unless DYNAMODB_ENDPOINT
# is set; exports DYNAMODB_ENDPOINT and adds the process to `pids`.
start_dynamodb() {
  [ -n "${DYNAMODB_ENDPOINT:-}" ] && return 0
  local port
  port="$(free_port)"
  scripts/dynamodb-local.sh run "$port" >".local/dynamodb-$1.log" 2>&1 &
  pids+=($!)
  export DYNAMODB_ENDPOINT="http://127.0.0.1:$port"
  wait_http "$DYNAMODB_ENDPOINT" 90
}

# Starts $1 instances of every function now (one route of each, from the
# local router): the emulator starts an instance with `cargo run` on its
# first request, which must not wait for a build lock held elsewhere.
warm_functions() {
  local count="${1:-4}" method path warm
  python3 -c '
import tomllib
router = tomllib.load(open("Cargo.toml", "rb"))["workspace"]["metadata"]["lambda"]["watch"]["router"]
first = {}
for path, routes in router.items():
    for r in routes if isinstance(routes, list) else []:
        first.setdefault(r["function"], (r["method"], path.replace("{", "").replace("}", "")))
print("\n".join("%s %s" % mp for mp in first.values()))
' | while read -r method path; do
    warm=()
    for _ in $(seq "$count"); do
      curl -s -o /dev/null --max-time 300 -X "$method" "$API_URL$path" &
      warm+=($!)
    done
    wait "${warm[@]}"
  done
}

# The stream function's invoke URL on the emulator: Lambda's own Invoke
# path, which `cargo lambda watch` serves beside its router (it starts the
# binary on the first call, as for the HTTP functions).
stream_invoke_url() {
  echo "$API_URL/2015-03-31/functions/stream/invocations"
}

# Starts $1 instances of the stream function now, with an empty batch each
# (as warm_functions does for the HTTP ones). The pump invokes it one batch
# at a time, so one is enough.
warm_stream() {
  local count="${1:-1}" warm=()
  for _ in $(seq "$count"); do
    curl -s -o /dev/null --max-time 300 -X POST -H 'content-type: application/json' \
      -d '{"Records":[]}' "$(stream_invoke_url)" &
    warm+=($!)
  done
  wait "${warm[@]}"
}

# Starts tools/stream-pump (built already, under $CARGO_TARGET_DIR or target/) on a
# free loopback port: it delivers the table's stream (TABLE_NAME on
# DYNAMODB_ENDPOINT) to the stream function as Lambda's event source
# mapping would. Exports PUMP_URL (its status API: GET /settle, GET /stats)
# and PUMP_PID, and adds it to `pids`. $1: its log file; the other
# arguments go to the pump (e.g. --checkpoint FILE).
start_pump() {
  local log="$1" port
  shift
  port="$(free_port)"
  "${CARGO_TARGET_DIR:-target}/debug/stream-pump" --invoke "$(stream_invoke_url)" --listen "127.0.0.1:$port" "$@" >"$log" 2>&1 &
  PUMP_PID=$!
  pids+=("$PUMP_PID")
  export PUMP_URL="http://127.0.0.1:$port"
  wait_http "$PUMP_URL/stats" 30 || { cat "$log" >&2; return 1; }
}

# The local master key of secrets at rest (crates/store/src/seal), in place of
# KMS: made once, kept in .local (git-ignored), mode 0600. `make dev`
# keeps it with its data; a test run has its own.
use_secrets_key() {
  local file="$1"
  if [ ! -s "$file" ]; then
    (umask 077 && python3 -c 'import secrets; print(secrets.token_hex(32))' >"$file")
  fi
  export SECRETS_KEY_FILE="$file"
}
