// The enroller (DESIGN.md, "Enrollment"; docs/enroll.md): automatic
// enrollment — one pass, or a pass every joinEvery until stopped — and the
// operator's commands: invite, enroll, retire, list.
//
// Safety with several enrollers at once (DESIGN.md, "The deployment
// store"): every write is create-only (invitation, enrollment, retirement)
// or a compare-and-swap on the version read (replacing an expired
// invitation). The loser of a race re-reads the key and accepts the
// winner's document when it verifies, so two enrollers never write
// conflicting documents and never undo each other's.
//
// Cost (docs/enroll.md, "Cost of a pass"): a pass lists the six prefixes
// once with version tags (one request per 1000 keys each) and then reads
// only documents that exist, can change its decision, and changed since the
// Enroller last read them (informer.h), on at most `settings.workers`
// threads: with nothing changed, no request but the listings.
//
// Log lines: each action ("enroll: web-1: invited (...)") is logged when it
// is taken; each refusal or reason for not enrolling ("enroll: web-1:
// refused: referenced: ...", "enroll: web-1: not enrolled: report stale:
// ...") once per (box, reason) for the Enroller's life; a pass's summary
// when it did something or at the end of a single pass.
//
// Thread-safety: one Enroller runs one operation at a time (it is not
// thread-safe); two Enrollers, in threads or processes, over one store are
// safe, as above.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "base/status.h"
#include "enroll/box_docs.h"
#include "enroll/informer.h"
#include "enroll/list_view.h"
#include "enroll/reason_log.h"
#include "enroll/settings.h"
#include "enroll/verdict.h"
#include "enroll/wakeup.h"
#include "store/store.h"

namespace carlos::enroll {

// What one pass did, box by box.
struct Outcome {
  std::string box;
  // What the pass decided; for kInvite/kReinvite/kEnroll, `acted` says
  // whether this enroller's write landed (false: another enroller's
  // document was accepted, or the write failed: `line` says which).
  VerdictKind verdict = VerdictKind::kNothing;
  bool acted = false;
  Reason reason = Reason::kNone;  // As Verdict::reason; kStore for a failed write.
  std::string line;               // The log line, "" for kNothing.
  // The box's stage as the pass found it, before acting (stage.h PassStage).
  std::string stage;
};

struct PassSummary {
  int boxes = 0;  // Identity records seen.
  int invited = 0;
  int enrolled = 0;
  int refused = 0;
  int waiting = 0;
  int errors = 0;
  std::vector<Outcome> outcomes;  // One per record, by label.
};

class Enroller {
 public:
  // `store`, `clock` must outlive the Enroller; `logf` gets every line.
  Enroller(Store* store, Clock* clock, Logf logf, EnrollerSettings settings);
  ~Enroller();

  // One automatic pass over every identity record: verify, refuse, invite,
  // enroll (verdict.h has the rules). Errors: a listing's store error (the
  // pass did nothing); kInvalidArgument when the settings hold no private
  // enrollment key. Per-box failures are outcomes, not errors.
  StatusOr<PassSummary> Pass();

  // Runs Pass at least every `settings.every` until `stop` is requested,
  // and sooner when something changed that matters (wakeup.h): a new or
  // changed identity record, invitation, enrollment or retirement, or a
  // status report of a box that is not enrolled or retired. With `watcher`
  // (a directory store) changes come from it; without, from a change check
  // every `settings.check_every` (Informer::Changed). A pass's or a check's
  // error is logged once per distinct message ("enroll: <error>; trying
  // again in 15s") and the loop goes on. Returns OK when stopped.
  // `observed`, when set, is told each pass's result and its wall time in
  // seconds (the enroller's metrics; enroll/enroll_metrics.h).
  using PassObserver = std::function<void(const StatusOr<PassSummary>&, double seconds)>;
  Status Watch(const Stop& stop, const PassObserver& observed = {}, DirWatcher* watcher = nullptr);

  // True when a change of `key` can change a pass's decision: every key but
  // the status report of a box the last pass found enrolled or retired.
  bool Matters(std::string_view key) const;

  // Invites `box` by hand, with the checks of automatic enrollment;
  // `force` invites a referenced box anyway (and says so, in the log and in
  // the invitation's `forced` field), but overrides nothing else. OK when
  // the box is invited afterwards (also when it already was, or when another
  // enroller's invitation won the race). An enrolled box is re-admitted
  // (docs/protocol.md, "Re-admission of an enrolled box whose guard is
  // lost"): its enrollment is withdrawn, then it is invited afresh. Errors:
  // kNotFound without an identity record; kPreconditionFailed naming the
  // refusal ("web-1 is refused: referenced: ..."); kUnavailable for store
  // errors (the message says what was and was not written).
  Status Invite(std::string_view box, bool force);

  // Enrolls `box` by hand, with the checks of automatic enrollment. OK when
  // the box is enrolled afterwards (also when it already was). Errors:
  // kNotFound without an identity record; kPreconditionFailed naming the
  // failed check ("web-1 is not enrolled: report stale: ..."); store errors.
  Status Enroll(std::string_view box);

  // Retires `box`: a Retirement bound to its identity record's digest,
  // create-only; the box stops hosting at its next check and never hosts
  // again under that record. `reason` (0-1024 bytes) is the operator's.
  // OK when the box is retired afterwards (also when it already was).
  // Errors: kNotFound without an identity record; kInvalidArgument for a
  // reason that is too long; kPreconditionFailed when a retirement is in
  // place that does not verify (an operator must remove it); store errors.
  Status Retire(std::string_view box, std::string_view reason);

  // One row per box (records, and labels with documents but no record),
  // by label, of `region` only when set. Errors: a store error of a listing.
  StatusOr<std::vector<BoxRow>> List(const std::optional<std::string>& region);

  const EnrollerSettings& settings() const { return settings_; }
  // Where Watch's failure lines go (warning priority under the journal,
  // base/log_layout.h); unset: the logf given. Call before Watch.
  void set_warnf(Logf warnf) { warnf_ = std::move(warnf); }

 private:
  struct Fleet;
  // Reads the fleet: every record to `depth` (`focus`, when set, to
  // kEverything), conflicts marked; `informed`: through the informer
  // (Pass), else straight from the store (one-shot commands).
  StatusOr<Fleet> ReadFleet(ReadDepth depth, std::optional<std::string_view> focus,
                            bool informed = false);
  // Logs, once per box, a clock skew beyond settings_.report_clock_skew
  // between the box's report stamp and when the enroller saw it written.
  void NoteSkew(const BoxDocs& docs);
  // Writes the invitation, re-invitation or enrollment `verdict` asks for.
  Outcome Act(const BoxDocs& docs, const Verdict& verdict, bool forced);
  Outcome WriteInvitation(const BoxDocs& docs, bool replace, const std::string& why_again,
                          bool forced);
  // `replace`: compare-and-swap on the enrollment's version read (a
  // kReenroll verdict, `why_again` says why); otherwise create-only.
  Outcome WriteEnrollment(const BoxDocs& docs, bool replace = false,
                          const std::string& why_again = "");
  // Invite's re-admission of the enrolled box `docs`.
  Status Readmit(BoxDocs docs);
  // Logs `outcome` (once per (box, reason) for refusals and waits).
  void Log(const Outcome& outcome);
  // The single-box part of Invite and Enroll: reads the fleet focused on
  // `box`.
  StatusOr<BoxDocs> ReadFocus(std::string_view box);

  Store* store_;
  Clock* clock_;
  Logf logf_;
  Logf warnf_;
  EnrollerSettings settings_;
  RecordChecker checker_;
  ReasonLog reasons_;
  Informer informer_;
  std::unordered_set<std::string> skew_logged_;
  // Boxes the last pass found enrolled or retired: their reports' changes
  // do not wake the watch loop.
  std::unordered_set<std::string> settled_;
};

}  // namespace carlos::enroll
