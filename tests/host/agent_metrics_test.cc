#include "host/agent_metrics.h"

#include <gtest/gtest.h>

namespace carlos::host {
namespace {

using protocol::Mode;
using protocol::ModeDecision;
using protocol::Stage;

std::string Line(const std::string& text, const std::string& prefix) {
  size_t at = text.find("\n" + prefix);
  if (at == std::string::npos) return "";
  size_t end = text.find('\n', at + 1);
  return text.substr(at + 1, end - at - 1);
}

TEST(AgentMetrics, StageModeChangesAndSecondsInStage) {
  FakeClock clock(SystemTime(std::chrono::seconds(1700000000)));
  AgentMetrics m(&clock);
  std::string text = m.registry().Render();
  EXPECT_EQ(Line(text, "carlos_box_stage{stage=\"recorded\"}"),
            "carlos_box_stage{stage=\"recorded\"} 0");
  EXPECT_EQ(Line(text, "carlos_box_mode{mode=\"joining\"}"), "carlos_box_mode{mode=\"joining\"} 0");

  m.Decided(ModeDecision{Mode::kJoining, "box-1", Stage::kRecorded, ""}, false);
  clock.Advance(std::chrono::seconds(30));
  m.Decided(ModeDecision{Mode::kJoining, "box-1", Stage::kRecorded, ""}, false);  // No change.
  m.Decided(Unavailable("the store did not answer"), false);                      // Unknown.
  text = m.registry().Render();
  EXPECT_EQ(Line(text, "carlos_box_stage{stage=\"recorded\"}"),
            "carlos_box_stage{stage=\"recorded\"} 1");
  EXPECT_EQ(Line(text, "carlos_box_mode{mode=\"joining\"}"), "carlos_box_mode{mode=\"joining\"} 1");
  EXPECT_EQ(Line(text, "carlos_box_stage_seconds"), "carlos_box_stage_seconds 30");
  EXPECT_EQ(Line(text, "carlos_box_stage_changes_total"),
            "carlos_box_stage_changes_total{from=\"none\",to=\"recorded\"} 1");

  m.Decided(ModeDecision{Mode::kJoining, "box-1", Stage::kInvited, ""}, false);
  clock.Advance(std::chrono::seconds(2));
  text = m.registry().Render();
  EXPECT_EQ(Line(text, "carlos_box_stage{stage=\"recorded\"}"),
            "carlos_box_stage{stage=\"recorded\"} 0");
  EXPECT_EQ(Line(text, "carlos_box_stage{stage=\"invited\"}"),
            "carlos_box_stage{stage=\"invited\"} 1");
  EXPECT_EQ(Line(text, "carlos_box_stage_seconds"), "carlos_box_stage_seconds 2");
  EXPECT_NE(text.find("carlos_box_stage_changes_total{from=\"recorded\",to=\"invited\"} 1\n"),
            std::string::npos);

  // Hosting, then told the box may no longer host: draining.
  m.Decided(ModeDecision{Mode::kHosting, "box-1", Stage::kHosting, ""}, true);
  EXPECT_EQ(Line(m.registry().Render(), "carlos_box_mode{mode=\"hosting\"}"),
            "carlos_box_mode{mode=\"hosting\"} 1");
  m.Decided(ModeDecision{Mode::kJoining, "box-1", Stage::kRetired, ""}, true);
  text = m.registry().Render();
  EXPECT_EQ(Line(text, "carlos_box_mode{mode=\"draining\"}"),
            "carlos_box_mode{mode=\"draining\"} 1");
  EXPECT_EQ(Line(text, "carlos_box_mode{mode=\"hosting\"}"), "carlos_box_mode{mode=\"hosting\"} 0");
}

TEST(AgentMetrics, OutcomesAndHealthAnswers) {
  FakeClock clock(SystemTime(std::chrono::seconds(1700000000)));
  AgentMetrics m(&clock);
  m.MarkerWrite(OkStatus());
  m.MarkerWrite(Status(Code::kDenied, "read-only"));
  m.ReportPublish(Unavailable("down"));
  m.RecordWrite(RecordResult::kConflict);
  m.RecordWrite(RecordResult::kWritten);
  m.HealthAnswered(503);
  m.HealthAnswered(503);
  m.HealthAnswered(418);
  m.ImdsExchanged("PUT", 200, OkStatus(), 0.002);
  m.ImdsExchanged("GET", 404, OkStatus(), 0.002);
  m.ImdsExchanged("GET", 0, Status(Code::kDeadlineExceeded, "timeout"), 1);
  std::string text = m.registry().Render();
  for (const char* want :
       {"carlos_join_marker_writes_total{outcome=\"ok\"} 1\n",
        "carlos_join_marker_writes_total{outcome=\"denied\"} 1\n",
        "carlos_report_publishes_total{outcome=\"unavailable\"} 1\n",
        "carlos_record_writes_total{outcome=\"conflict\"} 1\n",
        "carlos_record_writes_total{outcome=\"written\"} 1\n",
        "carlos_health_requests_total{code=\"503\"} 2\n",
        "carlos_health_requests_total{code=\"200\"} 0\n",
        "carlos_health_requests_total{code=\"418\"} 1\n", "carlos_health_open_connections 0\n"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\nin:\n" << text;
  }
}

}  // namespace
}  // namespace carlos::host
