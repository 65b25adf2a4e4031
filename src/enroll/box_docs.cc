#include "enroll/box_docs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "identity/iid.h"
#include "identity/refusal.h"
#include "identity/store_keys.h"

namespace carlos::enroll {

namespace {

const identity::Parsed<identity::IdentityRecord>& Record(const BoxDocs& docs) {
  return *docs.record.parsed;
}

}  // namespace

Status CheckAwsAccount(std::string_view box, const identity::IdentityRecord& rec,
                       const EnrollerSettings& settings) {
  if (!settings.aws_accounts || !rec.attestation) return OkStatus();
  StatusOr<identity::InstanceIdentityDocument> iid =
      identity::ParseInstanceIdentityDocument(rec.attestation->document);
  if (!iid.ok()) return iid.status();  // VerifyRecordAttestation refused it first.
  if (AwsAccountAllowed(settings, iid->account_id)) return OkStatus();
  return identity::Refuse(
      identity::Refusal::kForeignAccount, fmt::format("the identity record of {}", box),
      fmt::format("its instance identity document is of AWS account {}, which is not one of this "
                  "deployment's ({}; CARLOS_AWS_ACCOUNTS)",
                  iid->account_id, fmt::join(*settings.aws_accounts, ", ")));
}

protocol::ReadKey StoreReader(Store& store) {
  return [&store](const std::string& key) { return store.GetIfExists(key); };
}

RecordChecker::Result RecordChecker::Check(
    std::string_view box, const identity::Parsed<identity::IdentityRecord>& parsed) {
  std::string key = fmt::format("{} {}", box, parsed.digest);
  {
    MutexLock lock(&mu_);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
  }
  // Computed outside the lock so that workers verify in parallel; two
  // workers computing the same record agree, and either result is cached.
  Result r = Compute(box, parsed);
  MutexLock lock(&mu_);
  cache_.emplace(std::move(key), r);
  return r;
}

RecordChecker::Result RecordChecker::Compute(
    std::string_view box, const identity::Parsed<identity::IdentityRecord>& parsed) {
  Result r;
  r.record = identity::VerifyIdentityRecord(parsed, box);
  if (!r.record.ok()) return r;
  const identity::IdentityRecord& rec = parsed.doc;
  if (!rec.attestation) {
    if (!settings_->allow_unattested) {
      r.attestation = identity::Refuse(
          identity::Refusal::kUnattested, fmt::format("the identity record of {}", box),
          "it has no instance identity document, and this deployment does not allow unattested "
          "boxes (CARLOS_ALLOW_UNATTESTED)");
    }
    return r;
  }
  // An attested record is checked even where unattested boxes are allowed:
  // a record that claims an instance identity it cannot prove is forged, not
  // merely unattested.
  const std::string* pem = settings_->iid_certificates.For(rec.region);
  if (pem == nullptr) {
    if (settings_->allow_unattested) return r;
    r.attestation = identity::Refuse(
        identity::Refusal::kUnattested, fmt::format("the identity record of {}", box),
        fmt::format("no AWS certificate is configured for region {} (CARLOS_AWS_IID_CERT)",
                    rec.region));
    return r;
  }
  r.attestation = identity::VerifyRecordAttestation(rec, *pem);
  if (r.attestation.ok()) r.attestation = CheckAwsAccount(box, rec, *settings_);
  return r;
}

BoxDocs ReadBoxDocs(const protocol::ReadKey& read, const FleetListing& fleet,
                    std::string_view box_view, const EnrollerSettings& settings,
                    RecordChecker& checker, SystemTime now, ReadDepth depth) {
  BoxDocs docs;
  docs.box = std::string(box_view);
  const std::string& box = docs.box;
  docs.record = protocol::ReadDoc<identity::IdentityRecord>(read, identity::RecordKey(box),
                                                            identity::ParseIdentityRecord);
  if (docs.record.parsed) {
    RecordChecker::Result r = checker.Check(box, *docs.record.parsed);
    docs.record.status = r.record;
    docs.attestation = r.attestation;
  }
  bool everything = depth == ReadDepth::kEverything;

  // Listed, but not read unless needed: a reader that skips a document
  // still knows it exists.
  docs.retirement.present = fleet.retired.contains(box);
  docs.enrollment.present = fleet.enrollments.contains(box);
  docs.invitation.present = fleet.invitations.contains(box);
  docs.report.present = fleet.reports.contains(box);
  docs.referenced_by = fleet.edges.contains(box) ? identity::EdgesKey(box) : "";
  // Without a valid record nothing but a retirement can be verified (every
  // other binding is to the record's digest or key), so nothing else is
  // read; a retirement is, for the stage (protocol/stage.h: retired comes
  // first, bound to the label when no record parses).
  if (!docs.record.valid()) {
    if (everything && docs.retirement.present) {
      docs.retirement = ReadRetirement(read, docs, settings);
    }
    return docs;
  }

  if (docs.retirement.present) {
    docs.retirement = ReadRetirement(read, docs, settings);
    if (docs.retirement.valid() && !everything) return docs;
  }
  if (docs.enrollment.present) {
    docs.enrollment = ReadEnrollment(read, docs, settings);
    if (docs.enrollment.valid() && !everything) return docs;
  }
  if (docs.invitation.present) docs.invitation = ReadInvitation(read, docs, settings, now);
  if (docs.report.present) {
    docs.report = protocol::ReadDoc<identity::StatusReport>(read, identity::StatusKey(box),
                                                            identity::ParseStatusReport);
    protocol::CheckReport(&docs.report, Record(docs).doc.public_key, box);
    if (docs.report.read && !docs.report.store_error()) {
      docs.report_written_at = now - docs.report.age.value_or(Milliseconds(0));
    }
  }
  return docs;
}

DocState<identity::Invitation> ReadInvitation(const protocol::ReadKey& read, const BoxDocs& docs,
                                              const EnrollerSettings& settings, SystemTime now) {
  auto d = protocol::ReadDoc<identity::Invitation>(read, identity::InvitationKey(docs.box),
                                                   identity::ParseInvitation);
  protocol::CheckInvitation(&d, settings.enrollment_public_key, docs.box, Record(docs).digest, now);
  return d;
}

DocState<identity::Enrollment> ReadEnrollment(const protocol::ReadKey& read, const BoxDocs& docs,
                                              const EnrollerSettings& settings) {
  auto d = protocol::ReadDoc<identity::Enrollment>(read, identity::EnrollmentKey(docs.box),
                                                   identity::ParseEnrollment);
  protocol::CheckEnrollment(
      &d, settings.enrollment_public_key,
      identity::EnrollmentBinding{docs.box, Record(docs).digest, std::nullopt, std::nullopt});
  return d;
}

DocState<identity::Retirement> ReadRetirement(const protocol::ReadKey& read, const BoxDocs& docs,
                                              const EnrollerSettings& settings) {
  auto d = protocol::ReadDoc<identity::Retirement>(read, identity::RetiredKey(docs.box),
                                                   identity::ParseRetirement);
  std::optional<std::string_view> record_digest;
  if (docs.record.parsed) record_digest = docs.record.parsed->digest;
  protocol::CheckRetirement(&d, settings.enrollment_public_key, docs.box, record_digest);
  return d;
}

}  // namespace carlos::enroll
