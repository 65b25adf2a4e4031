#include "protocol/stage.h"

#include <fmt/format.h>

#include <vector>

#include "identity/refusal.h"

namespace carlos::protocol {

namespace {

using identity::Refusal;

// "mode unknown: <key>: <cause>" for a document that could not be read or
// checked.
template <typename T>
Status Unknown(const DocState<T>& d) {
  return ModeUnknown(d.key, d.status);
}

// A document's state for the table: valid, refused (counts as absent, noted
// in the why), or an error (a store read that failed, or a check that could
// not run: the mode is unknown).
template <typename T>
Status Usable(const DocState<T>& d, std::string_view doc, std::vector<std::string>* notes) {
  if (!d.present || d.valid()) return OkStatus();
  if (identity::RefusalOf(d.status).has_value()) {
    notes->push_back(RefusedWhy(doc, d.status));
    return OkStatus();
  }
  return Unknown(d);
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

std::string RefusedWhy(std::string_view doc, const Status& refusal) {
  const identity::RefusalInfo* info = identity::RefusalInfoOf(refusal);
  if (info == nullptr) return fmt::format("{} refused: {}", doc, refusal.message());
  if (info->reason == Refusal::kExpired) {
    return fmt::format("{} refused: {}", doc, identity::RefusalName(info->reason));
  }
  return fmt::format("{} refused: {}: {}", doc, identity::RefusalName(info->reason), info->detail);
}

GuardView GuardViewOf(const LocalGuard& local) {
  GuardView g;
  g.installed = local.installed();
  g.armed = local.armed_now();
  if (local.guard) {
    g.guard_digest = local.guard->digest;
    g.record_digest = local.guard->doc.record_digest;
    g.invitation_digest = local.guard->doc.invitation_digest;
    g.box = local.guard->doc.box;
    if (!g.armed) g.why_not = local.why_not_armed();
  } else {
    g.why_not = local.guard_refused.empty() ? "the guard is not installed"
                                            : fmt::format("guard refused: {}", local.guard_refused);
  }
  return g;
}

GuardView GuardViewOf(const std::optional<identity::GuardFacts>& facts) {
  GuardView g;
  if (!facts) {
    g.why_not = "the guard is not installed";
    return g;
  }
  g.installed = facts->installed;
  g.armed = facts->installed && facts->armed && facts->guard_digest.has_value();
  g.guard_digest = facts->guard_digest.value_or("");
  g.record_digest = facts->record_digest.value_or("");
  g.invitation_digest = facts->invitation_digest.value_or("");
  if (!g.armed) {
    g.why_not = facts->why_not_armed.value_or(g.installed ? "the guard is not armed"
                                                          : "the guard is not installed");
  }
  return g;
}

StatusOr<ModeDecision> SelectStage(const BoxView& v) {
  const std::string& box = v.box;
  Decider decide{box, {}};

  // Retired: a valid retirement for this box and this record (or for this
  // label when no record parses). One that cannot be read or checked is an
  // error: whether the box is retired cannot be known; so is a record that
  // cannot be read (which record a retirement binds is then unknown).
  if (v.retirement.store_error()) return Unknown(v.retirement);
  if (v.record.store_error()) return Unknown(v.record);
  switch (RetirementEffectOf(v.retirement, v.record.parsed.has_value())) {
    case RetirementEffect::kNone:
      break;
    case RetirementEffect::kRetired:
      return decide(Mode::kJoining, Stage::kRetired,
                    fmt::format("retired at {}: it hosts nothing again under this identity",
                                FormatRfc3339(v.retirement.parsed->doc.retired_at)));
    case RetirementEffect::kOfAnotherRecord:
      decide.notes.push_back("the retirement of another identity record is ignored");
      break;
    case RetirementEffect::kUnknown:
      return Unknown(v.retirement);
  }

  if (!v.record.present) {
    return decide(Mode::kJoining, Stage::kUnrecorded, "the identity record is not written yet");
  }
  // A record this box cannot stand behind is a conflict: it is never
  // overwritten, an operator must act.
  if (!v.record.valid()) {
    if (!identity::RefusalOf(v.record.status).has_value()) return Unknown(v.record);
    return decide(Mode::kJoining, Stage::kConflict, RefusedWhy("identity record", v.record.status));
  }
  if (v.not_this_box) return decide(Mode::kJoining, Stage::kConflict, *v.not_this_box);
  const std::string& record_digest = v.record.parsed->digest;

  // The enrollment and the invitation; a refused one counts as absent and
  // is named in the why.
  CARLOS_RETURN_IF_ERROR(Usable(v.enrollment, "enrollment", &decide.notes));
  CARLOS_RETURN_IF_ERROR(Usable(v.invitation, "invitation", &decide.notes));
  const bool enrolled = v.enrollment.valid();
  const bool invited = v.invitation.valid();

  if (enrolled || invited) {
    StatusOr<GuardView> g = v.guard();
    if (!g.ok()) return ModeUnknown("this box's guard", g.status());
    // The guard counts only when it binds this box and this record.
    std::string guard_why;
    if (!g->installed) {
      guard_why = g->why_not;
    } else if (g->box && *g->box != box) {
      guard_why = fmt::format("guard refused: it binds another box ({})", *g->box);
    } else if (g->record_digest != record_digest) {
      guard_why =
          fmt::format("guard refused: it binds another identity record ({})", g->record_digest);
    }
    const bool guard_ok = guard_why.empty();
    const bool armed = guard_ok && g->armed;

    std::string enrolled_why;
    if (enrolled) {
      const std::string& enrolled_for = v.enrollment.parsed->doc.guard_digest;
      if (armed && enrolled_for == g->guard_digest) {
        return decide(Mode::kHosting, Stage::kHosting,
                      "enrolled, and the guard is armed for the enrollment");
      }
      if (!guard_ok) {
        enrolled_why = "enrolled, but " + guard_why;
      } else if (!armed) {
        enrolled_why = "enrolled, but the guard is not armed: " + g->why_not;
      } else {
        enrolled_why = fmt::format("enrolled for another guard ({}), not the one armed ({})",
                                   enrolled_for, g->guard_digest);
      }
    }

    if (invited) {
      const bool bound_here = guard_ok && g->invitation_digest == v.invitation.parsed->digest;
      if (bound_here && armed) {
        return decide(Mode::kJoining, Stage::kGuardReady,
                      enrolled ? enrolled_why : "the guard is armed; waiting to be enrolled");
      }
      if (bound_here) {
        return decide(Mode::kJoining, Stage::kGuardInstalled,
                      "the guard is installed, not armed: " + g->why_not);
      }
      std::string why =
          guard_ok ? fmt::format("the guard binds another invitation ({})", g->invitation_digest)
                   : guard_why;
      if (enrolled) why = enrolled_why;
      return decide(Mode::kJoining, Stage::kInvited, why);
    }
    return decide(Mode::kJoining, Stage::kInvited, enrolled_why);
  }

  // Not invited: referenced when this box's edges file is published (it
  // hosted under this label before); a refused edges file still counts, as
  // the enroller sees it too, and the why says it was refused.
  StatusOr<Referenced> ref = v.referenced();
  if (!ref.ok()) return ref.status();
  if (ref->referenced) {
    return decide(Mode::kJoining, Stage::kReferenced,
                  ref->refused.empty()
                      ? "an edges file names this box; automatic enrollment refuses it"
                      : fmt::format("an edges file is published under this box's key ({}); "
                                    "automatic enrollment refuses it",
                                    ref->refused));
  }
  return decide(Mode::kJoining, Stage::kRecorded, "waiting to be invited");
}

}  // namespace carlos::protocol
