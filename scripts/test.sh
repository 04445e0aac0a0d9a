#!/usr/bin/env bash
# The project's test command (README.md): everything a change must pass.
#   bash scripts/test.sh
# 1. makes sure PostgreSQL answers on 127.0.0.1:5432 (starts the local cluster if it
#    is installed but stopped) — the store and server tests use their own databases;
# 2. runs every Rust test of the workspace (engine scenarios from ../shared/scenarios,
#    protocol, store against PostgreSQL and SQLite, server integration, load smoke)
#    with cargo-nextest: each test in its own process under the time limits of
#    .config/nextest.toml (4 min, 10 for the process tests), so a hang fails with the
#    test's name; then the doc tests with cargo test (nextest does not run them);
# 3. runs the client SDK's checks and Node tests against the real server
#    (scripts/sdk-test.sh: generated types up to date, tsc build, a whole match);
# 4. runs the browser test (headless Chromium via playwright-core) when web/ has one.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/ensure-postgres.sh
bash scripts/ensure-nats.sh

if [ ! -d ../shared/scenarios ]; then
  echo "error: ../shared/scenarios is missing (the shared rule scenarios must sit beside the repo)" >&2
  exit 1
fi

if ! command -v cargo-nextest >/dev/null 2>&1; then
  echo "installing cargo-nextest (crates.io)"
  cargo install cargo-nextest --locked
fi
# What each part needs besides cargo (each check above fails loudly when missing).
cat <<'NEEDS'
[test.sh] what the tests need:
  part                                             PostgreSQL  NATS  Node  Chromium
  engine, protocol, bot, client tests              -           -     -     -
  store tests (contract: both backends)            yes         -     -     -
  server integration: backends, outage, rest_api   yes         -     -     -
  server integration: the rest (SQLite)            -           -     -     -
  server processes: cluster                        yes         yes   -     -
  server processes: the rest (SQLite; *_postgres,  yes         -     -     -
    outage and readiness also PostgreSQL)
  scripts/sdk-test.sh                              -           -     yes   -
  scripts/browser-test.sh                          -           -     yes   yes
NEEDS
step() { local t0=$SECONDS; "$@"; echo "[test.sh] $(( SECONDS - t0 )) s: $*"; }
step cargo nextest run --workspace --locked
step cargo test --workspace --locked --doc

step bash scripts/sdk-test.sh

if [ -f web/tests/package.json ]; then
  step bash scripts/browser-test.sh
fi
