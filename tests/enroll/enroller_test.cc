// Automatic enrollment's rules (src/enroll/verdict.h), on both store
// backends: every test runs on a directory store and on the Ceph RGW test
// server ("s3" in the name: CTest gives those the carlos_s3 fixture).
#include "enroll/enroller.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "identity/encoding.h"
#include "identity/enrollment.h"
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
  // a: record, enrollment, invitation (its report is read only when the
  // invitation is not the enrollment's: docs/protocol.md, "Enrolled for a
  // guard the box no longer has"); b: record, invitation, report; c: record (its
  // edges file is known from the listing); d: record, retirement; e:
  // record. Listing six prefixes is one request each per 1000 keys.
  EXPECT_EQ(c.gets, 3 + 3 + 1 + 2 + 1);
  EXPECT_LE(c.total() - c.lists, 4 * 5);
}

// Holds every Put until `parties` enrollers have reached one: so that both
// enrollers have read the box before either writes.
class Barrier {
 public:
  explicit Barrier(int parties) : left_(parties) {}
  // Bounded: a pass that never writes must fail the test, not hang it.
  void Arrive() {
    std::unique_lock<std::mutex> lock(mu_);
    if (--left_ <= 0) {
      cv_.notify_all();
      return;
    }
    EXPECT_TRUE(cv_.wait_for(lock, std::chrono::seconds(20), [this] { return left_ <= 0; }))
        << "the other enroller never wrote";
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int left_;
};

// A store that waits at the barrier before its first Put, then forwards.
class GatedStore : public Store {
 public:
  GatedStore(Store* inner, Barrier* barrier) : inner_(inner), barrier_(barrier) {}
  StatusOr<Object> Get(std::string_view key) override { return inner_->Get(key); }
  StatusOr<std::string> Put(std::string_view key, std::string_view data,
                            const PutOptions& options) override {
    if (!passed_) {
      passed_ = true;
      barrier_->Arrive();
    }
    return inner_->Put(key, data, options);
  }
  StatusOr<ListPage> List(std::string_view prefix, std::string_view token, int max_keys) override {
    return inner_->List(prefix, token, max_keys);
  }
  Status Delete(std::string_view key) override { return inner_->Delete(key); }
  std::string Describe() const override { return inner_->Describe(); }

 private:
  Store* inner_;
  Barrier* barrier_;
  bool passed_ = false;
};

// The model's third finding replayed (docs/protocol.md, "The model and the
// fault soak", Findings; "Enrolled for a guard the box no longer has"): two
// enrollers read the same invited, guard-ready box; A's clock is past the
// invitation's expiry, B's is not. Both read before either writes (held at
// a barrier): A re-invites (compare-and-swap), B enrolls the guard the
// report shows (create-only). Root then arms a new guard for A's invitation
// and the box reports it. The enrollment must end bound to the guard the
// box has armed, replaced by compare-and-swap, once.
const std::string kGuard1 = "sha256:" + std::string(64, '1');
const std::string kGuard2 = "sha256:" + std::string(64, '2');

TEST_P(EnrollerTest, EnrolledForAnOldGuardIsReplacedForTheArmedOne) {
  TestBox box = w().AddBox("web-1");
  LogSink log_a, log_b;
  // Invitations that expire within the report's freshness, as the soak's.
  EnrollerSettings settings = w().Settings();
  settings.invitation_lifetime = Milliseconds(120'000);
  ASSERT_LT(settings.invitation_lifetime, settings.report_freshness);
  // Invited by a first pass, then guard-ready for guard 1.
  Enroller first(store_.get(), &w().clock(), log_a.logf(), settings);
  ASSERT_TRUE(first.Pass().ok());
  auto inv1 = w().Invitation(box.label);
  ASSERT_TRUE(inv1.has_value());
  w().PutReport(box, {.guard_digest = kGuard1, .age = Milliseconds(0)});

  // A's clock is past the invitation's expiry; B's is the world's, for
  // which it is still valid and the report fresh.
  FakeClock clock_a(inv1->doc.expires_at + Milliseconds(1'000));
  auto race = [&](Clock* ca, Clock* cb) {
    Barrier barrier(2);
    GatedStore sa(store_.get(), &barrier), sb(store_.get(), &barrier);
    Enroller a(&sa, ca, log_a.logf(), settings);
    Enroller b(&sb, cb, log_b.logf(), settings);
    StatusOr<PassSummary> ra = Internal(""), rb = Internal("");
    std::thread ta([&] { ra = a.Pass(); });
    std::thread tb([&] { rb = b.Pass(); });
    ta.join();
    tb.join();
    EXPECT_TRUE(ra.ok() && rb.ok());
    return std::make_pair(*ra, *rb);
  };
  auto [ra, rb] = race(&clock_a, &w().clock());
  EXPECT_EQ(ra.invited, 1);
  EXPECT_EQ(rb.enrolled, 1);
  // The finding's state: enrolled for guard 1 under invitation 1, invited
  // again (invitation 2).
  auto e1 = w().Enrollment(box.label);
  ASSERT_TRUE(e1.has_value());
  EXPECT_EQ(e1->doc.guard_digest, kGuard1);
  EXPECT_EQ(e1->doc.invitation_digest, inv1->digest);
  auto inv2 = w().Invitation(box.label);
  ASSERT_TRUE(inv2.has_value());
  ASSERT_NE(inv2->digest, inv1->digest);

  // The box, having read no enrollment, was at "invited" for invitation 2:
  // root armed guard 2 for it, and the box reports it, 2 s after A's
  // re-invitation.
  w().clock().Advance(std::chrono::duration_cast<Milliseconds>(clock_a.Now() - w().clock().Now()) +
                      Milliseconds(2'000));
  w().PutReport(
      box, {.invitation_digest = inv2->digest, .guard_digest = kGuard2, .age = Milliseconds(0)});

  // Two enrollers again, at once (clocks 1 ms apart, so that their
  // documents differ): exactly one compare-and-swap wins.
  FakeClock clock_c(w().clock().Now() + Milliseconds(1));
  log_a.Clear();
  log_b.Clear();
  auto [rc, rd] = race(&w().clock(), &clock_c);
  EXPECT_EQ(rc.enrolled + rd.enrolled, 1);
  EXPECT_EQ(rc.invited + rd.invited, 0);
  std::vector<std::string> lines = log_a.lines(), more = log_b.lines();
  lines.insert(lines.end(), more.begin(), more.end());
  int again = 0, theirs = 0;
  for (const std::string& l : lines) {
    again += l.find(": enrolled again (record ") != std::string::npos;
    theirs += l.find("another enroller enrolled it first") != std::string::npos;
  }
  EXPECT_EQ(again, 1) << fmt::format("{}", fmt::join(lines, "\n"));
  EXPECT_EQ(theirs, 1) << fmt::format("{}", fmt::join(lines, "\n"));
  EXPECT_THAT(fmt::format("{}", fmt::join(lines, "\n")),
              HasSubstr(fmt::format("because its enrollment binds guard {}, and its guard-ready "
                                    "report shows guard {} armed for its invitation {}",
                                    kGuard1, kGuard2, inv2->digest)));

  auto e2 = w().Enrollment(box.label);
  ASSERT_TRUE(e2.has_value());
  identity::EnrollmentBinding binding{box.label, box.record_digest, inv2->digest, kGuard2};
  EXPECT_TRUE(identity::VerifyEnrollment(*e2, w().enrollment_key().public_key(), binding).ok());

  // Settled: the next pass does nothing.
  Enroller last(store_.get(), &w().clock(), log_a.logf(), settings);
  auto pass = last.Pass();
  ASSERT_TRUE(pass.ok());
  EXPECT_EQ(pass->enrolled + pass->invited, 0);
  EXPECT_EQ(w().Enrollment(box.label)->digest, e2->digest);
}

// Only a fresh report armed for the current, valid invitation replaces an
// enrollment: not one armed for the old invitation, not a stale one, not
// after the invitation expired (an enrolled box is never re-invited
// automatically).
TEST_P(EnrollerTest, OnlyAFreshReportArmedForTheValidInvitationReplaces) {
  TestBox box = w().AddBox("web-1");
  LogSink log;
  EnrollerSettings settings = w().Settings();
  Enroller e(store_.get(), &w().clock(), log.logf(), settings);
  ASSERT_TRUE(e.Pass().ok());
  auto inv = w().Invitation(box.label);
  ASSERT_TRUE(inv.has_value());
  w().PutReport(box, {.guard_digest = kGuard1, .age = Milliseconds(0)});
  ASSERT_TRUE(e.Pass().ok());
  auto enrolled = w().Enrollment(box.label);
  ASSERT_TRUE(enrolled.has_value());
  auto unchanged = [&] {
    auto pass = e.Pass();
    EXPECT_TRUE(pass.ok());
    EXPECT_EQ(pass->enrolled + pass->invited, 0);
    EXPECT_EQ(w().Enrollment(box.label)->digest, enrolled->digest);
  };
  // Another guard, bound to another invitation.
  w().PutReport(box, {.invitation_digest = "sha256:" + std::string(64, 'c'),
                      .guard_digest = kGuard2,
                      .age = Milliseconds(0)});
  unchanged();
  // Another guard, not armed.
  w().PutReport(box, {.armed = false, .guard_digest = kGuard2, .age = Milliseconds(0)});
  unchanged();
  // Another guard, armed for the invitation, but stale.
  w().PutReport(box, {.guard_digest = kGuard2, .age = settings.report_freshness});
  unchanged();
  // Fresh, but the invitation has expired.
  w().clock().Advance(settings.invitation_lifetime);
  w().PutReport(box, {.guard_digest = kGuard2, .age = Milliseconds(0)});
  unchanged();
  EXPECT_THAT(log.Matching("enrolled again"), ::testing::IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(Backends, EnrollerTest, ::testing::Values("dir", "s3"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace carlos::enroll::testing
