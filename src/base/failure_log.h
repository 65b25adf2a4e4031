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
  // `clock` must outlive this object. Failure lines go to `failf` (the
  // loop's warning priority under the journal, base/log_layout.h), or to
  // `logf` when it is empty; the recovery line to `logf`.
  FailureLog(Logf logf, Clock* clock, Logf failf = {})
      : logf_(std::move(logf)), failf_(std::move(failf)), clock_(clock) {}

  // A failure with `cause`: logs `line` (through `via` when set — a cause
  // that needs an operator, at error priority — else as above) unless
  // `cause` is the one logged last; the failure's start is kept from the
  // first one.
  void Failed(const std::string& cause, const std::string& line, const Logf& via = {});
  // A success: after a logged failure, logs "<what> again after <d>" and
  // forgets the failure; nothing otherwise.
  void Succeeded(const std::string& what);

 private:
  Logf logf_;
  Logf failf_;
  Clock* clock_;
  std::string last_cause_;
  std::optional<SystemTime> since_;
};

}  // namespace carlos
