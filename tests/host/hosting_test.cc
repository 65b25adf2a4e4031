#include "host/hosting.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "host/agent_metrics.h"

namespace carlos::host {
namespace {

using namespace carlos::protocol;  // NOLINT: the stages and decisions under test.

using ::testing::ElementsAre;

const SystemTime kT0 = SystemTime(std::chrono::seconds(1'800'000'000));

class HostingHarness {
 public:
  HostingHarness() : clock_(kT0) {
    h_.box = "web-1";
    h_.select = [this]() -> StatusOr<ModeDecision> {
      checks_.push_back(Secs());
      if (checks_.size() <= script_.size()) return script_[checks_.size() - 1];
      return ModeDecision{Mode::kHosting, "web-1", Stage::kHosting, "(enrolled)"};
    };
    h_.publish_edges = [this] {
      edges_.push_back(Secs());
      return edges_result_;
    };
    h_.publish_report = [this] {
      reports_.push_back(Secs());
      EXPECT_TRUE(health_.hosting());
      return report_result_;
    };
    h_.check_every = Milliseconds(15'000);
    h_.report_every = Milliseconds(30'000);
    h_.drain = Milliseconds(10'000);
    h_.clock = &clock_;
    h_.logf = [this](const std::string& l) { logs_.push_back(l); };
    h_.health = &health_;
    clock_.OnSleep([this](SystemTime) {
      seen_.push_back({Secs(), health_.hosting(), health_.stage()});
      if (stop_at_ >= 0 && Secs() >= stop_at_) stop_.Request();
    });
  }
  int Secs() {
    return static_cast<int>(
        std::chrono::duration_cast<std::chrono::seconds>(clock_.Now() - kT0).count());
  }

  struct Seen {
    int at;
    bool hosting;
    std::string stage;
  };
  FakeClock clock_;
  lbhealth::Health health_;
  Hosting h_;
  Stop stop_;
  int stop_at_ = -1;
  std::vector<StatusOr<ModeDecision>> script_;
  std::vector<int> checks_, edges_, reports_;
  Status edges_result_, report_result_;
  std::vector<std::string> logs_;
  std::vector<Seen> seen_;
};

TEST(Hosting, Answers200PublishesAndRechecksUntilStopped) {
  HostingHarness t;
  t.stop_at_ = 90;
  Status st = RunHosting(t.h_, t.stop_);
  EXPECT_EQ(st.code(), Code::kCancelled);
  // The stop arrives during the wait that ends at 90 s.
  EXPECT_THAT(t.edges_, ElementsAre(0, 30, 60));
  EXPECT_THAT(t.reports_, ElementsAre(0, 30, 60));
  EXPECT_THAT(t.checks_, ElementsAre(15, 30, 45, 60, 75));
  EXPECT_THAT(t.logs_,
              ElementsAre("agent: web-1 is hosting", "agent: hosting: stopping; draining for 10s",
                          "agent: hosting: drained"));
  // 200 until the stop; then 503 "draining" for the whole drain window.
  ASSERT_GE(t.seen_.size(), 2u);
  EXPECT_TRUE(t.seen_[0].hosting);
  EXPECT_EQ(t.seen_.back().at, 100);
  EXPECT_FALSE(t.seen_.back().hosting);
  EXPECT_EQ(t.seen_.back().stage, "draining");
  EXPECT_FALSE(t.health_.hosting());
}

// A SIGTERM drain is told (the agent's mode gauge shows draining), once,
// when the drain begins: the health check is still hosting then.
TEST(Hosting, AStopsDrainIsToldWhenItBegins) {
  HostingHarness t;
  t.stop_at_ = 30;
  std::vector<int> drains;
  t.h_.draining = [&] {
    drains.push_back(t.Secs());
    EXPECT_TRUE(t.health_.hosting());
  };
  AgentMetrics metrics(&t.clock_);
  metrics.Decided(ModeDecision{Mode::kHosting, "web-1", Stage::kHosting, ""}, true);
  auto told = t.h_.draining;
  t.h_.draining = [&] {
    told();
    metrics.Draining();
  };
  EXPECT_EQ(RunHosting(t.h_, t.stop_).code(), Code::kCancelled);
  EXPECT_THAT(drains, ElementsAre(30));
  std::string text = metrics.registry().Render();
  EXPECT_NE(text.find("carlos_box_mode{mode=\"draining\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("carlos_box_mode{mode=\"hosting\"} 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("carlos_box_stage{stage=\"hosting\"} 1\n"), std::string::npos) << text;
}

TEST(Hosting, MayNoLongerHostDrainsAndFails) {
  HostingHarness t;
  t.script_ = {ModeDecision{Mode::kHosting, "web-1", Stage::kHosting, ""},
               ModeDecision{Mode::kJoining, "web-1", Stage::kRetired, "(retired at X)"}};
  Status st = RunHosting(t.h_, t.stop_);
  EXPECT_EQ(st.code(), Code::kPreconditionFailed);
  EXPECT_EQ(st.message(), "web-1 may no longer host: retired");
  EXPECT_THAT(t.logs_, ElementsAre("agent: web-1 is hosting",
                                   "agent: hosting: web-1 may no longer host: retired (retired "
                                   "at X); draining for 10s",
                                   "agent: hosting: drained; exiting to join again"));
  EXPECT_EQ(t.Secs(), 40);  // Found at 30 s, drained 10 s.
  EXPECT_FALSE(t.health_.hosting());
  EXPECT_EQ(t.health_.stage(), "draining");
}

TEST(Hosting, ModeErrorsKeepHostingAndAreLoggedOnce) {
  HostingHarness t;
  Status down = ModeUnknown("control/enrollments/web-1.json", Unavailable("store down"));
  t.script_ = {down, down, down};
  t.stop_at_ = 60;
  EXPECT_EQ(RunHosting(t.h_, t.stop_).code(), Code::kCancelled);
  EXPECT_THAT(t.logs_,
              ElementsAre("agent: web-1 is hosting",
                          "agent: hosting: mode unknown: control/enrollments/web-1.json: "
                          "store down; checking again",
                          "agent: hosting: stopping; draining for 10s", "agent: hosting: drained"));
  for (const auto& s : t.seen_) {
    if (s.at <= 60) {
      EXPECT_TRUE(s.hosting) << s.at;
    }
  }
}

TEST(Hosting, PublishFailuresAreLoggedOncePerError) {
  HostingHarness t;
  t.edges_result_ = Unavailable("publish control/edges/web-1.json: store down");
  t.report_result_ = Unavailable("publish status/boxes/web-1.json: store down");
  t.stop_at_ = 60;
  EXPECT_EQ(RunHosting(t.h_, t.stop_).code(), Code::kCancelled);
  EXPECT_THAT(t.logs_,
              ElementsAre("agent: web-1 is hosting",
                          "agent: hosting: the edges file was not published: publish "
                          "control/edges/web-1.json: store down",
                          "agent: hosting: the status report was not published: publish "
                          "status/boxes/web-1.json: store down",
                          "agent: hosting: stopping; draining for 10s", "agent: hosting: drained"));
  EXPECT_THAT(t.reports_, ElementsAre(0, 30));  // Still tried every time.
}

TEST(Hosting, ARecoveryIsLoggedOnceWithHowLongItFailed) {
  HostingHarness t;
  t.h_.publish_edges = [&t]() -> Status {
    t.edges_.push_back(t.Secs());
    // Down for the first two reports (0 s, 30 s), the same cause each time.
    if (t.Secs() < 60) return Unavailable("publish control/edges/web-1.json: store down");
    return OkStatus();
  };
  t.h_.publish_report = nullptr;
  t.h_.select = nullptr;
  t.stop_at_ = 120;
  EXPECT_EQ(RunHosting(t.h_, t.stop_).code(), Code::kCancelled);
  EXPECT_THAT(t.edges_, ElementsAre(0, 30, 60, 90));
  EXPECT_THAT(t.logs_,
              ElementsAre("agent: web-1 is hosting",
                          "agent: hosting: the edges file was not published: publish "
                          "control/edges/web-1.json: store down",
                          "agent: hosting: the edges file is published again after 1m0s",
                          "agent: hosting: stopping; draining for 10s", "agent: hosting: drained"));
}

TEST(Hosting, WithASwitchOffNothingIsRechecked) {
  HostingHarness t;
  t.h_.select = nullptr;
  t.stop_at_ = 60;
  EXPECT_EQ(RunHosting(t.h_, t.stop_).code(), Code::kCancelled);
  EXPECT_TRUE(t.checks_.empty());
  EXPECT_THAT(t.reports_, ElementsAre(0, 30));
}

TEST(Hosting, AZeroDrainEndsAtOnce) {
  HostingHarness t;
  t.h_.drain = Milliseconds(0);
  t.stop_at_ = 30;
  EXPECT_EQ(RunHosting(t.h_, t.stop_).code(), Code::kCancelled);
  EXPECT_EQ(t.Secs(), 30);
}

}  // namespace
}  // namespace carlos::host
