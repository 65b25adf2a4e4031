// RunAgent's gate (the seed's decideAgentMode): whether this process goes on
// to host (start the claim agent) or joins.
#pragma once

#include <functional>
#include <memory>

#include "base/clock.h"
#include "base/env.h"
#include "base/log.h"
#include "base/status.h"
#include "protocol/mode.h"

namespace carlos::host {

struct ModeFacts;  // host/joinmode.h

// The gate's steps; production's come from the agent command, tests inject
// their own. All are called from DecideAgentMode's thread.
struct Gate {
  // The switches: CARLOS_HOST_CLAIM and CARLOS_REGION_HA.
  Getenv getenv;
  // Whether this box's local guard is armed (or cannot be read: never a
  // guess); unset is false. With it, region HA applies whatever the
  // switches say (protocol::RegionHAApplies).
  std::function<bool()> guard_armed;
  // Opens this box's facts: the deployment store, the keys, the local guard.
  // An error is a mode that cannot be known yet (logged once, retried).
  std::function<StatusOr<std::shared_ptr<const ModeFacts>>()> open;
  // Selects the mode with the facts (SelectMode).
  std::function<StatusOr<protocol::ModeDecision>(const ModeFacts& facts)> select;
  // Joins until the box can host (OK: the process should end, so systemd
  // starts it again as the claim agent) or `stop` (kCancelled).
  std::function<Status(std::shared_ptr<const ModeFacts> facts, const protocol::ModeDecision& first,
                       const Stop& stop)>
      join;
  // How long to wait before checking an unknown mode again (joinEvery).
  Milliseconds wait{15'000};
  Clock* clock = nullptr;
  Logf logf;
  // Failure lines at warning priority (base/log_layout.h); unset: logf.
  Logf warnf;
};

// Decides whether this process starts the claim agent, exactly as the
// seed's decideAgentMode:
//  - CARLOS_HOST_CLAIM or CARLOS_REGION_HA blank and the guard not armed
//    (protocol::RegionHAApplies false): true at once (no joining mode; the
//    agent hosts as before region HA), nothing else is called;
//  - a switch blank and the guard armed: logs "agent: the guard is armed:
//    it stays enforced whatever CARLOS_HOST_CLAIM and CARLOS_REGION_HA
//    say", then goes on as with both on;
//  - otherwise open the facts and select the mode; an error from either is
//    logged once per distinct error as "agent: mode: <err>; checking again"
//    (an open error wrapped as "mode unknown: the deployment's stores and
//    this box's guard: <cause>"), waited out for `wait`, and retried;
//  - hosting: true;
//  - joining: logs "agent: <box> is joining (<stage>): it hosts nothing
//    until it is enrolled", runs join, logs "agent: joining: <err>" for an
//    error other than kCancelled, and returns false (the process ends).
// `stop` requested while waiting: false. Blocks the calling thread.
bool DecideAgentMode(const Gate& g, const Stop& stop);

}  // namespace carlos::host
