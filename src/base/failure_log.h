// A repeating failure, logged once per distinct cause and once when it
// ends: a loop that checks every few seconds logs its failure when it starts
// or its cause changes, and "<what> again after 2m13s" (the time since the
// failure was first logged, FormatDuration) when it succeeds again. The
// cause is the failure's message as the caller gives it; counters (attempts,
// times) belong outside it (the S3 store's messages carry none).
//
// Thread-safety: not thread-safe; one per loop, called from its thread.
#pragma once

#include <optional>
#include <string>

#include "base/clock.h"
#include "base/log.h"

namespace carlos {

class FailureLog {
 public:
  // `clock` must outlive this object.
  FailureLog(Logf logf, Clock* clock) : logf_(std::move(logf)), clock_(clock) {}

  // A failure with `cause`: logs `line` unless `cause` is the one logged
  // last; the failure's start is kept from the first one.
  void Failed(const std::string& cause, const std::string& line);
  // A success: after a logged failure, logs "<what> again after <d>" and
  // forgets the failure; nothing otherwise.
  void Succeeded(const std::string& what);

 private:
  Logf logf_;
  Clock* clock_;
  std::string last_cause_;
  std::optional<SystemTime> since_;
};

}  // namespace carlos
