#include "base/check.h"

#include <cstdio>
#include <cstdlib>

namespace carlos::internal {

void CheckFailed(const char* file, int line, const char* what) {
  std::fprintf(stderr, "carlos: precondition failed at %s:%d: %s\n", file, line, what);
  std::abort();
}

}  // namespace carlos::internal
