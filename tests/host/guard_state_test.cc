#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>

#include "base/files.h"
#include "fixture.h"
#include "guard/state.h"

namespace carlos::guard {
namespace {

using ::testing::HasSubstr;
using namespace carlos::testing;  // NOLINT

class GuardStateTest : public ::testing::Test {
 protected:
  GuardStateTest() {
    char tmpl[] = "/tmp/guardstate-XXXXXX";
    dir_ = mkdtemp(tmpl);
    EXPECT_TRUE(MakeDirs(dir_ + "/hostguard", 0755).ok());
  }
  ~GuardStateTest() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& name, const std::string& data) {
    ASSERT_TRUE(WriteFileAtomic(dir_ + "/hostguard/" + name, data, 0644).ok());
  }
  GuardState Read() {
    auto s = ReadGuardState(dir_);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : GuardState{};
  }
  std::string dir_;
  const std::string record_ = "sha256:" + std::string(64, 'a');
  const std::string invitation_ = "sha256:" + std::string(64, 'b');
};

TEST_F(GuardStateTest, NothingInstalled) {
  GuardState s = Read();
  EXPECT_FALSE(s.installed());
  EXPECT_FALSE(s.armed_now());
  identity::GuardFacts f = s.Facts();
  EXPECT_FALSE(f.installed);
  EXPECT_FALSE(f.armed);
  EXPECT_FALSE(f.guard_digest.has_value());
  EXPECT_EQ(f.why_not_armed, "guard.json is absent");
}

TEST_F(GuardStateTest, NoGuardDirAtAllIsNotInstalled) {
  std::filesystem::remove_all(dir_ + "/hostguard");
  EXPECT_FALSE(Read().installed());
}

TEST_F(GuardStateTest, InstalledNotArmed) {
  std::string g = GuardBytes("web-1", record_, invitation_);
  Write("guard.json", g);
  GuardState s = Read();
  EXPECT_TRUE(s.installed());
  EXPECT_FALSE(s.armed_now());
  identity::GuardFacts f = s.Facts();
  EXPECT_TRUE(f.installed);
  EXPECT_FALSE(f.armed);
  EXPECT_EQ(f.guard_digest, DigestOf(identity::ParseGuardFile, g));
  EXPECT_EQ(f.record_digest, record_);
  EXPECT_EQ(f.invitation_digest, invitation_);
  EXPECT_EQ(f.why_not_armed, "armed.json is absent");
}

TEST_F(GuardStateTest, Armed) {
  std::string g = GuardBytes("web-1", record_, invitation_);
  Write("guard.json", g);
  Write("armed.json", ArmedBytes(DigestOf(identity::ParseGuardFile, g)));
  GuardState s = Read();
  EXPECT_TRUE(s.armed_now());
  identity::GuardFacts f = s.Facts();
  EXPECT_TRUE(f.armed);
  EXPECT_FALSE(f.why_not_armed.has_value());
}

TEST_F(GuardStateTest, ArmedForAnotherGuard) {
  Write("guard.json", GuardBytes("web-1", record_, invitation_));
  Write("armed.json", ArmedBytes(record_));
  GuardState s = Read();
  EXPECT_FALSE(s.armed_now());
  EXPECT_EQ(s.Facts().why_not_armed, "armed.json names another guard (" + record_ + ")");
}

TEST_F(GuardStateTest, ArmedWithoutGuardIsNotArmed) {
  Write("armed.json", ArmedBytes(record_));
  GuardState s = Read();
  EXPECT_FALSE(s.installed());
  EXPECT_FALSE(s.armed_now());
  EXPECT_TRUE(s.armed.has_value());
}

TEST_F(GuardStateTest, CorruptFilesAreRefusedNotErrors) {
  Write("guard.json", "{\"format\":\"carlos.guard/v1\"}");
  Write("armed.json", "nonsense");
  GuardState s = Read();
  EXPECT_FALSE(s.installed());
  EXPECT_THAT(s.guard_refused, HasSubstr("is refused: malformed"));
  EXPECT_THAT(s.armed_refused, HasSubstr("is refused: malformed"));
  EXPECT_THAT(*s.Facts().why_not_armed, HasSubstr("is refused: malformed"));
}

TEST_F(GuardStateTest, OversizedIsRefused) {
  Write("guard.json", std::string(64 * 1024 + 1, '{'));
  GuardState s = Read();
  EXPECT_FALSE(s.installed());
  EXPECT_EQ(s.guard_refused,
            "the guard file is refused: oversized: it has 65537 bytes, more than the 65536 a "
            "document may have");
}

TEST_F(GuardStateTest, NotARegularFileIsRefused) {
  ASSERT_TRUE(MakeDirs(dir_ + "/hostguard/guard.json", 0755).ok());
  GuardState s = Read();
  EXPECT_FALSE(s.installed());
  EXPECT_EQ(s.guard_refused, dir_ + "/hostguard/guard.json is not a regular file");
}

TEST_F(GuardStateTest, FileOthersMayWriteIsRefused) {
  Write("guard.json", "{}");
  ASSERT_EQ(::chmod((dir_ + "/hostguard/guard.json").c_str(), 0666), 0);
  GuardState s = Read();
  EXPECT_FALSE(s.installed());
  EXPECT_THAT(s.guard_refused, HasSubstr("is not root's"));
}

}  // namespace
}  // namespace carlos::guard
