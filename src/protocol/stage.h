// The stage table (DESIGN.md, "Mode selection (joinmode)"; docs/protocol.md,
// "Stages"): the one function that decides, from what can be seen of one
// box, whether it may host, and if not, which joining stage it is at and
// why. The box's own mode selection (host/joinmode.h SelectMode) and the
// enroller's `carlos boxes list` (enroll/stage.h StoreStage) both call it:
// the box with its documents and its local guard, the enroller with the
// same documents and the guard as the box's status report states it.
//
// First match wins:
//   retired          a valid retirement of this record (or, with no record
//                    that parses, of this label);
//   (a retirement that cannot be read or checked: mode unknown, an error;
//    one of an earlier record under the label is ignored, with a note)
//   unrecorded       no identity record;
//   conflict         the record is refused, or it is not this box's (another
//                    key: on the box, its record holds another key; at the
//                    enroller, the box's report is signed by another key);
//   hosting          a valid enrollment bound to the record, and the guard
//                    binds this box and record and is armed for the
//                    enrollment's guard digest;
//   guard-ready      a valid invitation, the guard bound to it and armed;
//   guard-installed  a valid invitation, the guard bound to it, not armed;
//   invited          a valid invitation (or a valid enrollment whose guard
//                    is lost or another);
//   referenced       an edges file of this box is published;
//   recorded         otherwise.
//
// Thread-safety: a pure function of its argument (and of what its injected
// functions return); safe from any thread when they are.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "base/status.h"
#include "identity/guard_files.h"
#include "identity/status_report.h"
#include "protocol/documents.h"
#include "protocol/local_guard.h"
#include "protocol/mode.h"

namespace carlos::protocol {

// The guard as a reader sees it: on the box from its files, at the enroller
// from the box's report. A value.
struct GuardView {
  bool installed = false;
  bool armed = false;  // Installed and armed for guard_digest.
  std::string guard_digest;
  std::string record_digest;
  std::string invitation_digest;
  // The box the guard binds, when the reader can see it (the box's own
  // files); a report's guard is the reporting box's by construction.
  std::optional<std::string> box;
  // When not installed: why ("the guard is not installed", "guard refused:
  // ..."); when installed and not armed: why not armed.
  std::string why_not;
};

// The guard of the box's own files.
GuardView GuardViewOf(const LocalGuard& local);
// The guard as a status report states it; not installed when the report
// has no guard facts.
GuardView GuardViewOf(const std::optional<identity::GuardFacts>& facts);

// Whether an edges file of this box is published.
struct Referenced {
  bool referenced = false;
  // When it is published and does not verify under the box's key: the
  // refusal as a phrase (it still counts: the enroller sees the key listed).
  std::string refused;
};

// What can be seen of one box. Documents are checked with
// protocol/documents.h (their bindings); the enrollment and invitation are
// looked at only when the record is valid and this box's, and the guard and
// the edges file only when they can change the answer, so a caller may
// leave the first unread and the others lazy.
struct BoxView {
  std::string box;
  DocState<identity::Retirement> retirement;
  DocState<identity::IdentityRecord> record;
  // Why the record, valid, is not this box's (another key), or nullopt.
  std::optional<std::string> not_this_box;
  DocState<identity::Enrollment> enrollment;
  DocState<identity::Invitation> invitation;
  // The guard; called at most once, only when enrolled or invited. Required.
  std::function<StatusOr<GuardView>()> guard;
  // The edges file; called at most once, only when neither enrolled nor
  // invited. Required.
  std::function<StatusOr<Referenced>()> referenced;
};

// The stage of `view`, by the table above. The decision's `why` says, in
// parentheses, what the stage rests on and, after "; ", any document that was
// refused on the way: "(waiting to be invited; invitation refused: bad
// signature: ...)". An expiry's facts are left out of the why (they name the
// current time, which would change the why on every check).
// Errors (the mode is unknown; never a guess), each "mode unknown: <what>:
// <cause>" (ModeUnknown): a document the store could not read; a
// retirement that is present but refused (RetirementEffect::kUnknown); a
// check that could not run; the guard or the edges file could not be read.
StatusOr<ModeDecision> SelectStage(const BoxView& view);

// "<doc> refused: <reason>: <detail>" for a refusal (identity/refusal.h
// payload), "<doc> refused: <reason>" for an expiry; the status's message
// otherwise.
std::string RefusedWhy(std::string_view doc, const Status& refusal);

}  // namespace carlos::protocol
