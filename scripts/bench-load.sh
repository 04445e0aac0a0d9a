#!/usr/bin/env bash
# One BENCHMARKS.md run: a fresh release ludo-server on 127.0.0.1 (SQLite in a fresh
# file, or PostgreSQL in a fresh database with PG=1), ludo-load against it, then the
# server stopped and its database removed.
#   bash scripts/bench-load.sh BIN_DIR MATCHES THINK_MS DURATION_SECS [server flags…]
#   e.g. bash scripts/bench-load.sh target/release 1000 1000 40
# Zero think time also lifts the per-connection rate limit. PORT (default 18080) and
# BENCH_DIR (default /tmp/ludo-bench) may be set.
set -u
BIN=$1; N=$2; THINK=$3; DUR=$4; shift 4
PORT=${PORT:-18080}
DIR=${BENCH_DIR:-/tmp/ludo-bench}
mkdir -p "$DIR"
rm -f "$DIR"/ludo.db*
EXTRA=()
if [ "$THINK" = 0 ]; then EXTRA=(--rate-per-second 1000 --rate-burst 1000); fi
DB="sqlite://$DIR/ludo.db"
if [ -n "${PG:-}" ]; then
  psql -q -h 127.0.0.1 -U postgres -d postgres -c "drop database if exists ludo_bench" -c "create database ludo_bench" >/dev/null
  DB=postgres://postgres@127.0.0.1:5432/ludo_bench
fi
RUST_LOG=warn "$BIN/ludo-server" --bind "127.0.0.1:$PORT" --database-url "$DB" \
  --max-connections-per-ip 0 --guests-per-minute 0 "${EXTRA[@]}" "$@" > "$DIR/server.log" 2>&1 &
SP=$!
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break
  kill -0 $SP 2>/dev/null || { echo "the server did not start (port $PORT taken?): $DIR/server.log" >&2; exit 1; }
  sleep 0.1
done
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$BIN/ludo-load" --url "http://127.0.0.1:$PORT" --matches "$N" --think-ms "$THINK" \
  --duration-secs "$DUR" --warmup-secs 8
rc=$?
kill $SP; wait $SP 2>/dev/null
rm -f "$DIR"/ludo.db*
if [ -n "${PG:-}" ]; then
  psql -q -h 127.0.0.1 -U postgres -d postgres -c "drop database if exists ludo_bench" >/dev/null
fi
exit $rc
