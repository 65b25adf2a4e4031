#include "enroll/enroll_metrics.h"

#include <gtest/gtest.h>

#include "world.h"

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

// Boxes by stage, from a real pass over a store: each box counted at the
// stage the pass found it (before acting), enrolled boxes as "enrolled".
TEST(EnrollMetrics, BoxesByStageFromARealPass) {
  testing::TempDir tmp;
  std::map<std::string, std::string> env;
  auto store = testing::MakeStore("dir", tmp.path(), &env);
  ASSERT_TRUE(store.ok());
  testing::World w(store->get());
  testing::LogSink log;
  auto e = w.MakeEnroller(&log);
  testing::TestBox web1 = w.AddBox("web-1");
  ASSERT_TRUE(e->Invite("web-1", false).ok());
  w.PutReport(web1);
  ASSERT_TRUE(e->Enroll("web-1").ok());
  w.AddBox("web-2");
  ASSERT_TRUE(e->Retire("web-2", "").ok());
  testing::TestBox web3 = w.AddBox("web-3");
  w.PutEdges(web3, {});
  w.AddBox("web-4");
  w.AddBox("web-5");
  ASSERT_TRUE(e->Invite("web-5", false).ok());

  EnrollMetrics m(&w.clock());
  m.Passed(e->Pass(), 0.1);
  std::string text = m.registry().Render();
  for (const char* want : {"carlos_enroll_boxes_by_stage{stage=\"enrolled\"} 1\n",
                           "carlos_enroll_boxes_by_stage{stage=\"retired\"} 1\n",
                           "carlos_enroll_boxes_by_stage{stage=\"referenced\"} 1\n",
                           "carlos_enroll_boxes_by_stage{stage=\"recorded\"} 1\n",
                           "carlos_enroll_boxes_by_stage{stage=\"invited\"} 1\n",
                           "carlos_enroll_boxes_by_stage{stage=\"guard-ready\"} 0\n",
                           "carlos_enroll_boxes_by_stage{stage=\"conflict\"} 0\n",
                           "carlos_enroll_boxes_by_stage{stage=\"unknown\"} 0\n"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\nin:\n" << text;
  }
  // The pass invited web-4: the next pass finds it invited.
  m.Passed(e->Pass(), 0.1);
  text = m.registry().Render();
  EXPECT_NE(text.find("carlos_enroll_boxes_by_stage{stage=\"invited\"} 2\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("carlos_enroll_boxes_by_stage{stage=\"recorded\"} 0\n"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace carlos::enroll
