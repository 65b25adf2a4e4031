// Removing boxes from the deployment store: `carlos boxes rm BOX` and
// `carlos boxes prune --retired --older-than D` (docs/enroll.md, "Removing
// boxes"; docs/operator.md, "Decommission"). Removal deletes every document
// under the box's label — status report, edges file, enrollment,
// invitation, identity record, retirement (identity/store_keys.h) — so that
// `carlos boxes list` forgets it, as `kubectl delete node` or `nomad system
// gc` do. It is also the way out of a record that is wrong for good (an
// unattested record written by mistake, a record of a machine that is gone).
//
// The retirement is deleted last: a removal cut short (a crash, a store
// error) leaves a retired box retired (protocol/stage.h: a retirement of
// the label counts when no record parses), never a box that may be invited
// again. A machine that still runs the agent after its documents are
// removed writes a new identity record and is a new box to the enroller;
// retire it first and remove it once it is gone.
//
// Thread-safety: plain functions; safe from any thread (Store is).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "enroll/settings.h"
#include "store/store.h"

namespace carlos::enroll {

// What one box's removal did.
struct Removal {
  std::string box;
  // The keys deleted, in the order deleted (only keys the listing showed).
  std::vector<std::string> removed;
  // The keys still there when a delete failed (the failed one first).
  std::vector<std::string> kept;
  // OK, or the delete's error (`kept` says what is left).
  Status status;
};

// The keys of `box` a removal deletes, in order: the status report, the
// edges file, the enrollment, the invitation, the identity record, the
// retirement (last; see above).
std::vector<std::string> RemovalKeys(std::string_view box);

// Removes `box`'s documents. Without `force`, refuses a box that is enrolled
// and reporting: a valid enrollment bound to its record and a status report
// that verifies under the record's key dated within `settings`'
// report_freshness (and clock skew) of `now` — a box that hosts now; with
// `force` it removes it anyway. Errors (nothing deleted): kInvalidArgument
// for a `box` that is not a label; kNotFound when no document of `box`
// exists; kPreconditionFailed for an enrolled, reporting box without
// `force`, saying to retire it first; a listing's store error, or (without
// `force`) the error of a document that could not be read to decide. A
// delete that fails is the returned Removal's status.
StatusOr<Removal> RemoveBox(Store& store, const EnrollerSettings& settings, SystemTime now,
                            std::string_view box, bool force);

// Removes every box whose retirement is valid (bound to its record, signed
// with the enrollment key) and dated `older_than` or more before `now`
// (milliseconds), box by box in label order. A retirement that does not
// verify is never pruned (`carlos boxes rm` removes it). Returns one Removal
// per box pruned; errors: a listing's store error (nothing deleted).
StatusOr<std::vector<Removal>> PruneRetired(Store& store, const EnrollerSettings& settings,
                                            SystemTime now, Milliseconds older_than);

// The line `carlos boxes rm` and `prune` print on stdout for `r`:
// "removed web-1: status/boxes/web-1.json, control/edges/web-1.json, ..."
// and, when a delete failed, "; not removed: <keys>".
std::string RemovalLine(const Removal& r);

}  // namespace carlos::enroll
