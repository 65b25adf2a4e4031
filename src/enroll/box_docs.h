// One box's documents as the enroller reads them from the store, each parsed
// and verified (DESIGN.md, "Enrollment"; identity/*.h for each document's
// rules), and nothing decided yet: verdict.h decides, stage.h names the
// stage.
//
// Thread-safety: ReadBoxDocs may run for distinct boxes on many threads at
// once (the Store and the RecordChecker are thread-safe); one BoxDocs is
// written by one thread.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/status.h"
#include "enroll/fleet.h"
#include "enroll/settings.h"
#include "identity/enrollment.h"
#include "identity/identity_record.h"
#include "identity/invitation.h"
#include "identity/retirement.h"
#include "identity/status_report.h"
#include "protocol/documents.h"
#include "store/store.h"

namespace carlos::enroll {

// One document of the box: the protocol's one type (protocol/documents.h).
template <typename T>
using DocState = protocol::DocState<T>;

struct BoxDocs {
  std::string box;
  DocState<identity::IdentityRecord> record;
  // When the record is valid: OK when its instance identity document
  // verifies against AWS's certificate and is of one of the deployment's
  // AWS accounts (CheckAwsAccount), or when unattested boxes are allowed
  // and it has none; otherwise why not (a refusal, identity/refusal.h:
  // kForeignAccount for another account).
  Status attestation;
  DocState<identity::Retirement> retirement;
  DocState<identity::Enrollment> enrollment;
  // Verified against the record's digest and the pass's time: an expired
  // invitation has a kExpired refusal here and `parsed` set.
  DocState<identity::Invitation> invitation;
  // Verified against the record's public key (a kWrongKey refusal here is
  // another machine publishing under this label: a conflict).
  DocState<identity::StatusReport> report;
  // When the report read was written, on the enroller's own clock: the time
  // of the read less the store's age of it (Object::age), or, when the
  // informer kept it, as first observed (informer.h). Freshness is judged by
  // this, never by the box's `reported_at` (docs/protocol.md, "Clocks").
  // Set when the report was read.
  std::optional<SystemTime> report_written_at = std::nullopt;
  // Why this box conflicts with another record (the same EC2 instance
  // recorded under two labels), or nullopt.
  std::optional<std::string> conflict;
  // The box's edges file ("control/edges/web-1.json") when one is
  // published, or "": a box an edges file names is referenced (DESIGN.md,
  // "The deployment store"). The edges file names its writer, and only a
  // box that hosted under this label writes one; whether it verifies does
  // not matter (the stage counts it either way, protocol/stage.h), and
  // reading only the listing keeps this, like the box's own check, free.
  std::optional<std::string> referenced_by;
};

// How much of a box a reader needs.
enum class ReadDepth {
  // What automatic enrollment needs, skipping documents whose answer cannot
  // change its decision: a retired box's others, a validly enrolled box's
  // invitation and report. This is the cheap pass.
  kAutomatic,
  // Every present document (`carlos boxes list`, the manual commands).
  kEverything,
};

// The deployment's account rule (docs/enroll.md, "Settings",
// CARLOS_AWS_ACCOUNTS): OK when no accounts are set, the record is
// unattested (CARLOS_ALLOW_UNATTESTED governs those), or its instance
// identity document's accountId is one of settings.aws_accounts; otherwise
// a kForeignAccount refusal naming the account. Call it only on a record
// whose attestation verified (the accountId is then AWS's word). Pure.
Status CheckAwsAccount(std::string_view box, const identity::IdentityRecord& rec,
                       const EnrollerSettings& settings);

// Verifies identity records and their attestations once per record digest:
// records are create-only and never rewritten, so a watch loop need not
// repeat the Ed25519 and RSA checks of thousands of unchanged records every
// pass. Thread-safe.
class RecordChecker {
 public:
  explicit RecordChecker(const EnrollerSettings* settings) : settings_(settings) {}

  struct Result {
    Status record;       // VerifyIdentityRecord's answer.
    Status attestation;  // See BoxDocs::attestation; OK when `record` is not.
  };
  // Checks `parsed`, read under `box`'s key.
  Result Check(std::string_view box, const identity::Parsed<identity::IdentityRecord>& parsed);

 private:
  Result Compute(std::string_view box, const identity::Parsed<identity::IdentityRecord>& parsed);

  const EnrollerSettings* settings_;
  Mutex mu_;
  // "<box> <digest>" -> result.
  std::unordered_map<std::string, Result> cache_ CARLOS_GUARDED_BY(mu_);
};

// Reads keys straight from `store` (Store::GetIfExists).
protocol::ReadKey StoreReader(Store& store);

// Reads `box`'s documents (those `fleet` lists, to `depth`) through `read`
// and verifies each against the record, `settings`' enrollment key and
// `now`. Fills everything but `conflict`. Never fails as a whole: each
// document's status says what went wrong with it.
BoxDocs ReadBoxDocs(const protocol::ReadKey& read, const FleetListing& fleet, std::string_view box,
                    const EnrollerSettings& settings, RecordChecker& checker, SystemTime now,
                    ReadDepth depth);

// Re-reads `box`'s invitation, enrollment or retirement after a lost race
// (a create-only write that found the key taken), verifying it as
// ReadBoxDocs does.
DocState<identity::Invitation> ReadInvitation(const protocol::ReadKey& read, const BoxDocs& docs,
                                              const EnrollerSettings& settings, SystemTime now);
DocState<identity::Enrollment> ReadEnrollment(const protocol::ReadKey& read, const BoxDocs& docs,
                                              const EnrollerSettings& settings);
DocState<identity::Retirement> ReadRetirement(const protocol::ReadKey& read, const BoxDocs& docs,
                                              const EnrollerSettings& settings);

}  // namespace carlos::enroll
