// Replays the model's second finding on real parts (docs/protocol.md, "The
// model and the fault soak", Findings): root's join killed between
// installing the guard and arming it (`carlos system join` with
// CARLOS_TEST_CRASH_AT=after-install, a real SIGKILL), then the agent's
// joining loop (host::RunJoining with the real SelectMode on the box's data
// dir and directory store, a FakeClock) whose nudges run the real
// `carlos system join` again. The box must reach guard-ready and, once
// enrolled for the guard it reports, hosting.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <vector>

#include "fixture.h"
#include "host/joining.h"
#include "host/joinmode.h"
#include "identity/guard_files.h"
#include "lbhealth/health.h"
#include "protocol/local_guard.h"

namespace carlos::guard_test {
namespace {

using protocol::Mode;
using protocol::Stage;
using ::testing::ElementsAre;

class JoinReplayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "carlos system join must run as root";
  }
};

int SecondsSince(SystemTime t0, SystemTime t) {
  return static_cast<int>(std::chrono::duration_cast<std::chrono::seconds>(t - t0).count());
}

TEST_F(JoinReplayTest, JoinKilledAfterInstallIsArmedByTheNextNudgeAndTheBoxHosts) {
  World w;
  std::string record = w.PutRecord(false);
  std::string invitation = w.PutInvitation(record, w.now);

  // Root's join, killed right after installing.
  auto env = w.Env();
  env["CARLOS_TEST_CRASH_AT"] = "after-install";
  ProcessResult killed = RunProcess({CarlosBin(), "system", "join"}, env);
  ASSERT_EQ(killed.exit_code, -9) << killed.err;
  ASSERT_TRUE(Exists(w.GuardPath()));
  ASSERT_FALSE(Exists(w.ArmedPath()));

  FakeClock clock(w.now);
  host::ModeFacts facts;
  facts.box = w.box;
  facts.now = [&clock] { return clock.Now(); };
  facts.read = [&w](const std::string& key) { return w.store->GetIfExists(key); };
  facts.guard = [&w] { return protocol::ReadLocalGuard(w.data_dir, /*owner_uid=*/0); };
  facts.enrollment_key = w.enrollment_key.public_key();
  facts.box_key = w.box_key.public_key();

  lbhealth::Health health;
  Stop stop;
  std::vector<std::string> logs, stages;
  std::vector<int> arms, reports;
  int checks = 0;
  host::Joining j;
  j.every = Milliseconds(15'000);
  j.nudge_every = Milliseconds(60'000);
  j.clock = &clock;
  j.health = &health;
  j.logf = [&logs](const std::string& line) { logs.push_back(line); };
  j.serve = [](const Stop& done) {
    while (!done.WaitFor(Milliseconds(1000))) {
    }
    return OkStatus();
  };
  j.record = [](const Stop&) {};  // The record is in place already.
  j.select = [&]() -> StatusOr<protocol::ModeDecision> {
    StatusOr<protocol::ModeDecision> d = host::SelectMode(facts);
    if (d.ok()) stages.push_back(std::string(protocol::StageName(d->stage)));
    // Bounded: without the fix the box stays guard-installed for good.
    if (++checks >= 40) stop.Request();
    // The enroller, once the box is guard-ready: it enrolls the guard the
    // box reports armed (what `report` would publish).
    if (d.ok() && d->stage == Stage::kGuardReady) {
      auto g = protocol::ReadLocalGuard(w.data_dir, 0);
      EXPECT_TRUE(g.ok() && g->guard && g->armed);
      if (g.ok() && g->guard) w.PutEnrollment(record, invitation, g->guard->digest);
    }
    return d;
  };
  j.report = [&] {
    reports.push_back(SecondsSince(w.now, clock.Now()));
    return OkStatus();
  };
  j.request_arm = [&]() -> Status {
    arms.push_back(SecondsSince(w.now, clock.Now()));
    ProcessResult r = RunProcess({CarlosBin(), "system", "join"}, w.Env());
    if (r.exit_code != 0) return Internal("carlos system join failed: " + r.err);
    return OkStatus();
  };

  host::JoinOutcome out = host::RunJoining(j, stop);
  ASSERT_TRUE(out.status.ok()) << out.status.ToString()
                               << "; stages: " << testing::PrintToString(stages);
  EXPECT_EQ(out.decision.mode, Mode::kHosting);
  // guard-installed at 0, 15, 30, 45 (reported at 0); at 60 the second
  // nudge reports and asks root, whose join arms the installed guard;
  // guard-ready at 75 (reported at once, enrolled); hosting at 90.
  EXPECT_THAT(stages, ElementsAre("guard-installed", "guard-installed", "guard-installed",
                                  "guard-installed", "guard-installed", "guard-ready", "hosting"));
  EXPECT_THAT(arms, ElementsAre(60));
  EXPECT_THAT(reports, ElementsAre(0, 60, 75));
  auto s = RunProcess({CarlosBin(), "system", "guard-status", "--json"}, w.Env());
  EXPECT_EQ(s.exit_code, 0) << s.err;
  EXPECT_THAT(s.out, ::testing::HasSubstr(invitation));
}

}  // namespace
}  // namespace carlos::guard_test
