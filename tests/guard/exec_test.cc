// CheckGuardForExec (guard/exec_check.h) and DropToUser in-process, against
// a real directory store and guard files written as root writes them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/files.h"
#include "fixture.h"
#include "guard/exec_check.h"
#include "guard/privileges.h"
#include "identity/guard_files.h"
#include "identity/refusal.h"
#include "identity/store_keys.h"

namespace carlos::guard {
namespace {

using guard_test::World;
using ::testing::HasSubstr;

class ExecCheckTest : public ::testing::Test {
 protected:
  ExecCheckTest() { env = w.Env(); }

  ExecCheckDeps Deps() {
    ExecCheckDeps d;
    d.getenv = MapGetenv(env);
    d.open_store = [this]() -> StatusOr<std::unique_ptr<Store>> {
      ++store_opens;
      auto s = DirStore::Open(w.store_dir);
      if (!s.ok()) return s.status();
      return std::unique_ptr<Store>(std::move(s).value());
    };
    d.owner_uid = ::geteuid();
    d.release = "1.2.0";
    return d;
  }

  // Installs (and arms, when `arm`) a guard for `record`/`invitation`, as
  // `carlos system join` leaves it; returns guard.json's digest.
  std::string Install(bool arm, std::optional<std::string> floor = std::nullopt) {
    identity::GuardFile g{w.box, "", w.region, record, invitation, {floor}, w.now};
    auto bytes = identity::EncodeGuardFile(g);
    EXPECT_TRUE(bytes.ok()) << bytes.status().message();
    std::string dir = identity::GuardDir(w.data_dir);
    ::mkdir(dir.c_str(), 0755);
    EXPECT_TRUE(WriteFileAtomic(w.GuardPath(), *bytes, 0644).ok());
    auto parsed = identity::ParseGuardFile(*bytes);
    EXPECT_TRUE(parsed.ok());
    if (arm) {
      auto a = identity::EncodeArmedFile({parsed->digest, w.now});
      EXPECT_TRUE(a.ok());
      EXPECT_TRUE(WriteFileAtomic(w.ArmedPath(), *a, 0644).ok());
    }
    return parsed->digest;
  }

  void SetUp() override {
    record = w.PutRecord(false);
    invitation = w.PutInvitation(record, w.now);
  }

  World w;
  std::map<std::string, std::string> env;
  std::string record, invitation;
  int store_opens = 0;
};

TEST_F(ExecCheckTest, UnarmedStartsWithoutReadingTheStore) {
  auto v = CheckGuardForExec(Deps());
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_FALSE(v->armed);
  EXPECT_THAT(v->why, HasSubstr("the guard is not installed"));
  Install(false);
  v = CheckGuardForExec(Deps());
  ASSERT_TRUE(v.ok());
  EXPECT_FALSE(v->armed);
  EXPECT_THAT(v->why, HasSubstr("armed.json is absent"));
  EXPECT_EQ(store_opens, 0);
}

TEST_F(ExecCheckTest, UnarmedWithASwitchOffSaysTheAgentHosts) {
  env["CARLOS_REGION_HA"] = "";
  auto v = CheckGuardForExec(Deps());
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_FALSE(v->armed);
  EXPECT_EQ(v->why,
            "the guard is not armed (the guard is not installed) and region HA is off "
            "(CARLOS_HOST_CLAIM or CARLOS_REGION_HA is blank): the agent hosts as before region "
            "HA");
  EXPECT_EQ(store_opens, 0);
}

TEST_F(ExecCheckTest, ArmedGuardIsEnforcedWhateverTheSwitchesSay) {
  std::string guard = Install(true);
  w.PutEnrollment(record, invitation, "sha256:" + std::string(64, 'b'));
  env["CARLOS_HOST_CLAIM"] = "";
  env["CARLOS_REGION_HA"] = "";
  auto v = CheckGuardForExec(Deps());
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(identity::RefusalOf(v.status()), identity::Refusal::kBoundToAnotherDigest);

  std::string enrollment = w.PutEnrollment(record, invitation, guard);
  v = CheckGuardForExec(Deps());
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_TRUE(v->armed);
  EXPECT_EQ(v->why, "the guard is armed for web-1 and its enrollment " + enrollment +
                        " matches it (the armed guard is enforced though a region HA switch is "
                        "blank)");
}

TEST_F(ExecCheckTest, ArmedWithMatchingEnrollmentStarts) {
  std::string guard = Install(true);
  std::string enrollment = w.PutEnrollment(record, invitation, guard);
  auto v = CheckGuardForExec(Deps());
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_TRUE(v->armed);
  EXPECT_EQ(v->box, "web-1");
  EXPECT_THAT(v->why, HasSubstr(enrollment));
}

TEST_F(ExecCheckTest, ArmedWithWithdrawnEnrollmentStartsJoining) {
  std::string guard = Install(true);
  w.PutEnrollment(record, invitation, guard);
  w.Remove(identity::EnrollmentKey(w.box));
  auto v = CheckGuardForExec(Deps());
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_TRUE(v->armed);
  EXPECT_FALSE(v->enrolled);
  EXPECT_THAT(v->why, HasSubstr("has no enrollment"));
  EXPECT_THAT(v->why, HasSubstr("the agent can only join"));
}

TEST_F(ExecCheckTest, ArmedWithEnrollmentForAnotherGuardRefuses) {
  Install(true);
  w.PutEnrollment(record, invitation, "sha256:" + std::string(64, 'b'));
  auto v = CheckGuardForExec(Deps());
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(identity::RefusalOf(v.status()), identity::Refusal::kBoundToAnotherDigest);
  EXPECT_THAT(v.status().message(), HasSubstr("does not match"));
}

TEST_F(ExecCheckTest, ArmedWithForgedEnrollmentRefuses) {
  std::string guard = Install(true);
  w.PutEnrollment(record, invitation, guard);
  env["CARLOS_ENROLLMENT_PUBKEY"] =
      identity::PrivateKey::FromSeed(std::string(32, 'X'))->public_key().ToString();
  auto v = CheckGuardForExec(Deps());
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(identity::RefusalOf(v.status()), identity::Refusal::kWrongKey);
}

TEST_F(ExecCheckTest, RetiredBoxRefuses) {
  std::string guard = Install(true);
  w.PutEnrollment(record, invitation, guard);
  w.PutRetirement(record);
  auto v = CheckGuardForExec(Deps());
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(v.status().message(), HasSubstr("retired"));
}

TEST_F(ExecCheckTest, BelowTheFloorRefuses) {
  std::string guard = Install(true, "3.0");
  w.PutEnrollment(record, invitation, guard);
  auto v = CheckGuardForExec(Deps());
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), Code::kPreconditionFailed);
  EXPECT_THAT(v.status().message(), HasSubstr("floor release 3.0"));
}

TEST_F(ExecCheckTest, ArmedGuardOfAnotherOwnerIsNotTrusted) {
  std::string guard = Install(true);
  w.PutEnrollment(record, invitation, guard);
  // Written by someone else: root does not trust it, so the box counts as
  // not armed (it can only join) rather than armed.
  ASSERT_EQ(::chown(w.ArmedPath().c_str(), 65534, 65534), 0);
  auto v = CheckGuardForExec(Deps());
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_FALSE(v->armed);
  EXPECT_THAT(v->why, HasSubstr("is not root's"));
}

TEST(DropToUser, DropsForGoodInAChild) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to drop privileges";
  pid_t pid = ::fork();
  if (pid == 0) {
    Status st = DropToUser("nobody");
    if (!st.ok()) ::_exit(2);
    if (::getuid() == 0 || ::geteuid() == 0 || ::getegid() == 0) ::_exit(3);
    if (::setuid(0) == 0) ::_exit(4);
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(DropToUser, RefusesUnknownUserAndRoot) {
  EXPECT_EQ(DropToUser("no-such-user-carlos-test").code(), Code::kNotFound);
  EXPECT_EQ(DropToUser("root").code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace carlos::guard
