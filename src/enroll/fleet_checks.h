// The checks that need more than one box's documents: a conflict between two
// records that claim the same EC2 instance, and references (a box an edges
// file names is referenced, DESIGN.md, "The deployment store").
//
// Thread-safety: MarkConflicts is single-threaded over its vector;
// LoadReferences fans its reads out on up to `workers` threads.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "enroll/box_docs.h"
#include "enroll/fleet.h"
#include "store/store.h"

namespace carlos::enroll {

// Sets `conflict` on every box whose valid identity record names the same
// (non-empty) instance id as another valid record, unless it is validly
// enrolled (that one keeps its place; the newcomer is the suspect) or
// validly retired (a retired identity claims nothing). An instance identity
// document is not secret — anything on the instance can read it — so a
// second record carrying it proves nothing; both stay refused until an
// operator retires one. The message names the other labels.
void MarkConflicts(std::vector<BoxDocs>& boxes);

struct References {
  // Box label -> the first edges file key (ascending) that names it.
  std::map<std::string, std::string> named_by;
  // One line per edges file that is refused and not counted: its signature
  // does not verify under its writer's valid identity record, or it does
  // not parse (docs/enroll.md, "Referenced").
  std::vector<std::string> refused;
};

// Reads every edges file `fleet` lists. An edges file whose writer has a
// valid record among `boxes` counts only when it verifies under that
// record's key; one whose writer has no valid record (a box from before
// region HA, say) counts unverified, since counting it can only make the
// enroller refuse more. Errors: the first store error (the pass cannot know
// which boxes are referenced).
StatusOr<References> LoadReferences(Store& store, const FleetListing& fleet,
                                    const std::vector<BoxDocs>& boxes, int workers);

}  // namespace carlos::enroll
