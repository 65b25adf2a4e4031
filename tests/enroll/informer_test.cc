// The informer (enroll/informer.h): a pass reads a box's documents only when
// a listing shows they changed; the enroller's own writes need no read;
// another enroller's are read once. Requests are counted with the measured
// store (metrics/measured_store.h), on both backends.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "identity/store_keys.h"
#include "metrics/measured_store.h"
#include "world.h"

namespace carlos::enroll::testing {
namespace {

class InformerTest : public BackendWorldTest {
 protected:
  void SetUp() override {
    BackendWorldTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    counting_ = std::make_unique<metrics::MeasuredStore>(store_.get());
    enroller_ = world_->MakeEnroller(&log_, nullptr, counting_.get());
  }

  PassSummary Pass() {
    counting_->Reset();
    auto pass = enroller_->Pass();
    EXPECT_TRUE(pass.ok()) << pass.status().message();
    return pass.ok() ? *pass : PassSummary{};
  }
  metrics::StoreCounts Counts() const { return counting_->counts(); }

  std::unique_ptr<metrics::MeasuredStore> counting_;
  LogSink log_;
  std::unique_ptr<Enroller> enroller_;
};

TEST_P(InformerTest, APassWithNothingChangedReadsNoDocument) {
  std::vector<TestBox> boxes;
  for (int i = 0; i < 12; ++i) boxes.push_back(w().AddBox(fmt::format("web-{}", i)));
  PassSummary first = Pass();
  EXPECT_EQ(first.invited, 12);
  // The first pass: 6 listings, 12 record reads, 12 invitation writes.
  EXPECT_EQ(Counts().lists, 6);
  EXPECT_EQ(Counts().gets, 12);
  EXPECT_EQ(Counts().puts, 12);

  // Its own invitations are known: the next pass lists and reads nothing.
  PassSummary idle = Pass();
  EXPECT_EQ(idle.invited, 0);
  EXPECT_EQ(idle.waiting, 12);
  EXPECT_EQ(Counts().lists, 6);
  EXPECT_EQ(Counts().gets, 0);
  EXPECT_EQ(Counts().puts, 0);
}

TEST_P(InformerTest, AChangedBoxCostsOnlyItsChangedDocuments) {
  std::vector<TestBox> boxes;
  for (int i = 0; i < 6; ++i) boxes.push_back(w().AddBox(fmt::format("web-{}", i)));
  Pass();
  Pass();
  // Three boxes report: each costs its report's Get and its enrollment's Put.
  for (int i = 0; i < 3; ++i) w().PutReport(boxes[i]);
  PassSummary s = Pass();
  EXPECT_EQ(s.enrolled, 3);
  EXPECT_EQ(Counts().gets, 3);
  EXPECT_EQ(Counts().puts, 3);
  EXPECT_EQ(Counts().lists, 6);
  // An enrolled box's new report (every 30 s while hosting) costs nothing.
  for (int i = 0; i < 3; ++i) w().PutReport(boxes[i], {.age = Milliseconds(1000)});
  s = Pass();
  EXPECT_EQ(s.enrolled, 0);
  EXPECT_EQ(Counts().gets, 0);
  EXPECT_EQ(Counts().total(), 6);
}

TEST_P(InformerTest, AnotherEnrollersWriteIsReadOnceAndActedOn) {
  TestBox web1 = w().AddBox("web-1");
  Pass();
  auto first = w().Invitation("web-1");
  ASSERT_TRUE(first.has_value());
  // Another enroller replaces the invitation (an operator's invite --force
  // would): the listing shows another version, so this enroller reads it.
  w().clock().Advance(Milliseconds(25 * 3600'000));  // The first expired.
  auto other = w().MakeEnroller(&log_);
  ASSERT_TRUE(other->Pass().ok());
  auto second = w().Invitation("web-1");
  ASSERT_TRUE(second.has_value());
  ASSERT_NE(second->digest, first->digest);
  w().PutReport(web1);
  PassSummary s = Pass();
  EXPECT_EQ(s.enrolled, 1);
  EXPECT_EQ(Counts().gets, 2);  // The new invitation, the report.
  auto enrollment = w().Enrollment("web-1");
  ASSERT_TRUE(enrollment.has_value());
  EXPECT_EQ(enrollment->doc.invitation_digest, second->digest);
}

TEST_P(InformerTest, AKeptInvitationIsJudgedAgainAtItsExpiry) {
  w().AddBox("web-1");
  Pass();
  auto first = w().Invitation("web-1");
  ASSERT_TRUE(first.has_value());
  w().clock().Advance(Milliseconds(24 * 3600'000));
  PassSummary s = Pass();
  EXPECT_EQ(s.invited, 1);  // Re-invited: the kept one expired.
  EXPECT_EQ(Counts().gets, 0);
  EXPECT_EQ(Counts().puts, 1);
  EXPECT_NE(w().Invitation("web-1")->digest, first->digest);
}

TEST_P(InformerTest, ADeletedDocumentIsForgotten) {
  TestBox web1 = w().AddBox("web-1");
  Pass();
  w().PutReport(web1);
  EXPECT_EQ(Pass().enrolled, 1);
  // An operator removes the enrollment: the box is judged again from the
  // listing, and enrolled again on its (kept) report.
  ASSERT_TRUE(w().store().Delete(identity::EnrollmentKey("web-1")).ok());
  PassSummary s = Pass();
  EXPECT_EQ(s.enrolled, 1);
  EXPECT_EQ(Counts().gets, 0);
  EXPECT_EQ(Counts().puts, 1);
}

INSTANTIATE_TEST_SUITE_P(Backends, InformerTest, ::testing::Values("dir", "s3"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace carlos::enroll::testing
