// The process environment, injected (the seed's `getenv func(string)
// string`) so that every switch and setting can be tested without touching
// the real environment.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace carlos {

// Returns the variable's value, "" when unset (Go's os.Getenv). Must be
// thread-safe.
using Getenv = std::function<std::string(std::string_view name)>;

// The real environment (std::getenv).
Getenv ProcessGetenv();

// A fixed environment for tests: the map's values, "" for any other name.
Getenv MapGetenv(std::map<std::string, std::string> vars);

// True when `name` is set to anything but blank (only spaces, tabs or
// newlines). This is the rule of DESIGN.md's switches: CARLOS_HOST_CLAIM and
// CARLOS_REGION_HA are on whatever their value, "0" and "false" included.
bool SwitchOn(const Getenv& getenv, std::string_view name);

// `getenv(name)` with surrounding white space trimmed, or `fallback` when
// that is empty.
std::string EnvOr(const Getenv& getenv, std::string_view name, std::string_view fallback);

// The data dir: $CARLOS_DATA_DIR, default "/data" (DESIGN.md).
std::string DataDir(const Getenv& getenv);

}  // namespace carlos
