#include "host/joinmode.h"

#include <fmt/format.h>

#include "base/check.h"
#include "identity/edges_file.h"
#include "identity/refusal.h"
#include "identity/store_keys.h"
#include "protocol/documents.h"
#include "protocol/stage.h"

namespace carlos::host {

StatusOr<protocol::ModeDecision> SelectMode(const ModeFacts& f) {
  CARLOS_CHECK(f.now && f.read && f.guard, "SelectMode: every ModeFacts function is required");
  const std::string& box = f.box;
  protocol::ReadKey read = f.read;
  protocol::BoxView v;
  v.box = box;
  v.retirement = protocol::ReadDoc<identity::Retirement>(read, identity::RetiredKey(box),
                                                         identity::ParseRetirement);
  v.record = protocol::ReadDoc<identity::IdentityRecord>(read, identity::RecordKey(box),
                                                         identity::ParseIdentityRecord);
  protocol::CheckRecord(&v.record, box);
  std::optional<std::string_view> record_digest;
  if (v.record.parsed) record_digest = v.record.parsed->digest;
  protocol::CheckRetirement(&v.retirement, f.enrollment_key, box, record_digest);

  if (v.record.valid()) {
    const identity::Parsed<identity::IdentityRecord>& record = *v.record.parsed;
    if (!(record.doc.public_key == f.box_key)) {
      v.not_this_box =
          fmt::format("the identity record under {} holds another key ({}); this box's key is {}",
                      box, record.doc.public_key.ToString(), f.box_key.ToString());
    } else {
      v.enrollment = protocol::ReadDoc<identity::Enrollment>(read, identity::EnrollmentKey(box),
                                                             identity::ParseEnrollment);
      protocol::CheckEnrollment(
          &v.enrollment, f.enrollment_key,
          identity::EnrollmentBinding{box, record.digest, std::nullopt, std::nullopt});
      v.invitation = protocol::ReadDoc<identity::Invitation>(read, identity::InvitationKey(box),
                                                             identity::ParseInvitation);
      protocol::CheckInvitation(&v.invitation, f.enrollment_key, box, record.digest, f.now());
    }
  }
  v.guard = [&f]() -> StatusOr<protocol::GuardView> {
    CARLOS_ASSIGN_OR_RETURN(protocol::LocalGuard g, f.guard());
    return protocol::GuardViewOf(g);
  };
  v.referenced = [&]() -> StatusOr<protocol::Referenced> {
    auto edges = protocol::ReadDoc<identity::EdgesFile>(read, identity::EdgesKey(box),
                                                        identity::ParseEdgesFile);
    if (edges.parsed) edges.status = identity::VerifyEdgesFile(*edges.parsed, f.box_key, box);
    protocol::Referenced ref;
    if (!edges.present) return ref;
    if (!edges.valid() && !identity::RefusalOf(edges.status).has_value()) {
      return protocol::ModeUnknown(edges.key, edges.status);
    }
    ref.referenced = true;
    if (!edges.valid()) ref.refused = protocol::RefusedWhy("edges file", edges.status);
    return ref;
  };
  return protocol::SelectStage(v);
}

}  // namespace carlos::host
