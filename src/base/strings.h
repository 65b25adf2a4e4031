// Small string helpers the standard library lacks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace carlos {

// `s` without leading and trailing ASCII white space (Go's strings.TrimSpace
// for ASCII).
std::string TrimSpace(std::string_view s);

// `s` split at every `sep`; "" gives {""}.
std::vector<std::string> Split(std::string_view s, char sep);

// True when `s` is a DNS label as DESIGN.md defines box labels:
// [a-z0-9-]{1,63}.
bool IsLabel(std::string_view s);

// Lower-case hex of `data`.
std::string HexEncode(std::string_view data);

}  // namespace carlos
