#!/usr/bin/env bash
# Configures and builds the project into build/ (Release with debug info,
# Ninja). Usage: scripts/build.sh [extra cmake -D options]
# Uses ccache when it is installed (not required): repeated builds of the
# same sources, in several clones, then cost little.
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B build -G Ninja "${launcher[@]}" "$@" >/dev/null
cmake --build build -j "$(nproc)"
