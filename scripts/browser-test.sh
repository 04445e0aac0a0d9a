#!/usr/bin/env bash
# Browser test of the web client (web/): headless Debian chromium driven by
# playwright-core (web/tests). Installs chromium with apt-get when /usr/bin/chromium is
# missing (and fonts-noto-core when no Bengali or Devanagari font is installed),
# installs the pinned npm packages, builds the server (into $CARGO_TARGET_DIR when
# set) and starts it on a free port with a temporary SQLite database and short clocks,
# runs the tests (node's test runner; extra arguments in $LUDO_TEST_ARGS), stops the
# server and exits with the tests' status.
# Screenshots and the server log go to artifacts/.
#   bash scripts/browser-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
ART="$ROOT/artifacts"
mkdir -p "$ART"

if [ ! -x /usr/bin/chromium ]; then
  echo "installing chromium (Debian package)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

# Bengali and Devanagari glyphs for the Bengali/Hindi screens (screenshots).
if ! fc-list :lang=bn | grep -q . || ! fc-list :lang=hi | grep -q .; then
  echo "installing Noto fonts (Bengali, Devanagari)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-core >/dev/null
fi

(cd web/tests && npm ci --no-audit --no-fund --loglevel=error)

cargo build --locked -p server --bin ludo-server
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/ludo-server"

TMP=$(mktemp -d)
PORT=$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$TMP"
}
trap cleanup EXIT

# Short clocks: 6 s turns, a 60 s match; bots answer at once, quick play fills at once.
# Only the test's own traffic reaches this server (127.0.0.1), so the per-address
# sign-in budget is lifted: every test's password and passkey sign-ins come from it.
# Passkeys: the pages of the passkey tests are opened on http://localhost:PORT (a
# WebAuthn relying party id is a domain, never an IP address).
LUDO_BIND="127.0.0.1:$PORT" \
LUDO_WEBAUTHN_RP_ID=localhost \
LUDO_WEBAUTHN_ORIGIN="http://localhost:$PORT" \
LUDO_SIGN_INS_PER_MINUTE=1000 \
LUDO_SIGN_IN_BURST=1000 \
DATABASE_URL="sqlite://$TMP/ludo.db" \
LUDO_WEB_DIR="$ROOT/web" \
LUDO_TURN_SECONDS=6 \
LUDO_MATCH_SECONDS=60 \
LUDO_BOT_THINK_MS=0 \
LUDO_BOT_FILL_SECONDS=0 \
LUDO_SHUTDOWN_GRACE_SECONDS=2 \
RUST_LOG=warn \
  "$BIN" >"$ART/browser-server.log" 2>&1 &
SERVER_PID=$!

for _ in $(seq 1 100); do
  if curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "error: the server exited; see $ART/browser-server.log" >&2
    cat "$ART/browser-server.log" >&2
    exit 1
  fi
  sleep 0.1
done

status=0
(cd web/tests && LUDO_TEST_URL="http://127.0.0.1:$PORT" LUDO_ARTIFACTS="$ART" node --test --test-reporter=spec ${LUDO_TEST_ARGS:-}) || status=$?
exit "$status"
