// The agent's mode decision (DESIGN.md, "Mode selection (joinmode)"): what
// selectMode answers and what the joining loop and the gate act on.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace carlos::protocol {

enum class Mode {
  kJoining,  // The box hosts nothing; the joining loop runs.
  kHosting,  // Enrolled and armed (or a switch is off): the claim agent runs.
};

// The stages of DESIGN.md's table, in its first-match order (kHosting is
// the hosting row, which has no joining stage of its own).
enum class Stage {
  kNone,            // No decision yet (the joining loop's start).
  kRetired,         // A valid retirement names this box.
  kUnrecorded,      // No identity record yet (boxRecordLoop is retrying).
  kConflict,        // The record under this label is not this box's.
  kHosting,         // Enrolled, and the guard is armed for the enrollment.
  kGuardReady,      // Invited, guard armed: publish the guard-ready report.
  kGuardInstalled,  // Invited, guard installed but not armed: publish the report.
  kInvited,         // Invited (or enrolled with the guard lost): ask root to arm.
  kReferenced,      // An edges file names this box and it is not invited.
  kRecorded,        // Recorded, nothing else: waits to be invited.
};

// The stage's name as logs, the health check and `carlos boxes list` spell
// it: "retired", "unrecorded", "conflict", "hosting", "guard-ready",
// "guard-installed", "invited", "referenced", "recorded" ("" for kNone).
std::string_view StageName(Stage stage);

// One selectMode answer: the mode, the box's label, the stage and why (a
// short phrase, possibly empty, such as "invitation refused: bad
// signature"). A value; copy freely.
struct ModeDecision {
  Mode mode = Mode::kJoining;
  std::string box;
  Stage stage = Stage::kNone;
  std::string why;

  friend bool operator==(const ModeDecision&, const ModeDecision&) = default;
};

// The error of a mode that cannot be known (an unreadable store or guard),
// which is never a guess: "mode unknown: <what>: <cause>", with `cause`'s
// code (the seed's modeUnknown). `what` names what could not be read, e.g.
// "the deployment's stores and this box's guard" or
// "control/boxes/web-1.json".
Status ModeUnknown(std::string_view what, const Status& cause);

}  // namespace carlos::protocol
