#!/usr/bin/env bash
# The project's clang-format check (.clang-format: Google style, 100
# columns): every C++ source the repository tracks must be formatted. Run by
# CTest (the "format" test); prints the files to reformat and exits 1.
# Fix with: clang-format -i $(git ls-files '*.h' '*.cc')
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.h' '*.cc' 2>/dev/null || find src tests bench fuzz -name '*.h' -o -name '*.cc')
bad=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "not formatted (clang-format -i FILE):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "format: ${#files[@]} files formatted"
