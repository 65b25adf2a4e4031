// Logging. Loops take a Logf (the seed's `logf func(format string, args
// ...any)`): one already-formatted line, no trailing newline. Production
// writes through spdlog to stderr: on a terminal in Go's log.Printf layout
// ("2026/11/29 18:56:26 message"), under the journal with an sd-daemon
// priority prefix and no time stamp (base/log_layout.h).
#pragma once

#include <functional>
#include <string>

namespace carlos {

// One log line, already formatted, without a trailing newline. Must be
// callable from any thread.
using Logf = std::function<void(const std::string& line)>;

// The process logger: writes `line` to stderr at info priority in the
// process's layout (base/log_layout.h LogLine). Thread-safe; never fails (a write error
// on stderr is ignored, as Go's log does).
void LogLine(const std::string& line);

// A Logf that calls LogLine.
Logf StderrLogf();

}  // namespace carlos
