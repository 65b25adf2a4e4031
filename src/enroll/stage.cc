#include "enroll/stage.h"

#include "identity/refusal.h"
#include "protocol/stage.h"

namespace carlos::enroll {

StatusOr<protocol::Stage> StoreStage(const BoxDocs& docs) {
  protocol::BoxView v;
  v.box = docs.box;
  v.retirement = docs.retirement;
  v.record = docs.record;
  if (identity::RefusalOf(docs.report.status) == identity::Refusal::kWrongKey) {
    v.not_this_box = docs.report.status.message();
  }
  v.enrollment = docs.enrollment;
  v.invitation = docs.invitation;
  v.guard = [&docs]() -> StatusOr<protocol::GuardView> {
    if (docs.report.store_error()) return docs.report.status;
    if (!docs.report.valid()) return protocol::GuardViewOf(std::nullopt);
    return protocol::GuardViewOf(docs.report.parsed->doc.guard);
  };
  v.referenced = [&docs]() -> StatusOr<protocol::Referenced> {
    protocol::Referenced ref;
    ref.referenced = docs.referenced_by && !docs.referenced_by->empty();
    return ref;
  };
  CARLOS_ASSIGN_OR_RETURN(protocol::ModeDecision d, protocol::SelectStage(v));
  return d.stage;
}

std::string PassStage(const BoxDocs& docs) {
  if (docs.enrollment.valid() && !docs.retirement.valid()) return "enrolled";
  StatusOr<protocol::Stage> stage = StoreStage(docs);
  return stage.ok() ? std::string(protocol::StageName(*stage)) : "unknown";
}

}  // namespace carlos::enroll
