// `carlos agent`: the seed's RunAgent order on a real box — the entry
// (group reference), the gate, then joining or hosting — wired to the
// deployment store, the box key, IMDS, the guard's files and the health
// listener. The loops themselves are in joining.h, gate.h, hosting.h and
// record_loop.h; this file only builds their production steps.
#pragma once

#include <memory>
#include <string>

#include "base/clock.h"
#include "base/env.h"
#include "base/log.h"
#include "base/status.h"

namespace carlos::host {

// The agent's flags (the seed's edge.Run flags). Only -http is used by the
// part of the agent this project builds (the health check listens there);
// the others are accepted so that the unit's command line stays the one
// the full edge takes.
struct AgentFlags {
  std::string http = ":80";
  // Where GET /metrics answers (docs/operator.md, "Metrics"); empty: off.
  std::string metrics;
  std::string https;
  std::string registry;
  std::string acme_cache;
  std::string fallback;
  bool dev = false;
};

// The process's effects.
struct AgentEnv {
  Getenv getenv;
  Clock* clock = nullptr;
  Logf logf;
  // Lines at warning and error priority (base/log_layout.h); unset: logf.
  Logf warnf;
  Logf errf;
  // Requested on SIGTERM/SIGINT (base/signals.h).
  std::shared_ptr<Stop> stop;
};

// The agent's settings that cannot fix themselves, checked once at start
// (DESIGN.md, "Switches and settings": only the store, IMDS and documents
// change by themselves, so only they are retried):
//   -http            a listen address (net::SplitListenAddress: host:port,
//                    port 0..65535);
//   CARLOS_DATA_DIR  an existing directory (base/env.h DataDir);
//   CARLOS_ENROLLMENT_PUBKEY
//                    set and parseable when the box joins at all
//                    (protocol::RegionHAJoining; the key's rule is
//                    protocol::EnrollmentPublicKeyFromEnv).
// Returns OK, or kInvalidArgument whose message starts with the setting's
// name ("-http: ...", "CARLOS_DATA_DIR: ...", "CARLOS_ENROLLMENT_PUBKEY
// ..."). Reads the file system (one stat); thread-safe when `getenv` is.
Status CheckStaticSettings(const AgentFlags& flags, const Getenv& getenv);

// Runs the agent and returns the process's exit code:
//   0  stopped by SIGTERM/SIGINT (joining: at once; hosting: after the
//      drain), or joining found the box enrolled and armed (systemd's
//      Restart=always starts it again as the claim agent);
//   1  hosting ended because the box may no longer host (retired,
//      unenrolled, disarmed) after the drain, or the health listener could
//      not start while hosting, or the box label is unusable;
//   2  a malformed setting (a timing override, or CheckStaticSettings),
//      found at start, before anything is opened or retried, or a -metrics
//      address the agent cannot listen on.
// Every cause is logged on one line first.
int RunAgent(const AgentFlags& flags, const AgentEnv& env);

}  // namespace carlos::host
