#!/usr/bin/env bash
# Configures and builds the project into build/ (Release with debug info,
# Ninja). Usage: scripts/build.sh [extra cmake -D options]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja "$@" >/dev/null
cmake --build build -j "$(nproc)"
