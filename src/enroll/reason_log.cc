#include "enroll/reason_log.h"

namespace carlos::enroll {

bool ReasonLog::Note(const Logf& logf, const std::string& subject, Reason reason,
                     const std::string& line) {
  auto [it, inserted] = last_.try_emplace(subject, reason);
  if (!inserted) {
    if (it->second == reason) return false;
    it->second = reason;
  }
  if (logf) logf(line);
  return true;
}

void ReasonLog::Clear(const std::string& subject) { last_.erase(subject); }

}  // namespace carlos::enroll
