#include "enroll/enroll_metrics.h"

#include <gtest/gtest.h>

namespace carlos::enroll {
namespace {

Outcome Of(std::string box, VerdictKind v, bool acted, Reason reason) {
  Outcome o;
  o.box = std::move(box);
  o.verdict = v;
  o.acted = acted;
  o.reason = reason;
  return o;
}

TEST(EnrollMetrics, CountsDecisionsBoxesAndPasses) {
  FakeClock clock(SystemTime(std::chrono::seconds(1700000000)));
  EnrollMetrics m(&clock);
  PassSummary pass;
  pass.outcomes = {Of("box-1", VerdictKind::kInvite, true, Reason::kNone),
                   Of("box-2", VerdictKind::kEnroll, true, Reason::kNone),
                   Of("box-3", VerdictKind::kRefused, false, Reason::kReferenced),
                   Of("box-4", VerdictKind::kRefused, false, Reason::kReferenced),
                   Of("box-5", VerdictKind::kInvite, false, Reason::kStore),
                   Of("box-6", VerdictKind::kNothing, false, Reason::kNone)};
  m.Passed(pass, 0.3);
  m.Passed(Unavailable("the store did not answer"), 2);
  std::string text = m.registry().Render();
  for (const char* want :
       {"carlos_enroll_decisions_total{kind=\"invited\",reason=\"\"} 1\n",
        "carlos_enroll_decisions_total{kind=\"enrolled\",reason=\"\"} 1\n",
        "carlos_enroll_decisions_total{kind=\"refused\",reason=\"referenced\"} 2\n",
        "carlos_enroll_decisions_total{kind=\"error\",reason=\"store\"} 1\n",
        "carlos_enroll_boxes{verdict=\"refused\"} 2\n",
        "carlos_enroll_boxes{verdict=\"invite\"} 2\n",
        "carlos_enroll_boxes{verdict=\"nothing\"} 1\n",
        "carlos_enroll_boxes{verdict=\"waiting\"} 0\n",
        "carlos_enroll_passes_total{outcome=\"ok\"} 1\n",
        "carlos_enroll_passes_total{outcome=\"unavailable\"} 1\n",
        "carlos_enroll_pass_duration_seconds_bucket{le=\"0.5\"} 1\n",
        "carlos_enroll_pass_duration_seconds_count 2\n",
        "carlos_enroll_pass_duration_seconds_sum 2.3\n",
        "carlos_enroll_last_pass_timestamp_seconds 1700000000\n"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\nin:\n" << text;
  }
  EXPECT_EQ(text.find("kind=\"\""), std::string::npos);  // Nothing to do is no decision.
}

}  // namespace
}  // namespace carlos::enroll
