// A box's stage as `carlos boxes list` shows it: the box's own stage
// function (protocol/stage.h SelectStage) over what the store shows of it.
// The box's local guard is seen through its latest status report's guard
// facts (GuardViewOf), and whether the record is this box's through the
// report's signature (a report signed by another key than the record's is
// another machine under the label: a conflict).
//
// Thread-safety: a pure function; safe from any thread.
#pragma once

#include <string>

#include "base/status.h"
#include "enroll/box_docs.h"
#include "protocol/mode.h"

namespace carlos::enroll {

// The stage of `docs` (read with ReadDepth::kEverything, references
// marked; an invitation counts when it was valid at the time it was read).
// Errors: SelectStage's ("mode unknown: <key>: <cause>": a document the
// store could not give, a retirement that does not verify): the stage is
// unknown, never guessed, as on the box.
StatusOr<protocol::Stage> StoreStage(const BoxDocs& docs);

// The stage of a box as an automatic pass read it (ReadDepth::kAutomatic),
// for the enroller's metrics: StoreStage's name, except "enrolled" for a box
// with a valid enrollment (whose report the pass does not read, so hosting
// and invited — its guard lost — cannot be told apart: the box's own
// carlos_box_stage tells), and "unknown" for StoreStage's errors. One of
// kPassStages.
std::string PassStage(const BoxDocs& docs);

// Every value PassStage returns.
inline constexpr const char* kPassStages[] = {
    "retired",         "unrecorded", "conflict",   "enrolled", "guard-ready",
    "guard-installed", "invited",    "referenced", "recorded", "unknown"};

}  // namespace carlos::enroll
