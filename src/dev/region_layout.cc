#include "dev/region_layout.h"

#include <fmt/format.h>

namespace carlos::dev {

std::string BoxLabel(int i) { return fmt::format("box-{}", i); }

std::string BoxHealthUrl(int base_port, int i) {
  return fmt::format("http://127.0.0.1:{}/_carlos/lb", BoxHttpPort(base_port, i));
}

std::string BoxInstanceId(int i) { return fmt::format("i-0c4a10500{:08x}", i); }

}  // namespace carlos::dev
