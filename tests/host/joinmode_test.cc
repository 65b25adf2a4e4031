#include "host/joinmode.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>

#include "base/files.h"
#include "identity/store_keys.h"
#include "support/documents.h"

namespace carlos::host {
namespace {

using namespace carlos::protocol;  // NOLINT: the stages and decisions under test.

using ::testing::HasSubstr;
using ::testing::StartsWith;
using namespace carlos::testing;  // NOLINT: the fixture's helpers.

class SelectModeTest : public ::testing::Test {
 protected:
  SelectModeTest() : enroll_(Key('e')), box_(Key('b')), other_(Key('o')) {
    char tmpl[] = "/tmp/joinmode-XXXXXX";
    dir_ = mkdtemp(tmpl);
    EXPECT_TRUE(MakeDirs(dir_ + "/hostguard", 0755).ok());
  }
  ~SelectModeTest() override { std::filesystem::remove_all(dir_); }

  ModeFacts Facts() {
    ModeFacts f;
    f.box = "web-1";
    f.now = [this] { return now_; };
    f.read = [this](const std::string& key) -> StatusOr<std::optional<Object>> {
      reads_.insert(key);
      if (auto e = errors_.find(key); e != errors_.end()) return e->second;
      auto it = store_.find(key);
      if (it == store_.end()) return std::optional<Object>();
      return std::optional<Object>(Object{it->second, "v1"});
    };
    f.guard = [this]() -> StatusOr<protocol::LocalGuard> {
      if (!guard_error_.ok()) return guard_error_;
      return protocol::ReadLocalGuard(dir_, ::getuid());
    };
    f.enrollment_key = enroll_.public_key();
    f.box_key = box_.public_key();
    return f;
  }

  ModeDecision Select() {
    auto d = SelectMode(Facts());
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    return d.ok() ? *d : ModeDecision{};
  }

  // Writes the record; returns its digest.
  std::string Record() {
    std::string b = RecordBytes("web-1", box_);
    store_[identity::RecordKey("web-1")] = b;
    return DigestOf(identity::ParseIdentityRecord, b);
  }
  std::string Invite(const std::string& record_digest) {
    std::string b = InvitationBytes("web-1", record_digest, enroll_);
    store_[identity::InvitationKey("web-1")] = b;
    return DigestOf(identity::ParseInvitation, b);
  }
  std::string Install(const std::string& record_digest, const std::string& invitation_digest) {
    std::string b = GuardBytes("web-1", record_digest, invitation_digest);
    EXPECT_TRUE(WriteFileAtomic(dir_ + "/hostguard/guard.json", b, 0644).ok());
    return DigestOf(identity::ParseGuardFile, b);
  }
  void Arm(const std::string& guard_digest) {
    EXPECT_TRUE(
        WriteFileAtomic(dir_ + "/hostguard/armed.json", ArmedBytes(guard_digest), 0644).ok());
  }
  void Enroll(const std::string& record_digest, const std::string& invitation_digest,
              const std::string& guard_digest) {
    store_[identity::EnrollmentKey("web-1")] =
        EnrollmentBytes("web-1", record_digest, invitation_digest, guard_digest, enroll_);
  }
  // Record, invitation, guard installed and armed; returns {record,
  // invitation, guard} digests.
  std::array<std::string, 3> Ready() {
    std::string r = Record();
    std::string i = Invite(r);
    std::string g = Install(r, i);
    Arm(g);
    return {r, i, g};
  }

  void Expect(const ModeDecision& d, Stage stage, const std::string& why) {
    EXPECT_EQ(d.mode, stage == Stage::kHosting ? Mode::kHosting : Mode::kJoining);
    EXPECT_EQ(d.box, "web-1");
    EXPECT_EQ(StageName(d.stage), StageName(stage));
    EXPECT_EQ(d.why, why);
  }

  identity::PrivateKey enroll_, box_, other_;
  std::string dir_;
  std::map<std::string, std::string> store_;
  std::map<std::string, Status> errors_;
  std::set<std::string> reads_;
  Status guard_error_;
  SystemTime now_ = kT0 + std::chrono::hours(1);
};

// --- The table's rows, in order.

TEST_F(SelectModeTest, Unrecorded) {
  Expect(Select(), Stage::kUnrecorded, "(the identity record is not written yet)");
}

TEST_F(SelectModeTest, Recorded) {
  Record();
  Expect(Select(), Stage::kRecorded, "(waiting to be invited)");
}

TEST_F(SelectModeTest, RetiredBoundToThisRecord) {
  auto [r, i, g] = Ready();
  Enroll(r, i, g);
  store_[identity::RetiredKey("web-1")] = RetirementBytes("web-1", r, enroll_);
  // Retired wins over everything, hosting included.
  Expect(Select(), Stage::kRetired,
         "(retired at " + FormatRfc3339(kT0) + ": it hosts nothing again under this identity)");
}

TEST_F(SelectModeTest, RetiredWithoutARecord) {
  store_[identity::RetiredKey("web-1")] =
      RetirementBytes("web-1", "sha256:" + std::string(64, 'a'), enroll_);
  EXPECT_EQ(Select().stage, Stage::kRetired);
}

TEST_F(SelectModeTest, RetirementOfAnotherRecordIsIgnoredAndSaid) {
  Record();
  store_[identity::RetiredKey("web-1")] =
      RetirementBytes("web-1", "sha256:" + std::string(64, 'a'), enroll_);
  Expect(Select(), Stage::kRecorded,
         "(waiting to be invited; the retirement of another identity record is ignored)");
}

TEST_F(SelectModeTest, ARefusedRetirementIsModeUnknown) {
  std::string r = Record();
  store_[identity::RetiredKey("web-1")] = RetirementBytes("web-1", r, other_);  // Forged.
  auto d = SelectMode(Facts());
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), StartsWith("mode unknown: control/retired/web-1.json: "));
  EXPECT_THAT(d.status().message(), HasSubstr("wrong key"));
  store_[identity::RetiredKey("web-1")] = "{not json";
  d = SelectMode(Facts());
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr("malformed"));
}

TEST_F(SelectModeTest, ConflictAnotherKey) {
  store_[identity::RecordKey("web-1")] = RecordBytes("web-1", other_);
  Expect(Select(), Stage::kConflict,
         "(the identity record under web-1 holds another key (" + other_.public_key().ToString() +
             "); this box's key is " + box_.public_key().ToString() + ")");
}

TEST_F(SelectModeTest, ConflictCorruptRecord) {
  store_[identity::RecordKey("web-1")] = "garbage";
  ModeDecision d = Select();
  EXPECT_EQ(d.stage, Stage::kConflict);
  EXPECT_THAT(d.why, StartsWith("(identity record refused: malformed"));
}

TEST_F(SelectModeTest, ConflictForgedRecord) {
  store_[identity::RecordKey("web-1")] = Tamper(RecordBytes("web-1", box_), "\"m-1\"", "\"m-2\"");
  ModeDecision d = Select();
  EXPECT_EQ(d.stage, Stage::kConflict);
  EXPECT_THAT(d.why, StartsWith("(identity record refused: bad signature"));
}

TEST_F(SelectModeTest, ConflictRecordOfAnotherBox) {
  store_[identity::RecordKey("web-1")] = RecordBytes("web-2", box_);
  ModeDecision d = Select();
  EXPECT_EQ(d.stage, Stage::kConflict);
  EXPECT_THAT(d.why, StartsWith("(identity record refused: mismatch"));
}

TEST_F(SelectModeTest, Hosting) {
  auto [r, i, g] = Ready();
  Enroll(r, i, g);
  Expect(Select(), Stage::kHosting, "(enrolled, and the guard is armed for the enrollment)");
}

TEST_F(SelectModeTest, HostingDoesNotNeedTheInvitationAnyMore) {
  auto [r, i, g] = Ready();
  Enroll(r, i, g);
  store_.erase(identity::InvitationKey("web-1"));
  EXPECT_EQ(Select().mode, Mode::kHosting);
  now_ = kT0 + std::chrono::hours(48);  // The invitation would have expired.
  Invite(r);
  EXPECT_EQ(Select().mode, Mode::kHosting);
}

TEST_F(SelectModeTest, GuardReady) {
  Ready();
  Expect(Select(), Stage::kGuardReady, "(the guard is armed; waiting to be enrolled)");
}

TEST_F(SelectModeTest, GuardInstalled) {
  std::string r = Record();
  std::string i = Invite(r);
  Install(r, i);
  Expect(Select(), Stage::kGuardInstalled,
         "(the guard is installed, not armed: armed.json is absent)");
}

TEST_F(SelectModeTest, GuardInstalledArmedForAnotherGuard) {
  std::string r = Record();
  std::string i = Invite(r);
  Install(r, i);
  std::string old = "sha256:" + std::string(64, 'c');
  Arm(old);
  Expect(Select(), Stage::kGuardInstalled,
         "(the guard is installed, not armed: armed.json names another guard (" + old + "))");
}

TEST_F(SelectModeTest, GuardInstalledCorruptArmedFile) {
  std::string r = Record();
  std::string i = Invite(r);
  Install(r, i);
  ASSERT_TRUE(WriteFileAtomic(dir_ + "/hostguard/armed.json", "{", 0644).ok());
  ModeDecision d = Select();
  EXPECT_EQ(d.stage, Stage::kGuardInstalled);
  EXPECT_THAT(d.why, StartsWith("(the guard is installed, not armed: "));
  EXPECT_THAT(d.why, HasSubstr("is refused: malformed"));
}

TEST_F(SelectModeTest, Invited) {
  Invite(Record());
  Expect(Select(), Stage::kInvited, "(the guard is not installed)");
}

TEST_F(SelectModeTest, InvitedWithACorruptGuardFile) {
  Invite(Record());
  ASSERT_TRUE(WriteFileAtomic(dir_ + "/hostguard/guard.json", "not a guard", 0644).ok());
  ModeDecision d = Select();
  EXPECT_EQ(d.stage, Stage::kInvited);
  EXPECT_THAT(d.why, StartsWith("(guard refused: malformed"));
}

TEST_F(SelectModeTest, InvitedWithAnOversizedGuardFile) {
  Invite(Record());
  ASSERT_TRUE(
      WriteFileAtomic(dir_ + "/hostguard/guard.json", std::string(70 * 1024, ' '), 0644).ok());
  ModeDecision d = Select();
  EXPECT_EQ(d.stage, Stage::kInvited);
  EXPECT_THAT(d.why, StartsWith("(guard refused: oversized"));
}

TEST_F(SelectModeTest, InvitedGuardBindsAnotherRecord) {
  std::string r = Record();
  std::string i = Invite(r);
  std::string other_record = "sha256:" + std::string(64, 'd');
  Arm(Install(other_record, i));
  Expect(Select(), Stage::kInvited,
         "(guard refused: it binds another identity record (" + other_record + "))");
}

TEST_F(SelectModeTest, InvitedGuardBindsAnotherBox) {
  std::string r = Record();
  std::string i = Invite(r);
  std::string b = GuardBytes("web-9", r, i);
  ASSERT_TRUE(WriteFileAtomic(dir_ + "/hostguard/guard.json", b, 0644).ok());
  Expect(Select(), Stage::kInvited, "(guard refused: it binds another box (web-9))");
}

TEST_F(SelectModeTest, InvitedGuardBindsAnotherInvitation) {
  std::string r = Record();
  Invite(r);
  std::string old = "sha256:" + std::string(64, 'f');
  Arm(Install(r, old));
  Expect(Select(), Stage::kInvited, "(the guard binds another invitation (" + old + "))");
}

TEST_F(SelectModeTest, EnrolledGuardLostIsInvited) {
  auto [r, i, g] = Ready();
  Enroll(r, i, g);
  std::filesystem::remove(dir_ + "/hostguard/guard.json");
  std::filesystem::remove(dir_ + "/hostguard/armed.json");
  Expect(Select(), Stage::kInvited, "(enrolled, but the guard is not installed)");
  store_.erase(identity::InvitationKey("web-1"));  // Even without an invitation.
  Expect(Select(), Stage::kInvited, "(enrolled, but the guard is not installed)");
}

TEST_F(SelectModeTest, EnrolledGuardDisarmedIsInvited) {
  auto [r, i, g] = Ready();
  Enroll(r, i, g);
  store_.erase(identity::InvitationKey("web-1"));
  std::filesystem::remove(dir_ + "/hostguard/armed.json");
  Expect(Select(), Stage::kInvited, "(enrolled, but the guard is not armed: armed.json is absent)");
}

TEST_F(SelectModeTest, EnrolledForAnotherGuardIsGuardReadyAgain) {
  auto [r, i, g] = Ready();
  std::string old = "sha256:" + std::string(64, '1');
  Enroll(r, i, old);
  Expect(Select(), Stage::kGuardReady,
         "(enrolled for another guard (" + old + "), not the one armed (" + g + "))");
}

// --- Refused documents: never hosting, the why names them.

TEST_F(SelectModeTest, ForgedInvitationIsRecorded) {
  std::string r = Record();
  store_[identity::InvitationKey("web-1")] = InvitationBytes("web-1", r, other_);
  ModeDecision d = Select();
  EXPECT_EQ(d.stage, Stage::kRecorded);
  EXPECT_THAT(d.why, StartsWith("(waiting to be invited; invitation refused: wrong key"));
  store_[identity::InvitationKey("web-1")] =
      Tamper(InvitationBytes("web-1", r, enroll_), "\"eu-1\"", "\"eu-2\"");
  d = Select();
  EXPECT_EQ(d.stage, Stage::kRecorded);
  EXPECT_THAT(d.why, StartsWith("(waiting to be invited; invitation refused: bad signature"));
}

TEST_F(SelectModeTest, InvitationForAnotherRecordIsRecorded) {
  Record();
  Invite("sha256:" + std::string(64, '2'));
  ModeDecision d = Select();
  EXPECT_EQ(d.stage, Stage::kRecorded);
  EXPECT_THAT(d.why,
              StartsWith("(waiting to be invited; invitation refused: bound to another digest"));
}

TEST_F(SelectModeTest, ExpiredInvitationIsRecordedWithAStableWhy) {
  std::string r = Record();
  std::string i = Invite(r);
  Arm(Install(r, i));
  now_ = kT0 + std::chrono::hours(24);
  Expect(Select(), Stage::kRecorded, "(waiting to be invited; invitation refused: expired)");
  now_ += std::chrono::minutes(5);  // The why does not change with the time.
  Expect(Select(), Stage::kRecorded, "(waiting to be invited; invitation refused: expired)");
  now_ = kT0 + std::chrono::hours(24) - std::chrono::seconds(1);
  EXPECT_EQ(Select().stage, Stage::kGuardReady);
}

TEST_F(SelectModeTest, ForgedEnrollmentNeverHosts) {
  auto [r, i, g] = Ready();
  store_[identity::EnrollmentKey("web-1")] = EnrollmentBytes("web-1", r, i, g, other_);
  ModeDecision d = Select();
  EXPECT_EQ(d.stage, Stage::kGuardReady);
  EXPECT_THAT(d.why, StartsWith("(the guard is armed; waiting to be enrolled; enrollment "
                                "refused: wrong key"));
  store_[identity::EnrollmentKey("web-1")] =
      Tamper(EnrollmentBytes("web-1", r, i, g, enroll_), g, "sha256:" + std::string(64, '3'));
  d = Select();
  EXPECT_EQ(d.stage, Stage::kGuardReady);
  EXPECT_THAT(d.why, HasSubstr("enrollment refused: bad signature"));
}

TEST_F(SelectModeTest, EnrollmentForAnotherRecordNeverHosts) {
  auto [r, i, g] = Ready();
  Enroll("sha256:" + std::string(64, '4'), i, g);
  ModeDecision d = Select();
  EXPECT_EQ(d.stage, Stage::kGuardReady);
  EXPECT_THAT(d.why, HasSubstr("enrollment refused: bound to another digest"));
  store_.erase(identity::InvitationKey("web-1"));
  d = Select();
  EXPECT_EQ(d.stage, Stage::kRecorded);
  EXPECT_THAT(d.why, HasSubstr("enrollment refused: bound to another digest"));
}

TEST_F(SelectModeTest, CorruptEnrollmentNeverHosts) {
  auto [r, i, g] = Ready();
  store_[identity::EnrollmentKey("web-1")] = std::string(65 * 1024, 'x');
  ModeDecision d = Select();
  EXPECT_EQ(d.stage, Stage::kGuardReady);
  EXPECT_THAT(d.why, HasSubstr("enrollment refused: oversized"));
}

TEST_F(SelectModeTest, Referenced) {
  Record();
  store_[identity::EdgesKey("web-1")] = EdgesBytes("web-1", box_);
  Expect(Select(), Stage::kReferenced,
         "(an edges file names this box; automatic enrollment refuses it)");
}

TEST_F(SelectModeTest, ReferencedButInvitedIsInvited) {
  std::string r = Record();
  store_[identity::EdgesKey("web-1")] = EdgesBytes("web-1", box_);
  Invite(r);
  EXPECT_EQ(Select().stage, Stage::kInvited);
}

TEST_F(SelectModeTest, ARefusedEdgesFileStillReferences) {
  Record();
  store_[identity::EdgesKey("web-1")] = EdgesBytes("web-1", other_);
  ModeDecision d = Select();
  EXPECT_EQ(d.stage, Stage::kReferenced);
  EXPECT_THAT(d.why, StartsWith("(an edges file is published under this box's key (edges file "
                                "refused: wrong key"));
}

// --- Unknown modes: never a guess.

TEST_F(SelectModeTest, EachUnreadableKeyIsModeUnknown) {
  auto [r, i, g] = Ready();
  // A retirement of an earlier record: read (so that its read error
  // matters), and ignored.
  store_[identity::RetiredKey("web-1")] =
      RetirementBytes("web-1", "sha256:" + std::string(64, 'a'), enroll_);
  for (const std::string& key :
       {identity::RetiredKey("web-1"), identity::RecordKey("web-1"),
        identity::EnrollmentKey("web-1"), identity::InvitationKey("web-1")}) {
    errors_ = {{key, Unavailable("store down")}};
    auto d = SelectMode(Facts());
    ASSERT_FALSE(d.ok()) << key;
    EXPECT_EQ(d.status().message(), "mode unknown: " + key + ": store down");
    EXPECT_EQ(d.status().code(), Code::kUnavailable);
  }
  store_.erase(identity::InvitationKey("web-1"));
  store_.erase(identity::RetiredKey("web-1"));
  std::filesystem::remove(dir_ + "/hostguard/guard.json");
  errors_ = {{identity::EdgesKey("web-1"), Denied("access denied")}};
  auto d = SelectMode(Facts());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().message(), "mode unknown: control/edges/web-1.json: access denied");
  EXPECT_EQ(d.status().code(), Code::kDenied);
}

TEST_F(SelectModeTest, AnUnreadableGuardIsModeUnknown) {
  Ready();
  guard_error_ = Denied("open /data/hostguard/guard.json: permission denied");
  auto d = SelectMode(Facts());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().message(),
            "mode unknown: this box's guard: open /data/hostguard/guard.json: permission denied");
}

TEST_F(SelectModeTest, ReadsOnlyThisBoxsOwnKeys) {
  auto [r, i, g] = Ready();
  store_[identity::RetiredKey("web-1")] =
      RetirementBytes("web-1", "sha256:" + std::string(64, 'a'), enroll_);
  Select();
  std::set<std::string> own = {identity::RetiredKey("web-1"), identity::RecordKey("web-1"),
                               identity::EnrollmentKey("web-1"), identity::InvitationKey("web-1"),
                               identity::EdgesKey("web-1")};
  for (const auto& k : reads_) EXPECT_TRUE(own.count(k)) << k;
  EXPECT_FALSE(reads_.empty());
}

}  // namespace
}  // namespace carlos::host
