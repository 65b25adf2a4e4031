#include "enroll/reason.h"

namespace carlos::enroll {

std::string_view ReasonName(Reason reason) {
  switch (reason) {
    case Reason::kNone:
      return "";
    case Reason::kRecordRefused:
      return "record refused";
    case Reason::kRetired:
      return "retired";
    case Reason::kRetirementRefused:
      return "retirement refused";
    case Reason::kOtherRegion:
      return "other region";
    case Reason::kUnattested:
      return "unattested";
    case Reason::kForeignAccount:
      return "foreign account";
    case Reason::kConflict:
      return protocol::GuardReadinessName(protocol::GuardReadiness::kWrongKey);
    case Reason::kEnrollmentRefused:
      return "enrollment refused";
    case Reason::kReferenced:
      return "referenced";
    case Reason::kInvitationRefused:
      return "invitation refused";
    case Reason::kNoReport:
      return protocol::GuardReadinessName(protocol::GuardReadiness::kNoReport);
    case Reason::kReportRefused:
      return protocol::GuardReadinessName(protocol::GuardReadiness::kRefused);
    case Reason::kNotGuardReady:
      return protocol::GuardReadinessName(protocol::GuardReadiness::kNotGuardReady);
    case Reason::kReportStale:
      return protocol::GuardReadinessName(protocol::GuardReadiness::kStale);
    case Reason::kReportMismatch:
      return protocol::GuardReadinessName(protocol::GuardReadiness::kMismatch);
    case Reason::kGuardNotArmed:
      return protocol::GuardReadinessName(protocol::GuardReadiness::kNotArmed);
    case Reason::kGuardBoundElsewhere:
      return protocol::GuardReadinessName(protocol::GuardReadiness::kBoundElsewhere);
    case Reason::kStore:
      return protocol::GuardReadinessName(protocol::GuardReadiness::kStoreError);
  }
  return "?";
}

Reason ReasonOf(protocol::GuardReadiness readiness) {
  switch (readiness) {
    case protocol::GuardReadiness::kReady:
      return Reason::kNone;
    case protocol::GuardReadiness::kNoReport:
      return Reason::kNoReport;
    case protocol::GuardReadiness::kStoreError:
      return Reason::kStore;
    case protocol::GuardReadiness::kWrongKey:
      return Reason::kConflict;
    case protocol::GuardReadiness::kRefused:
      return Reason::kReportRefused;
    case protocol::GuardReadiness::kNotGuardReady:
      return Reason::kNotGuardReady;
    case protocol::GuardReadiness::kStale:
      return Reason::kReportStale;
    case protocol::GuardReadiness::kMismatch:
      return Reason::kReportMismatch;
    case protocol::GuardReadiness::kNotArmed:
      return Reason::kGuardNotArmed;
    case protocol::GuardReadiness::kBoundElsewhere:
      return Reason::kGuardBoundElsewhere;
  }
  return Reason::kStore;
}

}  // namespace carlos::enroll
