#include "enroll/verdict.h"

#include <fmt/format.h>

#include "identity/refusal.h"
#include "identity/store_keys.h"

namespace carlos::enroll {

namespace {

Verdict Make(VerdictKind kind, std::string reason, std::string detail) {
  return Verdict{kind, std::move(reason), std::move(detail)};
}

Verdict StoreError(const Status& st) { return Make(VerdictKind::kError, "store", st.message()); }

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
  if (!record.present) return Make(VerdictKind::kNothing, "", "it has no identity record yet");
  if (record.store_error()) return StoreError(record.status);
  if (!record.valid())
    return Make(VerdictKind::kRefused, "record refused", record.status.message());
  const identity::IdentityRecord& rec = record.parsed->doc;

  const auto& retirement = docs.retirement;
  if (retirement.store_error()) return StoreError(retirement.status);
  if (retirement.valid()) {
    const identity::Retirement& r = retirement.parsed->doc;
    std::string detail = fmt::format("it was retired at {}", FormatRfc3339(r.retired_at));
    if (!r.reason.empty()) detail += fmt::format(" ({})", r.reason);
    return Make(VerdictKind::kRefused, "retired", detail);
  }
  if (retirement.read) {
    return Make(VerdictKind::kRefused, "retirement refused", retirement.status.message());
  }

  const auto& enrollment = docs.enrollment;
  if (enrollment.store_error()) return StoreError(enrollment.status);
  if (enrollment.valid()) return Make(VerdictKind::kNothing, "", "it is enrolled");

  if (settings.region && rec.region != *settings.region) {
    return Make(VerdictKind::kRefused, "other region",
                fmt::format("its region is {}; this enroller is scoped to {} (CARLOS_REGION)",
                            rec.region, *settings.region));
  }
  if (!docs.attestation.ok()) {
    return Make(VerdictKind::kRefused, "unattested", docs.attestation.message());
  }
  if (docs.conflict) return Make(VerdictKind::kRefused, "conflict", *docs.conflict);
  if (enrollment.read) {
    return Make(VerdictKind::kRefused, "enrollment refused", enrollment.status.message());
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
      return Make(VerdictKind::kRefused, "invitation refused", invitation.status.message());
    }
    invite = VerdictKind::kReinvite;
    why_again = invitation.status.message();
  }
  if (docs.referenced_by && !docs.referenced_by->empty()) {
    return Make(VerdictKind::kRefused, "referenced",
                fmt::format("its edges file {} is published (it has hosted under this label); if "
                            "it should join, invite it by hand with carlos boxes invite --force {}",
                            *docs.referenced_by, docs.box));
  }
  return Make(invite, "", why_again);
}

Verdict CheckReport(const BoxDocs& docs, const EnrollerSettings& settings, SystemTime now) {
  const auto& report = docs.report;
  const identity::IdentityRecord& rec = docs.record.parsed->doc;
  const std::string& record_digest = docs.record.parsed->digest;
  const std::string& invitation_digest = docs.invitation.parsed->digest;
  if (!report.present) {
    return Make(VerdictKind::kWaiting, "no report",
                fmt::format("it is invited until {}; it has not published its guard-ready report "
                            "({}) yet",
                            FormatRfc3339(docs.invitation.parsed->doc.expires_at),
                            identity::StatusKey(docs.box)));
  }
  if (report.store_error()) return StoreError(report.status);
  if (IsRefusal(report.status, identity::Refusal::kWrongKey)) {
    return Make(
        VerdictKind::kRefused, "conflict",
        fmt::format("{}; another machine publishes under this label", report.status.message()));
  }
  if (!report.valid())
    return Make(VerdictKind::kWaiting, "report refused", report.status.message());
  const identity::StatusReport& r = report.parsed->doc;
  if (!r.guard) {
    return Make(VerdictKind::kWaiting, "not guard-ready",
                fmt::format("its status report (stage {}) carries no guard facts", r.stage));
  }
  auto age = std::chrono::duration_cast<Milliseconds>(now - r.reported_at);
  if (age >= settings.report_freshness) {
    return Make(VerdictKind::kWaiting, "report stale",
                fmt::format("its guard-ready report is {} old (reported at {}); reportFreshness "
                            "is {}",
                            FormatDuration(age), FormatRfc3339(r.reported_at),
                            FormatDuration(settings.report_freshness)));
  }
  if (-age > settings.report_clock_skew) {
    return Make(VerdictKind::kWaiting, "report stale",
                fmt::format("its guard-ready report is dated {} ahead of this enroller's clock "
                            "(reported at {}); the clock skew allowed is {}",
                            FormatDuration(-age), FormatRfc3339(r.reported_at),
                            FormatDuration(settings.report_clock_skew)));
  }
  if (r.instance_id != rec.instance_id || r.region != rec.region) {
    return Make(VerdictKind::kWaiting, "report mismatch",
                fmt::format("its report names instance \"{}\" in {}, its record instance \"{}\" "
                            "in {}",
                            r.instance_id, r.region, rec.instance_id, rec.region));
  }
  const identity::GuardFacts& g = *r.guard;
  if (!g.installed || !g.armed) {
    std::string detail =
        g.installed ? "its guard is installed, not armed" : "its guard is not installed";
    if (g.why_not_armed) detail += ": " + *g.why_not_armed;
    return Make(VerdictKind::kWaiting, "guard not armed", detail);
  }
  if (g.record_digest != record_digest) {
    return Make(VerdictKind::kWaiting, "guard bound elsewhere",
                fmt::format("its guard is bound to the record {}, not to its record {}",
                            g.record_digest.value_or("(none)"), record_digest));
  }
  if (g.invitation_digest != invitation_digest) {
    return Make(VerdictKind::kWaiting, "guard bound elsewhere",
                fmt::format("its guard is bound to the invitation {}, not to its invitation {}",
                            g.invitation_digest.value_or("(none)"), invitation_digest));
  }
  if (!g.guard_digest) {
    return Make(VerdictKind::kWaiting, "not guard-ready",
                "its report gives no guard digest for an armed guard");
  }
  return Make(VerdictKind::kEnroll, "", "");
}

}  // namespace carlos::enroll
