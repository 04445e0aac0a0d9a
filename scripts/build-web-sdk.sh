#!/usr/bin/env bash
# Builds the client SDK (sdk/, tsc) and copies its JavaScript into web/js/sdk/, the
# copy the web client's js/net.js and js/dice.js import (no bundler: plain ES modules),
# with its type declarations (*.d.ts) beside it: `tsc -p web/tsconfig.json` checks the
# web client's JavaScript against the SDK's wire types (scripts/sdk-test.sh).
# The SDK's npm dependencies (@noble/hashes, @noble/ciphers: the dice check) are
# copied from sdk/node_modules into web/js/vendor/ (only the files it imports, with
# their LICENSE), and the copy's bare imports of them are rewritten to relative paths
# (scripts/web-vendor.mjs): the server's CSP (`script-src 'self'`) allows no inline
# import map.
#   bash scripts/build-web-sdk.sh          # rebuild and copy
#   bash scripts/build-web-sdk.sh --check  # fail when web/js/sdk or web/js/vendor differs from a fresh build
set -euo pipefail
cd "$(dirname "$0")/.."
(cd sdk && { [ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error; } && npx tsc -p tsconfig.json)
OUT=web/js/sdk
VENDOR=web/js/vendor
if [ "${1:-}" = "--check" ]; then
  TMP=$(mktemp -d)
  trap 'rm -rf "$TMP"' EXIT
  OUT=$TMP/sdk
  VENDOR=$TMP/vendor
fi
rm -rf "$OUT"/*.js "$OUT"/*.d.ts "$OUT"/generated "$VENDOR"
mkdir -p "$OUT/generated" "$VENDOR"
cp sdk/dist/*.js sdk/dist/*.d.ts "$OUT/"
cp sdk/dist/generated/*.js sdk/dist/generated/*.d.ts "$OUT/generated/"
node scripts/web-vendor.mjs "$OUT" "$VENDOR"
if [ "${1:-}" = "--check" ]; then
  stale=0
  diff -r "$OUT" web/js/sdk || stale=1
  diff -r "$VENDOR" web/js/vendor || stale=1
  if [ "$stale" = 1 ]; then
    echo "web/js/sdk or web/js/vendor is stale: run scripts/build-web-sdk.sh and commit the result" >&2
    exit 1
  fi
  echo "web/js/sdk and web/js/vendor match sdk/"
fi
