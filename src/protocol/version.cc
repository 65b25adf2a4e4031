#include "protocol/version.h"

#include <algorithm>

#include "base/strings.h"

#ifndef CARLOS_RELEASE
#define CARLOS_RELEASE "0.0.0-dev"
#endif

namespace carlos::protocol {

std::string Release() { return CARLOS_RELEASE; }

std::string Platform() {
#if defined(__x86_64__)
  return "linux-amd64";
#elif defined(__aarch64__)
  return "linux-arm64";
#elif defined(__i386__)
  return "linux-386";
#else
  return "linux-unknown";
#endif
}

int CompareReleases(const std::string& a, const std::string& b) {
  auto pa = Split(a, '.'), pb = Split(b, '.');
  size_t n = std::max(pa.size(), pb.size());
  for (size_t i = 0; i < n; ++i) {
    std::string x = i < pa.size() ? pa[i] : "0", y = i < pb.size() ? pb[i] : "0";
    auto numeric = [](const std::string& s) {
      return !s.empty() && s.size() < 10 && s.find_first_not_of("0123456789") == std::string::npos;
    };
    bool nx = numeric(x), ny = numeric(y);
    if (nx && ny) {
      long vx = std::stol(x), vy = std::stol(y);
      if (vx != vy) return vx < vy ? -1 : 1;
    } else if (nx != ny) {
      return nx ? -1 : 1;
    } else if (x != y) {
      return x < y ? -1 : 1;
    }
  }
  return 0;
}

}  // namespace carlos::protocol
