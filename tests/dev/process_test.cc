// Real child processes: start, reap, log files, process groups, the
// SIGTERM-then-SIGKILL stop.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "dev/region_process.h"

namespace carlos::dev {
namespace {

std::string TempDir() {
  std::string tmpl = ::testing::TempDir() + "region_process_XXXXXX";
  char* d = mkdtemp(tmpl.data());
  EXPECT_NE(d, nullptr);
  return tmpl;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Waits (bounded, real time) for `pid` to end; the process is real, so
// there is no clock to fake.
std::optional<ExitInfo> WaitEnd(pid_t pid, std::chrono::milliseconds bound) {
  auto deadline = std::chrono::steady_clock::now() + bound;
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto e = TryReap(pid)) return e;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return std::nullopt;
}

bool Alive(pid_t pid) { return kill(pid, 0) == 0; }

TEST(SpawnProcess, TheChildGetsNoDescriptorBeyondItsStandardThree) {
  // A descriptor the region opened without close-on-exec (a library's
  // socket, say) must not reach a child that could outlive the region.
  std::string dir = TempDir();
  int leaky = ::open("/dev/null", O_RDONLY);  // Deliberately no O_CLOEXEC.
  ASSERT_GE(leaky, 3);
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c",
               "if [ -e /proc/$$/fd/" + std::to_string(leaky) +
                   " ]; then echo inherited; else echo closed; fi"};
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.log_path = dir + "/child.log";
  auto pid = SpawnProcess(spec);
  ::close(leaky);
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  auto e = WaitEnd(*pid, std::chrono::seconds(10));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(Slurp(dir + "/child.log"), "closed\n");
  std::filesystem::remove_all(dir);
}

TEST(SpawnProcess, RunsWithTheGivenEnvironmentAndAppendsToTheLog) {
  std::string dir = TempDir();
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo \"out $GREETING\"; echo err >&2; exit 3"};
  spec.env = {"GREETING=hello", "PATH=/usr/bin:/bin"};
  spec.log_path = dir + "/child.log";
  for (int run = 0; run < 2; ++run) {
    auto pid = SpawnProcess(spec);
    ASSERT_TRUE(pid.ok()) << pid.status().ToString();
    auto e = WaitEnd(*pid, std::chrono::seconds(10));
    ASSERT_TRUE(e.has_value());
    EXPECT_FALSE(e->signaled);
    EXPECT_EQ(e->code, 3);
    EXPECT_EQ(e->Describe(), "exit 3");
  }
  EXPECT_EQ(Slurp(spec.log_path), "out hello\nerr\nout hello\nerr\n");
}

TEST(SpawnProcess, DoesNotInheritTheParentsEnvironment) {
  std::string dir = TempDir();
  setenv("CARLOS_REGION_TEST_SECRET", "leak", 1);
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo \"[${CARLOS_REGION_TEST_SECRET}]\""};
  spec.log_path = dir + "/env.log";
  auto pid = SpawnProcess(spec);
  ASSERT_TRUE(pid.ok());
  ASSERT_TRUE(WaitEnd(*pid, std::chrono::seconds(10)).has_value());
  EXPECT_EQ(Slurp(spec.log_path), "[]\n");
  unsetenv("CARLOS_REGION_TEST_SECRET");
}

TEST(SpawnProcess, LeadsItsOwnProcessGroup) {
  ProcessSpec spec;
  spec.argv = {"/bin/sleep", "30"};
  auto pid = SpawnProcess(spec);
  ASSERT_TRUE(pid.ok());
  EXPECT_EQ(getpgid(*pid), *pid);
  EXPECT_NE(getpgid(*pid), getpgrp());
  auto exits = StopProcesses({*pid}, std::chrono::milliseconds(2000));
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_TRUE(exits[0].signaled);
  EXPECT_EQ(exits[0].signal, SIGTERM);
}

TEST(SpawnProcess, ReportsAMissingProgramAndAnUnwritableLog) {
  ProcessSpec missing;
  missing.argv = {"/nonexistent/carlos"};
  auto pid = SpawnProcess(missing);
  // glibc's posix_spawn reports exec failures (ENOENT) to the caller.
  ASSERT_FALSE(pid.ok());
  EXPECT_NE(pid.status().message().find("/nonexistent/carlos"), std::string::npos);

  ProcessSpec bad_log;
  bad_log.argv = {"/bin/true"};
  bad_log.log_path = "/nonexistent-dir/x.log";
  auto pid2 = SpawnProcess(bad_log);
  ASSERT_FALSE(pid2.ok());
  EXPECT_EQ(pid2.status().code(), Code::kNotFound);

  EXPECT_EQ(SpawnProcess(ProcessSpec{}).status().code(), Code::kInvalidArgument);
}

TEST(SpawnProcess, ChildSeesSigtermAtItsDefaultEvenWhenTheParentBlocksIt) {
  // The region blocks SIGTERM and SIGINT to sigwait for them; a child that
  // inherited the mask would ignore the region's SIGTERM.
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, &old);
  ProcessSpec spec;
  spec.argv = {"/bin/sleep", "30"};
  auto pid = SpawnProcess(spec);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ASSERT_TRUE(pid.ok());
  ASSERT_TRUE(SignalGroup(*pid, SIGTERM));
  auto e = WaitEnd(*pid, std::chrono::seconds(5));
  ASSERT_TRUE(e.has_value()) << "the child ignored SIGTERM";
  EXPECT_TRUE(e->signaled);
  EXPECT_EQ(e->signal, SIGTERM);
}

TEST(StopProcesses, KillsWhatIgnoresSigtermAfterTheGraceAndLeavesNoGrandchild) {
  std::string dir = TempDir();
  ProcessSpec spec;
  // The shell ignores SIGTERM and starts a grandchild that does too; the
  // grandchild writes its pid so the test can check it is gone.
  spec.argv = {"/bin/sh", "-c",
               "trap '' TERM; sh -c 'trap \"\" TERM; echo $$ > " + dir +
                   "/grandchild; while :; do sleep 0.05; done' & "
                   "while :; do sleep 0.05; done"};
  auto pid = SpawnProcess(spec);
  ASSERT_TRUE(pid.ok());
  std::string gpid_path = dir + "/grandchild";
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!std::filesystem::exists(gpid_path) || Slurp(gpid_path).empty()) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the grandchild never started";
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_t grandchild = std::atoi(Slurp(gpid_path).c_str());
  ASSERT_GT(grandchild, 1);
  auto start = std::chrono::steady_clock::now();
  auto exits = StopProcesses({*pid}, std::chrono::milliseconds(300));
  auto took = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_TRUE(exits[0].signaled);
  EXPECT_EQ(exits[0].signal, SIGKILL);
  EXPECT_GE(took, std::chrono::milliseconds(300));
  EXPECT_LT(took, std::chrono::seconds(5));
  // The grandchild was reparented (to init or a subreaper), so it is not
  // ours to reap; it must be gone, or a zombie of its new parent, shortly.
  deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (Alive(grandchild)) {
    std::string stat = Slurp("/proc/" + std::to_string(grandchild) + "/stat");
    if (stat.find(") Z") != std::string::npos) break;
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the grandchild outlived the stop";
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

TEST(StopProcesses, ReturnsAtOnceForProcessesThatEndOnSigterm) {
  std::vector<pid_t> pids;
  for (int i = 0; i < 3; ++i) {
    ProcessSpec spec;
    spec.argv = {"/bin/sleep", "30"};
    auto pid = SpawnProcess(spec);
    ASSERT_TRUE(pid.ok());
    pids.push_back(*pid);
  }
  auto start = std::chrono::steady_clock::now();
  auto exits = StopProcesses(pids, std::chrono::seconds(20));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_EQ(exits.size(), 3u);
  for (const auto& e : exits) EXPECT_EQ(e.signal, SIGTERM);
}

TEST(TryReap, ReportsAPidThatIsNotOurChildAsEnded) {
  auto e = TryReap(1);
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(e->signaled);
  EXPECT_EQ(e->signal, 0);
}

TEST(SelfExecutable, IsThisTestBinary) {
  auto self = SelfExecutable();
  ASSERT_TRUE(self.ok());
  EXPECT_NE(self->find("dev_test"), std::string::npos) << *self;
}

}  // namespace
}  // namespace carlos::dev
