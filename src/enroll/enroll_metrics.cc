#include "enroll/enroll_metrics.h"

#include <chrono>
#include <map>

#include "enroll/stage.h"

namespace carlos::enroll {

namespace {

constexpr VerdictKind kKinds[] = {
    VerdictKind::kNothing,  VerdictKind::kRefused, VerdictKind::kWaiting,  VerdictKind::kInvite,
    VerdictKind::kReinvite, VerdictKind::kEnroll,  VerdictKind::kReenroll, VerdictKind::kError};

// The decision an outcome records, or "" for none (nothing to do).
std::string DecisionKind(const Outcome& o) {
  switch (o.verdict) {
    case VerdictKind::kInvite:
      return o.acted ? "invited" : "error";
    case VerdictKind::kReinvite:
      return o.acted ? "reinvited" : "error";
    case VerdictKind::kEnroll:
      return o.acted ? "enrolled" : "error";
    case VerdictKind::kReenroll:
      return o.acted ? "reenrolled" : "error";
    case VerdictKind::kRefused:
      return "refused";
    case VerdictKind::kWaiting:
      return "waiting";
    case VerdictKind::kError:
      return "error";
    case VerdictKind::kNothing:
      return "";
  }
  return "";
}

}  // namespace

EnrollMetrics::EnrollMetrics(Clock* clock)
    : clock_(clock),
      store_(registry_),
      boxes_(registry_.AddGauge("carlos_enroll_boxes",
                                "Boxes (identity records) in the last pass, by verdict.",
                                {"verdict"})),
      stages_(registry_.AddGauge("carlos_enroll_boxes_by_stage",
                                 "Boxes (identity records) in the last pass, by the stage it "
                                 "found them at; enrolled boxes are \"enrolled\".",
                                 {"stage"})),
      decisions_(registry_.AddCounter(
          "carlos_enroll_decisions_total",
          "The enroller's decisions, per box and pass, by kind and reason.", {"kind", "reason"})),
      passes_(registry_.AddCounter("carlos_enroll_passes_total", "Enroller passes, by outcome.",
                                   {"outcome"})),
      duration_(registry_.AddHistogram("carlos_enroll_pass_duration_seconds",
                                       "How long each enroller pass took.", {},
                                       {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120})),
      last_pass_(registry_.AddGauge("carlos_enroll_last_pass_timestamp_seconds",
                                    "Unix time the last successful pass ended.")) {
  metrics::AddBuildInfo(registry_);
  for (VerdictKind k : kKinds) boxes_->With({std::string(VerdictKindName(k))})->Set(0);
  for (const char* s : kPassStages) stages_->With({s})->Set(0);
}

void EnrollMetrics::Passed(const StatusOr<PassSummary>& pass, double seconds) {
  duration_->With({})->Observe(seconds);
  passes_->With({metrics::OutcomeLabel(pass.status())})->Increment();
  if (!pass.ok()) return;
  std::map<VerdictKind, int> by_kind;
  std::map<std::string, int, std::less<>> by_stage;
  for (const Outcome& o : pass->outcomes) {
    ++by_kind[o.verdict];
    ++by_stage[o.stage];
    std::string kind = DecisionKind(o);
    if (kind.empty()) continue;
    decisions_->With({kind, std::string(ReasonName(o.reason))})->Increment();
  }
  for (VerdictKind k : kKinds) boxes_->With({std::string(VerdictKindName(k))})->Set(by_kind[k]);
  for (const char* s : kPassStages) stages_->With({s})->Set(by_stage[s]);
  last_pass_->With({})->Set(metrics::UnixSeconds(*clock_));
}

}  // namespace carlos::enroll
