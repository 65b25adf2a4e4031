#!/usr/bin/env bash
# Clang's thread-safety analysis (-Wthread-safety,
# clang.llvm.org/docs/ThreadSafetyAnalysis.html) over every source that
# uses base/mutex.h's annotated Mutex, with the flags the build compiles it
# with (build/compile_commands.json), so that guarded state read without its
# mutex fails the tests. GCC, which builds the project, ignores the
# annotations. Usage: scripts/check_thread_safety.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: check_thread_safety.sh BUILD_DIR}
cd "$(dirname "$0")/.."
command -v clang++ >/dev/null || { echo "clang++ is missing: scripts/deps.sh installs it"; exit 1; }
mapfile -t files < <(grep -l '#include "base/mutex.h"' src/*/*.cc src/*/*.h | sed 's/\.h$/.cc/' | sort -u)
fail=0
n=0
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  # The build's own command for this file, compiler and output dropped.
  flags=$(python3 - "$build/compile_commands.json" "$PWD/$f" <<'PY'
import json, shlex, sys
for e in json.load(open(sys.argv[1])):
    if e["file"] == sys.argv[2]:
        args = shlex.split(e["command"])[1:]
        out, skip = [], False
        for a in args:
            if skip: skip = False; continue
            if a in ("-o", "-c", "-MF", "-MT"): skip = True; continue
            if a in ("-MD", "ccache") or a.endswith("/c++") or a == sys.argv[2]: continue
            out.append(a)
        print(shlex.join(out)); break
PY
)
  [ -n "$flags" ] || { echo "thread-safety: $f is not in the build"; fail=1; continue; }
  n=$((n + 1))
  # shellcheck disable=SC2086
  if ! eval clang++ $flags -Wno-unknown-warning-option -Wno-error -Werror=thread-safety \
       -Wthread-safety -fsyntax-only "$f"; then
    echo "thread-safety: $f"; fail=1
  fi
done
echo "thread-safety: $n files analysed"
exit $fail
