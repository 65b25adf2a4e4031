#include "cli/commands.h"

namespace carlos::cli {

std::vector<std::string> NormalizeGoFlags(int argc, const char* const* argv) {
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(argc));
  bool passthrough = false;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (i > 0 && !passthrough) {
      if (a == "--") {
        passthrough = true;
      } else if (a.size() > 2 && a[0] == '-' && a[1] != '-' &&
                 ((a[1] >= 'a' && a[1] <= 'z') || (a[1] >= 'A' && a[1] <= 'Z'))) {
        // "-http" or "-http=:80": Go's flag package spelling of a long flag.
        // "-h" alone stays short; "-hx" cannot be a bundle of short flags
        // because no command here defines bundles.
        a = "-" + a;
      }
    }
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace carlos::cli
