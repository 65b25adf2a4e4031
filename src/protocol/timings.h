// The agent's timings (DESIGN.md, "Timings"), each overridable from the
// environment so that tests and the local region run the whole lifecycle in
// seconds. Values are Go duration strings (base/duration.h).
//
//   CARLOS_JOIN_EVERY            joinEvery: how often joining checks its
//                                mode, and hosting re-checks it (15s)
//   CARLOS_JOIN_NUDGE_EVERY      joinNudgeEvery: at most this often joining
//                                re-publishes its report or re-asks root (1m)
//   CARLOS_REPORT_FRESHNESS      an enroller enrolls only on a report
//                                younger than this (5m)
//   CARLOS_HOSTING_REPORT_EVERY  a hosting box re-publishes its status
//                                report this often (30s)
//   CARLOS_DRAIN                 after SIGTERM (or on leaving hosting) a
//                                hosting box answers 503 this long (10s)
//   CARLOS_INVITATION_LIFETIME   an unused invitation expires after this
//                                (24h)
//   CARLOS_HEALTH_HEADER_TIMEOUT the health listener's header deadline (10s)
//   CARLOS_REPORT_CLOCK_SKEW     how far ahead of the enroller's clock a
//                                report may be dated (30s; 0 allowed)
#pragma once

#include "base/clock.h"
#include "base/env.h"
#include "base/status.h"

namespace carlos::protocol {

struct Timings {
  Milliseconds join_every{15'000};
  Milliseconds join_nudge_every{60'000};
  Milliseconds report_freshness{5 * 60'000};
  Milliseconds hosting_report_every{30'000};
  Milliseconds drain{10'000};
  Milliseconds invitation_lifetime{24 * 3600'000};
  Milliseconds health_header_timeout{10'000};
  // The box-to-enroller clock skew beyond which the enroller logs a box
  // (never a freshness bound: docs/protocol.md, "Clocks").
  Milliseconds report_clock_skew{30'000};
};

// The defaults above with every variable set in `getenv` applied. A value
// is truncated to whole milliseconds. Errors: kInvalidArgument naming the
// variable and the Go parser's reason for a malformed value, a negative
// one, or one under a millisecond where zero would spin a loop (every
// timing but CARLOS_DRAIN must be at least 1ms; a drain of 0s is allowed).
StatusOr<Timings> TimingsFromEnv(const Getenv& getenv);

}  // namespace carlos::protocol
