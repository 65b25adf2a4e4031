// When the joining loop looks again (docs/agent.md, "How a joining box
// waits"). The seed checks the mode every joinEvery; here that stays the
// upper bound, and two things make the box see a change sooner:
//  - a wake source (Wake): what happens on the box itself ends the wait at
//    once — root arming the guard (inotify on $CARLOS_DATA_DIR/hostguard/),
//    the box's own record in place, and on the directory store a change of
//    this box's keys (inotify);
//  - a fast poll (FastPoll, NextCheckIn): after the box did what another
//    party answers (published its record, asked root, published its
//    report), it checks every `every` for at most `bound`, then falls back
//    to joinEvery. Each check reads with conditional reads
//    (store/cached_reads.h), so a check that finds nothing new costs no
//    bodies.
// Nudges are not changed by either: at most one per joinNudgeEvery, except
// right after a stage change (host/joining.h).
#pragma once

#include <functional>
#include <optional>

#include "base/clock.h"

namespace carlos::host {

// How a wait ended.
enum class Woke {
  kTimeout,  // The whole wait passed.
  kEvent,    // Something the box watches changed, or Notify was called.
  kStopped,  // The stop was requested.
};

// The joining loop's wait, injected (production: EventWake, host/
// event_wake.h; tests: the FakeClock's Sleep, or a script).
struct Wake {
  // Waits up to `d`, or until something watched changes or `notify` is
  // called (kEvent), or `stop` is requested (kStopped). Called from the
  // joining loop's thread only.
  std::function<Woke(Milliseconds d, const Stop& stop)> wait;
  // Ends the current wait, or the next one at once, with kEvent. Safe from
  // any thread.
  std::function<void()> notify;
};

// The fast poll's settings. `every` 0 turns it off (the seed's plain
// joinEvery: the default, so a Joining without it behaves as the seed).
struct FastPoll {
  // How often the box checks while it expects another party's answer.
  Milliseconds every{0};
  // For how long after the box's last act it expects one.
  Milliseconds bound{0};
};

// The wait before the next mode check, given the time now (after this
// check) and when the box last did what another party answers
// (`expecting_since`; nullopt: nothing yet). Pure:
//   fast.every > 0, expecting_since set and now < expecting_since + bound:
//     min(fast.every, join_every) — the fast poll;
//   otherwise: join_every — the seed's interval, the upper bound.
Milliseconds NextCheckIn(SystemTime now, std::optional<SystemTime> expecting_since,
                         Milliseconds join_every, const FastPoll& fast);

}  // namespace carlos::host
