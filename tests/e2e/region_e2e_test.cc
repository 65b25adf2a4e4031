// The end-to-end test: boxes join, are admitted, and take traffic
// only then, as HAProxy sees them. Everything is real: `carlos dev region`
// (the IMDS emulator, N `carlos agent` processes, `carlos system join` on
// each marker change), the enroller, HAProxy health-checking each box's
// GET /_carlos/lb every 200 ms, and, for S3, the Ceph RGW of tests/harness.
// HAProxy's own view is read from its stats socket.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>
#include <thread>

#include "base/files.h"
#include "dev/region_env.h"
#include "dev/region_health.h"
#include "dev/region_setup.h"
#include "haproxy.h"
#include "identity/store_keys.h"
#include "runner.h"
#include "scenario.h"

namespace carlos::e2e {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// The drain the agents are given: long enough that HAProxy (checking every
// 200 ms) sees a SIGTERM'd box DOWN while its process still runs.
constexpr const char* kDrain = "2s";
constexpr const char* kRegion = "us-east-1";

std::string TempRoot(const std::string& name) {
  std::string tmpl = ::testing::TempDir() + "carlos_e2e_" + name + "_XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) return "";
  return tmpl;
}

std::string Box(int i) { return "box-" + std::to_string(i); }

std::vector<Backend> Backends(int boxes, int base_port) {
  std::vector<Backend> out;
  for (int i = 1; i <= boxes; ++i) out.push_back({Box(i), base_port + i});
  return out;
}

std::set<std::string> Boxes(std::initializer_list<int> ids) {
  std::set<std::string> out;
  for (int i : ids) out.insert(Box(i));
  return out;
}

std::vector<pid_t> AgentPids(const std::string& region_dir, int boxes) {
  std::vector<pid_t> pids;
  for (int i = 1; i <= boxes; ++i) {
    std::string p = Slurp(region_dir + "/run/" + Box(i) + ".agent.pid");
    if (!p.empty()) pids.push_back(static_cast<pid_t>(std::atoi(p.c_str())));
  }
  return pids;
}

void PrintTimesToUp(const LbWatch& lb, const std::string& label) {
  for (const auto& [box, t] : lb.first_up()) {
    std::cout << "[" << label << "] " << box << ": UP in HAProxy " << t.count()
              << " ms after the region started" << std::endl;
  }
}

// What the tail of a log says, for failure messages.
std::string Tail(const std::string& path, size_t bytes = 3000) {
  std::string s = Slurp(path);
  return path + ":\n" + (s.size() > bytes ? s.substr(s.size() - bytes) : s);
}

// Stops the region as Ctrl-C does and checks it stopped everything it
// started.
void StopRegion(Child& region, const std::string& region_dir, int boxes) {
  std::vector<pid_t> agents = AgentPids(region_dir, boxes);
  region.Signal(SIGINT);
  auto exit = region.Wait(seconds(30));
  ASSERT_TRUE(exit.has_value()) << "carlos dev region did not stop within 30s of SIGINT\n"
                                << Tail(region.log_path());
  EXPECT_TRUE(exit->success()) << exit->Describe() << "\n" << Tail(region.log_path());
  for (pid_t p : agents) EXPECT_FALSE(Running(p)) << "agent pid " << p << " outlived the region";
}

// The scenario, on either backend: 5 boxes, the first three ordinary, box-4
// referenced, box-5 given a forged invitation.
void RunScenario(bool s3, int base_port) {
  const std::string bin = CarlosBin();
  ASSERT_FALSE(bin.empty()) << "CARLOS_BIN is not set (run through ctest)";
  const std::string root = TempRoot(s3 ? "s3" : "dir");
  ASSERT_FALSE(root.empty());
  const std::string rdir = root + "/region";
  const int boxes = 5;

  std::map<std::string, std::string> store_env;
  std::map<std::string, std::string> region_env = {{"CARLOS_DRAIN", kDrain}};
  std::vector<std::string> args = {bin,       "dev",         "region",
                                   "--boxes", "5",           "--dir",
                                   rdir,      "--base-port", std::to_string(base_port),
                                   "--table", "off",         "--no-enroller"};
  if (s3) {
    const char* env_file = std::getenv("CARLOS_S3_ENV_FILE");
    ASSERT_NE(env_file, nullptr) << "CARLOS_S3_ENV_FILE is not set (run through ctest)";
    auto s3env = ReadEnvFile(env_file);
    ASSERT_TRUE(s3env.ok()) << "the S3 server fixture (tests/harness, carlos_s3) is not up: "
                            << s3env.status().ToString();
    std::string bucket =
        "carlos-e2e-" + std::to_string(getpid()) + "-" +
        std::to_string(std::chrono::system_clock::now().time_since_epoch() / seconds(1));
    store_env = *s3env;
    store_env["CARLOS_DEPLOYMENT_BUCKET"] = bucket;
    for (const auto& [k, v] : *s3env) region_env[k] = v;
    args.insert(args.end(), {"--s3", bucket});
    Status made = dev::EnsureBucket(bucket, MapGetenv(store_env));
    ASSERT_TRUE(made.ok()) << made.ToString();
  } else {
    store_env["CARLOS_DEPLOYMENT_DIR"] = rdir + "/deployment";
    ASSERT_TRUE(MakeDirs(rdir + "/deployment", 0755).ok());
  }
  auto store = OpenStoreFrom(store_env);
  ASSERT_TRUE(store.ok()) << store.status().ToString();

  // box-4 hosted under its label before: its edges file is in the store.
  Status referenced = MakeReferenced(**store, rdir + "/boxes/box-4", "box-4");
  ASSERT_TRUE(referenced.ok()) << referenced.ToString();

  auto haproxy = Haproxy::Start(root, base_port + 199, Backends(boxes, base_port));
  ASSERT_TRUE(haproxy.ok()) << haproxy.status().ToString();
  auto start = std::chrono::steady_clock::now();
  auto region =
      Child::Start(args, WithEnv(dev::ProcessEnviron(), region_env), root + "/region.out");
  ASSERT_TRUE(region.ok()) << region.status().ToString();

  LbWatch lb(*haproxy, start);
  lb.NeverUp("box-4", "it is referenced (its edges file is published) and must be refused");
  lb.NeverUp("box-5", "its only invitation is forged (signed by another key)");
  Store& st = **store;
  lb.OnFirstUp([&st](const std::string& box) -> std::string {
    // Enrollments are never deleted, so one missing now was missing then.
    auto e = st.Get(identity::EnrollmentKey(box));
    return e.ok() ? "" : box + " was seen UP before it was enrolled: " + e.status().ToString();
  });

  // 1. Joining, no enroller: every box records itself and stays DOWN.
  Status s = lb.Until(
      [&](const Views&) {
        for (int i = 1; i <= boxes; ++i)
          if (!st.Get(identity::RecordKey(Box(i))).ok()) return false;
        return true;
      },
      seconds(40), "every box's identity record in the store");
  ASSERT_TRUE(s.ok()) << s.ToString() << "\n" << Tail(root + "/region.out");
  Status forged = ForgeInvitation(st, "box-5", kRegion);
  ASSERT_TRUE(forged.ok()) << forged.ToString();
  auto all = Boxes({1, 2, 3, 4, 5});
  s = lb.Until([&](const Views& v) { return All(v, all, false); }, seconds(10),
               "every box DOWN while joining");
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = lb.During([&](const Views& v) { return All(v, all, false); }, seconds(2),
                "every box DOWN while joining (no enroller runs)");
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (int i = 1; i <= boxes; ++i) {
    auto a = dev::ProbeHealth("http://127.0.0.1:" + std::to_string(base_port + i) + "/_carlos/lb",
                              milliseconds(2000));
    EXPECT_EQ(a.code, 503) << Box(i) << ": " << a.text;
    EXPECT_NE(a.text.find("joining"), std::string::npos) << Box(i) << ": " << a.text;
  }

  // 2. The enroller: the three ordinary boxes are admitted and go UP; the
  // referenced and the forged ones stay DOWN.
  auto settings = ReadEnvFile(rdir + "/region.env");
  ASSERT_TRUE(settings.ok()) << settings.status().ToString();
  std::map<std::string, std::string> operator_env = *settings;
  for (const auto& [k, v] : store_env) operator_env[k] = v;
  operator_env["CARLOS_JOIN_EVERY"] = "200ms";
  auto op_env = WithEnv(dev::ProcessEnviron(), operator_env);
  auto enroller =
      Child::Start({bin, "boxes", "auto-enroll", "--watch"}, op_env, root + "/enroller.log");
  ASSERT_TRUE(enroller.ok()) << enroller.status().ToString();
  s = lb.Until(
      [&](const Views& v) {
        return All(v, Boxes({1, 2, 3}), true);
      },
      seconds(60), "box-1..3 UP once the enroller admits them");
  PrintTimesToUp(lb, s3 ? "s3" : "dir");
  ASSERT_TRUE(s.ok()) << s.ToString() << "\n"
                      << Tail(root + "/enroller.log") << "\n"
                      << Tail(rdir + "/logs/box-1.agent.log") << "\n"
                      << Tail(rdir + "/logs/box-1.join.log");
  s = lb.During(
      [&](const Views& v) {
        return All(v, Boxes({4, 5}), false);
      },
      seconds(3),
      "box-4 (referenced) and box-5 (forged invitation) DOWN with the enroller running");
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto referenced_answer = dev::ProbeHealth(
      "http://127.0.0.1:" + std::to_string(base_port + 4) + "/_carlos/lb", milliseconds(2000));
  EXPECT_EQ(referenced_answer.code, 503);
  EXPECT_NE(referenced_answer.text.find("referenced"), std::string::npos) << referenced_answer.text;
  EXPECT_FALSE(st.Get(identity::EnrollmentKey("box-4")).ok());
  EXPECT_FALSE(st.Get(identity::EnrollmentKey("box-5")).ok());

  // 3. Retire box-2 by hand: DOWN, and it stays DOWN.
  auto retired =
      RunCommand({bin, "boxes", "retire", "box-2"}, op_env, root + "/retire.log", seconds(30));
  ASSERT_TRUE(retired.ok()) << retired.status().ToString();
  ASSERT_TRUE(retired->exit.success()) << retired->exit.Describe() << ": " << retired->output;
  s = lb.Until([&](const Views& v) { return All(v, Boxes({2}), false); }, seconds(15),
               "box-2 DOWN once retired");
  ASSERT_TRUE(s.ok()) << s.ToString() << "\n" << Tail(rdir + "/logs/box-2.agent.log");
  lb.NeverUp("box-2", "it is retired");
  s = lb.During(
      [&](const Views& v) {
        return All(v, Boxes({1, 3}), true);
      },
      seconds(3), "box-1 and box-3 still UP while retired box-2 stays DOWN");
  ASSERT_TRUE(s.ok()) << s.ToString();

  // 4. SIGTERM box-3's agent: HAProxy sees it DOWN while the process still
  // runs (the drain), then the region starts it again and it is UP again.
  std::string pid_text = Slurp(rdir + "/run/box-3.agent.pid");
  pid_t pid = static_cast<pid_t>(std::atoi(pid_text.c_str()));
  ASSERT_GT(pid, 1) << "no pid file for box-3's agent";
  ASSERT_TRUE(Running(pid));
  auto sigterm_at = std::chrono::steady_clock::now();
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  s = lb.Until([&](const Views& v) { return All(v, Boxes({3}), false); }, seconds(10),
               "box-3 DOWN after SIGTERM");
  ASSERT_TRUE(s.ok()) << s.ToString();
  bool alive_when_down = Running(pid);
  auto down_after =
      std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - sigterm_at);
  EXPECT_TRUE(alive_when_down) << "box-3 was DOWN only after its process had exited (" +
                                      std::to_string(down_after.count()) + " ms): no drain";
  auto exit_deadline = std::chrono::steady_clock::now() + seconds(15);
  while (Running(pid) && std::chrono::steady_clock::now() < exit_deadline)
    std::this_thread::sleep_for(milliseconds(20));
  ASSERT_FALSE(Running(pid)) << "box-3's agent did not exit within 15s of SIGTERM";
  auto exited_after =
      std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - sigterm_at);
  std::cout << "[" << (s3 ? "s3" : "dir") << "] box-3: DOWN " << down_after.count()
            << " ms after SIGTERM, process ended " << exited_after.count() << " ms after"
            << std::endl;
  EXPECT_GE(exited_after, milliseconds(1500)) << "the agent exited before its 2s drain";
  s = lb.Until([&](const Views& v) { return All(v, Boxes({3}), true); }, seconds(30),
               "box-3 UP again once the region restarted its agent");
  ASSERT_TRUE(s.ok()) << s.ToString() << "\n" << Tail(rdir + "/logs/box-3.agent.log");

  // 5. Ctrl-C: everything stops; HAProxy sees every box DOWN.
  enroller->get()->Signal(SIGTERM);
  EXPECT_TRUE(enroller->get()->Wait(seconds(10)).has_value());
  StopRegion(**region, rdir, boxes);
  s = lb.Until([&](const Views& v) { return All(v, all, false); }, seconds(10),
               "every box DOWN once the region stopped");
  EXPECT_TRUE(s.ok()) << s.ToString();
  // Kept on failure, for its logs.
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(root);
}

TEST(RegionE2E, DirectoryDeployment) { RunScenario(false, 18400); }

TEST(RegionE2E, S3Deployment) { RunScenario(true, 18600); }

// `carlos dev region --boxes 3` as a user runs it (its own enroller): all
// three UP; Ctrl-C stops everything; a second run picks the region up.
TEST(RegionE2E, DevRegionThreeBoxesAllUpAndPickedUpAgain) {
  const std::string bin = CarlosBin();
  ASSERT_FALSE(bin.empty()) << "CARLOS_BIN is not set (run through ctest)";
  const std::string root = TempRoot("dev");
  ASSERT_FALSE(root.empty());
  const std::string rdir = root + "/region";
  const int base_port = 18800;
  auto haproxy = Haproxy::Start(root, base_port + 199, Backends(3, base_port));
  ASSERT_TRUE(haproxy.ok()) << haproxy.status().ToString();
  std::vector<std::string> args = {bin,       "dev",         "region",
                                   "--boxes", "3",           "--dir",
                                   rdir,      "--base-port", std::to_string(base_port),
                                   "--table", "off"};
  auto env = WithEnv(dev::ProcessEnviron(), {{"CARLOS_DRAIN", "1s"}});
  std::string key_first, box_key_first;
  for (int run = 1; run <= 2; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    auto start = std::chrono::steady_clock::now();
    std::string out = root + "/region" + std::to_string(run) + ".out";
    auto region = Child::Start(args, env, out);
    ASSERT_TRUE(region.ok()) << region.status().ToString();
    LbWatch lb(*haproxy, start);
    auto store_dir = rdir + "/deployment";
    lb.OnFirstUp([&store_dir](const std::string& box) -> std::string {
      auto e = ReadFileLimited(store_dir + "/" + identity::EnrollmentKey(box), 1 << 20);
      return e.ok() ? "" : box + " was seen UP before it was enrolled";
    });
    Status s = lb.Until(
        [&](const Views& v) {
          return All(v, Boxes({1, 2, 3}), true);
        },
        seconds(60), "all three boxes UP");
    PrintTimesToUp(lb, "dev region, run " + std::to_string(run));
    ASSERT_TRUE(s.ok()) << s.ToString() << "\n"
                        << Tail(out) << "\n"
                        << Tail(rdir + "/logs/enroller.log") << "\n"
                        << Tail(rdir + "/logs/box-1.agent.log");
    std::string printed = Slurp(out);
    for (int i = 1; i <= 3; ++i) {
      EXPECT_NE(printed.find("http://127.0.0.1:" + std::to_string(base_port + i) + "/_carlos/lb"),
                std::string::npos)
          << "box " << i << "'s health URL is not printed";
    }
    EXPECT_NE(printed.find(run == 1 ? "(new)" : "(reused)"), std::string::npos) << printed;
    std::string key = Slurp(rdir + "/enrollment.key");
    std::string box_key = Slurp(rdir + "/boxes/box-1/box.key");
    ASSERT_FALSE(key.empty());
    ASSERT_FALSE(box_key.empty());
    if (run == 1) {
      key_first = key;
      box_key_first = box_key;
    } else {
      EXPECT_EQ(key, key_first) << "the second run made a new enrollment key";
      EXPECT_EQ(box_key, box_key_first) << "the second run gave box-1 a new key";
    }
    StopRegion(**region, rdir, 3);
    s = lb.Until(
        [&](const Views& v) {
          return All(v, Boxes({1, 2, 3}), false);
        },
        seconds(10), "every box DOWN once the region stopped");
    EXPECT_TRUE(s.ok()) << s.ToString();
    EXPECT_NE(Slurp(out).find("Stopped."), std::string::npos) << Tail(out);
  }
  // Kept on failure, for its logs.
  if (!HasFailure()) std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace carlos::e2e
