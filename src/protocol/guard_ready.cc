#include "protocol/guard_ready.h"

#include <fmt/format.h>

#include <algorithm>

#include "identity/refusal.h"
#include "identity/store_keys.h"

namespace carlos::protocol {

namespace {

GuardReadyCheck Not(GuardReadiness r, std::string detail) { return {r, std::move(detail)}; }

}  // namespace

Freshness FreshnessOf(SystemTime written_at, SystemTime now, Milliseconds freshness) {
  Freshness f;
  f.age = std::max(Milliseconds(0), std::chrono::duration_cast<Milliseconds>(now - written_at));
  f.fresh = f.age < freshness;
  return f;
}

Milliseconds ClockSkewOf(SystemTime stamped_at, SystemTime written_at) {
  return std::chrono::duration_cast<Milliseconds>(stamped_at - written_at);
}

std::string_view GuardReadinessName(GuardReadiness readiness) {
  switch (readiness) {
    case GuardReadiness::kReady:
      return "ready";
    case GuardReadiness::kNoReport:
      return "no report";
    case GuardReadiness::kStoreError:
      return "store";
    case GuardReadiness::kWrongKey:
      return "conflict";
    case GuardReadiness::kRefused:
      return "report refused";
    case GuardReadiness::kNotGuardReady:
      return "not guard-ready";
    case GuardReadiness::kStale:
      return "report stale";
    case GuardReadiness::kMismatch:
      return "report mismatch";
    case GuardReadiness::kNotArmed:
      return "guard not armed";
    case GuardReadiness::kBoundElsewhere:
      return "guard bound elsewhere";
  }
  return "?";
}

GuardReadyCheck CheckGuardReady(const DocState<identity::StatusReport>& report,
                                const identity::Parsed<identity::IdentityRecord>& record,
                                const identity::Parsed<identity::Invitation>& invitation,
                                SystemTime now, SystemTime written_at, Milliseconds freshness) {
  const identity::IdentityRecord& rec = record.doc;
  if (!report.present) {
    return Not(GuardReadiness::kNoReport,
               fmt::format("it is invited until {}; it has not published its guard-ready report "
                           "({}) yet",
                           FormatRfc3339(invitation.doc.expires_at), identity::StatusKey(rec.box)));
  }
  if (report.store_error()) return Not(GuardReadiness::kStoreError, report.status.message());
  if (identity::RefusalOf(report.status) == identity::Refusal::kWrongKey) {
    return Not(
        GuardReadiness::kWrongKey,
        fmt::format("{}; another machine publishes under this label", report.status.message()));
  }
  if (!report.valid()) return Not(GuardReadiness::kRefused, report.status.message());
  const identity::StatusReport& r = report.parsed->doc;
  if (!r.guard) {
    return Not(GuardReadiness::kNotGuardReady,
               fmt::format("its status report (stage {}) carries no guard facts", r.stage));
  }
  if (Freshness f = FreshnessOf(written_at, now, freshness); !f.fresh) {
    return Not(GuardReadiness::kStale,
               fmt::format("its guard-ready report was written {} ago, as this enroller saw it "
                           "(the box dated it {}); reportFreshness is {}",
                           // Whole seconds: S3's age has 1 s resolution.
                           FormatDuration(std::chrono::duration_cast<Seconds>(f.age)),
                           FormatRfc3339(r.reported_at), FormatDuration(freshness)));
  }
  if (r.instance_id != rec.instance_id || r.region != rec.region) {
    return Not(GuardReadiness::kMismatch,
               fmt::format("its report names instance \"{}\" in {}, its record instance \"{}\" "
                           "in {}",
                           r.instance_id, r.region, rec.instance_id, rec.region));
  }
  const identity::GuardFacts& g = *r.guard;
  if (!g.installed || !g.armed) {
    std::string detail =
        g.installed ? "its guard is installed, not armed" : "its guard is not installed";
    if (g.why_not_armed) detail += ": " + *g.why_not_armed;
    return Not(GuardReadiness::kNotArmed, detail);
  }
  if (g.record_digest != record.digest) {
    return Not(GuardReadiness::kBoundElsewhere,
               fmt::format("its guard is bound to the record {}, not to its record {}",
                           g.record_digest.value_or("(none)"), record.digest));
  }
  if (g.invitation_digest != invitation.digest) {
    return Not(GuardReadiness::kBoundElsewhere,
               fmt::format("its guard is bound to the invitation {}, not to its invitation {}",
                           g.invitation_digest.value_or("(none)"), invitation.digest));
  }
  if (!g.guard_digest) {
    return Not(GuardReadiness::kNotGuardReady,
               "its report gives no guard digest for an armed guard");
  }
  return {};
}

}  // namespace carlos::protocol
