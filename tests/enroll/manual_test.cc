// The operator's commands (invite, enroll, retire) and `list`, on both
// backends.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "enroll/enroller.h"
#include "enroll/list_view.h"
#include "identity/store_keys.h"
#include "world.h"

namespace carlos::enroll::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using ManualTest = BackendTest;

TEST_P(ManualTest, InviteRefusesAReferencedBoxUnlessForcedAndSaysSo) {
  TestBox web1 = w().AddBox("web-1");
  w().PutEdges(web1, {"web-2"});
  Status st = e().Invite("web-1", false);
  EXPECT_EQ(st.code(), Code::kPreconditionFailed);
  EXPECT_EQ(
      st.message(),
      "web-1 is refused: referenced: its edges file control/edges/web-1.json is published (it "
      "has hosted under this label); if it should join, invite it by hand with carlos boxes "
      "invite --force web-1");
  EXPECT_FALSE(w().Has(identity::InvitationKey("web-1")));

  ASSERT_TRUE(e().Invite("web-1", true).ok());
  auto inv = w().Invitation("web-1");
  ASSERT_TRUE(inv.has_value());
  EXPECT_TRUE(inv->doc.forced);
  EXPECT_THAT(log_.lines(),
              ElementsAre("enroll: web-1: referenced: control/edges/web-1.json is published; "
                          "inviting it anyway (--force)",
                          "enroll: web-1: invited although it is referenced "
                          "(control/edges/web-1.json is published), as asked by hand (invitation " +
                              inv->digest + ", expires 2026-11-30T18:00:00Z)"));
  // Inviting again changes nothing.
  log_.Clear();
  ASSERT_TRUE(e().Invite("web-1", true).ok());
  EXPECT_EQ(w().Invitation("web-1")->digest, inv->digest);
  EXPECT_THAT(log_.lines(), ElementsAre("enroll: web-1: already invited (invitation " +
                                        inv->digest + ", expires 2026-11-30T18:00:00Z)"));
}

TEST_P(ManualTest, ForceOverridesNothingButReferences) {
  w().AddBox("web-1", {.attested = false});
  Status st = e().Invite("web-1", true);
  EXPECT_EQ(st.code(), Code::kPreconditionFailed);
  EXPECT_THAT(st.message(), HasSubstr("web-1 is refused: unattested: "));
  EXPECT_FALSE(w().Has(identity::InvitationKey("web-1")));
}

TEST_P(ManualTest, InviteAndEnrollNeedARecord) {
  Status st = e().Invite("web-9", false);
  EXPECT_EQ(st.code(), Code::kNotFound);
  EXPECT_EQ(st.message(), "web-9 has no identity record (control/boxes/web-9.json)");
  EXPECT_EQ(e().Enroll("web-9").code(), Code::kNotFound);
  EXPECT_EQ(e().Retire("web-9", "").code(), Code::kNotFound);
  EXPECT_EQ(e().Invite("Web_9", false).code(), Code::kInvalidArgument);
}

TEST_P(ManualTest, EnrollNamesEachFailedCheck) {
  TestBox web1 = w().AddBox("web-1");
  Status st = e().Enroll("web-1");
  EXPECT_EQ(st.code(), Code::kPreconditionFailed);
  EXPECT_EQ(st.message(),
            "web-1 is not enrolled: not invited: it has no invitation; invite it first (carlos "
            "boxes invite web-1)");
  ASSERT_TRUE(e().Invite("web-1", false).ok());
  st = e().Enroll("web-1");
  EXPECT_EQ(st.message(),
            "web-1 is not enrolled: no report: it is invited until 2026-11-30T18:00:00Z; it has "
            "not published its guard-ready report (status/boxes/web-1.json) yet");
  if (GetParam() == "dir") {  // S3's Last-Modified cannot be set back.
    w().PutReport(web1, {.age = Milliseconds(6 * 60'000), .written_ago = Milliseconds(6 * 60'000)});
    st = e().Enroll("web-1");
    EXPECT_EQ(st.message(),
              "web-1 is not enrolled: report stale: its guard-ready report was written 6m0s ago, "
              "as this enroller saw it (the box dated it 2026-11-29T17:54:00Z); reportFreshness "
              "is 5m0s");
  }
  w().PutReport(web1, {.installed = false, .armed = false});
  st = e().Enroll("web-1");
  EXPECT_EQ(st.message(), "web-1 is not enrolled: guard not armed: its guard is not installed");
  w().PutReport(web1, {.record_digest = "sha256:" + std::string(64, 'd')});
  st = e().Enroll("web-1");
  EXPECT_EQ(st.message(),
            "web-1 is not enrolled: guard bound elsewhere: its guard is bound to "
            "the record sha256:" +
                std::string(64, 'd') + ", not to its record " + web1.record_digest);
  w().PutReport(web1, {.instance_id = "i-0ffffffffffffffff"});
  st = e().Enroll("web-1");
  EXPECT_EQ(st.message(),
            "web-1 is not enrolled: report mismatch: its report names instance "
            "\"i-0ffffffffffffffff\" in us-west-2, its record instance \"" +
                web1.instance_id + "\" in us-west-2");

  w().PutReport(web1);
  ASSERT_TRUE(e().Enroll("web-1").ok());
  EXPECT_TRUE(w().Enrollment("web-1").has_value());
  log_.Clear();
  ASSERT_TRUE(e().Enroll("web-1").ok());
  EXPECT_THAT(log_.lines(), ElementsAre("enroll: web-1: already enrolled"));
}

// docs/protocol.md, "Re-admission of an enrolled box whose guard is lost":
// the enrolled box's invitation has expired; inviting it by hand withdraws
// its enrollment and invites it afresh, so that root can arm a new guard.
TEST_P(ManualTest, InvitingAnEnrolledBoxReadmitsIt) {
  TestBox web1 = w().AddBox("web-1");
  ASSERT_TRUE(e().Invite("web-1", false).ok());
  w().PutReport(web1);
  ASSERT_TRUE(e().Enroll("web-1").ok());
  auto enrolled = w().Enrollment("web-1");
  ASSERT_TRUE(enrolled.has_value());
  auto first = w().Invitation("web-1");
  w().clock().Advance(std::chrono::hours(25));  // The invitation has expired.
  log_.Clear();

  ASSERT_TRUE(e().Invite("web-1", false).ok());
  EXPECT_FALSE(w().Enrollment("web-1").has_value());
  auto again = w().Invitation("web-1");
  ASSERT_TRUE(again.has_value());
  EXPECT_NE(again->digest, first->digest);
  EXPECT_EQ(again->doc.record_digest, web1.record_digest);
  EXPECT_EQ(again->doc.expires_at, w().clock().Now() + std::chrono::hours(24));
  EXPECT_FALSE(again->doc.forced);  // Not referenced: it never published an edges file here.
  ASSERT_EQ(log_.lines().size(), 2u);
  EXPECT_EQ(log_.lines()[0],
            "enroll: web-1: its enrollment " + enrolled->digest +
                " is withdrawn, to invite it again (it stops hosting at its next check if it "
                "was; it hosts again once root re-arms its guard and it is enrolled)");
  EXPECT_THAT(log_.lines()[1],
              HasSubstr("enroll: web-1: invited again (invitation " + again->digest));

  // The box then goes the normal way: its guard-ready report for the new
  // invitation gets it enrolled again.
  w().PutReport(web1);
  ASSERT_TRUE(e().Enroll("web-1").ok());
  auto re = w().Enrollment("web-1");
  ASSERT_TRUE(re.has_value());
  EXPECT_EQ(re->doc.invitation_digest, again->digest);
}

TEST_P(ManualTest, RetireEndsAnEnrolledBox) {
  TestBox web1 = w().AddBox("web-1");
  ASSERT_TRUE(e().Invite("web-1", false).ok());
  w().PutReport(web1);
  ASSERT_TRUE(e().Enroll("web-1").ok());
  ASSERT_TRUE(e().Retire("web-1", "decommissioned").ok());
  auto rows = e().List(std::nullopt);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].stage, "retired");
  EXPECT_EQ((*rows)[0].refused_because, "retired");
  EXPECT_EQ(e().Invite("web-1", true).message(),
            "web-1 is refused: retired: it was retired at 2026-11-29T18:00:00Z (decommissioned)");
}

TEST_P(ManualTest, ListShowsEachBoxsStageAsTheBoxWouldCompute) {
  // b-ready's report is shown written 7 minutes ago by the store's clock.
  if (GetParam() != "dir") GTEST_SKIP() << "S3's Last-Modified cannot be set back";
  TestBox hosting = w().AddBox("a-hosting");
  TestBox ready = w().AddBox("b-ready", {.region = "eu-west-1"});
  TestBox installed = w().AddBox("c-installed");
  TestBox invited = w().AddBox("d-invited");
  TestBox referenced = w().AddBox("e-referenced");
  w().AddBox("f-recorded", {.attested = false});
  TestBox retired = w().AddBox("g-retired");
  for (const char* b : {"a-hosting", "b-ready", "c-installed", "d-invited", "g-retired"}) {
    ASSERT_TRUE(e().Invite(b, false).ok()) << b;
  }
  w().PutReport(hosting);
  ASSERT_TRUE(e().Enroll("a-hosting").ok());
  w().PutReport(ready, {.age = Milliseconds(7 * 60'000), .written_ago = Milliseconds(7 * 60'000)});
  w().PutReport(installed, {.armed = false, .why_not_armed = "waiting for root"});
  w().PutEdges(referenced, {"a-hosting"});
  ASSERT_TRUE(e().Retire("g-retired", "").ok());
  // A report with no record: unrecorded.
  TestBox ghost{"h-ghost", "us-west-2", "", *identity::PrivateKey::Generate(), ""};
  w().PutReport(ghost, {.guard = false});
  w().clock().Advance(Milliseconds(2000));

  auto rows = e().List(std::nullopt);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  std::vector<std::string> stages;
  for (const auto& r : *rows) stages.push_back(r.box + "=" + r.stage);
  EXPECT_THAT(stages,
              ElementsAre("a-hosting=hosting", "b-ready=guard-ready", "c-installed=guard-installed",
                          "d-invited=invited", "e-referenced=referenced", "f-recorded=recorded",
                          "g-retired=retired", "h-ghost=unrecorded"));
  const BoxRow& b = (*rows)[1];
  EXPECT_EQ(b.region, "eu-west-1");
  EXPECT_EQ(b.instance_id, ready.instance_id);
  // Seen written 7 minutes before the read, by the store's clock (plus
  // the test's own run time); the box's stamp (7m2s before) is not used.
  ASSERT_TRUE(b.report_age.has_value());
  EXPECT_GE(*b.report_age, Milliseconds(7 * 60'000));
  EXPECT_LT(*b.report_age, Milliseconds(7 * 60'000 + 1000));
  EXPECT_EQ(b.guard_armed, true);
  EXPECT_EQ(b.refused_because, "report stale");
  EXPECT_EQ((*rows)[4].referenced_by, "control/edges/e-referenced.json");
  EXPECT_EQ((*rows)[0].referenced_by, "");
  EXPECT_EQ((*rows)[4].refused_because, "referenced");
  EXPECT_EQ((*rows)[5].refused_because, "unattested");

  std::string table = FormatTable(*rows);
  std::vector<std::string> lines;
  for (size_t at = 0, nl; (nl = table.find('\n', at)) != std::string::npos; at = nl + 1) {
    lines.push_back(table.substr(at, nl - at));
  }
  ASSERT_EQ(lines.size(), 9u);
  EXPECT_EQ(lines[0].substr(0, 50), "BOX           REGION     STAGE            INSTANCE");
  EXPECT_EQ(lines[2], "b-ready       eu-west-1  guard-ready      " + ready.instance_id +
                          "  7m0s        yes    no          report stale");
  EXPECT_EQ(lines[8],
            "h-ghost       -          unrecorded       -                    -          "
            " -      no          -");

  auto json = RowsToJson(*rows, w().clock().Now());
  EXPECT_EQ(json["format"], "carlos.boxes-list/v1");
  EXPECT_EQ(json["now"], "2026-11-29T18:00:02Z");
  EXPECT_EQ(json["boxes"][1].dump(),
            "{\"box\":\"b-ready\",\"detail\":\"its guard-ready report was written 7m0s ago, as "
            "this enroller saw it (the box dated it 2026-11-29T17:53:00Z); reportFreshness is "
            "5m0s\",\"guard_armed\":true,"
            "\"instance_id\":\"" +
                ready.instance_id +
                "\",\"next\":\"waiting\",\"referenced\":false,\"referenced_by\":null,\"refused_"
                "because\":\"report stale\",\"region\":\"eu-west-1\",\"report_age_seconds\":420,"
                "\"reported_at\":\"2026-11-29T17:53:00Z\",\"stage\":\"guard-ready\"}");

  auto eu = e().List(std::string("eu-west-1"));
  ASSERT_TRUE(eu.ok());
  ASSERT_EQ(eu->size(), 1u);
  EXPECT_EQ((*eu)[0].box, "b-ready");
}

INSTANTIATE_TEST_SUITE_P(Backends, ManualTest, ::testing::Values("dir", "s3"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace carlos::enroll::testing
