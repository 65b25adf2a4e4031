#include "host/gate.h"

#include <string>

namespace carlos {

bool DecideAgentMode(const Gate& g, const Stop& stop) {
  if (!SwitchOn(g.getenv, "CARLOS_HOST_CLAIM") || !SwitchOn(g.getenv, "CARLOS_REGION_HA")) {
    return true;
  }
  std::string last;
  // Logs `err` unless it is the last one logged, then waits; false when
  // `stop` was requested first.
  auto note = [&](const Status& err) {
    if (err.ToString() != last) {
      g.logf("agent: mode: " + err.ToString() + "; checking again");
      last = err.ToString();
    }
    return g.clock->Sleep(g.wait, stop);
  };
  for (;;) {
    StatusOr<std::shared_ptr<const ModeFacts>> facts = g.open();
    if (!facts.ok()) {
      if (!note(ModeUnknown("the deployment's stores and this box's guard", facts.status()))) {
        return false;
      }
      continue;
    }
    StatusOr<ModeDecision> d = g.select(**facts);
    if (!d.ok()) {
      if (!note(d.status())) return false;
      continue;
    }
    if (d->mode == Mode::kHosting) return true;
    g.logf("agent: " + d->box + " is joining (" + std::string(StageName(d->stage)) +
           "): it hosts nothing until it is enrolled");
    Status st = g.join(*facts, *d, stop);
    if (!st.ok() && st.code() != Code::kCancelled) g.logf("agent: joining: " + st.ToString());
    return false;
  }
}

}  // namespace carlos
