#include "host/gate.h"

#include <string>

#include "base/check.h"
#include "base/failure_log.h"
#include "protocol/settings.h"

namespace carlos::host {

bool DecideAgentMode(const Gate& g, const Stop& stop) {
  CARLOS_CHECK(g.getenv, "DecideAgentMode requires getenv (host/gate.h)");
  if (!protocol::RegionHAJoining(g.getenv)) {
    if (!protocol::RegionHAApplies(g.getenv, g.guard_armed && g.guard_armed())) return true;
    if (g.logf) {
      g.logf(
          "agent: the guard is armed: it stays enforced whatever CARLOS_HOST_CLAIM and "
          "CARLOS_REGION_HA say");
    }
  }
  CARLOS_CHECK(g.open && g.select && g.join && g.clock && g.logf,
               "DecideAgentMode with region HA on requires every Gate field set (host/gate.h)");
  FailureLog failures(g.logf, g.clock, g.warnf);
  // Logs `err` once per distinct cause, then waits; false when `stop` was
  // requested first.
  auto note = [&](const Status& err) {
    failures.Failed(err.ToString(), "agent: mode: " + err.ToString() + "; checking again");
    return g.clock->Sleep(g.wait, stop);
  };
  for (;;) {
    StatusOr<std::shared_ptr<const ModeFacts>> facts = g.open();
    if (!facts.ok()) {
      if (!note(protocol::ModeUnknown("the deployment's stores and this box's guard",
                                      facts.status()))) {
        return false;
      }
      continue;
    }
    StatusOr<protocol::ModeDecision> d = g.select(**facts);
    if (!d.ok()) {
      if (!note(d.status())) return false;
      continue;
    }
    failures.Succeeded("agent: mode: the mode is known");
    if (d->mode == protocol::Mode::kHosting) return true;
    g.logf("agent: " + d->box + " is joining (" + std::string(protocol::StageName(d->stage)) +
           "): it hosts nothing until it is enrolled");
    Status st = g.join(*facts, *d, stop);
    if (!st.ok() && st.code() != Code::kCancelled) {
      (g.warnf ? g.warnf : g.logf)("agent: joining: " + st.ToString());
    }
    return false;
  }
}

}  // namespace carlos::host
