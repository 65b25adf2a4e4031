// The agent's entry, as the seed's agentEntry, awaitGroupReference and
// groupReferenceBackoff (docs/seed/joining.go): a box its region's group
// launched resolves its group reference before anything else, asking IMDS
// again with backoff until it answers; then the gate decides whether this
// process starts the agent.
#pragma once

#include <functional>
#include <string>

#include "base/clock.h"
#include "base/env.h"
#include "base/log.h"
#include "base/status.h"

namespace carlos::host {

// How long AgentEntry waits after the n-th failed read of a group box's
// reference (n from 1): one second, doubling, at most 30 seconds
// (1, 2, 4, 8, 16, 30, 30, ... s), as the seed's groupReferenceBackoff and
// DESIGN.md's timings table. n < 1 is taken as 1.
Milliseconds GroupReferenceBackoff(int n);

// Reads the group reference once: the reference (what the log names) or
// why it could not be read.
using GroupReferenceResolve = std::function<StatusOr<std::string>()>;
// The wait after the n-th failure (GroupReferenceBackoff in production).
using Backoff = std::function<Milliseconds(int n)>;

// Asks `resolve` until it answers, waiting backoff(n) on `clock` after the
// n-th failure. Logs "agent: this box's group reference is <ref>" once it
// resolves, and per failure "agent: this box's group reference could not
// be read from its identity document (attempt <n>): <error>; the agent
// starts once it is, asking again in <wait>" (<wait> as Go formats a
// duration: "1s", "30s"). Returns true once resolved, false when `stop` is
// requested during a wait (the first attempt is made even if it already
// is, as the seed's loop). Thread: runs on the caller's.
bool AwaitGroupReference(const Stop& stop, const GroupReferenceResolve& resolve,
                         const Backoff& backoff, Clock& clock, const Logf& logf);

// The seed's agentEntry: a group-referenced box (protocol::GroupReferenced) first
// awaits its group reference, whatever CARLOS_HOST_CLAIM and
// CARLOS_REGION_HA say, and returns without calling gate when `stop` ends
// the wait; any other box resolves nothing. Then, if gate() says this
// process should run the agent, run(). `stop` is the SIGTERM/SIGINT stop
// (the seed's signal.NotifyContext).
void AgentEntry(const Getenv& getenv, const GroupReferenceResolve& resolve, const Backoff& backoff,
                Clock& clock, const Logf& logf, const Stop& stop, const std::function<bool()>& gate,
                const std::function<void()>& run);

}  // namespace carlos::host
