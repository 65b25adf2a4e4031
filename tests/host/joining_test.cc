#include "host/joining.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <vector>

namespace carlos::host {
namespace {

using namespace carlos::protocol;  // NOLINT: the stages and decisions under test.

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const SystemTime kT0 = SystemTime(std::chrono::seconds(1'800'000'000));

ModeDecision Join(Stage stage, std::string why = "") {
  return {Mode::kJoining, "web-1", stage, std::move(why)};
}
ModeDecision Hosting() { return {Mode::kHosting, "web-1", Stage::kHosting, ""}; }

// A joining run against a script: select answers the script's entries in
// turn, and the stop is requested once the script is used up (the run ends
// at its next wait). Records every log line, arm request and report with
// the fake time it happened at.
class JoiningHarness {
 public:
  JoiningHarness() : clock_(kT0) {
    j_.every = Milliseconds(15'000);
    j_.nudge_every = Milliseconds(60'000);
    j_.clock = &clock_;
    j_.health = &health_;
    j_.logf = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu_);
      logs_.push_back(line);
    };
    j_.select = [this]() -> StatusOr<ModeDecision> {
      EXPECT_FALSE(health_.hosting());
      stages_seen_.push_back(health_.stage());
      size_t i = calls_++;
      if (i < select_cost_.size()) clock_.Advance(select_cost_[i]);
      if (i + 1 >= script_.size()) stop_.Request();
      return script_[std::min(i, script_.size() - 1)];
    };
    j_.serve = [this](const Stop& done) {
      served_ = true;
      while (!done.WaitFor(Milliseconds(1000))) {
      }
      serve_saw_done_ = true;
      return serve_result_;
    };
    j_.record = [this](const Stop& done) {
      recorded_ = true;
      while (!done.WaitFor(Milliseconds(1000))) {
      }
      record_saw_done_ = true;
    };
    j_.request_arm = [this]() {
      arms_.push_back(Seconds(clock_.Now()));
      return arm_result_;
    };
    j_.report = [this]() {
      reports_.push_back(Seconds(clock_.Now()));
      return report_result_;
    };
  }

  // Seconds since kT0.
  int Seconds(SystemTime t) {
    return static_cast<int>(std::chrono::duration_cast<std::chrono::seconds>(t - kT0).count());
  }

  JoinOutcome Run(std::vector<StatusOr<ModeDecision>> script) {
    script_ = std::move(script);
    return RunJoining(j_, stop_);
  }

  FakeClock clock_;
  lbhealth::Health health_;
  Joining j_;
  Stop stop_;
  std::vector<StatusOr<ModeDecision>> script_;
  std::vector<Milliseconds> select_cost_;
  size_t calls_ = 0;
  std::mutex mu_;
  std::vector<std::string> logs_;
  std::vector<std::string> stages_seen_;
  std::vector<int> arms_, reports_;
  Status arm_result_, report_result_, serve_result_;
  std::atomic<bool> served_{false}, recorded_{false};
  std::atomic<bool> serve_saw_done_{false}, record_saw_done_{false};
};

TEST(Joining, StageLineOncePerChangeOfStageOrWhy) {
  JoiningHarness h;
  auto out =
      h.Run({Join(Stage::kUnrecorded, "no record yet"), Join(Stage::kUnrecorded, "no record yet"),
             Join(Stage::kRecorded, "waiting to be invited"),
             Join(Stage::kRecorded, "waiting to be invited"),
             Join(Stage::kRecorded, "invitation refused: bad signature"),
             Join(Stage::kRecorded, "invitation refused: bad signature")});
  EXPECT_THAT(h.logs_,
              ElementsAre("agent: joining: web-1: unrecorded no record yet",
                          "agent: joining: web-1: recorded waiting to be invited",
                          "agent: joining: web-1: recorded invitation refused: bad signature"));
  EXPECT_EQ(out.status.code(), Code::kCancelled);
  EXPECT_EQ(out.decision, Join(Stage::kRecorded, "invitation refused: bad signature"));
  EXPECT_EQ(h.calls_, 6u);
  EXPECT_EQ(h.clock_.sleeps(), 5);  // The sixth wait saw the stop.
  EXPECT_THAT(h.arms_, IsEmpty());
  EXPECT_THAT(h.reports_, IsEmpty());
}

TEST(Joining, ErrorLineOncePerDistinctError) {
  JoiningHarness h;
  Status down = ModeUnknown("control/boxes/web-1.json", Unavailable("store down"));
  Status denied = ModeUnknown("control/boxes/web-1.json", Denied("access denied"));
  auto out = h.Run({down, down, denied, denied, down, Join(Stage::kRecorded, "w"), down,
                    Join(Stage::kRecorded, "w")});
  EXPECT_THAT(
      h.logs_,
      ElementsAre(
          "agent: joining: mode unknown: control/boxes/web-1.json: store down; checking again",
          "agent: joining: mode unknown: control/boxes/web-1.json: access denied; checking again",
          "agent: joining: mode unknown: control/boxes/web-1.json: store down; checking again",
          "agent: joining: the mode is known again after 1m15s",
          "agent: joining: web-1: recorded w",
          // A good decision ends the failure, in one line; the same error
          // is then news.
          "agent: joining: mode unknown: control/boxes/web-1.json: store down; checking again",
          "agent: joining: the mode is known again after 15s"));
  EXPECT_EQ(out.status.code(), Code::kCancelled);
  EXPECT_EQ(out.decision, Join(Stage::kRecorded, "w"));
}

TEST(Joining, UnknownModeWaitsAndNeverNudges) {
  JoiningHarness h;
  Status down = Unavailable("store down");
  auto out = h.Run({down, down, down, down, down, down});
  EXPECT_THAT(h.logs_, ElementsAre("agent: joining: store down; checking again"));
  EXPECT_THAT(h.arms_, IsEmpty());
  EXPECT_THAT(h.reports_, IsEmpty());
  EXPECT_EQ(h.Seconds(h.clock_.Now()), 5 * 15);  // Waited `every` between checks.
  EXPECT_EQ(out.status.code(), Code::kCancelled);
  EXPECT_EQ(out.decision, ModeDecision{});  // No decision was ever made.
  EXPECT_EQ(out.decision.stage, Stage::kNone);
}

TEST(Joining, HostingReturnsTheDecision) {
  JoiningHarness h;
  auto out = h.Run({Join(Stage::kGuardReady, "armed"), Hosting(), Join(Stage::kRecorded)});
  EXPECT_TRUE(out.status.ok()) << out.status.ToString();
  EXPECT_EQ(out.decision, Hosting());
  EXPECT_THAT(h.logs_, ElementsAre("agent: joining: web-1: guard-ready armed",
                                   "agent: joining: web-1 is enrolled and its guard is armed; "
                                   "restarting as the claim agent"));
  EXPECT_EQ(h.calls_, 2u);
  EXPECT_FALSE(h.health_.hosting());  // The claim agent, not joining, says hosting.
}

TEST(Joining, CancellationReturnsTheLastDecision) {
  JoiningHarness h;
  auto out = h.Run({Join(Stage::kInvited, "a"), Unavailable("store down")});
  EXPECT_EQ(out.status.code(), Code::kCancelled);
  EXPECT_EQ(out.decision, Join(Stage::kInvited, "a"));
}

TEST(Joining, StopBeforeStartStillChecksOnce) {
  JoiningHarness h;
  h.stop_.Request();
  auto out = h.Run({Join(Stage::kRecorded, "w"), Hosting()});
  EXPECT_EQ(h.calls_, 1u);
  EXPECT_EQ(out.status.code(), Code::kCancelled);
  EXPECT_EQ(out.decision, Join(Stage::kRecorded, "w"));
}

TEST(Joining, HealthIs503FromTheFirstMomentWithTheStage) {
  JoiningHarness h;
  h.health_.SetHosting(true);  // Left over: joining must clear it at once.
  h.Run({Join(Stage::kRecorded, "w"), Join(Stage::kInvited, "i"), Unavailable("x")});
  EXPECT_THAT(h.stages_seen_, ElementsAre("joining", "joining: recorded", "joining: invited"));
  EXPECT_FALSE(h.health_.hosting());
  auto r = lbhealth::Serve({"GET", "/_carlos/lb"}, h.health_);
  EXPECT_EQ(r->status_code, 503);
  EXPECT_EQ(r->body, "joining: invited\n");
}

TEST(Joining, ServeAndRecordRunConcurrentlyAndStopWithTheRun) {
  JoiningHarness h;
  h.serve_result_ = Unavailable("listen tcp :80: bind: address already in use");
  auto out = h.Run({Hosting()});
  EXPECT_TRUE(out.status.ok());
  // Both were started, were told the run ended, and were joined.
  EXPECT_TRUE(h.served_);
  EXPECT_TRUE(h.recorded_);
  EXPECT_TRUE(h.serve_saw_done_);
  EXPECT_TRUE(h.record_saw_done_);
  EXPECT_THAT(h.logs_, ElementsAre("agent: joining: web-1 is enrolled and its guard is armed; "
                                   "restarting as the claim agent",
                                   "agent: joining: the load balancer health check is not "
                                   "answered: listen tcp :80: bind: address already in use"));
}

TEST(Joining, ArmRequestOnlyWhenInvitedAtMostOncePerNudge) {
  JoiningHarness h;
  // Invited for 10 checks: 0, 15, ..., 135 s. Nudges at 0, 60, 120.
  std::vector<StatusOr<ModeDecision>> script(10, Join(Stage::kInvited, "i"));
  h.Run(script);
  EXPECT_THAT(h.arms_, ElementsAre(0, 60, 120));
  EXPECT_THAT(h.reports_, IsEmpty());
  EXPECT_THAT(h.logs_, ElementsAre("agent: joining: web-1: invited i"));
}

TEST(Joining, ReportOnlyOnGuardStages) {
  for (Stage s : {Stage::kGuardInstalled, Stage::kGuardReady}) {
    JoiningHarness h;
    std::vector<StatusOr<ModeDecision>> script(5, Join(s, "g"));
    h.Run(script);
    EXPECT_THAT(h.reports_, ElementsAre(0, 60)) << StageName(s);
    EXPECT_THAT(h.arms_, IsEmpty());
  }
}

TEST(Joining, NoNudgeOnOtherStages) {
  for (Stage s : {Stage::kRetired, Stage::kUnrecorded, Stage::kConflict, Stage::kReferenced,
                  Stage::kRecorded}) {
    JoiningHarness h;
    std::vector<StatusOr<ModeDecision>> script(6, Join(s, "w"));
    h.Run(script);
    EXPECT_THAT(h.reports_, IsEmpty()) << StageName(s);
    EXPECT_THAT(h.arms_, IsEmpty()) << StageName(s);
    EXPECT_EQ(h.logs_.size(), 1u);
  }
}

TEST(Joining, StageChangeMakesTheNudgeDueAtOnce) {
  JoiningHarness h;
  h.Run({Join(Stage::kInvited, "i"),             // 0: arm
         Join(Stage::kGuardInstalled, "g"),      // 15: changed -> report at once
         Join(Stage::kGuardInstalled, "g"),      // 30
         Join(Stage::kGuardReady, "r"),          // 45: changed -> report at once
         Join(Stage::kGuardReady, "r"),          // 60
         Join(Stage::kGuardReady, "r"),          // 75
         Join(Stage::kGuardReady, "r"),          // 90
         Join(Stage::kGuardReady, "r"),          // 105: 60 s after 45 -> report
         Join(Stage::kInvited, "i"),             // 120: changed -> arm at once
         Join(Stage::kInvited, "lost guard"),    // 135: why changed -> arm at once
         Join(Stage::kInvited, "lost guard")});  // 150
  EXPECT_THAT(h.arms_, ElementsAre(0, 120, 135));
  EXPECT_THAT(h.reports_, ElementsAre(15, 45, 105));
}

TEST(Joining, AnErrorDoesNotResetTheNudge) {
  JoiningHarness h;
  h.Run({Join(Stage::kInvited, "i"), Unavailable("blip"), Join(Stage::kInvited, "i"),
         Join(Stage::kInvited, "i"), Join(Stage::kInvited, "i"), Join(Stage::kInvited, "i")});
  // 0: arm; 15: error; 30, 45: same stage, not due; 60: due.
  EXPECT_THAT(h.arms_, ElementsAre(0, 60));
}

TEST(Joining, NudgeTimeIsTakenAfterTheSelection) {
  JoiningHarness h;
  h.j_.every = Milliseconds(55'000);
  // The second check's store reads take 10 s: it starts at 55 s and ends at
  // 65 s, which is 60 s after the first nudge. The seed takes `now` after
  // selectMode, so the second nudge is due; taken before, it would not be.
  h.select_cost_ = {Milliseconds(0), Milliseconds(10'000)};
  h.Run({Join(Stage::kInvited, "i"), Join(Stage::kInvited, "i")});
  EXPECT_THAT(h.arms_, ElementsAre(0, 65));
}

// A nudge that keeps failing (once a minute) is logged once per cause, not
// at every nudge; its end once.
TEST(Joining, NudgeFailuresAreLoggedOncePerCause) {
  JoiningHarness h;
  h.arm_result_ = Denied("open /data/system-join-requested: permission denied");
  h.report_result_ = Unavailable("put status/boxes/web-1.json: store down");
  std::vector<StatusOr<ModeDecision>> script(5, Join(Stage::kInvited, "i"));
  script.insert(script.end(), 5, Join(Stage::kGuardReady, "r"));
  h.Run(script);
  EXPECT_THAT(h.logs_, ElementsAre("agent: joining: web-1: invited i",
                                   "agent: joining: could not ask root to arm the guard: open "
                                   "/data/system-join-requested: permission denied",
                                   "agent: joining: web-1: guard-ready r",
                                   "agent: joining: the guard-ready report was not published: put "
                                   "status/boxes/web-1.json: store down"));
  EXPECT_THAT(h.arms_, ElementsAre(0, 60));
  EXPECT_THAT(h.reports_, ElementsAre(75, 135));

  // The report goes through at the next nudge: one line says so.
  JoiningHarness again;
  again.report_result_ = Unavailable("put status/boxes/web-1.json: store down");
  std::vector<StatusOr<ModeDecision>> ready(6, Join(Stage::kGuardReady, "r"));
  again.clock_.OnSleep([&](SystemTime) {
    if (again.Seconds(again.clock_.Now()) == 60) again.report_result_ = OkStatus();
  });
  again.Run(ready);
  EXPECT_THAT(again.logs_,
              ElementsAre("agent: joining: web-1: guard-ready r",
                          "agent: joining: the guard-ready report was not published: put "
                          "status/boxes/web-1.json: store down",
                          "agent: joining: the guard-ready report is published again after 1m0s"));
}

}  // namespace
}  // namespace carlos::host
