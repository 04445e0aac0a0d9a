#!/usr/bin/env bash
# Runs the protocol decoding fuzz target (crates/protocol/fuzz, libFuzzer) for a
# bounded time: `bash scripts/fuzz.sh [seconds]` (default 60). It needs a nightly
# toolchain (`rustup toolchain list`), as libFuzzer's coverage instrumentation does;
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
RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks" \
  CARGO_TARGET_DIR="$TARGET" \
  cargo +nightly build --release --manifest-path crates/protocol/fuzz/Cargo.toml \
  --bin decode_client --target "$TRIPLE"
CORPUS=$(mktemp -d)
trap 'rm -rf "$CORPUS"' EXIT
# Seed the corpus with the protocol's example messages.
cp proto/examples/client/* "$CORPUS"/
mkdir -p artifacts/fuzz
LOG=artifacts/fuzz/decode_client.log
status=0
"$TARGET/$TRIPLE/release/decode_client" -max_total_time="$SECS" -max_len=8192 \
  -artifact_prefix=artifacts/fuzz/ -print_final_stats=1 "$CORPUS" >"$LOG" 2>&1 || status=$?
# The fuzzer's progress lines go to the log; show the summary (or the failure).
if [ "$status" -eq 0 ]; then
  grep -E '^(Done|stat::)' "$LOG"
else
  tail -n 60 "$LOG" >&2
  echo "error: the fuzz target failed (exit $status); the input is in artifacts/fuzz/, the log in $LOG" >&2
fi
exit "$status"
