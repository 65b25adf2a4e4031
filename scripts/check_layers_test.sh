#!/usr/bin/env bash
# Shows that the layering check (cmake/check_layer.cmake) fails on an
# upward include and passes on allowed ones, on a scratch tree; the real
# tree's check runs in every build. Run by CTest (style.layers).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/base" "$tmp/src/protocol" "$tmp/src/host"
echo '#include "base/status.h"' > "$tmp/src/protocol/rule.cc"
echo '#include "host/agent.h"' > "$tmp/src/protocol/upward.cc"
echo '#include <nlohmann/json.hpp>' > "$tmp/src/protocol/library.cc"
if cmake -DLAYER=protocol -DDIR="$tmp/src/protocol" -DALLOWED="base" -DSTAMP="$tmp/ok" \
    -P "$here/cmake/check_layer.cmake" >"$tmp/out" 2>&1; then
  echo "FAIL: an upward include (protocol -> host) passed the layering check"; exit 1
fi
grep -q 'src/protocol/upward.cc: #include "host/agent.h"' "$tmp/out" ||
  { echo "FAIL: the error does not name the include:"; cat "$tmp/out"; exit 1; }
rm "$tmp/src/protocol/upward.cc"
cmake -DLAYER=protocol -DDIR="$tmp/src/protocol" -DALLOWED="base" -DSTAMP="$tmp/ok" \
  -P "$here/cmake/check_layer.cmake" || { echo "FAIL: allowed includes were refused"; exit 1; }
[ -f "$tmp/ok" ] || { echo "FAIL: no stamp written"; exit 1; }
echo "layers: an upward include fails, allowed ones pass"
