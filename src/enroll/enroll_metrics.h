// The enroller's metrics (`carlos boxes auto-enroll --watch -metrics ADDR`;
// docs/operator.md, "Metrics"): boxes by the last pass's verdict and stage,
// decisions by kind and reason, pass duration, passes by outcome, the last
// good pass's time, and the store's requests (metrics::MeasuredStore).
// Labels are bounded: verdict kinds and reasons are the fixed names of
// enroll/verdict.h, never a box label.
//
// Thread-safety: every method is safe from any thread.
#pragma once

#include "base/clock.h"
#include "enroll/enroller.h"
#include "metrics/measured_store.h"
#include "metrics/registry.h"

namespace carlos::enroll {

class EnrollMetrics {
 public:
  // `clock` (for the last pass's time) must outlive this object.
  explicit EnrollMetrics(Clock* clock);

  metrics::Registry& registry() { return registry_; }
  metrics::StoreMetrics* store() { return &store_; }

  // One pass (Enroller::Watch's observer) that took `seconds`:
  //   carlos_enroll_passes_total{outcome}: ok, or the error's OutcomeLabel;
  //   carlos_enroll_pass_duration_seconds (histogram);
  //   on success: carlos_enroll_boxes{verdict} (the pass's boxes by
  //   VerdictKindName; enrolled and unrecorded boxes are "nothing"),
  //   carlos_enroll_boxes_by_stage{stage} (the pass's boxes by the stage it
  //   found them at, enroll/stage.h PassStage),
  //   carlos_enroll_decisions_total{kind,reason}: per box and pass, kind
  //   invited, reinvited, enrolled (a write that succeeded), refused or
  //   waiting (with the verdict's reason; "" for the writes), or error
  //   (a read or write failed; reason "store" for a write),
  //   carlos_enroll_last_pass_timestamp_seconds (Unix seconds).
  void Passed(const StatusOr<PassSummary>& pass, double seconds);

 private:
  Clock* clock_;
  metrics::Registry registry_;
  metrics::StoreMetrics store_;
  metrics::Family<metrics::Gauge>* boxes_;
  metrics::Family<metrics::Gauge>* stages_;
  metrics::Family<metrics::Counter>* decisions_;
  metrics::Family<metrics::Counter>* passes_;
  metrics::Family<metrics::Histogram>* duration_;
  metrics::Family<metrics::Gauge>* last_pass_;
};

}  // namespace carlos::enroll
