#!/usr/bin/env bash
# Runs the fuzz targets (libFuzzer) for a bounded time each: `bash scripts/fuzz.sh
# [seconds]` (default 60 per target): the protocol's decoding (crates/protocol/fuzz,
# decode_client) and the engine's legal plans (crates/engine/fuzz, legals_are_legal).
# It needs a nightly toolchain (`rustup toolchain list`), as libFuzzer's coverage instrumentation does;
# the flags are cargo-fuzz's own (without AddressSanitizer: the target is safe Rust),
# so `cargo fuzz` itself is not required. Exit status: the fuzzer's (0: no failure;
# a crashing input is written to artifacts/fuzz/).
set -euo pipefail
cd "$(dirname "$0")/.."
SECS="${1:-60}"
if ! rustup toolchain list | grep -q '^nightly'; then
  echo "error: the fuzz run needs a nightly toolchain (rustup toolchain install nightly)" >&2
  exit 1
fi
TRIPLE=$(rustc -vV | sed -n 's/^host: //p')
TARGET="${CARGO_TARGET_DIR:-$PWD/target}/fuzz"
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
mkdir -p artifacts/fuzz

# fuzz <crate dir> <target> <max_len> [seed files...]: builds and runs one target for
# $SECS seconds; prints the summary, or the failure and its input.
fuzz() {
  local dir=$1 bin=$2 max_len=$3
  shift 3
  CARGO_TARGET_DIR="$TARGET" cargo +nightly build --release \
    --manifest-path "$dir/fuzz/Cargo.toml" --bin "$bin" --target "$TRIPLE"
  local corpus log status=0
  corpus=$(mktemp -d)
  [ "$#" -gt 0 ] && cp "$@" "$corpus"/
  log=artifacts/fuzz/$bin.log
  "$TARGET/$TRIPLE/release/$bin" -max_total_time="$SECS" -max_len="$max_len" \
    -artifact_prefix="artifacts/fuzz/$bin-" -print_final_stats=1 "$corpus" >"$log" 2>&1 || status=$?
  rm -rf "$corpus"
  if [ "$status" -eq 0 ]; then
    echo "$bin:"
    grep -E '^(Done|stat::)' "$log"
  else
    tail -n 60 "$log" >&2
    echo "error: the fuzz target $bin failed (exit $status); the input is in artifacts/fuzz/, the log in $log" >&2
  fi
  return "$status"
}

status=0
# Protocol decoding, seeded with the protocol's example messages.
fuzz crates/protocol decode_client 8192 proto/examples/client/* || status=$?
# The engine's legal-plan enumeration against validation (rule 4.5), from bytes.
fuzz crates/engine legals_are_legal 512 || status=$?
exit "$status"
