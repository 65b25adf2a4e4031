// What automatic enrollment does with one box, decided from its documents
// alone (DESIGN.md, "Enrollment"): a pure function, so every rule is tested
// without a store.
//
// The rules, first match wins (docs/enroll.md, "Rules"):
//   no record                      -> nothing (the box is unrecorded)
//   record refused                 -> refused "record refused"
//   valid retirement               -> refused "retired"
//   retirement refused             -> refused "retirement refused"
//   valid enrollment               -> nothing (enrolled)
//   another region than the scope  -> refused "other region"
//   attestation fails              -> refused "unattested"
//   its AWS account is not one of CARLOS_AWS_ACCOUNTS
//                                  -> refused "foreign account"
//   conflict                       -> refused "conflict"
//   enrollment refused             -> refused "enrollment refused"
//   invitation absent, expired or bound to another record digest:
//     referenced                   -> refused "referenced"
//     otherwise                    -> invite (create-only), or re-invite
//                                     (compare-and-swap) over the old one
//   invitation refused otherwise   -> refused "invitation refused"
//   valid invitation, and the guard-ready report is
//     absent                       -> not enrolled "no report"
//     signed by another key        -> refused "conflict"
//     refused otherwise            -> not enrolled "report refused"
//     without guard facts          -> not enrolled "not guard-ready"
//     written reportFreshness ago or more, as the enroller saw it
//                                  -> not enrolled "report stale"
//     for another box instance or region than the record's
//                                  -> not enrolled "report mismatch"
//     guard not installed or not armed
//                                  -> not enrolled "guard not armed"
//     guard bound to another record or invitation digest
//                                  -> not enrolled "guard bound elsewhere"
//     fresh, armed and bound       -> enroll (create-only)
//   a document the store could not read (not a refusal) -> error "store"
//
// Thread-safety: pure functions; safe from any thread.
#pragma once

#include <string>

#include "base/clock.h"
#include "enroll/box_docs.h"
#include "enroll/reason.h"
#include "enroll/settings.h"

namespace carlos::enroll {

enum class VerdictKind {
  kNothing,   // Unrecorded, or enrolled: nothing to do.
  kRefused,   // The enroller will not invite or enroll it until something changes.
  kWaiting,   // Invited; not enrolled yet, for the reason given.
  kInvite,    // Write a new invitation, create-only.
  kReinvite,  // Replace the invitation read (its version), compare-and-swap.
  kEnroll,    // Write the enrollment, create-only.
  kError,     // A document could not be read; try again next pass.
};

struct Verdict {
  VerdictKind kind = VerdictKind::kNothing;
  // The reason (see above); kNone for kNothing, kInvite and kEnroll. The
  // watch loop logs each (box, reason) once, so a reason never carries
  // changing facts: those are in `detail`.
  Reason reason = Reason::kNone;
  // The facts, in a whole clause: "its edges file control/edges/web-1.json
  // is published (...)".
  std::string detail;
};

// Decides for `docs` (read with ReadBoxDocs, conflicts and references
// marked) at `now`.
Verdict Decide(const BoxDocs& docs, const EnrollerSettings& settings, SystemTime now);

// The guard-ready test alone (the report rows above) for a box whose
// invitation is valid: OK to enroll, or the kWaiting/kRefused verdict.
// Returns kEnroll when the report passes.
Verdict CheckReport(const BoxDocs& docs, const EnrollerSettings& settings, SystemTime now);

// The name of `kind` for messages and `carlos boxes list --json`: "nothing",
// "refused", "waiting", "invite", "reinvite", "enroll", "error".
std::string_view VerdictKindName(VerdictKind kind);

}  // namespace carlos::enroll
