#include "base/failure_log.h"

namespace carlos {

void FailureLog::Failed(const std::string& cause, const std::string& line, const Logf& via) {
  if (!since_) since_ = clock_->Now();
  if (cause == last_cause_) return;
  last_cause_ = cause;
  (via ? via : failf_ ? failf_ : logf_)(line);
}

void FailureLog::Succeeded(const std::string& what) {
  if (!since_) return;
  auto d = std::chrono::duration_cast<Milliseconds>(clock_->Now() - *since_);
  logf_(what + " again after " + FormatDuration(d));
  since_.reset();
  last_cause_.clear();
}

}  // namespace carlos
