#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs every libFuzzer
# target briefly (ASan + UBSan, over the committed seed corpus), then every
# test (unit, integration against real processes and a real S3 server, the
# end-to-end test behind HAProxy) through CTest, then the system test (the
# .deb on three systemd-nspawn boxes under real systemd: tests/system/run.sh;
# as root).
# Usage: scripts/test.sh [ctest options]; CARLOS_FUZZ_SECONDS (default 10)
# sets each fuzz target's run, 0 skips fuzzing; CARLOS_SYSTEM_TEST=0 skips
# the system test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
fuzz_seconds="${CARLOS_FUZZ_SECONDS:-10}"
if [ "$fuzz_seconds" != 0 ]; then
  scripts/fuzz.sh "$fuzz_seconds"
fi
(cd build && ctest --output-on-failure -j "$(nproc)" "$@")
if [ "${CARLOS_SYSTEM_TEST:-1}" != 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo tests/system/run.sh build
fi
