#include "base/open_files.h"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace carlos {

StatusOr<uint64_t> RaiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return Internal(std::string("getrlimit(RLIMIT_NOFILE): ") + std::strerror(errno));
  }
  if (limit.rlim_cur == limit.rlim_max) return static_cast<uint64_t>(limit.rlim_cur);
  rlimit raised{.rlim_cur = limit.rlim_max, .rlim_max = limit.rlim_max};
  if (setrlimit(RLIMIT_NOFILE, &raised) != 0) {
    return Internal("setrlimit(RLIMIT_NOFILE) to " + std::to_string(limit.rlim_max) + ": " +
                    std::strerror(errno));
  }
  return static_cast<uint64_t>(raised.rlim_cur);
}

}  // namespace carlos
