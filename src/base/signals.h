// SIGTERM and SIGINT as a Stop (the seed's signal.NotifyContext).
#pragma once

#include <memory>

#include "base/clock.h"

namespace carlos {

// Blocks SIGTERM and SIGINT in the calling thread (call it in main before
// any thread starts, so every thread inherits the mask) and starts a thread
// that waits for them with sigwait and requests `stop` on the first one.
void StopOnSignals(std::shared_ptr<Stop> stop);

}  // namespace carlos
