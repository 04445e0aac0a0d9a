#!/usr/bin/env bash
# Builds the client SDK (sdk/, tsc) and copies its JavaScript into web/js/sdk/, the
# copy the web client's js/net.js imports (no bundler: plain ES modules).
#   bash scripts/build-web-sdk.sh          # rebuild and copy
#   bash scripts/build-web-sdk.sh --check  # fail when web/js/sdk differs from a fresh build
set -euo pipefail
cd "$(dirname "$0")/.."
(cd sdk && { [ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error; } && npx tsc -p tsconfig.json)
OUT=web/js/sdk
if [ "${1:-}" = "--check" ]; then
  OUT=$(mktemp -d)
  trap 'rm -rf "$OUT"' EXIT
fi
rm -rf "$OUT"/*.js "$OUT"/generated
mkdir -p "$OUT/generated"
cp sdk/dist/*.js "$OUT/"
cp sdk/dist/generated/*.js "$OUT/generated/"
if [ "${1:-}" = "--check" ]; then
  if ! diff -r "$OUT" web/js/sdk; then
    echo "web/js/sdk is stale: run scripts/build-web-sdk.sh and commit the result" >&2
    exit 1
  fi
  echo "web/js/sdk matches sdk/"
fi
