#include "enroll/enroller.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "base/failure_log.h"
#include "base/strings.h"
#include "enroll/fleet.h"
#include "enroll/fleet_checks.h"
#include "enroll/parallel.h"
#include "enroll/stage.h"
#include "identity/encoding.h"
#include "identity/enrollment.h"
#include "identity/invitation.h"
#include "identity/retirement.h"
#include "identity/store_keys.h"
#include "protocol/guard_ready.h"

namespace carlos::enroll {

struct Enroller::Fleet {
  FleetListing listing;
  std::vector<BoxDocs> boxes;  // One per record, by label.
  SystemTime now;
};

namespace {

std::string LineFor(const std::string& box, const Verdict& v) {
  switch (v.kind) {
    case VerdictKind::kRefused:
      return fmt::format("enroll: {}: refused: {}: {}", box, ReasonName(v.reason), v.detail);
    case VerdictKind::kWaiting:
      return fmt::format("enroll: {}: not enrolled: {}: {}", box, ReasonName(v.reason), v.detail);
    case VerdictKind::kError:
      return fmt::format("enroll: {}: {}: {}", box, ReasonName(v.reason), v.detail);
    default:
      return "";
  }
}

Status NoWriteKey() {
  return InvalidArgument(
      "the enrollment key is not loaded: set CARLOS_ENROLLMENT_KEY to the enrollment key's file");
}

}  // namespace

Enroller::Enroller(Store* store, Clock* clock, Logf logf, EnrollerSettings settings)
    : store_(store),
      clock_(clock),
      logf_(std::move(logf)),
      settings_(std::move(settings)),
      checker_(&settings_),
      informer_(store, clock) {}

Enroller::~Enroller() = default;

StatusOr<Enroller::Fleet> Enroller::ReadFleet(ReadDepth depth,
                                              std::optional<std::string_view> focus,
                                              bool informed) {
  Fleet fleet;
  if (informed) {
    CARLOS_ASSIGN_OR_RETURN(fleet.listing, informer_.List(settings_.workers));
  } else {
    CARLOS_ASSIGN_OR_RETURN(fleet.listing, ListFleet(*store_, settings_.workers));
  }
  fleet.now = clock_->Now();
  fleet.boxes.resize(fleet.listing.records.size());
  const protocol::ReadKey read = informed ? informer_.Reader() : StoreReader(*store_);
  ParallelFor(fleet.boxes.size(), settings_.workers, [&](size_t i) {
    const std::string& box = fleet.listing.records[i];
    ReadDepth d = (focus && *focus == box) ? ReadDepth::kEverything : depth;
    if (informed) {
      if (std::optional<BoxDocs> kept = informer_.ReuseBox(fleet.listing, box, d, fleet.now)) {
        fleet.boxes[i] = std::move(*kept);
        return;
      }
    }
    fleet.boxes[i] = ReadBoxDocs(read, fleet.listing, box, settings_, checker_, fleet.now, d);
    if (informed) informer_.KeepBox(fleet.listing, fleet.boxes[i], d);
  });
  MarkConflicts(fleet.boxes);
  return fleet;
}

void Enroller::NoteSkew(const BoxDocs& docs) {
  if (!docs.report.valid() || !docs.report_written_at || !docs.report.age) return;
  if (skew_logged_.contains(docs.box)) return;
  Milliseconds skew =
      protocol::ClockSkewOf(docs.report.parsed->doc.reported_at, *docs.report_written_at);
  if (std::chrono::abs(skew) <= settings_.report_clock_skew) return;
  skew_logged_.insert(docs.box);
  if (!logf_) return;
  // Whole seconds: the store's age has 1 s resolution on S3.
  Milliseconds shown = std::chrono::duration_cast<Seconds>(std::chrono::abs(skew));
  logf_(fmt::format(
      "enroll: {}: its clock is about {} {} this enroller's (its report is dated {}, and was "
      "written at {} by this enroller's clock and the store's); freshness is judged by when "
      "this enroller saw the report written, so this delays nothing; check the box's time "
      "sync (skews over CARLOS_REPORT_CLOCK_SKEW, {}, are logged)",
      docs.box, FormatDuration(shown), skew.count() > 0 ? "ahead of" : "behind",
      FormatRfc3339(docs.report.parsed->doc.reported_at), FormatRfc3339(*docs.report_written_at),
      FormatDuration(settings_.report_clock_skew)));
}

StatusOr<PassSummary> Enroller::Pass() {
  if (!settings_.enrollment_key) return NoWriteKey();
  CARLOS_ASSIGN_OR_RETURN(Fleet fleet,
                          ReadFleet(ReadDepth::kAutomatic, std::nullopt, /*informed=*/true));
  std::vector<Verdict> verdicts(fleet.boxes.size());
  for (size_t i = 0; i < fleet.boxes.size(); ++i) {
    verdicts[i] = Decide(fleet.boxes[i], settings_, fleet.now);
    NoteSkew(fleet.boxes[i]);
  }

  PassSummary summary;
  summary.boxes = static_cast<int>(fleet.boxes.size());
  summary.outcomes.resize(fleet.boxes.size());
  ParallelFor(fleet.boxes.size(), settings_.workers, [&](size_t i) {
    const Verdict& v = verdicts[i];
    const std::string stage = PassStage(fleet.boxes[i]);
    if (v.kind == VerdictKind::kInvite || v.kind == VerdictKind::kReinvite ||
        v.kind == VerdictKind::kEnroll || v.kind == VerdictKind::kReenroll) {
      summary.outcomes[i] = Act(fleet.boxes[i], v, /*forced=*/false);
      summary.outcomes[i].stage = stage;
      return;
    }
    Outcome& o = summary.outcomes[i];
    o.box = fleet.boxes[i].box;
    o.verdict = v.kind;
    o.reason = v.reason;
    o.line = LineFor(o.box, v);
    o.stage = stage;
  });

  // Enrolled (before or by this pass) or retired: a new report of the box
  // changes nothing, and wakes no pass (Matters).
  settled_.clear();
  for (size_t i = 0; i < fleet.boxes.size(); ++i) {
    const Outcome& o = summary.outcomes[i];
    if (verdicts[i].kind == VerdictKind::kNothing || fleet.boxes[i].retirement.valid() ||
        (o.verdict == VerdictKind::kEnroll && o.acted)) {
      settled_.insert(fleet.boxes[i].box);
    }
  }
  for (const Outcome& o : summary.outcomes) {
    Log(o);
    switch (o.verdict) {
      case VerdictKind::kInvite:
      case VerdictKind::kReinvite:
        summary.invited += o.acted;
        summary.errors += !o.acted && o.reason == Reason::kStore;
        break;
      case VerdictKind::kEnroll:
      case VerdictKind::kReenroll:
        summary.enrolled += o.acted;
        summary.errors += !o.acted && o.reason == Reason::kStore;
        break;
      case VerdictKind::kRefused:
        ++summary.refused;
        break;
      case VerdictKind::kWaiting:
        ++summary.waiting;
        break;
      case VerdictKind::kError:
        ++summary.errors;
        break;
      case VerdictKind::kNothing:
        break;
    }
  }
  return summary;
}

void Enroller::Log(const Outcome& o) {
  if (o.line.empty()) {
    reasons_.Clear(o.box);
    return;
  }
  if (o.reason == Reason::kNone) {
    // An action: logged every time it is taken, and a later refusal of the
    // same box is news again.
    reasons_.Clear(o.box);
    if (logf_) logf_(o.line);
    return;
  }
  reasons_.Note(logf_, o.box, o.reason, o.line);
}

bool Enroller::Matters(std::string_view key) const {
  std::optional<std::string> box = identity::BoxOfKey(identity::kStatusPrefix, key);
  return !box || !settled_.contains(*box);
}

Status Enroller::Watch(const Stop& stop, const PassObserver& observed, DirWatcher* watcher) {
  if (logf_) {
    logf_(fmt::format("enroll: watching {} every {}, and {}", store_->Describe(),
                      FormatDuration(settings_.every),
                      watcher ? "at once on a change (inotify)"
                              : fmt::format("on a change seen by a check every {}",
                                            FormatDuration(settings_.check_every))));
  }
  WakeSchedule schedule(settings_.every, settings_.check_every, watcher != nullptr);
  // A failing pass (or change check) once per distinct cause, at warning
  // priority, and once when passes run again.
  FailureLog failures(logf_ ? logf_ : Logf([](const std::string&) {}), clock_, warnf_);
  auto note_error = [&](const Status& st) {
    failures.Failed(st.message(), fmt::format("enroll: {}; trying again in {}", st.message(),
                                              FormatDuration(settings_.every)));
  };
  while (!stop.requested()) {
    SystemTime now = clock_->Now();
    switch (schedule.Due(now)) {
      case WakeSchedule::Action::kPass: {
        schedule.Passed(now);
        const auto start = std::chrono::steady_clock::now();
        StatusOr<PassSummary> pass = Pass();
        if (observed) {
          observed(pass,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        if (!pass.ok()) {
          note_error(pass.status());
          if (pass.status().code() == Code::kInvalidArgument) return pass.status();
        } else {
          failures.Succeeded("enroll: passes run");
          if ((pass->invited > 0 || pass->enrolled > 0) && logf_) {
            logf_(
                fmt::format("enroll: pass over {} boxes: {} invited, {} enrolled, {} refused, {} "
                            "waiting, {} errors",
                            pass->boxes, pass->invited, pass->enrolled, pass->refused,
                            pass->waiting, pass->errors));
          }
        }
        continue;
      }
      case WakeSchedule::Action::kCheck: {
        schedule.Checked(now);
        StatusOr<std::vector<std::string>> changed = informer_.Changed();
        if (!changed.ok()) {
          // The next full pass says it again, and tries again.
          note_error(changed.status());
          continue;
        }
        if (std::any_of(changed->begin(), changed->end(),
                        [&](const std::string& k) { return Matters(k); })) {
          schedule.Changed();
        }
        continue;
      }
      case WakeSchedule::Action::kWait:
        break;
    }
    auto wait = std::max(Milliseconds(1),
                         std::chrono::duration_cast<Milliseconds>(schedule.NextAt() - now));
    if (watcher != nullptr) {
      std::vector<std::string> keys = watcher->Wait(wait, stop);
      if (std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return Matters(k); })) {
        schedule.Changed();
      }
    } else if (!clock_->Sleep(wait, stop)) {
      break;
    }
  }
  if (logf_) logf_("enroll: stopped");
  return OkStatus();
}

Outcome Enroller::Act(const BoxDocs& docs, const Verdict& verdict, bool forced) {
  if (verdict.kind == VerdictKind::kEnroll) return WriteEnrollment(docs);
  if (verdict.kind == VerdictKind::kReenroll) return WriteEnrollment(docs, true, verdict.detail);
  return WriteInvitation(docs, verdict.kind == VerdictKind::kReinvite, verdict.detail, forced);
}

Outcome Enroller::WriteInvitation(const BoxDocs& docs, bool replace, const std::string& why_again,
                                  bool forced) {
  Outcome o;
  o.box = docs.box;
  o.verdict = replace ? VerdictKind::kReinvite : VerdictKind::kInvite;
  const auto& record = *docs.record.parsed;
  SystemTime now = clock_->Now();
  identity::Invitation inv;
  inv.box = docs.box;
  inv.record_digest = record.digest;
  inv.region = record.doc.region;
  inv.issued_at = now;
  inv.expires_at = now + settings_.invitation_lifetime;
  inv.forced = forced;
  inv.floor_release = settings_.floor_release;
  StatusOr<std::string> bytes = identity::SignInvitation(inv, *settings_.enrollment_key);
  if (!bytes.ok()) {
    o.reason = Reason::kStore;
    o.line = fmt::format("enroll: {}: the invitation was not signed: {}", docs.box,
                         bytes.status().message());
    return o;
  }
  PutOptions put;
  if (replace) {
    put.condition = PutCondition::kIfMatch;
    put.if_match = docs.invitation.version;
  } else {
    put.condition = PutCondition::kCreateOnly;
  }
  const std::string key = identity::InvitationKey(docs.box);
  StatusOr<std::string> written = store_->Put(key, *bytes, put);
  if (written.ok()) {
    informer_.Wrote(key, *bytes, *written);
    o.acted = true;
    std::string digest = identity::Sha256Digest(*bytes);
    std::string what =
        fmt::format("invitation {}, expires {}", digest, FormatRfc3339(inv.expires_at));
    if (forced) {
      o.line = fmt::format(
          "enroll: {}: invited although it is referenced ({} is published), as asked by hand "
          "({})",
          docs.box, docs.referenced_by.value_or("an edges file"), what);
    } else if (replace) {
      o.line = fmt::format("enroll: {}: invited again ({}), because {}", docs.box, what, why_again);
    } else {
      o.line = fmt::format("enroll: {}: invited ({})", docs.box, what);
    }
    return o;
  }
  if (written.status().code() == Code::kPreconditionFailed) {
    // Another enroller wrote first: its invitation stands if it verifies.
    // Straight from the store: what the informer keeps is what lost.
    DocState<identity::Invitation> theirs =
        ReadInvitation(StoreReader(*store_), docs, settings_, now);
    if (theirs.valid()) {
      o.line = fmt::format(
          "enroll: {}: another enroller invited it first (invitation {}, "
          "expires {})",
          docs.box, theirs.parsed->digest, FormatRfc3339(theirs.parsed->doc.expires_at));
      return o;
    }
    o.reason = Reason::kStore;
    o.line = fmt::format(
        "enroll: {}: the invitation was not written: {} changed meanwhile, and "
        "what is there now is not valid: {}",
        docs.box, key, theirs.read ? theirs.status.message() : std::string("it is gone"));
    return o;
  }
  o.reason = Reason::kStore;
  o.line = fmt::format("enroll: {}: the invitation was not written: {}", docs.box,
                       written.status().message());
  return o;
}

Outcome Enroller::WriteEnrollment(const BoxDocs& docs, bool replace, const std::string& why_again) {
  Outcome o;
  o.box = docs.box;
  o.verdict = replace ? VerdictKind::kReenroll : VerdictKind::kEnroll;
  const auto& guard = *docs.report.parsed->doc.guard;
  identity::Enrollment e;
  e.box = docs.box;
  e.record_digest = docs.record.parsed->digest;
  e.invitation_digest = docs.invitation.parsed->digest;
  e.guard_digest = *guard.guard_digest;
  e.enrolled_at = clock_->Now();
  StatusOr<std::string> bytes = identity::SignEnrollment(e, *settings_.enrollment_key);
  if (!bytes.ok()) {
    o.reason = Reason::kStore;
    o.line = fmt::format("enroll: {}: the enrollment was not signed: {}", docs.box,
                         bytes.status().message());
    return o;
  }
  const std::string key = identity::EnrollmentKey(docs.box);
  // A replacement is compare-and-swap on the version read, never blind
  // (docs/protocol.md, "Enrolled for a guard the box no longer has").
  PutOptions put{PutCondition::kCreateOnly, ""};
  if (replace) put = PutOptions{PutCondition::kIfMatch, docs.enrollment.version};
  StatusOr<std::string> written = store_->Put(key, *bytes, put);
  if (written.ok()) {
    informer_.Wrote(key, *bytes, *written);
    o.acted = true;
    o.line = fmt::format("enroll: {}: enrolled{} (record {}, invitation {}, guard {}){}", docs.box,
                         replace ? " again" : "", e.record_digest, e.invitation_digest,
                         e.guard_digest, replace ? ", because " + why_again : "");
    return o;
  }
  if (written.status().code() == Code::kPreconditionFailed) {
    DocState<identity::Enrollment> theirs = ReadEnrollment(StoreReader(*store_), docs, settings_);
    if (theirs.valid()) {
      o.line = fmt::format("enroll: {}: another enroller enrolled it first (enrollment {})",
                           docs.box, theirs.parsed->digest);
      return o;
    }
    o.reason = Reason::kStore;
    o.line = fmt::format(
        "enroll: {}: the enrollment was not written: {} was written meanwhile, "
        "and it is not valid: {}",
        docs.box, key, theirs.read ? theirs.status.message() : std::string("it is gone"));
    return o;
  }
  o.reason = Reason::kStore;
  o.line = fmt::format("enroll: {}: the enrollment was not written: {}", docs.box,
                       written.status().message());
  return o;
}

StatusOr<BoxDocs> Enroller::ReadFocus(std::string_view box) {
  if (!IsLabel(box)) {
    return InvalidArgument(fmt::format("{} is not a box label ([a-z0-9-]{{1,63}})", box));
  }
  CARLOS_ASSIGN_OR_RETURN(Fleet fleet, ReadFleet(ReadDepth::kAutomatic, box));
  for (BoxDocs& b : fleet.boxes) {
    if (b.box == box) return std::move(b);
  }
  return NotFound(fmt::format("{} has no identity record ({})", box, identity::RecordKey(box)));
}

Status Enroller::Invite(std::string_view box, bool force) {
  if (!settings_.enrollment_key) return NoWriteKey();
  CARLOS_ASSIGN_OR_RETURN(BoxDocs docs, ReadFocus(box));
  Verdict v = Decide(docs, settings_, clock_->Now());
  switch (v.kind) {
    case VerdictKind::kInvite:
    case VerdictKind::kReinvite: {
      Outcome o = Act(docs, v, false);
      Log(o);
      return o.reason == Reason::kStore ? Unavailable(o.line) : OkStatus();
    }
    case VerdictKind::kRefused: {
      if (v.reason == Reason::kReferenced && force) {
        if (logf_) {
          logf_(fmt::format("enroll: {}: referenced: {} is published; inviting it anyway (--force)",
                            docs.box, *docs.referenced_by));
        }
        Outcome o = WriteInvitation(docs, docs.invitation.read, docs.invitation.status.message(),
                                    /*forced=*/true);
        Log(o);
        return o.reason == Reason::kStore ? Unavailable(o.line) : OkStatus();
      }
      return PreconditionFailed(
          fmt::format("{} is refused: {}: {}", box, ReasonName(v.reason), v.detail));
    }
    case VerdictKind::kWaiting:
    case VerdictKind::kEnroll:
      if (logf_) {
        logf_(fmt::format("enroll: {}: already invited (invitation {}, expires {})", box,
                          docs.invitation.parsed->digest,
                          FormatRfc3339(docs.invitation.parsed->doc.expires_at)));
      }
      return OkStatus();
    case VerdictKind::kNothing:
    case VerdictKind::kReenroll:
      return Readmit(std::move(docs));
    case VerdictKind::kError:
      return Unavailable(fmt::format("{}: {}", box, v.detail));
  }
  return Internal("unreachable");
}

Status Enroller::Readmit(BoxDocs docs) {
  // Re-admission (docs/protocol.md, "Re-admission of an enrolled box whose
  // guard is lost"): withdraw the enrollment, then invite afresh.
  const std::string& box = docs.box;
  const std::string key = identity::EnrollmentKey(box);
  const std::string withdrawn = docs.enrollment.parsed ? docs.enrollment.parsed->digest : "";
  informer_.Forget(key);
  if (Status st = store_->Delete(key); !st.ok()) {
    return Unavailable(
        fmt::format("{}: its enrollment {} was not withdrawn: {}; it stays enrolled, run again",
                    box, key, st.message()));
  }
  if (logf_) {
    logf_(fmt::format(
        "enroll: {}: its enrollment {} is withdrawn, to invite it again (it stops hosting at its "
        "next check if it was; it hosts again once root re-arms its guard and it is enrolled)",
        box, withdrawn));
  }
  docs.enrollment = DocState<identity::Enrollment>{};
  docs.invitation = ReadInvitation(StoreReader(*store_), docs, settings_, clock_->Now());
  if (docs.invitation.store_error()) return Unavailable(docs.invitation.status.message());
  const bool referenced = docs.referenced_by && !docs.referenced_by->empty();
  Outcome o = WriteInvitation(docs, docs.invitation.present,
                              "it was enrolled and is invited again by hand", referenced);
  Log(o);
  return o.reason == Reason::kStore ? Unavailable(o.line) : OkStatus();
}

Status Enroller::Enroll(std::string_view box) {
  if (!settings_.enrollment_key) return NoWriteKey();
  CARLOS_ASSIGN_OR_RETURN(BoxDocs docs, ReadFocus(box));
  Verdict v = Decide(docs, settings_, clock_->Now());
  switch (v.kind) {
    case VerdictKind::kEnroll:
    case VerdictKind::kReenroll: {
      Outcome o = Act(docs, v, false);
      Log(o);
      return o.reason == Reason::kStore ? Unavailable(o.line) : OkStatus();
    }
    case VerdictKind::kNothing:
      if (logf_) logf_(fmt::format("enroll: {}: already enrolled", box));
      return OkStatus();
    case VerdictKind::kInvite:
    case VerdictKind::kReinvite:
      return PreconditionFailed(fmt::format(
          "{} is not enrolled: not invited: {}; invite it first (carlos boxes invite {})", box,
          docs.invitation.read ? docs.invitation.status.message()
                               : std::string("it has no invitation"),
          box));
    case VerdictKind::kRefused:
      return PreconditionFailed(
          fmt::format("{} is refused: {}: {}", box, ReasonName(v.reason), v.detail));
    case VerdictKind::kWaiting:
      return PreconditionFailed(
          fmt::format("{} is not enrolled: {}: {}", box, ReasonName(v.reason), v.detail));
    case VerdictKind::kError:
      return Unavailable(fmt::format("{}: {}", box, v.detail));
  }
  return Internal("unreachable");
}

Status Enroller::Retire(std::string_view box, std::string_view reason) {
  if (!settings_.enrollment_key) return NoWriteKey();
  if (!IsLabel(box)) {
    return InvalidArgument(fmt::format("{} is not a box label ([a-z0-9-]{{1,63}})", box));
  }
  if (reason.size() > 1024) return InvalidArgument("the reason is longer than 1024 bytes");
  // A retirement binds the record's digest; a record that does not verify
  // (a conflict) can be retired too, as long as it parses: retiring it is
  // how an operator ends the conflict.
  BoxDocs docs;
  docs.box = std::string(box);
  StatusOr<Object> obj = store_->Get(identity::RecordKey(box));
  if (!obj.ok()) {
    if (obj.status().code() == Code::kNotFound) {
      return NotFound(fmt::format("{} has no identity record ({})", box, identity::RecordKey(box)));
    }
    return obj.status();
  }
  StatusOr<identity::Parsed<identity::IdentityRecord>> record =
      identity::ParseIdentityRecord(obj->data);
  if (!record.ok()) {
    return PreconditionFailed(
        fmt::format("{} cannot be retired: {}", box, record.status().message()));
  }
  docs.record.present = docs.record.read = true;
  docs.record.parsed = std::move(*record);

  identity::Retirement r;
  r.box = docs.box;
  r.record_digest = docs.record.parsed->digest;
  r.retired_at = clock_->Now();
  r.reason = std::string(reason);
  CARLOS_ASSIGN_OR_RETURN(std::string bytes,
                          identity::SignRetirement(r, *settings_.enrollment_key));
  StatusOr<std::string> written =
      store_->Put(identity::RetiredKey(box), bytes, PutOptions{PutCondition::kCreateOnly, ""});
  if (written.ok()) {
    if (logf_) {
      logf_(fmt::format("enroll: {}: retired (record {}){}", box, r.record_digest,
                        reason.empty() ? "" : fmt::format(": {}", reason)));
    }
    return OkStatus();
  }
  if (written.status().code() != Code::kPreconditionFailed) return written.status();
  DocState<identity::Retirement> theirs = ReadRetirement(StoreReader(*store_), docs, settings_);
  if (theirs.valid()) {
    if (logf_) {
      logf_(fmt::format("enroll: {}: already retired at {}", box,
                        FormatRfc3339(theirs.parsed->doc.retired_at)));
    }
    return OkStatus();
  }
  return PreconditionFailed(fmt::format(
      "{} is not retired: {} is in place and not valid: {}; remove it (carlos store rm {}) and "
      "retire again",
      box, identity::RetiredKey(box),
      theirs.read ? theirs.status.message() : std::string("it vanished"),
      identity::RetiredKey(box)));
}

StatusOr<std::vector<BoxRow>> Enroller::List(const std::optional<std::string>& region) {
  CARLOS_ASSIGN_OR_RETURN(Fleet fleet, ReadFleet(ReadDepth::kEverything, std::nullopt));
  std::vector<BoxRow> rows;
  for (const BoxDocs& b : fleet.boxes) {
    if (region && (!b.record.parsed || b.record.parsed->doc.region != *region)) continue;
    rows.push_back(MakeRow(b, Decide(b, settings_, fleet.now), fleet.now));
  }
  if (!region) {
    // Labels with documents but no record: read as every other box, so that
    // the stage is the box's own (a retirement of the label comes first).
    for (const std::string& box : fleet.listing.Unrecorded()) {
      BoxDocs b = ReadBoxDocs(StoreReader(*store_), fleet.listing, box, settings_, checker_,
                              fleet.now, ReadDepth::kEverything);
      rows.push_back(MakeRow(b, Decide(b, settings_, fleet.now), fleet.now));
    }
  }
  std::sort(rows.begin(), rows.end(),
            [](const BoxRow& a, const BoxRow& b) { return a.box < b.box; });
  return rows;
}

}  // namespace carlos::enroll
