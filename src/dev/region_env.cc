#include "dev/region_env.h"

#include <unistd.h>

extern char** environ;

namespace carlos::dev {

namespace {

bool IsTiming(const std::string& name) {
  for (const auto& [n, v] : kRegionTimingDefaults)
    if (n == name) return true;
  return false;
}

}  // namespace

std::vector<std::string> ChildEnv(const std::vector<std::string>& parent,
                                  const std::map<std::string, std::string>& set) {
  std::map<std::string, std::string> out;
  for (const auto& entry : parent) {
    size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string name = entry.substr(0, eq);
    if (name.rfind("CARLOS_", 0) == 0 && !IsTiming(name)) continue;
    out[name] = entry.substr(eq + 1);
  }
  for (const auto& [name, value] : set) out[name] = value;
  for (const auto& [name, value] : kRegionTimingDefaults) out.emplace(name, value);
  std::vector<std::string> env;
  for (const auto& [name, value] : out) env.push_back(name + "=" + value);
  return env;
}

std::vector<std::string> ProcessEnviron() {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) env.emplace_back(*e);
  return env;
}

std::string EnvValue(const std::vector<std::string>& env, const std::string& name) {
  for (const auto& entry : env)
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
        entry[name.size()] == '=')
      return entry.substr(name.size() + 1);
  return "";
}

}  // namespace carlos::dev
