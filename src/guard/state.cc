#include "guard/state.h"

#include "guard/local_guard.h"

namespace carlos::guard {

bool GuardState::armed_now() const {
  return guard && armed && identity::CheckArmedFor(armed->doc, guard->digest).ok();
}

std::string GuardState::why_not_armed() const {
  if (!guard || armed_now()) return "";
  if (!armed_refused.empty()) return armed_refused;
  if (!armed) return "armed.json is absent";
  return "armed.json names another guard (" + armed->doc.guard_digest + ")";
}

identity::GuardFacts GuardState::Facts() const {
  identity::GuardFacts f;
  f.installed = installed();
  f.armed = armed_now();
  if (guard) {
    f.guard_digest = guard->digest;
    f.record_digest = guard->doc.record_digest;
    f.invitation_digest = guard->doc.invitation_digest;
    if (!f.armed) f.why_not_armed = why_not_armed();
  } else {
    f.why_not_armed = guard_refused.empty() ? "guard.json is absent" : guard_refused;
  }
  if (f.why_not_armed && f.why_not_armed->size() > 1024) f.why_not_armed->resize(1024);
  return f;
}

StatusOr<GuardState> ReadGuardState(const std::string& data_dir) {
  // One reader of the guard's files for root and the agent alike: the same
  // trust checks (root's, no symbolic links, not writable by others) and the
  // same refusals, so the agent never counts as armed a file guard-exec
  // would refuse.
  CARLOS_ASSIGN_OR_RETURN(LocalGuard local, ReadLocalGuard(data_dir, /*owner_uid=*/0));
  GuardState s;
  s.guard = std::move(local.guard);
  s.guard_refused = std::move(local.guard_refused);
  s.armed = std::move(local.armed);
  s.armed_refused = std::move(local.armed_refused);
  return s;
}

}  // namespace carlos::guard
