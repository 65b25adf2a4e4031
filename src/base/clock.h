// Time and cancellation, injected everywhere a loop waits (as the seed
// injects `now` and waits on ctx.Done()), so that loops are tested in
// milliseconds with a FakeClock instead of sleeps.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/mutex.h"

namespace carlos {

using SystemTime = std::chrono::system_clock::time_point;
using Seconds = std::chrono::seconds;
using Milliseconds = std::chrono::milliseconds;

// Stop is a one-way cancellation flag shared by a loop and whoever ends it:
// the SIGTERM/SIGINT handler, a parent loop, a test. It plays the part of the
// seed's ctx.Done(). Thread-safe: any thread may Request, any may wait.
class Stop {
 public:
  // Marks the stop as requested and wakes every waiter. Idempotent.
  void Request();
  // True once Request has been called.
  bool requested() const;
  // Blocks the calling thread for up to `timeout` of real time; returns true
  // as soon as a stop is requested (at once if it already was), false when
  // the timeout passes first.
  bool WaitFor(Milliseconds timeout) const;
  // Runs `fn` once when the stop is requested: on the requesting thread,
  // after waiters are woken, or at once on this thread when it already was.
  // So a wait that is not on this Stop (poll(2) on a descriptor, say) can be
  // ended by it. `fn` must be quick and must not call this Stop's
  // OnRequest/Forget. Returns an id for Forget.
  int OnRequest(std::function<void()> fn) const;
  // Unregisters `id`; once it returns, its function is not running and never
  // will. Idempotent.
  void Forget(int id) const;

 private:
  mutable Mutex mu_;
  mutable std::condition_variable_any cv_;
  bool requested_ CARLOS_GUARDED_BY(mu_) = false;
  // Held while the callbacks run, so that Forget waits for a running one.
  mutable Mutex callbacks_mu_;
  mutable std::vector<std::pair<int, std::function<void()>>> callbacks_
      CARLOS_GUARDED_BY(callbacks_mu_);
  mutable int next_id_ CARLOS_GUARDED_BY(callbacks_mu_) = 0;
};

// Clock is the wall clock and the wait between loop iterations.
// Implementations must be thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;
  // The current wall-clock time (UTC).
  virtual SystemTime Now() = 0;
  // Waits `d` (the seed's `time.After(d)`); returns false when `stop` is
  // requested before or during the wait (the seed's `<-ctx.Done()`), true
  // when the whole wait passed. Never fails otherwise.
  virtual bool Sleep(Milliseconds d, const Stop& stop) = 0;
};

// The process's real clock: system_clock and Stop::WaitFor. Never null; lives
// for the whole process.
Clock* RealClock();

// FakeClock is a Clock for tests: Now() starts at `start` and only moves when
// Sleep or Advance is called; Sleep returns at once, having advanced the
// time by `d`, unless `stop` is already requested. A hook, if set, runs after
// each Sleep's advance (a test uses it to change the world or request a stop
// at a given simulated time). Thread-safe.
class FakeClock : public Clock {
 public:
  explicit FakeClock(SystemTime start);
  SystemTime Now() override;
  bool Sleep(Milliseconds d, const Stop& stop) override;
  // Moves the time forward by `d`.
  void Advance(Milliseconds d);
  // Sets the hook run after every Sleep's advance (may be empty).
  void OnSleep(std::function<void(SystemTime now)> hook);
  // The number of Sleep calls so far.
  int sleeps() const;

 private:
  mutable Mutex mu_;
  SystemTime now_ CARLOS_GUARDED_BY(mu_);
  std::function<void(SystemTime)> hook_ CARLOS_GUARDED_BY(mu_);
  int sleeps_ CARLOS_GUARDED_BY(mu_) = 0;
};

// Formats `t` as RFC 3339 in UTC with nanoseconds, trailing zeros trimmed, as
// Go's time.RFC3339Nano does: "2026-11-29T18:56:26.123Z".
std::string FormatRfc3339Nano(SystemTime t);
// Formats `t` as RFC 3339 in UTC at second precision: "2026-11-29T18:56:26Z".
std::string FormatRfc3339(SystemTime t);
// Parses an RFC 3339 UTC time ("...Z", optional fraction up to nanoseconds,
// years 1970 to 2200); false (and `out` untouched) on anything else,
// including offsets other than Z.
bool ParseRfc3339(std::string_view s, SystemTime* out);

// Formats a duration as Go's time.Duration String does for whole and
// fractional seconds and minutes: "15s", "1m0s", "500ms", "2m30s".
std::string FormatDuration(Milliseconds d);

}  // namespace carlos
