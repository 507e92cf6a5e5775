#!/usr/bin/env bash
# Runs full flows of published clients, unchanged, against a running API:
# gitea-js (npm) for the tracker API; coolipy (PyPI) and the MCP server
# @masonator/coolify-mcp (npm, over its stdio transport) for the deploy API.
# Versions are pinned in tests/clients/ (package-lock.json with integrity
# hashes, requirements.txt); they install into git-ignored .local/clients/
# and are reused while their pins are unchanged. The coolify-mcp flow's
# deployments are carried out by the reference runner (tools/runner; built
# here unless RUNNER_BIN names it) with the stand-in docker.
# Expects API_URL and BOOTSTRAP_ADMIN_TOKEN (as scripts/test.sh exports).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
: "${API_URL:?}" "${BOOTSTRAP_ADMIN_TOKEN:?}"
home=.local/clients
mkdir -p "$home"

# npm ci into a copy of the manifest, so the repository gets no node_modules.
if ! cmp -s tests/clients/package-lock.json "$home/package-lock.json" ||
  [ ! -d "$home/node_modules/gitea-js" ] || [ ! -d "$home/node_modules/@masonator/coolify-mcp" ]; then
  cp tests/clients/package.json tests/clients/package-lock.json "$home/"
  (cd "$home" && npm ci --silent --no-audit --no-fund --ignore-scripts)
fi
if ! cmp -s tests/clients/requirements.txt "$home/requirements.txt" ||
  [ ! -x "$home/venv/bin/python" ]; then
  rm -rf "$home/venv"
  python3 -m venv "$home/venv"
  "$home/venv/bin/pip" install --quiet --disable-pip-version-check --no-deps \
    -r tests/clients/requirements.txt
  cp tests/clients/requirements.txt "$home/"
fi

failed=()
echo "== gitea-js $(node -p 'require("./'"$home"'/node_modules/gitea-js/package.json").version')"
# Run beside its node_modules: ES modules resolve packages from their own folder.
cp tests/clients/gitea_flow.mjs "$home/"
node "$home/gitea_flow.mjs" || failed+=(gitea-js)
echo "== coolipy $("$home/venv/bin/python" -c 'import importlib.metadata as m; print(m.version("coolipy"))')"
"$home/venv/bin/python" tests/clients/coolify_flow.py || failed+=(coolipy)
echo "== coolify-mcp $(node -p 'require("./'"$home"'/node_modules/@masonator/coolify-mcp/package.json").version')"
# It imports nothing: it starts the server from $home/node_modules, and the
# runner as the workspace build made it (a no-op after make test's build).
if [ -n "${RUNNER_BIN:-}" ] || cargo build --quiet --workspace --bin runner; then
  RUNNER_BIN="${RUNNER_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/debug/runner}" \
    COOLIFY_MCP="$ROOT/$home/node_modules/@masonator/coolify-mcp/dist/index.js" \
    node tests/clients/coolify_mcp_flow.mjs || failed+=(coolify-mcp)
else
  failed+=(coolify-mcp)
fi

if [ "${#failed[@]}" -gt 0 ]; then
  echo "client flows FAILED: ${failed[*]}" >&2
  exit 1
fi
