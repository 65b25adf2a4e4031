#include "host/joining.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
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
  // Runs with the steps as the test set them (no script).
  JoinOutcome RunJoiningAsIs() { return RunJoining(j_, stop_); }

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

// Departure from the seed (docs/agent.md, "Nudges"): a guard installed but
// not armed a nudge interval after the stage was first seen means root's
// join stopped between installing and arming; root is asked again then,
// and at every later nudge, never at the stage's first nudge, and never at
// guard-ready.
TEST(Joining, ReportOnGuardStagesAndRootAskedAgainFromGuardInstalledsSecondNudge) {
  for (Stage s : {Stage::kGuardInstalled, Stage::kGuardReady}) {
    JoiningHarness h;
    std::vector<StatusOr<ModeDecision>> script(10, Join(s, "g"));
    h.Run(script);
    EXPECT_THAT(h.reports_, ElementsAre(0, 60, 120)) << StageName(s);
    if (s == Stage::kGuardInstalled) {
      EXPECT_THAT(h.arms_, ElementsAre(60, 120));
    } else {
      EXPECT_THAT(h.arms_, IsEmpty());
    }
    EXPECT_EQ(h.logs_.size(), 1u);
  }
}

TEST(Joining, GuardInstalledWhyChangeRestartsTheWait) {
  JoiningHarness h;
  h.arm_result_ = Denied("open /data/system-join-requested: permission denied");
  h.Run({Join(Stage::kGuardInstalled, "a"),    // 0: report
         Join(Stage::kGuardInstalled, "a"),    // 15
         Join(Stage::kGuardInstalled, "a"),    // 30
         Join(Stage::kGuardInstalled, "b"),    // 45: why changed -> report, no arm
         Join(Stage::kGuardInstalled, "b"),    // 60
         Join(Stage::kGuardInstalled, "b"),    // 75
         Join(Stage::kGuardInstalled, "b"),    // 90
         Join(Stage::kGuardInstalled, "b")});  // 105: 60 s after 45 -> report, arm
  EXPECT_THAT(h.reports_, ElementsAre(0, 45, 105));
  EXPECT_THAT(h.arms_, ElementsAre(105));
  EXPECT_THAT(h.logs_, ElementsAre("agent: joining: web-1: guard-installed a",
                                   "agent: joining: web-1: guard-installed b",
                                   "agent: joining: could not ask root to arm the guard: open "
                                   "/data/system-join-requested: permission denied"));
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

// --- The wake and the fast poll (host/wake.h) ---------------------------

TEST(NextCheckIn, FastWhileExpectingWithinTheBoundThenJoinEvery) {
  const Milliseconds every(15'000);
  const FastPoll fast{Milliseconds(1'000), Milliseconds(60'000)};
  // Nothing expected yet: the seed's interval.
  EXPECT_EQ(NextCheckIn(kT0, std::nullopt, every, fast), every);
  // From the act on, every second, up to the bound.
  EXPECT_EQ(NextCheckIn(kT0, kT0, every, fast), Milliseconds(1'000));
  EXPECT_EQ(NextCheckIn(kT0 + Milliseconds(59'999), kT0, every, fast), Milliseconds(1'000));
  // At the bound and after it: back to joinEvery.
  EXPECT_EQ(NextCheckIn(kT0 + Milliseconds(60'000), kT0, every, fast), every);
  EXPECT_EQ(NextCheckIn(kT0 + Milliseconds(600'000), kT0, every, fast), every);
  // Off (the default): always joinEvery.
  EXPECT_EQ(NextCheckIn(kT0, kT0, every, FastPoll{}), every);
  // Never slower than joinEvery.
  EXPECT_EQ(NextCheckIn(kT0, kT0, Milliseconds(500), fast), Milliseconds(500));
}

// The harness's run with a wake over its fake clock: each wait's length is
// recorded; `early` may end a wait early (returning the time it waited).
struct FakeWake {
  explicit FakeWake(JoiningHarness* harness) : h(harness) {
    h->j_.wake.wait = [this](Milliseconds d, const Stop& stop) {
      std::optional<Milliseconds> cut = early ? early(waits.size()) : std::nullopt;
      waits.push_back(static_cast<int>(d.count()));
      if (!h->clock_.Sleep(cut ? *cut : d, stop)) return Woke::kStopped;
      return cut ? Woke::kEvent : Woke::kTimeout;
    };
    h->j_.wake.notify = [this] {
      std::lock_guard<std::mutex> lock(mu);
      ++notified;
      cv.notify_all();
    };
  }
  // Blocks until notify was called (the record thread), at most 10 s.
  bool AwaitNotified() {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(10), [this] { return notified > 0; });
  }
  JoiningHarness* h;
  std::vector<int> waits;  // Milliseconds.
  std::function<std::optional<Milliseconds>(size_t n)> early;
  std::mutex mu;
  std::condition_variable cv;
  int notified = 0;
};

std::vector<StatusOr<ModeDecision>> Repeat(ModeDecision d, int n) {
  return std::vector<StatusOr<ModeDecision>>(n, d);
}

TEST(JoiningWake, AskingRootStartsTheFastPollWhichFallsBackAfterItsBound) {
  JoiningHarness h;
  FakeWake w(&h);
  h.j_.fast = FastPoll{Milliseconds(1'000), Milliseconds(10'000)};
  // Checks at 0, 1, ..., 10 s (fast), then 25, 40, 55, 70, 85 s.
  auto out = h.Run(Repeat(Join(Stage::kInvited, "(asking root)"), 16));
  EXPECT_EQ(out.status.code(), Code::kCancelled);
  std::vector<int> want(10, 1'000);
  want.insert(want.end(), 6, 15'000);  // The last is the wait that saw the stop.
  EXPECT_EQ(w.waits, want);
  // Nudges keep their bound; the repeated one at 70 s does not start
  // another fast poll (the waits after it stay 15 s).
  EXPECT_THAT(h.arms_, ElementsAre(0, 70));
}

TEST(JoiningWake, NudgesStayOncePerNudgeEveryWhileCheckingEverySecond) {
  JoiningHarness h;
  FakeWake w(&h);
  h.j_.fast = FastPoll{Milliseconds(1'000), Milliseconds(150'000)};
  auto out = h.Run(Repeat(Join(Stage::kGuardReady, "(armed)"), 131));  // 0..130 s.
  EXPECT_EQ(h.Seconds(h.clock_.Now()), 130);
  EXPECT_THAT(h.reports_, ElementsAre(0, 60, 120));
  EXPECT_THAT(h.logs_, ElementsAre("agent: joining: web-1: guard-ready (armed)"));
}

TEST(JoiningWake, AStageChangeFoundByTheFastPollNudgesAtOnce) {
  JoiningHarness h;
  FakeWake w(&h);
  h.j_.fast = FastPoll{Milliseconds(1'000), Milliseconds(60'000)};
  auto out =
      h.Run({Join(Stage::kGuardReady, "(armed)"), Join(Stage::kGuardReady, "(armed)"),
             Join(Stage::kGuardReady, "(armed)"), Join(Stage::kGuardReady, "(armed)"), Hosting()});
  EXPECT_TRUE(out.status.ok());
  // Enrolled 4 s after the report: seen within a second, not at 15 s.
  EXPECT_EQ(h.Seconds(h.clock_.Now()), 4);
  EXPECT_THAT(w.waits, ElementsAre(1'000, 1'000, 1'000, 1'000));
}

TEST(JoiningWake, TheRecordInPlaceStartsTheFastPoll) {
  JoiningHarness h;
  FakeWake w(&h);
  h.j_.fast = FastPoll{Milliseconds(1'000), Milliseconds(60'000)};
  h.j_.record = [&](const Stop&) { h.recorded_ = true; };  // In place at once.
  size_t calls = 0;
  h.j_.select = [&]() -> StatusOr<ModeDecision> {
    // The first check sees the record thread's notify (deterministic).
    if (calls == 0) {
      EXPECT_TRUE(w.AwaitNotified());
    }
    if (++calls >= 4) h.stop_.Request();
    return Join(Stage::kRecorded, "(waiting to be invited)");
  };
  h.RunJoiningAsIs();
  EXPECT_EQ(w.notified, 1);
  EXPECT_THAT(w.waits, ElementsAre(1'000, 1'000, 1'000, 1'000));
}

TEST(JoiningWake, WithoutAnActTheBoxChecksEveryJoinEvery) {
  JoiningHarness h;  // Its record never ends: not in place.
  FakeWake w(&h);
  h.j_.fast = FastPoll{Milliseconds(1'000), Milliseconds(60'000)};
  h.Run(Repeat(Join(Stage::kRecorded, "(waiting to be invited)"), 3));
  EXPECT_THAT(w.waits, ElementsAre(15'000, 15'000, 15'000));
  EXPECT_EQ(w.notified, 0);
}

TEST(JoiningWake, AnEventChecksAtOnce) {
  JoiningHarness h;
  FakeWake w(&h);
  // Root arms the guard 2 s into the first wait (inotify on hostguard/).
  w.early = [](size_t n) -> std::optional<Milliseconds> {
    if (n == 0) return Milliseconds(2'000);
    return std::nullopt;
  };
  h.Run({Join(Stage::kInvited, "(asking root)"), Join(Stage::kGuardReady, "(armed)"),
         Join(Stage::kGuardReady, "(armed)")});
  EXPECT_THAT(h.arms_, ElementsAre(0));
  EXPECT_THAT(h.reports_, ElementsAre(2));  // Reported at once, not at 15 s.
}

TEST(JoiningWake, AStopDuringTheWaitEndsTheRun) {
  JoiningHarness h;
  h.j_.wake.wait = [&](Milliseconds, const Stop&) { return Woke::kStopped; };
  auto out = h.Run({Join(Stage::kRecorded, "w"), Join(Stage::kInvited, "i")});
  EXPECT_EQ(out.status.code(), Code::kCancelled);
  EXPECT_EQ(h.calls_, 1u);
}

}  // namespace
}  // namespace carlos::host
