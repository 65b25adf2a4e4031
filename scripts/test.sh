#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test
# (unit, integration against real processes and a real S3 server, the
# end-to-end test behind HAProxy) through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
cd build
ctest --output-on-failure -j "$(nproc)" "$@"
