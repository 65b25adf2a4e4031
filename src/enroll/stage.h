// A box's stage as the box itself would compute it (DESIGN.md, "Mode
// selection (joinmode)", the table's first match), from what the store
// shows: the box's local guard is seen through its latest status report's
// guard facts, and its own key through its record and report (a record that
// does not verify, or a report signed by another key than the record's, is
// a conflict: another machine holds the label). The names are host/mode.h
// StageName's.
//
// Thread-safety: a pure function; safe from any thread.
#pragma once

#include "base/clock.h"
#include "base/status.h"
#include "enroll/box_docs.h"
#include "host/mode.h"

namespace carlos::enroll {

// The stage of `docs` (read with ReadDepth::kEverything, references
// marked; an invitation counts when it was valid at the time it was read).
// Errors: the store error of a document that could not be read, or the
// refusal of a retirement that does not verify (the stage is unknown, never
// guessed, as the box's own SelectMode does).
StatusOr<Stage> StoreStage(const BoxDocs& docs);

}  // namespace carlos::enroll
