// The guard-ready rule (DESIGN.md, "Enrollment": enroll "an invited box
// whose guard-ready report is fresh, armed, and bound to the same record and
// invitation"; docs/protocol.md, "Guard-ready"): the one test of a box's
// status report before it is enrolled. The enroller applies it
// (enroll/verdict.h), and the agent's tests check the reports the agent
// publishes with it.
//
// The rule, first failure wins:
//   no report                    kNoReport
//   a report the store could not give                       kStoreError
//   signed by another key than the record's                 kWrongKey
//   refused otherwise (forged, corrupt, another box)        kRefused
//   no guard facts                                          kNotGuardReady
//   reported more than `freshness` before `now`, or dated more than
//   `clock_skew` after it                                   kStale
//   for another instance or region than the record's        kMismatch
//   guard not installed or not armed                        kNotArmed
//   guard bound to another record or invitation digest      kBoundElsewhere
//   armed without a guard digest                            kNotGuardReady
//   otherwise                                               kReady
//
// Thread-safety: a pure function; safe from any thread.
#pragma once

#include <string>
#include <string_view>

#include "base/clock.h"
#include "identity/identity_record.h"
#include "identity/invitation.h"
#include "identity/status_report.h"
#include "protocol/documents.h"

namespace carlos::protocol {

enum class GuardReadiness {
  kReady,
  kNoReport,
  kStoreError,
  kWrongKey,
  kRefused,
  kNotGuardReady,
  kStale,
  kMismatch,
  kNotArmed,
  kBoundElsewhere,
};

// The readiness's stable name: "ready", "no report", "store",
// "conflict" (kWrongKey: another machine publishes under the label),
// "report refused", "not guard-ready", "report stale", "report mismatch",
// "guard not armed", "guard bound elsewhere" — the enroller's reason names
// (docs/enroll.md, "Rules").
std::string_view GuardReadinessName(GuardReadiness readiness);

struct GuardReadyCheck {
  GuardReadiness readiness = GuardReadiness::kReady;
  // The facts in a whole clause ("its guard-ready report is 6m0s old
  // (reported at ...); reportFreshness is 5m0s"); "" when ready.
  std::string detail;
};

// Tests `report` (read and checked with CheckReport against the record's
// key) of a box whose `record` and `invitation` are valid, at `now`.
// `freshness` is reportFreshness (DESIGN.md, "Timings"), `clock_skew` how far
// ahead of `now` a report may be dated (milliseconds).
GuardReadyCheck CheckGuardReady(const DocState<identity::StatusReport>& report,
                                const identity::Parsed<identity::IdentityRecord>& record,
                                const identity::Parsed<identity::Invitation>& invitation,
                                SystemTime now, Milliseconds freshness, Milliseconds clock_skew);

}  // namespace carlos::protocol
