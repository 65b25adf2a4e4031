// The agent's joining mode (the seed's joining.run; DESIGN.md, "Mode
// selection"): while the box is not yet enrolled and armed it hosts
// nothing, answers the load balancer 503, publishes its identity record,
// and nudges the next actor along: root (the marker, when invited) or the
// enroller (the guard-ready report, when the guard is installed or armed).
//
// A joining box never publishes an edges file: a box an edges file names is
// referenced, and automatic enrollment refuses a referenced box.
#pragma once

#include <functional>

#include "base/clock.h"
#include "base/log.h"
#include "base/status.h"
#include "host/wake.h"
#include "lbhealth/health.h"
#include "protocol/mode.h"

namespace carlos::host {

// One joining run's steps; production's are built by the agent command,
// tests inject their own. Every function is called from RunJoining's thread
// but `serve` and `record`, which run on threads of their own.
struct Joining {
  // Selects the mode (SelectMode over this box's facts). An error is a mode
  // that cannot be known: logged once per distinct error, checked again.
  std::function<StatusOr<protocol::ModeDecision>()> select;
  // Answers the load balancer until `stop` is requested; returns OK when it
  // stopped because of `stop`, an error when it could not serve (logged
  // once, the run goes on: the box still joins without it).
  std::function<Status(const Stop& stop)> serve;
  // Publishes the box's identity record, retrying until it is in place or
  // `stop` is requested (boxRecordLoop).
  std::function<void(const Stop& stop)> record;
  // Publishes the guard-ready report (the status report with the guard's
  // facts).
  std::function<Status()> report;
  // Asks root to arm the guard (touches the system-join-requested marker).
  std::function<Status()> request_arm;
  // How often the mode is checked (joinEvery) and how often, at most, a
  // nudge is repeated while the stage stays the same (joinNudgeEvery).
  Milliseconds every{15'000};
  Milliseconds nudge_every{60'000};
  // What ends a wait early (host/wake.h); `wake.wait` empty: the clock's
  // Sleep, the seed's plain wait. `wake.notify`, when set, is called once
  // the record is in place (`record` returned before the run ended).
  Wake wake;
  // The fast poll after the box's own acts (host/wake.h); off by default.
  FastPoll fast;
  Clock* clock = nullptr;
  Logf logf;
  // Failure lines at warning priority (base/log_layout.h); unset: logf.
  Logf warnf;
  // The health state the load balancer reads: set to not hosting at once,
  // its stage to "joining: <stage>" on each change. Never null.
  lbhealth::Health* health = nullptr;
};

// What a joining run ends with: the decision, and OK when the box can host
// (decision.mode is kHosting), or the last joining decision (kNone stage if
// none was made) and kCancelled when `stop` was requested first.
struct JoinOutcome {
  protocol::ModeDecision decision;
  Status status;
};

// Runs `j` until the box can host or `stop` is requested, as the seed's
// joining.run (exactly so with `wake` and `fast` left empty, but for the
// one departure below):
//  - health 503 from the first moment; serve and record start concurrently
//    (and are stopped and joined before this returns);
//  - select the mode (at least every `every`);
//  - an error: "agent: joining: <err>; checking again", once per distinct
//    error;
//  - hosting: "agent: joining: <box> is enrolled and its guard is armed;
//    restarting as the claim agent", and returns it;
//  - otherwise "agent: joining: <box>: <stage> <why>" once per change of
//    stage or why, which also makes the next nudge due at once; then, when
//    `nudge_every` has passed since the last nudge (the time taken after
//    the selection): invited -> request_arm ("agent: joining: could not ask
//    root to arm the guard: <err>" on failure), guard-installed or
//    guard-ready -> report ("agent: joining: the guard-ready report was not
//    published: <err>"); any stage counts as nudged;
//  - one departure from the seed (docs/agent.md, "Nudges"): at
//    guard-installed, from the stage's second nudge on (the guard still not
//    armed `nudge_every` later), request_arm too, after the report: root's
//    join was stopped between installing and arming, and its re-run arms
//    the guard it installed (guard::Join is idempotent).
//  - then waits NextCheckIn(now, expecting_since, every, fast) (host/
//    wake.h) through `wake`, where expecting_since is the time of the last
//    check that found the record newly in place, or of the last successful
//    request_arm or report that was the first nudge of its stage (a
//    repeated nudge does not extend the fast poll); a wait that ends early
//    (an event) checks at once.
// Blocks the calling thread. Requires every field set.
JoinOutcome RunJoining(const Joining& j, const Stop& stop);

}  // namespace carlos::host
