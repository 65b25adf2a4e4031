// When the enroller's watch loop passes (docs/enroll.md, "Watching"): it
// reacts to a new identity record or a new status report within about a
// second, and still passes at least every joinEvery (`--every`, 15 s), the
// seed's interval, which stays the upper bound.
//
// Two sources of "something changed":
//   - the directory store: inotify(7) on the folders the documents live in
//     (DirWatcher), at no cost to the store;
//   - any store (S3): a change check every `check_every` (1 s), which lists
//     the records and the reports with version tags and compares them with
//     what the enroller holds (Informer::Changed): one request per prefix
//     per 1,000 keys, no Get.
// A change that matters (WakeSchedule::Changed) starts a pass at once, but
// never sooner than `check_every` after the last pass began, so a burst of
// changes costs one pass per `check_every` at most.
//
// Thread-safety: a WakeSchedule is used by one loop; a DirWatcher by one
// thread at a time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace carlos::enroll {

class WakeSchedule {
 public:
  // `every`: the longest time between passes; `check_every`: between change
  // checks, and the shortest between passes started by a change; `events`:
  // changes arrive as events (a DirWatcher), so no change checks are due.
  WakeSchedule(Milliseconds every, Milliseconds check_every, bool events);

  enum class Action {
    kPass,   // Pass now.
    kCheck,  // Run a change check now.
    kWait,   // Nothing due before NextAt().
  };
  // What is due at `now` (before the first pass: a pass).
  Action Due(SystemTime now) const;
  // The earliest time something is due (given no new change).
  SystemTime NextAt() const;

  // A pass started at `now`.
  void Passed(SystemTime now);
  // A change check was made at `now`.
  void Checked(SystemTime now);
  // A change that matters was seen: pass as soon as allowed.
  void Changed();

 private:
  Milliseconds every_;
  Milliseconds check_every_;
  bool events_;
  bool passed_ = false;
  bool changed_ = false;
  SystemTime last_pass_{};
  SystemTime last_check_{};
};

// The store keys that changed under a directory store, as inotify reports
// them. Wait is in real time (the kernel's events), so that tests of the
// loop use the change check with a FakeClock instead.
class DirWatcher {
 public:
  virtual ~DirWatcher() = default;
  // Waits up to `timeout` for changes; returns the keys of documents
  // created, replaced or removed ("status/boxes/web-1.json"), empty when
  // none came in time or `stop` was requested (checked at least every
  // 200 ms). Temporary files of the store's writes are not reported.
  virtual std::vector<std::string> Wait(Milliseconds timeout, const Stop& stop) = 0;
};

// Watches the directory store rooted at `root`: its control/boxes,
// control/invitations, control/enrollments, control/retired and status/boxes
// folders (not control/edges: a hosting box rewrites its edges file every
// 30 s, and a pass needs only their presence). A folder that does not exist
// yet is watched once it does (its parent's creation wakes the loop).
// Errors: kUnavailable when inotify cannot be set up (inotify_init1(2)'s
// errno, e.g. the per-user instance limit).
StatusOr<std::unique_ptr<DirWatcher>> WatchDirStore(const std::string& root);

}  // namespace carlos::enroll
