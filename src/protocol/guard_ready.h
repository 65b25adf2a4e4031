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
//   written `freshness` or more before `now`, as the reader observed it
//   (FreshnessOf; never the box's own `reported_at`)         kStale
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

// The freshness rule, its one home (DESIGN.md, "Timings": reportFreshness;
// docs/protocol.md, "Clocks"): a document is fresh at `now` while less than
// `freshness` has passed since `written_at`, where both are the reader's own
// clock — `written_at` is when the reader saw the document written (the
// time it read it less the store's own age of it, Object::age, or when it
// first saw that version), never a time the writer stamped. So a writer's
// clock, however far off, changes nothing; the allowance is the store's
// clock against the reader's (docs/protocol.md, "Clocks").
struct Freshness {
  bool fresh = true;
  Milliseconds age{0};  // now - written_at, never negative.
};
Freshness FreshnessOf(SystemTime written_at, SystemTime now, Milliseconds freshness);

// How far a writer's clock is ahead of the reader's (negative: behind),
// as one document shows it: the time the writer stamped on it less when the
// reader saw it written. Exact to the store's age resolution (S3: 1 s) plus
// the writer's delay between stamping and writing.
Milliseconds ClockSkewOf(SystemTime stamped_at, SystemTime written_at);

// Tests `report` (read and checked with CheckReport against the record's
// key) of a box whose `record` and `invitation` are valid, at `now`, the
// report having been written at `written_at` (both on the reader's clock;
// FreshnessOf). `freshness` is reportFreshness (DESIGN.md, "Timings").
GuardReadyCheck CheckGuardReady(const DocState<identity::StatusReport>& report,
                                const identity::Parsed<identity::IdentityRecord>& record,
                                const identity::Parsed<identity::Invitation>& invitation,
                                SystemTime now, SystemTime written_at, Milliseconds freshness);

}  // namespace carlos::protocol
