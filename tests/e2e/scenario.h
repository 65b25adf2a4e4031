// The end-to-end test's steps that are not processes: watching HAProxy's
// view over time against invariants, and writing into the store what an
// attacker or an earlier life of a box would have left there (an edges file
// that makes a box referenced; an invitation signed by another key).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "base/status.h"
#include "haproxy.h"
#include "store/store.h"

namespace carlos::e2e {

using Views = std::map<std::string, ServerView>;
using SteadyTime = std::chrono::steady_clock::time_point;

// Samples HAProxy's view every 50 ms. Every sample is checked against the
// invariants (boxes that must never be UP); the first time each box is
// seen UP is recorded (from `start`).
class LbWatch {
 public:
  LbWatch(const Haproxy& haproxy, SteadyTime start) : haproxy_(haproxy), start_(start) {}

  // Boxes that must never be seen UP from now on; `why` goes in the failure.
  void NeverUp(const std::string& box, const std::string& why) { never_up_[box] = why; }
  // Called with a box the first time it is seen UP; returns "" or a failure.
  void OnFirstUp(std::function<std::string(const std::string& box)> check) {
    on_first_up_ = std::move(check);
  }

  // Samples until `done` holds (OK) or `bound` passes (kDeadlineExceeded
  // naming `what` and the last view), failing at once (kInternal) on a
  // broken invariant.
  Status Until(const std::function<bool(const Views&)>& done, std::chrono::milliseconds bound,
               const std::string& what);
  // Samples for `span`, each sample required to satisfy `hold` (kInternal
  // naming `what` and the view when one does not).
  Status During(const std::function<bool(const Views&)>& hold, std::chrono::milliseconds span,
                const std::string& what);

  // When each box was first seen UP, from `start`.
  const std::map<std::string, std::chrono::milliseconds>& first_up() const { return first_up_; }
  const Views& last() const { return last_; }

 private:
  // One sample: reads the view and checks the invariants.
  Status Sample();

  const Haproxy& haproxy_;
  SteadyTime start_;
  std::map<std::string, std::string> never_up_;
  std::function<std::string(const std::string&)> on_first_up_;
  std::map<std::string, std::chrono::milliseconds> first_up_;
  Views last_;
};

// "box-1=DOWN/L7STS box-2=UP/L7OK" for failure messages.
std::string Describe(const Views& v);

// True when every box of `boxes` is checked and in state `up` (UP or DOWN).
bool All(const Views& v, const std::set<std::string>& boxes, bool up);

// Makes `box` referenced before it first starts: creates its box key in
// `data_dir` (where its agent will find and keep it) and publishes
// control/edges/<box>.json signed with that key and naming the box, as a
// hosting agent under this label once would have. Errors: the key's or the
// store's.
Status MakeReferenced(Store& store, const std::string& data_dir, const std::string& box);

// Writes control/invitations/<box>.json create-only: a well-formed
// invitation bound to the box's identity record as stored, but signed by a
// freshly made key that is not the deployment's enrollment key. Errors:
// the record is missing or unreadable; the store's.
Status ForgeInvitation(Store& store, const std::string& box, const std::string& region);

}  // namespace carlos::e2e
