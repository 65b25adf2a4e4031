#include "base/env.h"

#include <cstdlib>

#include "base/strings.h"

namespace carlos {

Getenv ProcessGetenv() {
  return [](std::string_view name) {
    const char* v = std::getenv(std::string(name).c_str());
    return v ? std::string(v) : std::string();
  };
}

Getenv MapGetenv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) {
    auto it = vars.find(std::string(name));
    return it == vars.end() ? std::string() : it->second;
  };
}

bool SwitchOn(const Getenv& getenv, std::string_view name) {
  return !TrimSpace(getenv(name)).empty();
}

std::string EnvOr(const Getenv& getenv, std::string_view name, std::string_view fallback) {
  std::string v = TrimSpace(getenv(name));
  return v.empty() ? std::string(fallback) : v;
}

std::string DataDir(const Getenv& getenv) { return EnvOr(getenv, "CARLOS_DATA_DIR", "/data"); }

}  // namespace carlos
