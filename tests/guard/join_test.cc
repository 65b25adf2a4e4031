// Join (guard/join.h) in-process: a real directory store and data dir, an
// injected IMDS and a fake clock.
#include "guard/join.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "identity/guard_files.h"
#include "identity/refusal.h"
#include "identity/store_keys.h"
#include "protocol/local_guard.h"

namespace carlos::guard {
namespace {

using guard_test::Exists;
using guard_test::ReadFile;
using guard_test::World;
using ::testing::HasSubstr;

// A store whose every call fails as an unreachable one does.
class DeadStore : public Store {
 public:
  StatusOr<Object> Get(std::string_view) override { return Unavailable("connection refused"); }
  StatusOr<std::string> Put(std::string_view, std::string_view, const PutOptions&) override {
    return Unavailable("connection refused");
  }
  StatusOr<ListPage> List(std::string_view, std::string_view, int) override {
    return Unavailable("connection refused");
  }
  Status Delete(std::string_view) override { return Unavailable("connection refused"); }
  std::string Describe() const override { return "s3://dead"; }
};

class JoinTest : public ::testing::Test {
 protected:
  JoinTest() : clock(w.now) {
    env = w.Env();
    imds = ImdsView{true, "", "", ""};
  }

  JoinDeps Deps() {
    JoinDeps d;
    d.getenv = MapGetenv(env);
    d.clock = &clock;
    d.imds = [this]() -> StatusOr<ImdsView> {
      if (!imds_error.ok()) return imds_error;
      return imds;
    };
    d.group_label = [] { return StatusOr<std::string>(std::string("group-label")); };
    d.host_name = [] { return std::string("Host-1.example.com"); };
    d.store = store_override != nullptr ? store_override : w.store.get();
    d.logf = [this](const std::string& line) { lines.push_back(line); };
    d.owner_uid = ::geteuid();
    d.release = "1.2.0";
    return d;
  }

  // Record (unattested) and invitation in place.
  void Invited(std::optional<std::string> floor = std::nullopt) {
    record = w.PutRecord(false);
    invitation = w.PutInvitation(record, w.now - std::chrono::minutes(5), floor);
  }

  World w;
  FakeClock clock;
  std::map<std::string, std::string> env;
  ImdsView imds;
  Status imds_error;
  Store* store_override = nullptr;
  std::vector<std::string> lines;
  std::string record, invitation;
};

TEST_F(JoinTest, InstallsAndArmsForTheInvitation) {
  Invited("1.0.0");
  auto out = Join(Deps());
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->installed_now);
  EXPECT_TRUE(out->armed_now);
  EXPECT_EQ(out->box, "web-1");
  EXPECT_EQ(out->invitation_digest, invitation);

  auto guard = identity::ParseGuardFile(ReadFile(w.GuardPath()));
  ASSERT_TRUE(guard.ok()) << guard.status().message();
  EXPECT_EQ(guard->digest, out->guard_digest);
  EXPECT_EQ(guard->doc.box, "web-1");
  EXPECT_EQ(guard->doc.instance_id, "");
  EXPECT_EQ(guard->doc.region, "eu-west-1");
  EXPECT_EQ(guard->doc.record_digest, record);
  EXPECT_EQ(guard->doc.invitation_digest, invitation);
  EXPECT_EQ(guard->doc.policy.floor_release, std::optional<std::string>("1.0.0"));
  EXPECT_EQ(guard->doc.installed_at, w.now);
  auto armed = identity::ParseArmedFile(ReadFile(w.ArmedPath()));
  ASSERT_TRUE(armed.ok()) << armed.status().message();
  EXPECT_EQ(armed->doc.guard_digest, out->guard_digest);

  struct stat st {};
  ASSERT_EQ(::stat(w.GuardPath().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_EQ(st.st_uid, ::geteuid());
  ASSERT_EQ(::stat(identity::GuardDir(w.data_dir).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);

  EXPECT_EQ(RunJoin(Deps()), 0);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], HasSubstr("already installed and armed"));
}

TEST_F(JoinTest, ASecondRunChangesNothing) {
  Invited();
  ASSERT_TRUE(Join(Deps()).ok());
  std::string guard = ReadFile(w.GuardPath()), armed = ReadFile(w.ArmedPath());
  long long gm = guard_test::MtimeNs(w.GuardPath()), am = guard_test::MtimeNs(w.ArmedPath());
  clock.Advance(Milliseconds(3'600'000));
  auto out = Join(Deps());
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_FALSE(out->installed_now);
  EXPECT_FALSE(out->armed_now);
  EXPECT_EQ(ReadFile(w.GuardPath()), guard);
  EXPECT_EQ(ReadFile(w.ArmedPath()), armed);
  EXPECT_EQ(guard_test::MtimeNs(w.GuardPath()), gm);
  EXPECT_EQ(guard_test::MtimeNs(w.ArmedPath()), am);
}

TEST_F(JoinTest, ANewInvitationReinstallsAndRearms) {
  Invited();
  auto first = Join(Deps());
  ASSERT_TRUE(first.ok());
  clock.Advance(Milliseconds(60'000));
  std::string second_inv = w.PutInvitation(record, clock.Now());
  ASSERT_NE(second_inv, invitation);
  auto second = Join(Deps());
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(second->installed_now);
  EXPECT_TRUE(second->armed_now);
  EXPECT_NE(second->guard_digest, first->guard_digest);
  auto local = protocol::ReadLocalGuard(w.data_dir, ::geteuid());
  ASSERT_TRUE(local.ok());
  EXPECT_TRUE(local->armed_now());
  EXPECT_EQ(local->guard->doc.invitation_digest, second_inv);
  EXPECT_EQ(local->guard->doc.installed_at, clock.Now());
}

TEST_F(JoinTest, AttestedRecordMustAgreeWithImds) {
  record = w.PutRecord(true);
  invitation = w.PutInvitation(record, w.now);
  imds = ImdsView{false, "http://fake", w.instance_id, w.region};
  auto out = Join(Deps());
  ASSERT_TRUE(out.ok()) << out.status().message();
  auto local = protocol::ReadLocalGuard(w.data_dir, ::geteuid());
  EXPECT_EQ(local->guard->doc.instance_id, w.instance_id);

  imds.instance_id = "i-0ffffffffffffffff";
  std::string before = ReadFile(w.GuardPath());
  auto bad = Join(Deps());
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("instance mismatch"));
  EXPECT_THAT(bad.status().message(), HasSubstr("i-0ffffffffffffffff"));
  EXPECT_EQ(ReadFile(w.GuardPath()), before);

  imds.instance_id = w.instance_id;
  imds.region = "us-east-1";
  bad = Join(Deps());
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("region mismatch"));
  EXPECT_EQ(ReadFile(w.GuardPath()), before);
}

TEST_F(JoinTest, AttestedRecordWithImdsOffIsRefused) {
  record = w.PutRecord(true);
  w.PutInvitation(record, w.now);
  auto out = Join(Deps());
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("CARLOS_IMDS_ENDPOINT=off"));
  EXPECT_FALSE(Exists(w.GuardPath()));
}

TEST_F(JoinTest, OffEc2TheRegionComesFromTheEnvironment) {
  Invited();
  env["CARLOS_REGION"] = "us-east-1";
  auto out = Join(Deps());
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("CARLOS_REGION is us-east-1"));
  EXPECT_FALSE(Exists(w.GuardPath()));
}

TEST_F(JoinTest, ImdsUnreachable) {
  Invited();
  imds_error = Unavailable("IMDS at http://127.0.0.1:1 did not answer: connection refused");
  auto out = Join(Deps());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kUnavailable);
  EXPECT_THAT(out.status().message(), HasSubstr("did not answer"));
  EXPECT_THAT(out.status().message(), HasSubstr("CARLOS_IMDS_ENDPOINT=off"));
  EXPECT_FALSE(Exists(w.GuardPath()));
}

TEST_F(JoinTest, StoreUnreachable) {
  DeadStore dead;
  store_override = &dead;
  auto out = Join(Deps());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kUnavailable);
  EXPECT_THAT(out.status().message(), HasSubstr("s3://dead"));
  EXPECT_THAT(out.status().message(), HasSubstr("run again"));
  EXPECT_FALSE(Exists(w.GuardPath()));
}

TEST_F(JoinTest, NoRecordYet) {
  auto out = Join(Deps());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kNotFound);
  EXPECT_THAT(out.status().message(), HasSubstr("no identity record yet"));
}

TEST_F(JoinTest, NotInvited) {
  w.PutRecord(false);
  auto out = Join(Deps());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kNotFound);
  EXPECT_THAT(out.status().message(), HasSubstr("is not invited"));
  EXPECT_FALSE(Exists(w.GuardPath()));
}

TEST_F(JoinTest, ExpiredInvitationLeavesTheGuardAsItWas) {
  Invited();
  ASSERT_TRUE(Join(Deps()).ok());
  std::string guard = ReadFile(w.GuardPath()), armed = ReadFile(w.ArmedPath());
  w.PutInvitation(record, w.now - std::chrono::hours(25));
  auto out = Join(Deps());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(identity::RefusalOf(out.status()), identity::Refusal::kExpired);
  EXPECT_THAT(out.status().message(), HasSubstr("carlos boxes invite web-1"));
  EXPECT_EQ(ReadFile(w.GuardPath()), guard);
  EXPECT_EQ(ReadFile(w.ArmedPath()), armed);
}

// docs/protocol.md, "Clocks": root judges an invitation's expiry by the
// box's clock against the enroller's stamp. A box 10 minutes behind or
// ahead arms a fresh invitation (issued by the enroller just now).
TEST_F(JoinTest, ABoxClockTenMinutesBehindArmsAFreshInvitation) {
  record = w.PutRecord(false);
  invitation = w.PutInvitation(record, w.now);
  FakeClock behind(w.now - std::chrono::minutes(10));
  JoinDeps d = Deps();
  d.clock = &behind;
  auto out = Join(d);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->armed_now);
  EXPECT_EQ(out->invitation_digest, invitation);
}

TEST_F(JoinTest, ABoxClockTenMinutesAheadArmsAFreshInvitation) {
  record = w.PutRecord(false);
  invitation = w.PutInvitation(record, w.now);
  FakeClock ahead(w.now + std::chrono::minutes(10));
  JoinDeps d = Deps();
  d.clock = &ahead;
  auto out = Join(d);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->armed_now);
}

// The allowance: a box X ahead sees an invitation expire X early (here,
// one the enroller holds valid for 5 more minutes), and asks for a new
// one; a box whose clock is a whole invitation lifetime (24 h) ahead could
// never join.
TEST_F(JoinTest, ABoxClockTenMinutesAheadSeesTheExpiryTenMinutesEarly) {
  record = w.PutRecord(false);
  invitation = w.PutInvitation(record, w.now - std::chrono::hours(24) + std::chrono::minutes(5));
  FakeClock ahead(w.now + std::chrono::minutes(10));
  JoinDeps d = Deps();
  d.clock = &ahead;
  auto out = Join(d);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(identity::RefusalOf(out.status()), identity::Refusal::kExpired);
  // The same invitation, the box's clock right: armed.
  auto ok = Join(Deps());
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_TRUE(ok->armed_now);
}

TEST_F(JoinTest, ForgedInvitationIsRefused) {
  record = w.PutRecord(false);
  auto forger = identity::PrivateKey::FromSeed(std::string(32, 'F'));
  ASSERT_TRUE(forger.ok());
  w.PutInvitation(record, w.now, std::nullopt, *forger);
  auto out = Join(Deps());
  ASSERT_FALSE(out.ok());
  auto why = identity::RefusalOf(out.status());
  EXPECT_TRUE(why == identity::Refusal::kWrongKey || why == identity::Refusal::kBadSignature)
      << out.status().message();
  EXPECT_THAT(out.status().message(), HasSubstr("CARLOS_ENROLLMENT_PUBKEY"));
  EXPECT_FALSE(Exists(w.GuardPath()));
}

TEST_F(JoinTest, InvitationBoundToAnotherRecordIsRefused) {
  w.PutRecord(false);
  w.PutInvitation("sha256:" + std::string(64, 'a'), w.now);
  auto out = Join(Deps());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(identity::RefusalOf(out.status()), identity::Refusal::kBoundToAnotherDigest);
  EXPECT_FALSE(Exists(w.GuardPath()));
}

TEST_F(JoinTest, InvitationForAnotherRegionIsRefused) {
  record = w.PutRecord(false);
  w.PutInvitation(record, w.now, std::nullopt, std::nullopt, "us-east-1");
  auto out = Join(Deps());
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("region us-east-1"));
  EXPECT_FALSE(Exists(w.GuardPath()));
}

TEST_F(JoinTest, RecordWithAnotherKeyIsRefused) {
  auto other = identity::PrivateKey::FromSeed(std::string(32, 'O'));
  ASSERT_TRUE(other.ok());
  record = w.PutRecord(false, *other);
  w.PutInvitation(record, w.now);
  auto out = Join(Deps());
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("key mismatch"));
  EXPECT_FALSE(Exists(w.GuardPath()));
}

TEST_F(JoinTest, RetiredBoxIsNotArmed) {
  Invited();
  w.PutRetirement(record);
  auto out = Join(Deps());
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("retired"));
  EXPECT_FALSE(Exists(w.GuardPath()));
}

TEST_F(JoinTest, BelowTheFloorReleaseInstallsButDoesNotArm) {
  Invited("2.0.0");
  auto out = Join(Deps());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kPreconditionFailed);
  EXPECT_THAT(out.status().message(), HasSubstr("below the invitation's floor release 2.0.0"));
  EXPECT_TRUE(Exists(w.GuardPath()));
  EXPECT_FALSE(Exists(w.ArmedPath()));
}

TEST_F(JoinTest, MissingEnrollmentKeySaysWhatToSet) {
  Invited();
  env.erase("CARLOS_ENROLLMENT_PUBKEY");
  auto out = Join(Deps());
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("CARLOS_ENROLLMENT_PUBKEY is not set"));
}

TEST_F(JoinTest, UntrustedGuardDirectoryIsRefused) {
  Invited();
  std::string dir = identity::GuardDir(w.data_dir);
  ASSERT_EQ(::mkdir(dir.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  auto out = Join(Deps());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kPreconditionFailed);
  EXPECT_THAT(out.status().message(), HasSubstr("group or others may write it"));
  EXPECT_FALSE(Exists(w.GuardPath()));
}

TEST_F(JoinTest, StaleTemporaryFilesAreRemoved) {
  Invited();
  std::string dir = identity::GuardDir(w.data_dir);
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  std::string stale = dir + "/.tmp-999-0000000000000000";
  {
    FILE* f = std::fopen(stale.c_str(), "w");
    std::fputs("half", f);
    std::fclose(f);
  }
  ASSERT_TRUE(Join(Deps()).ok());
  EXPECT_FALSE(Exists(stale));
}

TEST_F(JoinTest, BoxLabelFollowsTheAgentsRule) {
  env.erase("CARLOS_BOX_LABEL");
  w.box = "host-1";
  Invited();
  auto out = Join(Deps());
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->box, "host-1");
}

TEST_F(JoinTest, RunJoinLogsOneLineOnFailure) {
  EXPECT_EQ(RunJoin(Deps()), 1);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], HasSubstr("carlos system join: web-1 has no identity record yet"));
}

}  // namespace
}  // namespace carlos::guard
