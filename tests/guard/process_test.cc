// `carlos system join|guard-exec|guard-status` as real processes against a
// directory store, with IMDS off or a fake IMDSv2 on a loopback socket.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "fixture.h"
#include "identity/guard_files.h"
#include "identity/keys.h"
#include "identity/store_keys.h"

namespace carlos::guard_test {
namespace {

using ::testing::HasSubstr;

ProcessResult Join(const std::map<std::string, std::string>& env) {
  return RunProcess({CarlosBin(), "system", "join"}, env);
}

// Exactly one line on stderr, containing `want`.
void ExpectOneLine(const ProcessResult& r, const std::string& want) {
  auto lines = Lines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_THAT(lines[0], HasSubstr("carlos system join: "));
  EXPECT_THAT(lines[0], HasSubstr(want));
}

nlohmann::json GuardStatus(const World& w) {
  auto r = RunProcess({CarlosBin(), "system", "guard-status", "--json"}, w.Env());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

class ProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "carlos system join must run as root";
  }
  void Invite(World& w) {
    record = w.PutRecord(false);
    invitation = w.PutInvitation(record, w.now);
  }
  std::string record, invitation;
};

TEST_F(ProcessTest, JoinInstallsArmsAndASecondRunChangesNothing) {
  World w;
  Invite(w);
  auto r = Join(w.Env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectOneLine(r, "web-1: the guard is installed and armed");
  auto s = GuardStatus(w);
  EXPECT_EQ(s["installed"], true);
  EXPECT_EQ(s["armed"], true);
  EXPECT_EQ(s["box"], "web-1");
  EXPECT_EQ(s["invitation_digest"], invitation);
  EXPECT_EQ(s["record_digest"], record);

  std::string guard = ReadFile(w.GuardPath()), armed = ReadFile(w.ArmedPath());
  long long gm = MtimeNs(w.GuardPath()), am = MtimeNs(w.ArmedPath());
  ::sleep(1);  // So that a rewrite would show in the mtime.
  r = Join(w.Env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectOneLine(r, "nothing changed");
  EXPECT_EQ(ReadFile(w.GuardPath()), guard);
  EXPECT_EQ(ReadFile(w.ArmedPath()), armed);
  EXPECT_EQ(MtimeNs(w.GuardPath()), gm);
  EXPECT_EQ(MtimeNs(w.ArmedPath()), am);

  auto text = RunProcess({CarlosBin(), "system", "guard-status"}, w.Env());
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_THAT(text.out, HasSubstr("armed: yes"));
  EXPECT_THAT(text.out, HasSubstr("box: web-1"));
}

TEST_F(ProcessTest, JoinAgainstImds) {
  World w;
  record = w.PutRecord(true);
  invitation = w.PutInvitation(record, w.now);
  auto env = w.Env();
  {
    FakeImds imds(w.instance_id, w.region);
    env["CARLOS_IMDS_ENDPOINT"] = imds.endpoint();
    auto r = Join(env);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(GuardStatus(w)["instance_id"], w.instance_id);
  }
  std::string guard = ReadFile(w.GuardPath());
  {
    FakeImds imds("i-0aaaaaaaaaaaaaaaa", w.region);
    env["CARLOS_IMDS_ENDPOINT"] = imds.endpoint();
    auto r = Join(env);
    EXPECT_EQ(r.exit_code, 1);
    ExpectOneLine(r, "instance mismatch");
  }
  {
    FakeImds imds(w.instance_id, "us-west-2");
    env["CARLOS_IMDS_ENDPOINT"] = imds.endpoint();
    auto r = Join(env);
    EXPECT_EQ(r.exit_code, 1);
    ExpectOneLine(r, "region mismatch");
  }
  env["CARLOS_IMDS_ENDPOINT"] = "http://127.0.0.1:1";
  auto r = Join(env);
  EXPECT_EQ(r.exit_code, 1);
  ExpectOneLine(r, "did not answer");
  EXPECT_EQ(ReadFile(w.GuardPath()), guard);
}

TEST_F(ProcessTest, GroupReferencedBoxUsesTheGroupLabel) {
  World w;
  w.box = "web-eu-0123456789abcdef0";
  record = w.PutRecord(true);
  w.PutInvitation(record, w.now);
  FakeImds imds(w.instance_id, w.region, {{"carlos:group", "Web EU"}});
  auto env = w.Env();
  env.erase("CARLOS_BOX_LABEL");
  env["CARLOS_BOX_REFERENCE"] = "group";
  env["CARLOS_IMDS_ENDPOINT"] = imds.endpoint();
  auto r = Join(env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectOneLine(r, "web-eu-0123456789abcdef0: the guard is installed and armed");
}

// The project's IMDS emulator (`carlos dev imds`), a group-launched box:
// the label derives from the emulator's carlos:group tag and instance id.
TEST_F(ProcessTest, JoinAgainstTheImdsEmulator) {
  ImdsEmulator emulator("eu-west-1", "Web EU");
  ASSERT_FALSE(emulator.endpoint().empty());
  World w;
  w.instance_id = emulator.instance_id();
  w.box = "web-eu-" + emulator.instance_id().substr(2);
  record = w.PutRecord(true);
  invitation = w.PutInvitation(record, w.now);
  auto env = w.Env();
  env.erase("CARLOS_BOX_LABEL");
  env["CARLOS_BOX_REFERENCE"] = "group";
  env["CARLOS_IMDS_ENDPOINT"] = emulator.endpoint();
  auto r = Join(env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectOneLine(r, w.box + ": the guard is installed and armed");
  auto s = GuardStatus(w);
  EXPECT_EQ(s["instance_id"], emulator.instance_id());
  EXPECT_EQ(s["region"], "eu-west-1");
  r = Join(env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectOneLine(r, "nothing changed");
}

TEST_F(ProcessTest, EachRefusalIsOneLineAndChangesNothing) {
  World w;
  Invite(w);
  ASSERT_EQ(Join(w.Env()).exit_code, 0);
  std::string guard = ReadFile(w.GuardPath()), armed = ReadFile(w.ArmedPath());
  auto forger = identity::PrivateKey::FromSeed(std::string(32, 'F'));
  auto other = identity::PrivateKey::FromSeed(std::string(32, 'O'));
  ASSERT_TRUE(forger.ok() && other.ok());

  struct Case {
    std::string name;
    std::function<void()> setup;
    std::string want;
  };
  std::vector<Case> cases = {
      {"no invitation", [&] { w.Remove(identity::InvitationKey(w.box)); }, "is not invited"},
      {"expired", [&] { w.PutInvitation(record, w.now - std::chrono::hours(30)); }, "expired"},
      {"forged", [&] { w.PutInvitation(record, w.now, std::nullopt, *forger); },
       "CARLOS_ENROLLMENT_PUBKEY"},
      {"another record", [&] { w.PutInvitation("sha256:" + std::string(64, 'c'), w.now); },
       "bound to another digest"},
      {"key mismatch",
       [&] {
         std::string r2 = w.PutRecord(false, *other);
         w.PutInvitation(r2, w.now);
       },
       "key mismatch"},
      {"no record", [&] { w.Remove(identity::RecordKey(w.box)); }, "no identity record yet"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    c.setup();
    auto r = Join(w.Env());
    EXPECT_EQ(r.exit_code, 1);
    ExpectOneLine(r, c.want);
    EXPECT_EQ(ReadFile(w.GuardPath()), guard);
    EXPECT_EQ(ReadFile(w.ArmedPath()), armed);
  }
}

TEST_F(ProcessTest, StoreUnreachable) {
  World w;
  auto env = w.Env();
  env.erase("CARLOS_DEPLOYMENT_DIR");
  env["CARLOS_DEPLOYMENT_BUCKET"] = "deployment";
  env["CARLOS_S3_ENDPOINT"] = "http://127.0.0.1:1";
  env["AWS_ACCESS_KEY_ID"] = "test";
  env["AWS_SECRET_ACCESS_KEY"] = "test";
  auto r = Join(env);
  EXPECT_EQ(r.exit_code, 1);
  ExpectOneLine(r, "the deployment store");
  EXPECT_FALSE(Exists(w.GuardPath()));
}

TEST_F(ProcessTest, KilledAtEachWritePointARerunConverges) {
  for (std::string point : {"before-install", "after-install", "before-arm", "after-arm"}) {
    for (bool reinstall : {false, true}) {
      SCOPED_TRACE(point + (reinstall ? " (new invitation)" : " (first install)"));
      World w;
      Invite(w);
      if (reinstall) {
        ASSERT_EQ(Join(w.Env()).exit_code, 0);
        invitation = w.PutInvitation(record, w.now + std::chrono::seconds(1));
      }
      auto env = w.Env();
      env["CARLOS_TEST_CRASH_AT"] = point;
      auto r = Join(env);
      EXPECT_EQ(r.exit_code, -9) << r.err;
      // Whatever is on disk is whole: each file parses or is absent.
      if (Exists(w.GuardPath())) {
        EXPECT_TRUE(identity::ParseGuardFile(ReadFile(w.GuardPath())).ok());
      }
      r = Join(w.Env());
      ASSERT_EQ(r.exit_code, 0) << r.err;
      auto s = GuardStatus(w);
      EXPECT_EQ(s["armed"], true);
      EXPECT_EQ(s["invitation_digest"], invitation);
      std::string guard = ReadFile(w.GuardPath()), armed = ReadFile(w.ArmedPath());
      r = Join(w.Env());
      ASSERT_EQ(r.exit_code, 0) << r.err;
      ExpectOneLine(r, "nothing changed");
      EXPECT_EQ(ReadFile(w.GuardPath()), guard);
      EXPECT_EQ(ReadFile(w.ArmedPath()), armed);
    }
  }
}

TEST_F(ProcessTest, DiskFullLeavesTheGuardAsItWas) {
  World w;
  std::string mnt = w.root.path() + "/small";
  ASSERT_EQ(::mkdir(mnt.c_str(), 0755), 0);
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=256k,mode=0755") != 0) {
    GTEST_SKIP() << "mount -t tmpfs refused: " << std::strerror(errno);
  }
  struct Unmount {
    std::string p;
    ~Unmount() { ::umount2(p.c_str(), MNT_DETACH); }
  } unmount{mnt};
  // The box's data dir on the small disk, with its key.
  ASSERT_TRUE(identity::WriteNewPrivateKeyFile(identity::BoxKeyPath(mnt), w.box_key).ok());
  w.data_dir = mnt;
  Invite(w);
  auto first = Join(w.Env());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  std::string guard = ReadFile(w.GuardPath()), armed = ReadFile(w.ArmedPath());
  invitation = w.PutInvitation(record, w.now + std::chrono::seconds(1));
  {
    std::ofstream fill(mnt + "/filler", std::ios::binary);
    std::string block(4096, 'x');
    while (fill.write(block.data(), block.size())) {
    }
  }
  auto r = Join(w.Env());
  EXPECT_EQ(r.exit_code, 1);
  ExpectOneLine(r, "disk full");
  EXPECT_EQ(ReadFile(w.GuardPath()), guard);
  EXPECT_EQ(ReadFile(w.ArmedPath()), armed);
  // Space again: the re-run completes for the new invitation.
  ::unlink((mnt + "/filler").c_str());
  r = Join(w.Env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(GuardStatus(w)["invitation_digest"], invitation);
  EXPECT_EQ(GuardStatus(w)["armed"], true);
}

class GuardExecTest : public ProcessTest {
 protected:
  // A world-writable directory the dropped command writes its proof into.
  void SetUp() override {
    ProcessTest::SetUp();
    if (IsSkipped()) return;
    out_dir = w.root.path() + "/out";
    ::mkdir(out_dir.c_str(), 0777);
    ::chmod(out_dir.c_str(), 0777);
    script = w.root.path() + "/agent.sh";
    std::ofstream(script) << "#!/bin/sh\nid -u > \"$1/started\"\n";
    ::chmod(script.c_str(), 0755);
    env = w.Env();
    env["CARLOS_SERVICE_USER"] = "nobody";
  }
  ProcessResult Exec() {
    return RunProcess({CarlosBin(), "system", "guard-exec", "--", script, out_dir}, env);
  }
  std::string Started() { return ReadFile(out_dir + "/started"); }

  World w;
  std::string out_dir, script;
  std::map<std::string, std::string> env;
};

TEST_F(GuardExecTest, UnarmedBoxStartsAsTheServiceUser) {
  auto r = Exec();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct passwd* nobody = ::getpwnam("nobody");
  ASSERT_NE(nobody, nullptr);
  EXPECT_EQ(Started(), std::to_string(nobody->pw_uid) + "\n");
  EXPECT_THAT(r.err, HasSubstr("the guard is not armed"));
  EXPECT_THAT(r.err, HasSubstr("as nobody"));
}

TEST_F(GuardExecTest, ArmedBoxStartsOnlyWithAMatchingEnrollment) {
  Invite(w);
  ASSERT_EQ(Join(w.Env()).exit_code, 0);
  std::string guard_digest = GuardStatus(w)["guard_digest"];

  // Not enrolled yet: started, to join (it must publish its guard-ready
  // report for the enroller).
  auto r = Exec();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("has no enrollment"));
  EXPECT_FALSE(Started().empty());
  ::unlink((out_dir + "/started").c_str());

  // Enrolled for another guard: refused.
  w.PutEnrollment(record, invitation, "sha256:" + std::string(64, 'd'));
  r = Exec();
  EXPECT_EQ(r.exit_code, 3);  // Refused until an operator acts: not restarted.
  EXPECT_THAT(r.err, HasSubstr("does not match"));
  EXPECT_FALSE(Exists(out_dir + "/started"));

  // Enrolled for this guard: started.
  w.PutEnrollment(record, invitation, guard_digest);
  r = Exec();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(Started().empty());
  EXPECT_THAT(r.err, HasSubstr("its enrollment"));
  ::unlink((out_dir + "/started").c_str());

  // Withdrawn: started again, to join (DESIGN.md: it comes back joining).
  w.Remove(identity::EnrollmentKey(w.box));
  r = Exec();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("the agent can only join"));
  ::unlink((out_dir + "/started").c_str());

  // Retired: refused, even when enrolled.
  w.PutEnrollment(record, invitation, guard_digest);
  w.PutRetirement(record);
  r = Exec();
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("retired"));
  EXPECT_THAT(r.err, HasSubstr("does not restart it"));
  EXPECT_FALSE(Exists(out_dir + "/started"));
}

TEST_F(GuardExecTest, ArmedBoxWithTheStoreUnreachableWaitsThenExitsOne) {
  Invite(w);
  ASSERT_EQ(Join(w.Env()).exit_code, 0);
  env.erase("CARLOS_DEPLOYMENT_DIR");
  env["CARLOS_DEPLOYMENT_BUCKET"] = "deployment";
  env["CARLOS_S3_ENDPOINT"] = "http://127.0.0.1:1";
  env["AWS_ACCESS_KEY_ID"] = "test";
  env["AWS_SECRET_ACCESS_KEY"] = "test";
  env["CARLOS_JOIN_EVERY"] = "300ms";
  // Nothing answers the store (the S3 client retries for its deadline,
  // about 20 s): transient, so exit 1, which the unit restarts, after
  // joinEvery; never 3.
  auto r = Exec();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("checking again in 300 ms"));
  EXPECT_FALSE(Exists(out_dir + "/started"));
}

TEST_F(GuardExecTest, CommandThatCannotStart) {
  auto r = RunProcess({CarlosBin(), "system", "guard-exec", "--", "/nonexistent/agent"}, env);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_THAT(r.err, HasSubstr("cannot start /nonexistent/agent"));
}

TEST(SystemCommands, EveryCommandHasHelp) {
  for (std::string c : {"join", "guard-exec", "guard-status"}) {
    auto r = RunProcess({CarlosBin(), "system", c, "-h"}, {});
    EXPECT_EQ(r.exit_code, 0) << c;
    EXPECT_THAT(r.out, HasSubstr("Usage")) << c;
  }
}

}  // namespace
}  // namespace carlos::guard_test
