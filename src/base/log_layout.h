// The layout of the process's log lines (base/log.h LogLine) and their
// priorities:
//   - on a terminal (or any stderr that is not the journal) Go's log.Printf
//     layout, so the seed's lines read the same:
//     "2026/11/29 18:56:26 message";
//   - under systemd with stderr connected to the journal (JOURNAL_STREAM
//     names stderr's device and inode, systemd.exec(5)) no time stamp
//     (journald adds its own) and an sd-daemon priority prefix
//     ("<4>message", sd-daemon(3)), so that `journalctl -p warning` shows
//     the warnings.
#pragma once

#include <string>
#include <string_view>

#include "base/env.h"
#include "base/log.h"

namespace carlos {

// syslog(3) priorities, as sd-daemon(3)'s SD_ERR .. SD_DEBUG prefixes.
enum class Priority { kErr = 3, kWarning = 4, kNotice = 5, kInfo = 6, kDebug = 7 };

// How lines are laid out: Go's layout (time stamp) or the journal's
// (priority prefix, no time stamp).
enum class LogLayout { kGo, kJournal };

// The layout for this process: kJournal when `getenv("JOURNAL_STREAM")` is
// "<device>:<inode>" and equals stderr's (fstat(2) of descriptor 2), as
// systemd.exec(5) advises; kGo otherwise (a terminal, a file, a pipe).
// Thread-safe when `getenv` is.
LogLayout LogLayoutFromEnv(const Getenv& getenv);

// `line` as written in `layout`: kJournal "<P>line" (P the priority's
// number, 3..7); kGo "<local_time> line", `local_time` being
// "YYYY/MM/DD HH:MM:SS" (the priority is not shown, as in Go's log).
std::string FormatLogLine(LogLayout layout, Priority priority, std::string_view line,
                          std::string_view local_time);

// Writes `line` with `priority` to stderr in the process's layout
// (LogLayoutFromEnv of the process environment, decided at the first line
// the process logs). LogLine(line) is LogLine(Priority::kInfo, line).
// Thread-safe; never fails.
void LogLine(Priority priority, const std::string& line);

// A Logf that calls LogLine at `priority`.
Logf PriorityLogf(Priority priority);

}  // namespace carlos
