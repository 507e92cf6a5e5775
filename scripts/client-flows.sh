#!/usr/bin/env bash
# Runs full flows of published client libraries, unchanged, against a
# running API: gitea-js (npm) for the tracker API, coolipy (PyPI) for the
# deploy API. Versions are pinned in tests/clients/ (package-lock.json with
# integrity hashes, requirements.txt); both install into git-ignored
# .local/clients/ and are reused while their pins are unchanged.
# Expects API_URL and BOOTSTRAP_ADMIN_TOKEN (as scripts/test.sh exports).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
: "${API_URL:?}" "${BOOTSTRAP_ADMIN_TOKEN:?}"
home=.local/clients
mkdir -p "$home"

# npm ci into a copy of the manifest, so the repository gets no node_modules.
if ! cmp -s tests/clients/package-lock.json "$home/package-lock.json" ||
  [ ! -d "$home/node_modules/gitea-js" ]; then
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

if [ "${#failed[@]}" -gt 0 ]; then
  echo "client flows FAILED: ${failed[*]}" >&2
  exit 1
fi
