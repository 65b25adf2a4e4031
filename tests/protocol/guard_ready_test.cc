// The guard-ready rule (protocol/guard_ready.h), row by row, each with the
// reason and the facts the enroller logs.
#include "protocol/guard_ready.h"

#include <gtest/gtest.h>

#include <optional>

#include "identity/status_report.h"
#include "identity/store_keys.h"
#include "support/documents.h"

namespace carlos::protocol {
namespace {

using namespace carlos::testing;  // NOLINT: the documents' helpers.
using std::chrono::minutes;
using std::chrono::seconds;

class GuardReady : public ::testing::Test {
 protected:
  GuardReady() : enroll_(Key('e')), box_(Key('b')), other_(Key('o')) {
    record_ = *identity::ParseIdentityRecord(RecordBytes("web-1", box_));
    invitation_ =
        *identity::ParseInvitation(InvitationBytes("web-1", record_.digest, enroll_, kT0));
    report_.box = "web-1";
    report_.region = "eu-1";
    report_.machine_id = "m-1";
    report_.instance_id = "";
    report_.release = "0.1.0";
    report_.platform = "linux-amd64";
    report_.reported_at = kT0 + minutes(10);
    report_.stage = "guard-ready";
    identity::GuardFacts g;
    g.installed = true;
    g.armed = true;
    g.guard_digest = "sha256:" + std::string(64, 'c');
    g.record_digest = record_.digest;
    g.invitation_digest = invitation_.digest;
    report_.guard = g;
  }

  // The rule over `report_` signed by `key`, at `now`, the report seen
  // written at `written_at` (default: its own stamp, as if the box's clock
  // were the reader's).
  GuardReadyCheck Check(SystemTime now, const identity::PrivateKey* key = nullptr,
                        std::optional<SystemTime> written_at = std::nullopt) {
    DocState<identity::StatusReport> d;
    d.key = identity::StatusKey("web-1");
    d.present = d.read = true;
    auto bytes = identity::SignStatusReport(report_, key ? *key : box_);
    EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
    auto parsed = identity::ParseStatusReport(*bytes);
    EXPECT_TRUE(parsed.ok());
    d.parsed = *parsed;
    CheckReport(&d, record_.doc.public_key, "web-1");
    return CheckGuardReady(d, record_, invitation_, now, written_at.value_or(report_.reported_at),
                           Milliseconds(5 * 60'000));
  }

  identity::PrivateKey enroll_, box_, other_;
  identity::Parsed<identity::IdentityRecord> record_;
  identity::Parsed<identity::Invitation> invitation_;
  identity::StatusReport report_;
};

TEST_F(GuardReady, FreshArmedAndBoundIsReady) {
  GuardReadyCheck c = Check(kT0 + minutes(14));
  EXPECT_EQ(c.readiness, GuardReadiness::kReady) << c.detail;
  EXPECT_EQ(c.detail, "");
}

TEST_F(GuardReady, NoReport) {
  DocState<identity::StatusReport> none;
  GuardReadyCheck c = CheckGuardReady(none, record_, invitation_, kT0, kT0, Milliseconds(300'000));
  EXPECT_EQ(c.readiness, GuardReadiness::kNoReport);
  EXPECT_EQ(GuardReadinessName(c.readiness), "no report");
}

TEST_F(GuardReady, StaleBySinceTheReaderSawItWritten) {
  // Seen written at T0+10m (the box's stamp agrees): fresh until T0+15m.
  EXPECT_EQ(Check(kT0 + minutes(15) - seconds(1)).readiness, GuardReadiness::kReady);
  GuardReadyCheck old = Check(kT0 + minutes(15));
  EXPECT_EQ(old.readiness, GuardReadiness::kStale);
  EXPECT_EQ(old.detail,
            "its guard-ready report was written 5m0s ago, as this enroller saw it (the box dated "
            "it 2027-01-15T08:10:00Z); reportFreshness is 5m0s");
  EXPECT_EQ(GuardReadinessName(old.readiness), "report stale");
  // A reader's clock behind the store's (written "in the future") is age 0.
  EXPECT_EQ(Check(kT0 + minutes(9)).readiness, GuardReadiness::kReady);
}

// docs/protocol.md, "Clocks": the box's clock 10 minutes behind or ahead of
// the enroller's changes no verdict; only when the enroller saw the report
// written counts.
TEST_F(GuardReady, ABoxClockTenMinutesOffChangesNothing) {
  const SystemTime seen = kT0 + minutes(10);  // On the enroller's clock.
  for (auto skew : {-minutes(10), minutes(10)}) {
    report_.reported_at = seen + skew;  // The box's clock.
    GuardReadyCheck now = Check(seen + seconds(1), nullptr, seen);
    EXPECT_EQ(now.readiness, GuardReadiness::kReady) << now.detail;
    GuardReadyCheck later = Check(seen + minutes(5), nullptr, seen);
    EXPECT_EQ(later.readiness, GuardReadiness::kStale) << later.detail;
    EXPECT_EQ(ClockSkewOf(report_.reported_at, seen), Milliseconds(skew));
  }
}

TEST(Freshness, OfTheReadersOwnObservation) {
  const SystemTime t = kT0;
  EXPECT_TRUE(FreshnessOf(t, t, minutes(5)).fresh);
  EXPECT_EQ(FreshnessOf(t, t + seconds(299), minutes(5)).age, seconds(299));
  EXPECT_TRUE(FreshnessOf(t, t + seconds(299), minutes(5)).fresh);
  EXPECT_FALSE(FreshnessOf(t, t + seconds(300), minutes(5)).fresh);
  // Written after `now` (the store's clock ahead of the reader's): age 0.
  EXPECT_EQ(FreshnessOf(t + seconds(3), t, minutes(5)).age, Milliseconds(0));
  EXPECT_EQ(ClockSkewOf(t - minutes(10), t), -Milliseconds(minutes(10)));
}

TEST_F(GuardReady, SignedByAnotherKeyIsAConflict) {
  GuardReadyCheck c = Check(kT0 + minutes(11), &other_);
  EXPECT_EQ(c.readiness, GuardReadiness::kWrongKey);
  EXPECT_EQ(GuardReadinessName(c.readiness), "conflict");
}

TEST_F(GuardReady, NoGuardFacts) {
  report_.guard.reset();
  report_.stage = "invited";
  EXPECT_EQ(Check(kT0 + minutes(11)).readiness, GuardReadiness::kNotGuardReady);
}

TEST_F(GuardReady, AnotherInstanceOrRegion) {
  report_.region = "eu-2";
  EXPECT_EQ(Check(kT0 + minutes(11)).readiness, GuardReadiness::kMismatch);
}

TEST_F(GuardReady, NotArmedQuotesWhy) {
  report_.guard->armed = false;
  report_.guard->why_not_armed = "armed.json is absent";
  report_.stage = "guard-installed";
  GuardReadyCheck c = Check(kT0 + minutes(11));
  EXPECT_EQ(c.readiness, GuardReadiness::kNotArmed);
  EXPECT_EQ(c.detail, "its guard is installed, not armed: armed.json is absent");
}

TEST_F(GuardReady, BoundElsewhere) {
  report_.guard->record_digest = "sha256:" + std::string(64, 'd');
  EXPECT_EQ(Check(kT0 + minutes(11)).readiness, GuardReadiness::kBoundElsewhere);
  report_.guard->record_digest = record_.digest;
  report_.guard->invitation_digest = "sha256:" + std::string(64, 'd');
  EXPECT_EQ(Check(kT0 + minutes(11)).readiness, GuardReadiness::kBoundElsewhere);
}

}  // namespace
}  // namespace carlos::protocol
