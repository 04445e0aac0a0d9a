#!/usr/bin/env bash
# The TypeScript client SDK (sdk/, issue 30):
# 1. installs its pinned npm packages (package-lock.json);
# 2. checks that sdk/src/generated is what proto/ gives today (a schema change
#    without `npm run gen` fails here);
# 3. builds it with tsc (type-checks the SDK against the generated types) and checks
#    that the web client's copy, web/js/sdk (scripts/build-web-sdk.sh), is that build;
#    type-checks the web client's JavaScript against the SDK's declarations
#    (tsc -p web/tsconfig.json: checkJs, no emit);
# 4. builds ludo-server and runs the SDK's Node tests against the real binary
#    (each test starts its own server on a free port with a temporary SQLite
#    database): four SDK clients play a whole match with one socket cut mid-match,
#    typed request errors, the server clock on shifted device clocks, the README's
#    example installed with `npm install sdk/` and played to the end, and the dice
#    verification (src/dice.ts: known answers, and replays of real matches of both
#    dice schemes, `ok`, `hidden` while running, `bad` when changed), and the
#    account calls (src/accounts.ts: claim, sign-in, sessions and their sign-out
#    closing the socket with 4002, name, password, deletion, typed refusals), and
#    the passkey calls (a whole WebAuthn ceremony with a software authenticator),
#    and a refused resync asked again after the backoff (a scripted socket, mock clock).
#   bash scripts/sdk-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

(cd sdk && npm ci --no-audit --no-fund --loglevel=error)
(cd sdk && node scripts/gen-types.mjs --check)
(cd sdk && npx tsc -p tsconfig.json)
# The web client's copy of the SDK (web/js/sdk, imported by web/js/net.js) is this build.
bash scripts/build-web-sdk.sh --check
# The web client's JavaScript type-checks against the SDK's declarations (web/tsconfig.json).
sdk/node_modules/.bin/tsc -p web/tsconfig.json

cargo build --locked -p server --bin ludo-server
export LUDO_SERVER_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/ludo-server"
# Node 20 has the standard WebSocket behind this flag (Node 22: always).
(cd sdk && node --experimental-websocket --test --test-timeout=120000 --test-force-exit --test-reporter=spec test/sdk.test.mjs test/readme.test.mjs test/dice.test.mjs test/accounts.test.mjs test/passkeys.test.mjs test/resync.test.mjs)
