// The check that needs more than one box's documents: a conflict between two
// records that claim the same EC2 instance.
//
// Thread-safety: single-threaded over its vector.
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

}  // namespace carlos::enroll
