// Logging. Loops take a Logf (the seed's `logf func(format string, args
// ...any)`): one already-formatted line, no trailing newline. Production
// writes through spdlog to stderr in Go's log.Printf layout, which journald
// and the operators' existing tooling read: "2026/11/29 18:56:26 message".
#pragma once

#include <functional>
#include <string>

namespace carlos {

// One log line, already formatted, without a trailing newline. Must be
// callable from any thread.
using Logf = std::function<void(const std::string& line)>;

// The process logger: writes `line` to stderr as "YYYY/MM/DD HH:MM:SS line"
// (local time, as Go's log package). Thread-safe; never fails (a write error
// on stderr is ignored, as Go's log does).
void LogLine(const std::string& line);

// A Logf that calls LogLine.
Logf StderrLogf();

}  // namespace carlos
