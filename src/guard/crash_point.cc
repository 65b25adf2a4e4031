#include "guard/crash_point.h"

#include <signal.h>
#include <unistd.h>

#include "base/strings.h"

namespace carlos::guard {

void CrashPoint(const Getenv& getenv, std::string_view point) {
  if (TrimSpace(getenv("CARLOS_TEST_CRASH_AT")) != point) return;
  ::kill(::getpid(), SIGKILL);
  ::pause();  // SIGKILL cannot be caught; this only waits for it to land.
}

}  // namespace carlos::guard
