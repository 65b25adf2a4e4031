#include "protocol/local_guard.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "base/files.h"
#include "support/documents.h"

namespace carlos::protocol {
namespace {

using ::testing::HasSubstr;
using namespace carlos::testing;  // NOLINT

class LocalGuardTest : public ::testing::Test {
 protected:
  LocalGuardTest() {
    char tmpl[] = "/tmp/guardstate-XXXXXX";
    dir_ = mkdtemp(tmpl);
    EXPECT_TRUE(MakeDirs(dir_ + "/hostguard", 0755).ok());
  }
  ~LocalGuardTest() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& name, const std::string& data) {
    ASSERT_TRUE(WriteFileAtomic(dir_ + "/hostguard/" + name, data, 0644).ok());
  }
  LocalGuard Read() {
    auto s = ReadLocalGuard(dir_, ::getuid());
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : LocalGuard{};
  }
  std::string dir_;
  const std::string record_ = "sha256:" + std::string(64, 'a');
  const std::string invitation_ = "sha256:" + std::string(64, 'b');
};

TEST_F(LocalGuardTest, NothingInstalled) {
  LocalGuard s = Read();
  EXPECT_FALSE(s.installed());
  EXPECT_FALSE(s.armed_now());
  identity::GuardFacts f = s.Facts();
  EXPECT_FALSE(f.installed);
  EXPECT_FALSE(f.armed);
  EXPECT_FALSE(f.guard_digest.has_value());
  EXPECT_EQ(f.why_not_armed, "the guard is not installed");
}

TEST_F(LocalGuardTest, NoGuardDirAtAllIsNotInstalled) {
  std::filesystem::remove_all(dir_ + "/hostguard");
  EXPECT_FALSE(Read().installed());
}

TEST_F(LocalGuardTest, InstalledNotArmed) {
  std::string g = GuardBytes("web-1", record_, invitation_);
  Write("guard.json", g);
  LocalGuard s = Read();
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

TEST_F(LocalGuardTest, Armed) {
  std::string g = GuardBytes("web-1", record_, invitation_);
  Write("guard.json", g);
  Write("armed.json", ArmedBytes(DigestOf(identity::ParseGuardFile, g)));
  LocalGuard s = Read();
  EXPECT_TRUE(s.armed_now());
  identity::GuardFacts f = s.Facts();
  EXPECT_TRUE(f.armed);
  EXPECT_FALSE(f.why_not_armed.has_value());
}

TEST_F(LocalGuardTest, ArmedForAnotherGuard) {
  Write("guard.json", GuardBytes("web-1", record_, invitation_));
  Write("armed.json", ArmedBytes(record_));
  LocalGuard s = Read();
  EXPECT_FALSE(s.armed_now());
  EXPECT_EQ(s.Facts().why_not_armed, "armed.json names another guard (" + record_ + ")");
}

TEST_F(LocalGuardTest, ArmedWithoutGuardIsNotArmed) {
  Write("armed.json", ArmedBytes(record_));
  LocalGuard s = Read();
  EXPECT_FALSE(s.installed());
  EXPECT_FALSE(s.armed_now());
  EXPECT_TRUE(s.armed.has_value());
}

TEST_F(LocalGuardTest, CorruptFilesAreRefusedNotErrors) {
  Write("guard.json", "{\"format\":\"carlos.guard/v1\"}");
  Write("armed.json", "nonsense");
  LocalGuard s = Read();
  EXPECT_FALSE(s.installed());
  EXPECT_THAT(s.guard_refused, ::testing::StartsWith("malformed: "));
  EXPECT_THAT(s.armed_refused, ::testing::StartsWith("malformed: "));
  EXPECT_THAT(*s.Facts().why_not_armed,
              ::testing::StartsWith("guard.json is refused: malformed: "));
}

TEST_F(LocalGuardTest, OversizedIsRefused) {
  Write("guard.json", std::string(64 * 1024 + 1, '{'));
  LocalGuard s = Read();
  EXPECT_FALSE(s.installed());
  EXPECT_EQ(s.guard_refused,
            "oversized: it has 65537 bytes, more than the 65536 a document may have");
  EXPECT_EQ(s.why_not_armed(),
            "guard.json is refused: oversized: it has 65537 bytes, more than the 65536 a "
            "document may have");
}

TEST_F(LocalGuardTest, NotARegularFileIsRefused) {
  ASSERT_TRUE(MakeDirs(dir_ + "/hostguard/guard.json", 0755).ok());
  LocalGuard s = Read();
  EXPECT_FALSE(s.installed());
  EXPECT_EQ(s.guard_refused, dir_ + "/hostguard/guard.json is not a regular file");
}

TEST_F(LocalGuardTest, FileOthersMayWriteIsRefused) {
  Write("guard.json", "{}");
  ASSERT_EQ(::chmod((dir_ + "/hostguard/guard.json").c_str(), 0666), 0);
  LocalGuard s = Read();
  EXPECT_FALSE(s.installed());
  EXPECT_THAT(s.guard_refused, HasSubstr("is not root's"));
}

}  // namespace
}  // namespace carlos::protocol
