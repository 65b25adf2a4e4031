// TEST-ONLY crash points for `carlos system join` (docs/operator.md, "Test
// hooks"). With CARLOS_TEST_CRASH_AT=<point> in its environment, the join
// kills itself with SIGKILL (exactly as `kill -9` would) when it reaches
// <point>, so that a test can check that a re-run converges after a crash at
// each write. Points, in order: "before-install", "after-install",
// "before-arm", "after-arm", "before-disarm". Never set it on a real box.
#pragma once

#include <string_view>

#include "base/env.h"

namespace carlos::guard {

// Kills the process with SIGKILL when CARLOS_TEST_CRASH_AT equals `point`;
// returns otherwise.
void CrashPoint(const Getenv& getenv, std::string_view point);

}  // namespace carlos::guard
