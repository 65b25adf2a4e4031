#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang, ASan + UBSan) in build-fuzz/
# and runs each for SECONDS (default 20) over its seed corpus in
# fuzz/corpus/<target>/. New inputs go to build-fuzz/corpus/<target>/ (the
# committed seeds are never modified); a crash leaves its input in
# build-fuzz/artifacts/ and makes the script exit non-zero.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-20}"
shift || true
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCARLOS_FUZZ=ON -DCARLOS_TESTS=OFF \
  -DCARLOS_BENCH=OFF >/dev/null
cmake --build build-fuzz --target fuzzers -j "$(nproc)"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for bin in build-fuzz/fuzz/*_fuzz; do targets+=("$(basename "$bin")"); done
fi
mkdir -p build-fuzz/artifacts
failed=()
for t in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus/$t"
  echo "== $t: ${secs}s"
  if ! "build-fuzz/fuzz/$t" -max_total_time="$secs" -max_len=16384 -timeout=20 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$t-" \
      "build-fuzz/corpus/$t" "fuzz/corpus/$t" 2>"build-fuzz/$t.log"; then
    failed+=("$t")
    tail -40 "build-fuzz/$t.log"
  fi
  grep -E "^stat::number_of_executed_units|^stat::new_units_added" "build-fuzz/$t.log" | tr '\n' ' '
  echo
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: crashes in: ${failed[*]} (inputs in build-fuzz/artifacts/)" >&2
  exit 1
fi
echo "fuzz: no crashes"
