// Why automatic enrollment refuses a box, waits on it, or could not handle
// it (docs/enroll.md, "Rules of automatic enrollment"; enroll/verdict.h
// decides which). Code acts on the value: the log's once-per-reason rule,
// `--force`, the pass's error count all compare a Reason; only ReasonName
// turns it into the stable text that is logged, listed and counted.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <string_view>

#include "protocol/guard_ready.h"

namespace carlos::enroll {

enum class Reason {
  kNone,  // kNothing, kInvite, kEnroll (and a write that landed).
  kRecordRefused,
  kRetired,
  kRetirementRefused,
  kOtherRegion,
  kUnattested,
  kForeignAccount,
  kConflict,
  kEnrollmentRefused,
  kReferenced,
  kInvitationRefused,
  kNoReport,
  kReportRefused,
  kNotGuardReady,
  kReportStale,
  kReportMismatch,
  kGuardNotArmed,
  kGuardBoundElsewhere,
  kStore,  // A document could not be read, or a write failed.
};

// The reason's stable name, as logged, listed (`carlos boxes list`'s
// REFUSED-BECAUSE, `refused_because`) and counted (the decisions metric's
// `reason` label): "" for kNone, "record refused", "retired", "retirement
// refused", "other region", "unattested", "foreign account", "conflict",
// "enrollment refused", "referenced", "invitation refused", and for the
// report rows protocol::GuardReadinessName's ("no report", "report
// refused", "not guard-ready", "report stale", "report mismatch", "guard
// not armed", "guard bound elsewhere"), "store".
std::string_view ReasonName(Reason reason);

// The report rows' reason for a guard-ready check's answer
// (protocol/guard_ready.h decides those): kNone for kReady, kConflict for
// kWrongKey (another machine publishes under the label), kStore for
// kStoreError, the row's own reason otherwise.
Reason ReasonOf(protocol::GuardReadiness readiness);

}  // namespace carlos::enroll
