// The supervisor with real stand-in processes (/bin/sh) and injected time:
// restart after the delay (Restart=always), a oneshot rerun when asked while
// it runs, stop and pid files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "dev/region_supervisor.h"

namespace carlos::dev {
namespace {

using std::chrono::milliseconds;

std::string TempDir() {
  std::string tmpl = ::testing::TempDir() + "region_supervisor_XXXXXX";
  EXPECT_NE(mkdtemp(tmpl.data()), nullptr);
  return tmpl;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Lines {
  std::vector<std::string> lines;
  Logf logf() {
    return [this](const std::string& l) { lines.push_back(l); };
  }
  bool Has(const std::string& part) const {
    for (const auto& l : lines)
      if (l.find(part) != std::string::npos) return true;
    return false;
  }
};

// Ticks at the fixed time `now` until `done` holds (the processes are real,
// so this waits real time for them, bounded).
template <typename F>
bool TickUntil(Supervisor& s, SystemTime now, F done) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    s.Tick(now);
    if (done()) return true;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return false;
}

const SystemTime kT0 = SystemTime(std::chrono::seconds(1'800'000'000));

TEST(Supervisor, RestartsAnAlwaysUnitOnlyAfterItsDelay) {
  std::string dir = TempDir();
  Lines log;
  Supervisor s(log.logf());
  UnitSpec u;
  u.name = "box-1 agent";
  u.process.argv = {"/bin/sh", "-c", "echo run; exit 0"};
  u.process.log_path = dir + "/agent.log";
  u.restart = Restart::kAlways;
  u.restart_delay = milliseconds(500);
  int id = s.Add(u);
  s.Start(id, kT0);
  EXPECT_EQ(s.status(id).starts, 1);
  ASSERT_TRUE(TickUntil(s, kT0 + milliseconds(100), [&] { return s.status(id).pid == 0; }));
  ASSERT_TRUE(s.status(id).last_exit.has_value());
  EXPECT_TRUE(s.status(id).last_exit->success());
  EXPECT_TRUE(
      log.Has("region: box-1 agent ended (exit 0) after 100ms; starting it again in 500ms"));
  // Not before the delay...
  s.Tick(kT0 + milliseconds(599));
  EXPECT_EQ(s.status(id).starts, 1);
  EXPECT_EQ(s.status(id).pid, 0);
  // ...and at once when it has passed.
  s.Tick(kT0 + milliseconds(600));
  EXPECT_EQ(s.status(id).starts, 2);
  EXPECT_NE(s.status(id).pid, 0);
  ASSERT_TRUE(TickUntil(s, kT0 + milliseconds(650), [&] { return s.status(id).pid == 0; }));
  EXPECT_EQ(Slurp(u.process.log_path), "run\nrun\n");
}

// The agent's hand-over (exit 0 once enrolled and armed) costs no delay;
// a failure still waits the restart delay.
TEST(Supervisor, ACleanExitRestartsAfterItsOwnDelay) {
  std::string dir = TempDir();
  Lines log;
  Supervisor s(log.logf());
  UnitSpec u;
  u.name = "box-1 agent";
  // The first run ends cleanly (the hand-over), the second fails.
  u.process.argv = {"/bin/sh", "-c",
                    "if [ -e " + dir + "/ran ]; then exit 1; fi; touch " + dir + "/ran; exit 0"};
  u.process.log_path = dir + "/agent.log";
  u.restart_delay = milliseconds(500);
  u.clean_exit_delay = milliseconds(0);
  int id = s.Add(u);
  s.Start(id, kT0);
  // Started again in the very tick that saw the clean exit.
  ASSERT_TRUE(TickUntil(s, kT0 + milliseconds(100), [&] { return s.status(id).starts == 2; }));
  EXPECT_TRUE(log.Has("region: box-1 agent ended (exit 0) after 100ms; starting it again in 0s"));
  ASSERT_TRUE(TickUntil(s, kT0 + milliseconds(200), [&] { return s.status(id).pid == 0; }));
  EXPECT_TRUE(
      log.Has("region: box-1 agent ended (exit 1) after 100ms; starting it again in 500ms"));
  ASSERT_TRUE(s.status(id).restart_at.has_value());
  EXPECT_EQ(*s.status(id).restart_at, kT0 + milliseconds(700));
}

TEST(Supervisor, RetriesAnAlwaysUnitThatCannotStart) {
  Lines log;
  Supervisor s(log.logf());
  UnitSpec u;
  u.name = "enroller";
  u.process.argv = {"/nonexistent/carlos"};
  u.restart_delay = milliseconds(1000);
  int id = s.Add(u);
  s.Start(id, kT0);
  EXPECT_EQ(s.status(id).pid, 0);
  EXPECT_TRUE(log.Has("region: enroller did not start: "));
  EXPECT_TRUE(log.Has("trying again in 1s"));
  ASSERT_TRUE(s.status(id).restart_at.has_value());
  EXPECT_EQ(*s.status(id).restart_at, kT0 + milliseconds(1000));
}

TEST(Supervisor, RunsAOneshotAgainWhenAskedWhileItRan) {
  std::string dir = TempDir();
  std::string gate = dir + "/gate";
  Lines log;
  Supervisor s(log.logf());
  UnitSpec u;
  u.name = "box-1 join";
  // Each run waits for the gate file, then appends a line.
  u.process.argv = {
      "/bin/sh", "-c",
      "while [ ! -e " + gate + " ]; do sleep 0.01; done; echo joined >> " + dir + "/runs"};
  u.restart = Restart::kNo;
  int id = s.Add(u);
  s.Start(id, kT0);
  pid_t first = s.status(id).pid;
  ASSERT_NE(first, 0);
  s.Start(id, kT0 + milliseconds(10));  // Asked while it runs: queued, not a second process.
  s.Start(id, kT0 + milliseconds(20));  // Asked again: still one rerun.
  EXPECT_EQ(s.status(id).pid, first);
  EXPECT_EQ(s.status(id).starts, 1);
  EXPECT_TRUE(s.status(id).rerun);
  std::ofstream(gate).put('x');
  ASSERT_TRUE(TickUntil(s, kT0 + milliseconds(30), [&] { return s.status(id).starts == 2; }));
  EXPECT_TRUE(log.Has("running it again: it was asked to while it ran"));
  ASSERT_TRUE(TickUntil(s, kT0 + milliseconds(40), [&] { return s.status(id).pid == 0; }));
  // Ended and not asked again: it stays ended.
  s.Tick(kT0 + std::chrono::seconds(100));
  EXPECT_EQ(s.status(id).starts, 2);
  EXPECT_EQ(Slurp(dir + "/runs"), "joined\njoined\n");
}

TEST(Supervisor, WritesAndRemovesThePidFile) {
  std::string dir = TempDir();
  Supervisor s([](const std::string&) {});
  UnitSpec u;
  u.name = "box-1 agent";
  u.process.argv = {"/bin/sleep", "30"};
  u.pid_file = dir + "/box-1.agent.pid";
  int id = s.Add(u);
  s.Start(id, kT0);
  ASSERT_NE(s.status(id).pid, 0);
  EXPECT_EQ(Slurp(u.pid_file), std::to_string(s.status(id).pid) + "\n");
  s.Stop(id, milliseconds(2000), kT0 + milliseconds(5));
  EXPECT_EQ(s.status(id).pid, 0);
  EXPECT_FALSE(std::filesystem::exists(u.pid_file));
  // Stopped units stay stopped.
  s.Tick(kT0 + std::chrono::seconds(60));
  EXPECT_EQ(s.status(id).starts, 1);
}

TEST(Supervisor, StopAllStopsEveryUnitAndNothingRestarts) {
  Lines log;
  Supervisor s(log.logf());
  std::vector<int> ids;
  for (int i = 0; i < 3; ++i) {
    UnitSpec u;
    u.name = "box-" + std::to_string(i + 1) + " agent";
    u.process.argv = {"/bin/sleep", "30"};
    ids.push_back(s.Add(u));
    s.Start(ids.back(), kT0);
  }
  std::vector<pid_t> pids;
  for (int id : ids) pids.push_back(s.status(id).pid);
  s.StopAll(milliseconds(3000), kT0 + std::chrono::seconds(2));
  for (int id : ids) {
    EXPECT_EQ(s.status(id).pid, 0);
    ASSERT_TRUE(s.status(id).last_exit.has_value());
    EXPECT_EQ(s.status(id).last_exit->signal, SIGTERM);
  }
  for (pid_t p : pids) EXPECT_NE(kill(p, 0), 0) << "pid " << p << " survived";
  EXPECT_TRUE(log.Has("region: box-2 agent ended (signal 15 (Terminated)) after 2s"));
  EXPECT_FALSE(log.Has("starting it again"));
  s.Tick(kT0 + std::chrono::seconds(60));
  for (int id : ids) EXPECT_EQ(s.status(id).starts, 1);
}

}  // namespace
}  // namespace carlos::dev
