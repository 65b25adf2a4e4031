// Removing boxes (enroll/remove.h): `carlos boxes rm` and `prune`, on both
// backends.
#include "enroll/remove.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "identity/retirement.h"
#include "identity/store_keys.h"
#include "world.h"

namespace carlos::enroll::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class RemoveTest : public BackendTest {
 protected:
  // An enrolled box with an edges file and a fresh report: a hosting box.
  TestBox Hosting(const std::string& label) {
    TestBox box = w().AddBox(label);
    EXPECT_TRUE(e().Invite(label, false).ok());
    w().PutReport(box);
    EXPECT_TRUE(e().Enroll(label).ok());
    w().PutEdges(box, {});
    return box;
  }

  std::vector<std::string> Keys() {
    auto keys = ListAll(*store_, "");
    EXPECT_TRUE(keys.ok());
    return keys.ok() ? *keys : std::vector<std::string>{};
  }
};

TEST_P(RemoveTest, RemovesEveryDocumentOfTheBoxAndSaysWhich) {
  TestBox web1 = w().AddBox("web-1");
  w().AddBox("web-2");
  ASSERT_TRUE(e().Invite("web-1", false).ok());
  w().PutReport(web1);
  ASSERT_TRUE(e().Retire("web-1", "gone").ok());

  auto r = RemoveBox(w().store(), w().Settings(), w().clock().Now(), "web-1", false);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->status.ok());
  EXPECT_THAT(r->removed, ElementsAre("status/boxes/web-1.json", "control/invitations/web-1.json",
                                      "control/boxes/web-1.json", "control/retired/web-1.json"));
  EXPECT_THAT(r->kept, IsEmpty());
  EXPECT_EQ(RemovalLine(*r),
            "removed web-1: status/boxes/web-1.json, control/invitations/web-1.json, "
            "control/boxes/web-1.json, control/retired/web-1.json");
  // web-2 is untouched.
  EXPECT_THAT(Keys(), ElementsAre("control/boxes/web-2.json"));
}

TEST_P(RemoveTest, RefusesAnEnrolledReportingBoxUnlessForced) {
  Hosting("web-1");
  auto r = RemoveBox(w().store(), w().Settings(), w().clock().Now(), "web-1", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kPreconditionFailed);
  auto enrollment = w().Enrollment("web-1");
  ASSERT_TRUE(enrollment.has_value());
  EXPECT_EQ(r.status().message(),
            "web-1 was not removed: it is enrolled (enrollment " + enrollment->digest +
                ") and reporting (its status report is 10s old); retire it first (carlos boxes "
                "retire web-1) and remove it once it has stopped, or remove it anyway with "
                "--force");
  EXPECT_EQ(Keys().size(), 5u);  // Nothing removed.

  r = RemoveBox(w().store(), w().Settings(), w().clock().Now(), "web-1", true);
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r->removed,
              ElementsAre("status/boxes/web-1.json", "control/edges/web-1.json",
                          "control/enrollments/web-1.json", "control/invitations/web-1.json",
                          "control/boxes/web-1.json"));
  EXPECT_THAT(Keys(), IsEmpty());
}

TEST_P(RemoveTest, AnEnrolledBoxThatStoppedReportingIsRemoved) {
  Hosting("web-1");
  // The report is 10 s old; reportFreshness (5m) later it is stale.
  w().clock().Advance(std::chrono::minutes(5));
  auto r = RemoveBox(w().store(), w().Settings(), w().clock().Now(), "web-1", false);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->removed.size(), 5u);
  EXPECT_THAT(Keys(), IsEmpty());
}

// The way out of a record that is wrong for good: an unattested record
// written by mistake is refused by the enroller forever; removing it lets
// the box record itself again.
TEST_P(RemoveTest, RemovesARecordTheEnrollerRefuses) {
  w().AddBox("web-1", {.attested = false});
  auto r = RemoveBox(w().store(), w().Settings(), w().clock().Now(), "web-1", false);
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r->removed, ElementsAre("control/boxes/web-1.json"));
  EXPECT_THAT(Keys(), IsEmpty());
}

TEST_P(RemoveTest, ABoxWithNoDocumentsIsNotFound) {
  w().AddBox("web-1");
  auto r = RemoveBox(w().store(), w().Settings(), w().clock().Now(), "web-9", false);
  EXPECT_EQ(r.status().code(), Code::kNotFound);
  EXPECT_EQ(r.status().message(),
            "web-9 has no documents in the deployment store (" + w().store().Describe() + ")");
  r = RemoveBox(w().store(), w().Settings(), w().clock().Now(), "Web_1", false);
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Keys().size(), 1u);
}

TEST_P(RemoveTest, PrunesRetiredBoxesOlderThanTheAge) {
  Hosting("old-1");
  ASSERT_TRUE(e().Retire("old-1", "replaced").ok());
  w().AddBox("old-2");
  ASSERT_TRUE(e().Retire("old-2", "").ok());
  w().clock().Advance(std::chrono::hours(48));
  w().AddBox("new-1");
  ASSERT_TRUE(e().Retire("new-1", "").ok());
  w().AddBox("live-1");
  w().clock().Advance(std::chrono::hours(1));

  auto pruned = PruneRetired(w().store(), w().Settings(), w().clock().Now(),
                             std::chrono::duration_cast<Milliseconds>(std::chrono::hours(24)));
  ASSERT_TRUE(pruned.ok()) << pruned.status().message();
  ASSERT_EQ(pruned->size(), 2u);
  EXPECT_EQ((*pruned)[0].box, "old-1");
  EXPECT_EQ((*pruned)[0].removed.size(), 6u);  // Hosting's five and the retirement.
  EXPECT_EQ((*pruned)[0].removed.back(), "control/retired/old-1.json");
  EXPECT_EQ((*pruned)[1].box, "old-2");
  EXPECT_THAT((*pruned)[1].removed,
              ElementsAre("control/boxes/old-2.json", "control/retired/old-2.json"));
  EXPECT_THAT(Keys(), ElementsAre("control/boxes/live-1.json", "control/boxes/new-1.json",
                                  "control/retired/new-1.json"));

  // Nothing left that old: nothing pruned.
  pruned = PruneRetired(w().store(), w().Settings(), w().clock().Now(),
                        std::chrono::duration_cast<Milliseconds>(std::chrono::hours(24)));
  ASSERT_TRUE(pruned.ok());
  EXPECT_THAT(*pruned, IsEmpty());
}

TEST_P(RemoveTest, PruneKeepsARetirementThatDoesNotVerify) {
  TestBox web1 = w().AddBox("web-1");
  // A retirement signed with another key than the enrollment key.
  identity::Retirement forged;
  forged.box = "web-1";
  forged.record_digest = web1.record_digest;
  forged.retired_at = w().clock().Now();
  auto other = identity::PrivateKey::Generate();
  ASSERT_TRUE(other.ok());
  auto bytes = identity::SignRetirement(forged, *other);
  ASSERT_TRUE(bytes.ok());
  ASSERT_TRUE(w().store().Put(identity::RetiredKey("web-1"), *bytes, {}).ok());
  w().clock().Advance(std::chrono::hours(48));
  auto pruned = PruneRetired(w().store(), w().Settings(), w().clock().Now(), Milliseconds(0));
  ASSERT_TRUE(pruned.ok());
  EXPECT_THAT(*pruned, IsEmpty());
  EXPECT_EQ(Keys().size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Backends, RemoveTest, ::testing::Values("dir", "s3"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace carlos::enroll::testing
