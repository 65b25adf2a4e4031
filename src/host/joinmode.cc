#include "host/joinmode.h"

#include <optional>
#include <string>
#include <vector>

#include "identity/edges_file.h"
#include "identity/enrollment.h"
#include "identity/identity_record.h"
#include "identity/invitation.h"
#include "identity/refusal.h"
#include "identity/retirement.h"
#include "identity/store_keys.h"

namespace carlos {

namespace {

using identity::Refusal;

constexpr std::string_view kRefusedMarker = " is refused: ";

// A refused document as a phrase for a decision's why: "<doc> refused:
// <reason>: <detail>", from the identity library's refusal message. An
// expiry's detail names the current time, which would change the why (and
// so log the stage line again) on every check; it is left out.
std::string RefusedWhy(std::string_view doc, const std::string& message) {
  std::string rest = message;
  if (size_t at = message.find(kRefusedMarker); at != std::string::npos) {
    rest = message.substr(at + kRefusedMarker.size());
  }
  std::string expired(identity::RefusalName(Refusal::kExpired));
  if (rest.rfind(expired + ":", 0) == 0) rest = expired;
  return std::string(doc) + " refused: " + rest;
}

// A parse or verification status: OK, a refusal (the document is refused:
// the caller decides the stage), or anything else (a check that could not
// run: the mode is unknown).
bool IsRefusal(const Status& st) { return identity::RefusalOf(st).has_value(); }

// Reads one of this box's keys: the bytes, nullopt when absent, or the
// mode-unknown error naming the key.
StatusOr<std::optional<std::string>> ReadOwn(const ModeFacts& f, const std::string& key) {
  StatusOr<std::string> bytes = f.read(key);
  if (bytes.ok()) return std::optional<std::string>(std::move(bytes).value());
  if (bytes.status().code() == Code::kNotFound) return std::optional<std::string>();
  return ModeUnknown(key, bytes.status());
}

// Parses and verifies a document: the parsed document, nullopt with `*why`
// set when it is refused, or an error when a check could not run.
template <typename T, typename ParseFn, typename VerifyFn>
StatusOr<std::optional<identity::Parsed<T>>> Check(const std::string& key, std::string_view doc,
                                                   const std::string& bytes, ParseFn parse,
                                                   VerifyFn verify, std::string* why) {
  StatusOr<identity::Parsed<T>> parsed = parse(bytes);
  Status st = parsed.ok() ? verify(*parsed) : parsed.status();
  if (st.ok()) return std::optional<identity::Parsed<T>>(std::move(parsed).value());
  if (!IsRefusal(st)) return ModeUnknown(key, st);
  *why = RefusedWhy(doc, st.message());
  return std::optional<identity::Parsed<T>>();
}

// Builds decisions. The why is the primary phrase, then the notes of
// refused documents met on the way, "; "-separated, in parentheses, so that
// the seed's stage line reads "web-1: recorded (waiting to be invited)".
struct Decider {
  const std::string& box;
  std::vector<std::string> notes;

  ModeDecision operator()(Mode mode, Stage stage, std::string primary) const {
    ModeDecision d{mode, box, stage, std::move(primary)};
    for (const std::string& n : notes) d.why += (d.why.empty() ? "" : "; ") + n;
    if (!d.why.empty()) d.why = "(" + d.why + ")";
    return d;
  }
};

}  // namespace

StatusOr<ModeDecision> SelectMode(const ModeFacts& f) {
  const std::string& box = f.box;
  Decider decide{box, {}};

  // The identity record is read first: a retirement binds its digest.
  const std::string record_key = identity::RecordKey(box);
  const std::string retired_key = identity::RetiredKey(box);
  CARLOS_ASSIGN_OR_RETURN(std::optional<std::string> retired_bytes, ReadOwn(f, retired_key));
  CARLOS_ASSIGN_OR_RETURN(std::optional<std::string> record_bytes, ReadOwn(f, record_key));
  std::optional<identity::Parsed<identity::IdentityRecord>> record;
  Status record_st;
  if (record_bytes) {
    auto parsed = identity::ParseIdentityRecord(*record_bytes);
    if (parsed.ok()) {
      record = std::move(parsed).value();
    } else {
      record_st = parsed.status();
    }
  }

  // Retired: a valid retirement for this box and this record (or for this
  // label when no record is readable). A retirement that is present but
  // refused is an error: whether the box is retired cannot be known.
  if (retired_bytes) {
    std::optional<std::string_view> digest;
    if (record) digest = record->digest;
    auto parsed = identity::ParseRetirement(*retired_bytes);
    Status st = parsed.ok() ? identity::VerifyRetirement(*parsed, f.enrollment_key, box, digest)
                            : parsed.status();
    if (st.ok()) {
      return decide(Mode::kJoining, Stage::kRetired,
                    "retired at " + FormatRfc3339(parsed->doc.retired_at) +
                        ": it hosts nothing again under this identity");
    }
    if (identity::RefusalOf(st) == Refusal::kBoundToAnotherDigest && record) {
      // The retirement is of an earlier identity record under this label.
      decide.notes.push_back("the retirement of another identity record is ignored");
    } else {
      return ModeUnknown(retired_key, st);
    }
  }

  if (!record_bytes) {
    return decide(Mode::kJoining, Stage::kUnrecorded, "the identity record is not written yet");
  }
  // A record this box cannot stand behind is a conflict: it is never
  // overwritten, an operator must act.
  if (!record) {
    return decide(Mode::kJoining, Stage::kConflict,
                  RefusedWhy("identity record", record_st.message()));
  }
  if (Status st = identity::VerifyIdentityRecord(*record, box); !st.ok()) {
    if (!IsRefusal(st)) return ModeUnknown(record_key, st);
    return decide(Mode::kJoining, Stage::kConflict, RefusedWhy("identity record", st.message()));
  }
  if (!(record->doc.public_key == f.box_key)) {
    return decide(Mode::kJoining, Stage::kConflict,
                  "the identity record under " + box + " holds another key (" +
                      record->doc.public_key.ToString() + "); this box's key is " +
                      f.box_key.ToString());
  }
  const std::string& record_digest = record->digest;

  // The enrollment and the invitation; a refused one counts as absent and
  // is named in the why.
  const std::string enrollment_key = identity::EnrollmentKey(box);
  CARLOS_ASSIGN_OR_RETURN(std::optional<std::string> enrollment_bytes, ReadOwn(f, enrollment_key));
  std::optional<identity::Parsed<identity::Enrollment>> enrollment;
  if (enrollment_bytes) {
    std::string why;
    identity::EnrollmentBinding binding{box, record_digest, std::nullopt, std::nullopt};
    CARLOS_ASSIGN_OR_RETURN(
        enrollment,
        (Check<identity::Enrollment>(
            enrollment_key, "enrollment", *enrollment_bytes, identity::ParseEnrollment,
            [&](const auto& p) { return identity::VerifyEnrollment(p, f.enrollment_key, binding); },
            &why)));
    if (!enrollment) decide.notes.push_back(why);
  }
  const std::string invitation_key = identity::InvitationKey(box);
  CARLOS_ASSIGN_OR_RETURN(std::optional<std::string> invitation_bytes, ReadOwn(f, invitation_key));
  std::optional<identity::Parsed<identity::Invitation>> invitation;
  if (invitation_bytes) {
    std::string why;
    SystemTime now = f.now();
    CARLOS_ASSIGN_OR_RETURN(
        invitation, (Check<identity::Invitation>(
                        invitation_key, "invitation", *invitation_bytes, identity::ParseInvitation,
                        [&](const auto& p) {
                          return identity::VerifyInvitation(p, f.enrollment_key, box, record_digest,
                                                            now);
                        },
                        &why)));
    if (!invitation) decide.notes.push_back(why);
  }

  if (enrollment || invitation) {
    StatusOr<guard::GuardState> g = f.guard();
    if (!g.ok()) return ModeUnknown("this box's guard", g.status());
    // The guard counts only when it binds this box and this record.
    std::string guard_why;
    if (!g->installed()) {
      guard_why = g->guard_refused.empty() ? "the guard is not installed"
                                           : RefusedWhy("guard", g->guard_refused);
    } else if (g->guard->doc.box != box) {
      guard_why = "guard refused: it binds another box (" + g->guard->doc.box + ")";
    } else if (g->guard->doc.record_digest != record_digest) {
      guard_why =
          "guard refused: it binds another identity record (" + g->guard->doc.record_digest + ")";
    }
    const bool guard_ok = guard_why.empty();
    const bool armed = guard_ok && g->armed_now();

    std::string enrolled_why;
    if (enrollment) {
      if (armed && enrollment->doc.guard_digest == g->guard->digest) {
        return decide(Mode::kHosting, Stage::kHosting,
                      "enrolled, and the guard is armed for the enrollment");
      }
      if (!guard_ok) {
        enrolled_why = "enrolled, but " + guard_why;
      } else if (!armed) {
        enrolled_why = "enrolled, but the guard is not armed: " + g->why_not_armed();
      } else {
        enrolled_why = "enrolled for another guard (" + enrollment->doc.guard_digest +
                       "), not the one armed (" + g->guard->digest + ")";
      }
    }

    if (invitation) {
      const bool bound_here = guard_ok && g->guard->doc.invitation_digest == invitation->digest;
      if (bound_here && armed) {
        return decide(Mode::kJoining, Stage::kGuardReady,
                      enrollment ? enrolled_why : "the guard is armed; waiting to be enrolled");
      }
      if (bound_here) {
        return decide(Mode::kJoining, Stage::kGuardInstalled,
                      "the guard is installed, not armed: " + g->why_not_armed());
      }
      std::string why =
          guard_ok ? "the guard binds another invitation (" + g->guard->doc.invitation_digest + ")"
                   : guard_why;
      if (enrollment) why = enrolled_why;
      return decide(Mode::kJoining, Stage::kInvited, why);
    }
    return decide(Mode::kJoining, Stage::kInvited, enrolled_why);
  }

  // Not invited: referenced when this box's edges file is published (it
  // hosted under this label before); a refused edges file still counts, as
  // the enroller sees it too, and the why says it was refused.
  const std::string edges_key = identity::EdgesKey(box);
  CARLOS_ASSIGN_OR_RETURN(std::optional<std::string> edges_bytes, ReadOwn(f, edges_key));
  if (edges_bytes) {
    std::string why;
    CARLOS_ASSIGN_OR_RETURN(
        auto edges,
        (Check<identity::EdgesFile>(
            edges_key, "edges file", *edges_bytes, identity::ParseEdgesFile,
            [&](const auto& p) { return identity::VerifyEdgesFile(p, f.box_key, box); }, &why)));
    return decide(Mode::kJoining, Stage::kReferenced,
                  edges ? "an edges file names this box; automatic enrollment refuses it"
                        : "an edges file is published under this box's key (" + why +
                              "); automatic enrollment refuses it");
  }
  return decide(Mode::kJoining, Stage::kRecorded, "waiting to be invited");
}

}  // namespace carlos
