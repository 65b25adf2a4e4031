// Logging each (box, reason) once: the watch loop sees the same refusal
// every pass, and an operator wants it once, then again only when it
// changes (DESIGN.md, "Enrollment": "logging why, once"; the seed logs its
// stage line once per change the same way).
//
// Thread-safety: not thread-safe; the enroller calls it from its pass's
// thread only.
#pragma once

#include <map>
#include <string>

#include "base/log.h"
#include "enroll/reason.h"

namespace carlos::enroll {

class ReasonLog {
 public:
  // Logs `line` through `logf` unless `subject`'s last logged reason was
  // already `reason`; remembers `reason` for `subject`. Returns whether it
  // logged.
  bool Note(const Logf& logf, const std::string& subject, Reason reason, const std::string& line);
  // Forgets `subject`'s reason: the next Note for it logs, whatever it is.
  void Clear(const std::string& subject);

 private:
  std::map<std::string, Reason> last_;
};

}  // namespace carlos::enroll
