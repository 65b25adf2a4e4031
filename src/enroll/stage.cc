#include "enroll/stage.h"

#include "identity/refusal.h"

namespace carlos::enroll {

StatusOr<Stage> StoreStage(const BoxDocs& docs) {
  for (const Status* st : {&docs.record.status, &docs.retirement.status, &docs.enrollment.status,
                           &docs.invitation.status, &docs.report.status}) {
    if (!st->ok() && st->code() != Code::kCorrupt) return *st;
  }
  if (!docs.record.present) return Stage::kUnrecorded;
  if (!docs.record.valid()) return Stage::kConflict;
  if (docs.retirement.valid()) return Stage::kRetired;
  // The box cannot know whether it is retired, so its mode is unknown
  // (host/joinmode.h): never guessed.
  if (docs.retirement.read) return docs.retirement.status;
  if (identity::RefusalOf(docs.report.status) == identity::Refusal::kWrongKey) {
    return Stage::kConflict;
  }
  const std::string& record_digest = docs.record.parsed->digest;
  const identity::GuardFacts* guard = nullptr;
  if (docs.report.valid() && docs.report.parsed->doc.guard) guard = &*docs.report.parsed->doc.guard;

  if (docs.enrollment.valid() && guard && guard->armed &&
      guard->guard_digest == docs.enrollment.parsed->doc.guard_digest) {
    return Stage::kHosting;
  }
  if (docs.invitation.valid()) {
    bool bound = guard && guard->record_digest == record_digest &&
                 guard->invitation_digest == docs.invitation.parsed->digest;
    if (bound && guard->armed) return Stage::kGuardReady;
    if (bound && guard->installed) return Stage::kGuardInstalled;
    return Stage::kInvited;
  }
  if (docs.enrollment.valid()) return Stage::kInvited;
  if (docs.referenced_by && !docs.referenced_by->empty()) return Stage::kReferenced;
  return Stage::kRecorded;
}

}  // namespace carlos::enroll
