#include "base/duration.h"

#include <cstdint>
#include <limits>
#include <string>

namespace carlos {

namespace {

Status Invalid(std::string_view s) {
  return InvalidArgument("time: invalid duration \"" + std::string(s) + "\"");
}

// The unit's length in nanoseconds, or 0 for an unknown unit.
uint64_t UnitNanos(std::string_view u) {
  if (u == "ns") return 1;
  if (u == "us" || u == "\u00b5s" || u == "\u03bcs") return 1000;
  if (u == "ms") return 1000000;
  if (u == "s") return 1000000000ULL;
  if (u == "m") return 60ULL * 1000000000ULL;
  if (u == "h") return 3600ULL * 1000000000ULL;
  return 0;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

StatusOr<std::chrono::nanoseconds> ParseDuration(std::string_view orig) {
  // This follows Go's time.ParseDuration: the total is accumulated as an
  // unsigned count of nanoseconds and refused when it passes 1<<63.
  std::string_view s = orig;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return std::chrono::nanoseconds(0);
  if (s.empty()) return Invalid(orig);
  const uint64_t kMax = uint64_t{1} << 63;
  uint64_t total = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || IsDigit(s[0]))) return Invalid(orig);
    // The integer part.
    uint64_t v = 0;
    size_t i = 0;
    bool overflow = false;
    while (i < s.size() && IsDigit(s[i])) {
      if (v > (kMax - 1) / 10) overflow = true;
      v = v * 10 + static_cast<uint64_t>(s[i] - '0');
      if (v > kMax) overflow = true;
      ++i;
    }
    if (overflow) return Invalid(orig);
    bool pre = i > 0;
    s.remove_prefix(i);
    // The fraction: digits kept as f / scale, extra digits ignored once
    // they no longer fit (as Go's leadingFraction).
    uint64_t f = 0;
    double scale = 1;
    bool post = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      size_t j = 0;
      bool over = false;
      while (j < s.size() && IsDigit(s[j])) {
        if (!over) {
          if (f > (std::numeric_limits<uint64_t>::max() / 10) - 1) {
            over = true;
          } else {
            f = f * 10 + static_cast<uint64_t>(s[j] - '0');
            scale *= 10;
          }
        }
        ++j;
      }
      post = j > 0;
      s.remove_prefix(j);
    }
    if (!pre && !post) return Invalid(orig);
    // The unit.
    size_t k = 0;
    while (k < s.size() && s[k] != '.' && !IsDigit(s[k])) ++k;
    if (k == 0) {
      return InvalidArgument("time: missing unit in duration \"" + std::string(orig) + "\"");
    }
    std::string_view u = s.substr(0, k);
    s.remove_prefix(k);
    uint64_t unit = UnitNanos(u);
    if (unit == 0) {
      return InvalidArgument("time: unknown unit \"" + std::string(u) + "\" in duration \"" +
                             std::string(orig) + "\"");
    }
    if (v > kMax / unit) return Invalid(orig);
    v *= unit;
    if (f > 0) {
      v += static_cast<uint64_t>(static_cast<double>(f) * (static_cast<double>(unit) / scale));
      if (v > kMax) return Invalid(orig);
    }
    total += v;
    if (total > kMax) return Invalid(orig);
  }
  if (neg) {
    return std::chrono::nanoseconds(total == kMax ? std::numeric_limits<int64_t>::min()
                                                  : -static_cast<int64_t>(total));
  }
  if (total > kMax - 1) return Invalid(orig);
  return std::chrono::nanoseconds(static_cast<int64_t>(total));
}

}  // namespace carlos
