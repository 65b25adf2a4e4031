#include "protocol/documents.h"

#include "identity/refusal.h"

namespace carlos::protocol {

void CheckRecord(DocState<identity::IdentityRecord>* d, std::string_view box) {
  if (d->parsed) d->status = identity::VerifyIdentityRecord(*d->parsed, box);
}

void CheckRetirement(DocState<identity::Retirement>* d, const identity::PublicKey& enrollment_key,
                     std::string_view box, std::optional<std::string_view> record_digest) {
  if (d->parsed) {
    d->status = identity::VerifyRetirement(*d->parsed, enrollment_key, box, record_digest);
  }
}

void CheckEnrollment(DocState<identity::Enrollment>* d, const identity::PublicKey& enrollment_key,
                     const identity::EnrollmentBinding& binding) {
  if (d->parsed) d->status = identity::VerifyEnrollment(*d->parsed, enrollment_key, binding);
}

void CheckInvitation(DocState<identity::Invitation>* d, const identity::PublicKey& enrollment_key,
                     std::string_view box, std::string_view record_digest, SystemTime now) {
  if (d->parsed) {
    d->status = identity::VerifyInvitation(*d->parsed, enrollment_key, box, record_digest, now);
  }
}

void CheckReport(DocState<identity::StatusReport>* d, const identity::PublicKey& record_key,
                 std::string_view box) {
  if (d->parsed) d->status = identity::VerifyStatusReport(*d->parsed, record_key, box);
}

RetirementEffect RetirementEffectOf(const DocState<identity::Retirement>& retirement,
                                    bool record_parsed) {
  if (!retirement.present) return RetirementEffect::kNone;
  if (retirement.valid()) return RetirementEffect::kRetired;
  if (record_parsed &&
      identity::RefusalOf(retirement.status) == identity::Refusal::kBoundToAnotherDigest) {
    return RetirementEffect::kOfAnotherRecord;
  }
  return RetirementEffect::kUnknown;
}

}  // namespace carlos::protocol
