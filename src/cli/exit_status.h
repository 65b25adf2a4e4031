// The exit statuses of every `carlos` command, in one place
// (docs/operator.md, "Exit statuses"; each command's -h repeats its own).
// Each status is produced only by what it names.
#pragma once

#include "base/status.h"

namespace carlos::cli {

inline constexpr int kExitOk = 0;
// Failed; one line on stderr says why (a store or IMDS error, bad
// credentials, a setting's file that cannot be used, a write refused).
inline constexpr int kExitError = 1;
// Usage: an unknown command or flag, a malformed or out-of-range argument
// (CLI11's parse errors; the agent's settings that cannot fix themselves).
inline constexpr int kExitUsage = 2;
// `carlos store`: a create-only or compare-and-swap condition did not hold;
// `carlos boxes`: a check refused the operation (the line names it). Only
// Code::kPreconditionFailed.
inline constexpr int kExitPreconditionFailed = 3;
// The key or the box's document (an identity record) does not exist. Only
// Code::kNotFound.
inline constexpr int kExitNotFound = 4;

// The exit status of a command that failed with `st` (not OK):
// kPreconditionFailed -> 3, kNotFound -> 4, everything else -> 1.
inline int ExitStatusOf(const Status& st) {
  switch (st.code()) {
    case Code::kOk:
      return kExitOk;
    case Code::kPreconditionFailed:
      return kExitPreconditionFailed;
    case Code::kNotFound:
      return kExitNotFound;
    default:
      return kExitError;
  }
}

}  // namespace carlos::cli
