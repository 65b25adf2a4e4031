#include "host/entry.h"

#include "base/strings.h"
#include "protocol/label.h"

namespace carlos::host {

Milliseconds GroupReferenceBackoff(int n) {
  constexpr Milliseconds kMax = Seconds(30);
  Milliseconds d = Seconds(1);
  for (; n > 1 && d < kMax; n--) d *= 2;
  return std::min(d, kMax);
}

bool AwaitGroupReference(const Stop& stop, const GroupReferenceResolve& resolve,
                         const Backoff& backoff, Clock& clock, const Logf& logf) {
  for (int n = 1;; n++) {
    StatusOr<std::string> ref = resolve();
    if (ref.ok()) {
      logf("agent: this box's group reference is " + *ref);
      return true;
    }
    Milliseconds wait = backoff(n);
    logf(
        "agent: this box's group reference could not be read from its identity document "
        "(attempt " +
        std::to_string(n) + "): " + ref.status().ToString() +
        "; the agent starts once it is, asking again in " + FormatDuration(wait));
    if (!clock.Sleep(wait, stop)) return false;
  }
}

void AgentEntry(const Getenv& getenv, const GroupReferenceResolve& resolve, const Backoff& backoff,
                Clock& clock, const Logf& logf, const Stop& stop, const std::function<bool()>& gate,
                const std::function<void()>& run) {
  if (protocol::GroupReferenced(getenv)) {
    if (!AwaitGroupReference(stop, resolve, backoff, clock, logf)) return;
  }
  if (!gate()) return;
  run();
}

}  // namespace carlos::host
