#include "enroll/verdict.h"

#include <fmt/format.h>

#include "identity/refusal.h"
#include "identity/store_keys.h"
#include "protocol/documents.h"
#include "protocol/guard_ready.h"

namespace carlos::enroll {

namespace {

Verdict Make(VerdictKind kind, Reason reason, std::string detail) {
  return Verdict{kind, reason, std::move(detail)};
}

Verdict StoreError(const Status& st) {
  return Make(VerdictKind::kError, Reason::kStore, st.message());
}

bool IsRefusal(const Status& st, identity::Refusal r) { return identity::RefusalOf(st) == r; }

}  // namespace

std::string_view VerdictKindName(VerdictKind kind) {
  switch (kind) {
    case VerdictKind::kNothing:
      return "nothing";
    case VerdictKind::kRefused:
      return "refused";
    case VerdictKind::kWaiting:
      return "waiting";
    case VerdictKind::kInvite:
      return "invite";
    case VerdictKind::kReinvite:
      return "reinvite";
    case VerdictKind::kEnroll:
      return "enroll";
    case VerdictKind::kError:
      return "error";
  }
  return "?";
}

Verdict Decide(const BoxDocs& docs, const EnrollerSettings& settings, SystemTime now) {
  const auto& record = docs.record;
  if (!record.present)
    return Make(VerdictKind::kNothing, Reason::kNone, "it has no identity record yet");
  if (record.store_error()) return StoreError(record.status);
  if (!record.valid())
    return Make(VerdictKind::kRefused, Reason::kRecordRefused, record.status.message());
  const identity::IdentityRecord& rec = record.parsed->doc;

  const auto& retirement = docs.retirement;
  if (retirement.store_error()) return StoreError(retirement.status);
  switch (protocol::RetirementEffectOf(retirement, /*record_parsed=*/true)) {
    case protocol::RetirementEffect::kNone:
    case protocol::RetirementEffect::kOfAnotherRecord:
      break;
    case protocol::RetirementEffect::kRetired: {
      const identity::Retirement& r = retirement.parsed->doc;
      std::string detail = fmt::format("it was retired at {}", FormatRfc3339(r.retired_at));
      if (!r.reason.empty()) detail += fmt::format(" ({})", r.reason);
      return Make(VerdictKind::kRefused, Reason::kRetired, detail);
    }
    case protocol::RetirementEffect::kUnknown:
      return Make(VerdictKind::kRefused, Reason::kRetirementRefused, retirement.status.message());
  }

  const auto& enrollment = docs.enrollment;
  if (enrollment.store_error()) return StoreError(enrollment.status);
  if (enrollment.valid()) return Make(VerdictKind::kNothing, Reason::kNone, "it is enrolled");

  if (settings.region && rec.region != *settings.region) {
    return Make(VerdictKind::kRefused, Reason::kOtherRegion,
                fmt::format("its region is {}; this enroller is scoped to {} (CARLOS_REGION)",
                            rec.region, *settings.region));
  }
  if (!docs.attestation.ok()) {
    return Make(VerdictKind::kRefused,
                IsRefusal(docs.attestation, identity::Refusal::kForeignAccount)
                    ? Reason::kForeignAccount
                    : Reason::kUnattested,
                docs.attestation.message());
  }
  if (docs.conflict) return Make(VerdictKind::kRefused, Reason::kConflict, *docs.conflict);
  if (enrollment.read) {
    return Make(VerdictKind::kRefused, Reason::kEnrollmentRefused, enrollment.status.message());
  }

  const auto& invitation = docs.invitation;
  if (invitation.store_error()) return StoreError(invitation.status);
  if (invitation.valid()) return CheckReport(docs, settings, now);
  VerdictKind invite = VerdictKind::kInvite;
  std::string why_again;
  if (invitation.read) {
    // An expired invitation, or one bound to a record that is no longer
    // this box's, is replaced (compare-and-swap on the version read). One
    // signed with another key or forged is not: two enrollers holding
    // different keys would otherwise replace each other's forever.
    if (!IsRefusal(invitation.status, identity::Refusal::kExpired) &&
        !IsRefusal(invitation.status, identity::Refusal::kBoundToAnotherDigest)) {
      return Make(VerdictKind::kRefused, Reason::kInvitationRefused, invitation.status.message());
    }
    invite = VerdictKind::kReinvite;
    why_again = invitation.status.message();
  }
  if (docs.referenced_by && !docs.referenced_by->empty()) {
    return Make(VerdictKind::kRefused, Reason::kReferenced,
                fmt::format("its edges file {} is published (it has hosted under this label); if "
                            "it should join, invite it by hand with carlos boxes invite --force {}",
                            *docs.referenced_by, docs.box));
  }
  return Make(invite, Reason::kNone, why_again);
}

Verdict CheckReport(const BoxDocs& docs, const EnrollerSettings& settings, SystemTime now) {
  protocol::GuardReadyCheck c =
      protocol::CheckGuardReady(docs.report, *docs.record.parsed, *docs.invitation.parsed, now,
                                docs.report_written_at.value_or(now), settings.report_freshness);
  switch (c.readiness) {
    case protocol::GuardReadiness::kReady:
      return Make(VerdictKind::kEnroll, Reason::kNone, "");
    case protocol::GuardReadiness::kStoreError:
      return StoreError(docs.report.status);
    case protocol::GuardReadiness::kWrongKey:
      return Make(VerdictKind::kRefused, ReasonOf(c.readiness), c.detail);
    default:
      return Make(VerdictKind::kWaiting, ReasonOf(c.readiness), c.detail);
  }
}

}  // namespace carlos::enroll
