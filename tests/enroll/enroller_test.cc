// Automatic enrollment's rules (src/enroll/verdict.h), on both store
// backends: every test runs on a directory store and on the Ceph RGW test
// server ("s3" in the name: CTest gives those the carlos_s3 fixture).
#include "enroll/enroller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "identity/encoding.h"
#include "identity/retirement.h"
#include "identity/store_keys.h"
#include "metrics/measured_store.h"
#include "world.h"

namespace carlos::enroll::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class EnrollerTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto store = MakeStore(GetParam(), tmp_.path(), &env_);
    if (!store.ok() && GetParam() == "s3") GTEST_SKIP() << store.status().message();
    ASSERT_TRUE(store.ok()) << store.status().message();
    store_ = std::move(*store);
    world_ = std::make_unique<World>(store_.get());
  }

  World& w() { return *world_; }

  // One pass of a fresh enroller (edited by `edit`); the summary.
  PassSummary Pass(std::function<void(EnrollerSettings&)> edit = nullptr) {
    auto e = w().MakeEnroller(&log_, std::move(edit));
    auto pass = e->Pass();
    EXPECT_TRUE(pass.ok()) << pass.status().message();
    return pass.ok() ? *pass : PassSummary{};
  }

  // Invites `box` with a pass and writes its guard-ready report.
  void InviteAndReport(const TestBox& box, const ReportSpec& spec = {}) {
    Pass();
    ASSERT_TRUE(w().Invitation(box.label).has_value());
    w().PutReport(box, spec);
  }

  TempDir tmp_;
  std::map<std::string, std::string> env_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<World> world_;
  LogSink log_;
};

TEST_P(EnrollerTest, InvitesARecordedBoxBoundToItsRecordFor24Hours) {
  TestBox web1 = w().AddBox("web-1");
  PassSummary s = Pass();
  EXPECT_EQ(s.boxes, 1);
  EXPECT_EQ(s.invited, 1);
  auto inv = w().Invitation("web-1");
  ASSERT_TRUE(inv.has_value());
  EXPECT_EQ(inv->doc.box, "web-1");
  EXPECT_EQ(inv->doc.record_digest, web1.record_digest);
  EXPECT_EQ(inv->doc.region, "us-west-2");
  EXPECT_EQ(inv->doc.issued_at, w().clock().Now());
  EXPECT_EQ(inv->doc.expires_at, w().clock().Now() + Seconds(24 * 3600));
  EXPECT_FALSE(inv->doc.forced);
  EXPECT_TRUE(identity::VerifyInvitation(*inv, w().enrollment_key().public_key(), "web-1",
                                         web1.record_digest, w().clock().Now())
                  .ok());
  EXPECT_THAT(log_.lines(), ElementsAre("enroll: web-1: invited (invitation " + inv->digest +
                                        ", expires 2026-11-30T18:00:00Z)"));
}

TEST_P(EnrollerTest, RefusesAReferencedBoxOnceInWatchMode) {
  TestBox web1 = w().AddBox("web-1");
  w().AddBox("web-2");
  w().PutEdges(web1, {"web-3"});
  auto e = w().MakeEnroller(&log_);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(e->Pass().ok());
  EXPECT_FALSE(w().Has(identity::InvitationKey("web-1")));
  // web-2, which web-1's edges file lists, is not referenced: an edges
  // file names its writer.
  EXPECT_TRUE(w().Has(identity::InvitationKey("web-2")));
  EXPECT_THAT(
      log_.Matching("web-1"),
      ElementsAre("enroll: web-1: refused: referenced: its edges file control/edges/web-1.json is "
                  "published (it has hosted under this label); if it should join, invite it by "
                  "hand with carlos boxes invite --force web-1"));
}

TEST_P(EnrollerTest, RefusesARetiredBox) {
  TestBox web1 = w().AddBox("web-1");
  auto e = w().MakeEnroller(&log_);
  ASSERT_TRUE(e->Retire("web-1", "replaced by web-7").ok());
  EXPECT_THAT(log_.lines(), ElementsAre("enroll: web-1: retired (record " + web1.record_digest +
                                        "): replaced by web-7"));
  log_.Clear();
  ASSERT_TRUE(e->Pass().ok());
  EXPECT_FALSE(w().Has(identity::InvitationKey("web-1")));
  EXPECT_THAT(log_.lines(), ElementsAre("enroll: web-1: refused: retired: it was retired at "
                                        "2026-11-29T18:00:00Z (replaced by web-7)"));
  // Retiring again is not an error, and changes nothing.
  log_.Clear();
  ASSERT_TRUE(e->Retire("web-1", "again").ok());
  EXPECT_THAT(log_.lines(), ElementsAre("enroll: web-1: already retired at 2026-11-29T18:00:00Z"));
}

TEST_P(EnrollerTest, RefusesTwoRecordsOfOneInstance) {
  w().AddBox("web-1", {.instance_id = "i-0aaaaaaaaaaaaaaaa"});
  w().AddBox("web-2", {.instance_id = "i-0aaaaaaaaaaaaaaaa"});
  w().AddBox("web-3");
  PassSummary s = Pass();
  EXPECT_EQ(s.invited, 1);
  EXPECT_EQ(s.refused, 2);
  EXPECT_FALSE(w().Has(identity::InvitationKey("web-1")));
  EXPECT_FALSE(w().Has(identity::InvitationKey("web-2")));
  EXPECT_THAT(log_.Matching("conflict"),
              ElementsAre("enroll: web-1: refused: conflict: its instance i-0aaaaaaaaaaaaaaaa is "
                          "also recorded as web-2",
                          "enroll: web-2: refused: conflict: its instance i-0aaaaaaaaaaaaaaaa is "
                          "also recorded as web-1"));
}

TEST_P(EnrollerTest, RefusesABoxOfAnotherRegionWhenScoped) {
  w().AddBox("web-1", {.region = "eu-west-1"});
  w().AddBox("web-2");
  PassSummary s = Pass([](EnrollerSettings& e) { e.region = "us-west-2"; });
  EXPECT_EQ(s.invited, 1);
  EXPECT_FALSE(w().Has(identity::InvitationKey("web-1")));
  EXPECT_THAT(log_.Matching("web-1"),
              ElementsAre("enroll: web-1: refused: other region: its region is eu-west-1; this "
                          "enroller is scoped to us-west-2 (CARLOS_REGION)"));
}

TEST_P(EnrollerTest, RefusesAnUnattestedBoxUnlessAllowed) {
  w().AddBox("web-1", {.attested = false});
  Pass();
  EXPECT_FALSE(w().Has(identity::InvitationKey("web-1")));
  EXPECT_THAT(log_.lines(),
              ElementsAre("enroll: web-1: refused: unattested: the identity record of web-1 is "
                          "refused: unattested: it has no instance identity document, and this "
                          "deployment does not allow unattested boxes (CARLOS_ALLOW_UNATTESTED)"));
  log_.Clear();
  PassSummary s = Pass([](EnrollerSettings& e) { e.allow_unattested = true; });
  EXPECT_EQ(s.invited, 1);
  EXPECT_TRUE(w().Has(identity::InvitationKey("web-1")));
}

TEST_P(EnrollerTest, RefusesARecordWhoseInstanceIdentitySignatureIsNotAws) {
  w().AddBox("web-1", {.forged_iid = true});
  // Even where unattested boxes are allowed: a claimed attestation that does
  // not verify is a forgery.
  for (bool allow : {false, true}) {
    log_.Clear();
    PassSummary s = Pass([allow](EnrollerSettings& e) { e.allow_unattested = allow; });
    EXPECT_EQ(s.refused, 1);
    EXPECT_FALSE(w().Has(identity::InvitationKey("web-1")));
    ASSERT_EQ(log_.lines().size(), 1u);
    EXPECT_THAT(log_.lines()[0], StartsWith("enroll: web-1: refused: unattested: "));
    EXPECT_THAT(log_.lines()[0], HasSubstr("is refused: unattested: "));
  }
}

// CARLOS_AWS_ACCOUNTS: a validly signed document of another account is
// refused; unset, any account is admitted; an unattested box (allowed) has
// no account to check.
TEST_P(EnrollerTest, RefusesAnInstanceOfAnotherAwsAccount) {
  w().AddBox("web-1", {.account_id = "999999999999"});
  w().AddBox("web-2");
  w().AddBox("web-3", {.attested = false});
  auto scoped = [](EnrollerSettings& e) {
    e.aws_accounts = std::set<std::string, std::less<>>{"123456789012", "210987654321"};
    e.allow_unattested = true;
  };
  PassSummary s = Pass(scoped);
  EXPECT_EQ(s.invited, 2);
  EXPECT_EQ(s.refused, 1);
  EXPECT_FALSE(w().Has(identity::InvitationKey("web-1")));
  EXPECT_TRUE(w().Has(identity::InvitationKey("web-2")));
  EXPECT_TRUE(w().Has(identity::InvitationKey("web-3")));
  EXPECT_THAT(log_.Matching("web-1"),
              ElementsAre("enroll: web-1: refused: foreign account: the identity record of web-1 "
                          "is refused: foreign account: its instance identity document is of AWS "
                          "account 999999999999, which is not one of this deployment's "
                          "(123456789012, 210987654321; CARLOS_AWS_ACCOUNTS)"));
  // By hand: the same check, exit 3 (precondition failed).
  auto e = w().MakeEnroller(&log_, scoped);
  Status st = e->Invite("web-1", /*force=*/true);
  EXPECT_EQ(st.code(), Code::kPreconditionFailed) << st.ToString();
  EXPECT_THAT(st.message(), HasSubstr("web-1 is refused: foreign account: "));
  // Unset: any account.
  log_.Clear();
  s = Pass([](EnrollerSettings& e) { e.allow_unattested = true; });
  EXPECT_EQ(s.invited, 1);
  EXPECT_TRUE(w().Has(identity::InvitationKey("web-1")));
}

TEST_P(EnrollerTest, RefusesARecordWithABadSignature) {
  TestBox web1 = w().AddBox("web-1");
  auto obj = w().store().Get(identity::RecordKey("web-1"));
  ASSERT_TRUE(obj.ok());
  std::string bytes = obj->data;
  // Another release, same signature: the record no longer verifies.
  auto at = bytes.find("\"release\":\"0.1.0\"");
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, 17, "\"release\":\"0.1.1\"");
  ASSERT_TRUE(w().store().Put(identity::RecordKey("web-1"), bytes, PutOptions{}).ok());
  PassSummary s = Pass();
  EXPECT_EQ(s.refused, 1);
  EXPECT_FALSE(w().Has(identity::InvitationKey("web-1")));
  ASSERT_EQ(log_.lines().size(), 1u);
  EXPECT_THAT(log_.lines()[0], StartsWith("enroll: web-1: refused: record refused: "));
  EXPECT_THAT(log_.lines()[0], HasSubstr("bad signature"));
}

TEST_P(EnrollerTest, EnrollsAnInvitedBoxWhoseGuardReadyReportIsFreshArmedAndBound) {
  TestBox web1 = w().AddBox("web-1");
  InviteAndReport(web1);
  auto inv = w().Invitation("web-1");
  log_.Clear();
  PassSummary s = Pass();
  EXPECT_EQ(s.enrolled, 1);
  auto enr = w().Enrollment("web-1");
  ASSERT_TRUE(enr.has_value());
  EXPECT_EQ(enr->doc.record_digest, web1.record_digest);
  EXPECT_EQ(enr->doc.invitation_digest, inv->digest);
  EXPECT_EQ(enr->doc.guard_digest, "sha256:" + std::string(64, 'a'));
  EXPECT_EQ(enr->doc.enrolled_at, w().clock().Now());
  identity::EnrollmentBinding b{"web-1", web1.record_digest, inv->digest,
                                "sha256:" + std::string(64, 'a')};
  EXPECT_TRUE(identity::VerifyEnrollment(*enr, w().enrollment_key().public_key(), b).ok());
  EXPECT_THAT(log_.lines(), ElementsAre("enroll: web-1: enrolled (record " + web1.record_digest +
                                        ", invitation " + inv->digest +
                                        ", guard sha256:" + std::string(64, 'a') + ")"));
  // The next pass has nothing to do and says nothing.
  log_.Clear();
  s = Pass();
  EXPECT_EQ(s.enrolled + s.invited + s.refused + s.waiting + s.errors, 0);
  EXPECT_TRUE(log_.lines().empty());
}

// Freshness is when the enroller saw the report written, on its own clock
// (docs/protocol.md, "Clocks"): a report it saw 5 minutes ago, unchanged
// since, is stale, whatever the box's stamp says.
TEST_P(EnrollerTest, DoesNotEnrollOnAReportItSawWrittenLongAgo) {
  TestBox web1 = w().AddBox("web-1");
  InviteAndReport(web1, {.armed = false, .why_not_armed = "waiting for root"});
  log_.Clear();
  auto e = w().MakeEnroller(&log_);  // One enroller: its memory is the point.
  ASSERT_TRUE(e->Pass().ok());
  EXPECT_THAT(log_.lines(), ElementsAre("enroll: web-1: not enrolled: guard not armed: its guard "
                                        "is installed, not armed: waiting for root"));
  w().clock().Advance(Milliseconds(5 * 60'000));
  log_.Clear();
  ASSERT_TRUE(e->Pass().ok());
  EXPECT_FALSE(w().Has(identity::EnrollmentKey("web-1")));
  // S3's Last-Modified and Date have whole seconds: seen written 0-1 s
  // before the first pass.
  EXPECT_THAT(log_.lines(),
              ElementsAre(::testing::MatchesRegex(
                  "enroll: web-1: not enrolled: report stale: its guard-ready report was written "
                  "5m[01]s ago, as this enroller saw it \\(the box dated it "
                  "2026-11-29T17:59:50Z\\); reportFreshness is 5m0s")));
  // A new report (the box's guard armed) is fresh again.
  w().PutReport(web1);
  log_.Clear();
  EXPECT_EQ(e->Pass()->enrolled, 1);
}

// A single pass without memory judges by the store's clock: a report the
// directory store shows written 6 minutes ago is stale, though the box
// dated it 10 s ago.
TEST_P(EnrollerTest, AFirstPassJudgesByTheStoresClock) {
  if (GetParam() != "dir") GTEST_SKIP() << "S3's Last-Modified cannot be set back";
  TestBox web1 = w().AddBox("web-1");
  InviteAndReport(web1, {.written_ago = Milliseconds(6 * 60'000)});
  log_.Clear();
  auto fresh = w().MakeEnroller(&log_);
  ASSERT_TRUE(fresh->Pass().ok());
  EXPECT_FALSE(w().Has(identity::EnrollmentKey("web-1")));
  // The box's stamp (10 s ago) against the store's (6 min ago): its clock
  // looks 5m50s ahead, which is logged, and changes no verdict.
  EXPECT_THAT(log_.lines(),
              ElementsAre(HasSubstr("enroll: web-1: its clock is about 5m50s ahead of this "
                                    "enroller's (its report is dated 2026-11-29T17:59:50Z"),
                          "enroll: web-1: not enrolled: report stale: its guard-ready report was "
                          "written 6m0s ago, as this enroller saw it (the box dated it "
                          "2026-11-29T17:59:50Z); reportFreshness is 5m0s"));
}

// The case of docs/protocol.md, "Clocks": a box whose clock is 10 minutes
// behind (or ahead of) the enroller's publishes a fresh report; it is
// enrolled at once, and the skew is logged once.
TEST_P(EnrollerTest, EnrollsABoxWhoseClockIsTenMinutesOff) {
  auto e = w().MakeEnroller(&log_);
  for (int sign : {-1, 1}) {
    std::string label = sign < 0 ? "behind" : "ahead";
    TestBox box = w().AddBox(label);
    // reported_at = now - age: the box's clock is `sign` x 10 min off.
    InviteAndReport(box, {.age = Milliseconds(-sign * 10 * 60'000)});
    log_.Clear();
    PassSummary s = *e->Pass();
    EXPECT_EQ(s.enrolled, 1) << label;
    EXPECT_EQ(s.waiting, 0) << label;
    EXPECT_TRUE(w().Has(identity::EnrollmentKey(label)));
    auto skew = log_.Matching("its clock is");
    ASSERT_EQ(skew.size(), 1u) << label;
    // 10 minutes, less the store's age resolution (S3: 1 s).
    EXPECT_THAT(skew[0], ::testing::MatchesRegex(
                             "enroll: " + label + ": its clock is about (10m0s|9m59s|10m1s) " +
                             (sign < 0 ? "behind" : "ahead of") + " this enroller's .*"));
  }
  // Once per box: the next pass says nothing.
  log_.Clear();
  w().clock().Advance(Milliseconds(1000));
  ASSERT_TRUE(e->Pass().ok());
  EXPECT_TRUE(log_.Matching("its clock is").empty());
}

TEST_P(EnrollerTest, DoesNotEnrollWhenTheGuardIsNotArmed) {
  TestBox web1 = w().AddBox("web-1");
  InviteAndReport(web1, {.armed = false, .why_not_armed = "the release 0.0.9 is below 0.1.0"});
  log_.Clear();
  Pass();
  EXPECT_FALSE(w().Has(identity::EnrollmentKey("web-1")));
  EXPECT_THAT(log_.lines(),
              ElementsAre("enroll: web-1: not enrolled: guard not armed: its guard is installed, "
                          "not armed: the release 0.0.9 is below 0.1.0"));
}

TEST_P(EnrollerTest, DoesNotEnrollWhenTheGuardIsBoundToAnotherInvitation) {
  TestBox web1 = w().AddBox("web-1");
  std::string other = "sha256:" + std::string(64, 'c');
  InviteAndReport(web1, {.invitation_digest = other});
  auto inv = w().Invitation("web-1");
  log_.Clear();
  Pass();
  EXPECT_FALSE(w().Has(identity::EnrollmentKey("web-1")));
  EXPECT_THAT(log_.lines(), ElementsAre("enroll: web-1: not enrolled: guard bound elsewhere: its "
                                        "guard is bound to the invitation " +
                                        other + ", not to its invitation " + inv->digest));
}

TEST_P(EnrollerTest, RefusesABoxWhoseReportIsSignedByAnotherKey) {
  TestBox web1 = w().AddBox("web-1");
  auto stranger = identity::PrivateKey::Generate();
  ASSERT_TRUE(stranger.ok());
  InviteAndReport(web1, {.signed_by = *stranger});
  log_.Clear();
  PassSummary s = Pass();
  EXPECT_EQ(s.refused, 1);
  EXPECT_FALSE(w().Has(identity::EnrollmentKey("web-1")));
  ASSERT_EQ(log_.lines().size(), 1u);
  EXPECT_THAT(log_.lines()[0], StartsWith("enroll: web-1: refused: conflict: "));
  EXPECT_THAT(log_.lines()[0], HasSubstr("wrong key"));
  EXPECT_THAT(log_.lines()[0], HasSubstr("; another machine publishes under this label"));
}

TEST_P(EnrollerTest, DoesNotEnrollWithoutAGuardReadyReport) {
  TestBox web1 = w().AddBox("web-1");
  Pass();
  log_.Clear();
  auto e = w().MakeEnroller(&log_);
  ASSERT_TRUE(e->Pass().ok());
  ASSERT_TRUE(e->Pass().ok());
  EXPECT_THAT(log_.lines(),
              ElementsAre("enroll: web-1: not enrolled: no report: it is invited until "
                          "2026-11-30T18:00:00Z; it has not published its guard-ready report "
                          "(status/boxes/web-1.json) yet"));
  w().PutReport(web1, {.guard = false});
  ASSERT_TRUE(e->Pass().ok());
  EXPECT_EQ(log_.lines().back(),
            "enroll: web-1: not enrolled: not guard-ready: its status report (stage guard-ready) "
            "carries no guard facts");
}

TEST_P(EnrollerTest, ReplacesAnExpiredInvitationByCompareAndSwap) {
  TestBox web1 = w().AddBox("web-1");
  Pass();
  auto first = w().Invitation("web-1");
  ASSERT_TRUE(first.has_value());
  w().clock().Advance(Milliseconds(24 * 3600'000));
  log_.Clear();
  PassSummary s = Pass();
  EXPECT_EQ(s.invited, 1);
  auto second = w().Invitation("web-1");
  ASSERT_TRUE(second.has_value());
  EXPECT_NE(second->digest, first->digest);
  EXPECT_EQ(second->doc.expires_at, w().clock().Now() + Seconds(24 * 3600));
  EXPECT_THAT(log_.lines(),
              ElementsAre("enroll: web-1: invited again (invitation " + second->digest +
                          ", expires 2026-12-01T18:00:00Z), because the invitation for web-1 is "
                          "refused: expired: it expired at 2026-11-30T18:00:00Z; it is now "
                          "2026-11-30T18:00:00Z"));
}

TEST_P(EnrollerTest, DoesNotReplaceAnInvitationSignedWithAnotherKey) {
  TestBox web1 = w().AddBox("web-1");
  auto other = identity::PrivateKey::Generate();
  ASSERT_TRUE(other.ok());
  Pass([&](EnrollerSettings& e) {
    e.enrollment_key = *other;
    e.enrollment_public_key = other->public_key();
  });
  auto theirs = w().Invitation("web-1");
  log_.Clear();
  PassSummary s = Pass();
  EXPECT_EQ(s.refused, 1);
  EXPECT_EQ(w().Invitation("web-1")->digest, theirs->digest);
  ASSERT_EQ(log_.lines().size(), 1u);
  EXPECT_THAT(log_.lines()[0], StartsWith("enroll: web-1: refused: invitation refused: "));
  EXPECT_THAT(log_.lines()[0], HasSubstr("wrong key"));
}

TEST_P(EnrollerTest, APassWithNothingToDoMakesAtMostFourRequestsPerBox) {
  // One box in each resting state: enrolled, invited and waiting on an
  // unarmed report, referenced, retired, unattested, and one whose edges
  // file names the referenced box.
  TestBox enrolled = w().AddBox("a-enrolled");
  TestBox waiting = w().AddBox("b-waiting");
  TestBox referenced = w().AddBox("c-referenced");
  TestBox retired = w().AddBox("d-retired");
  w().AddBox("e-unattested", {.attested = false});
  w().PutEdges(referenced, {"a-enrolled"});
  Pass();  // Invites a, b, d.
  w().PutReport(enrolled);
  w().PutReport(waiting, {.armed = false, .why_not_armed = "root has not armed it yet"});
  Pass();  // Enrolls a.
  ASSERT_TRUE(w().MakeEnroller(&log_)->Retire("d-retired", "").ok());
  ASSERT_TRUE(w().Has(identity::EnrollmentKey("a-enrolled")));

  metrics::MeasuredStore counting(&w().store());
  auto e = w().MakeEnroller(&log_, nullptr, &counting);
  auto pass = e->Pass();
  ASSERT_TRUE(pass.ok());
  EXPECT_EQ(pass->invited + pass->enrolled, 0);
  metrics::StoreCounts c = counting.counts();
  EXPECT_EQ(c.puts, 0);
  EXPECT_EQ(c.lists, 6);
  // a: record, enrollment; b: record, invitation, report; c: record (its
  // edges file is known from the listing); d: record, retirement; e:
  // record. Listing six prefixes is one request each per 1000 keys.
  EXPECT_EQ(c.gets, 2 + 3 + 1 + 2 + 1);
  EXPECT_LE(c.total() - c.lists, 4 * 5);
}

INSTANTIATE_TEST_SUITE_P(Backends, EnrollerTest, ::testing::Values("dir", "s3"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace carlos::enroll::testing
