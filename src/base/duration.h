// Go-style duration strings ("200ms", "1m30s", "1.5h"), so that the
// timing overrides in the environment read as operators of the Go agent
// already write them (Go's time.ParseDuration).
#pragma once

#include <chrono>
#include <string_view>

#include "base/status.h"

namespace carlos {

// Parses `s` as Go's time.ParseDuration does: an optional sign, then one or
// more decimal numbers, each with an optional fraction and a unit: "ns",
// "us", "µs" (U+00B5), "μs" (U+03BC), "ms", "s", "m", "h" — "300ms",
// "-1.5h", "2h45m". "0" alone (any sign) is zero. Returns nanoseconds.
// Errors: kInvalidArgument naming the string (`time: invalid duration
// "x"`, `time: missing unit in duration "1"`, `time: unknown unit "d" in
// duration "1d"`), as Go words them; values beyond ±292 years overflow and
// are refused the same way.
StatusOr<std::chrono::nanoseconds> ParseDuration(std::string_view s);

}  // namespace carlos
