# Helpers sourced by dev.sh and test.sh.

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
