// dev/region_plan.h: what the region starts, as systemd would on a box.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dev/region_plan.h"

namespace carlos::dev {
namespace {

using ::testing::ElementsAre;

RegionPlan Plan(const RegionOptions& o) {
  RegionLayout layout{"/tmp/region"};
  return PlanRegion(o, layout, {}, "ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=",
                    {"http://127.0.0.1:8501", "http://127.0.0.1:8502"});
}

TEST(RegionPlan, AnAgentThatExitsCleanlyIsStartedAgainAtOnce) {
  RegionOptions o;
  o.boxes = 2;
  o.carlos_bin = "/usr/bin/carlos";
  RegionPlan p = Plan(o);
  ASSERT_EQ(p.agents.size(), 2u);
  for (const UnitSpec& a : p.agents) {
    // Exit 0 is the hand-over to hosting: no delay (docs/agent.md, "The
    // hand-over"); a failure waits the restart delay.
    ASSERT_TRUE(a.clean_exit_delay.has_value());
    EXPECT_EQ(*a.clean_exit_delay, Milliseconds(0));
    EXPECT_EQ(a.restart_delay, o.restart_delay);
  }
  EXPECT_FALSE(p.enroller.clean_exit_delay.has_value());
}

TEST(RegionPlan, TheEnrollersEveryIsPassedOnlyWhenGiven) {
  RegionOptions o;
  o.boxes = 2;
  o.carlos_bin = "/usr/bin/carlos";
  EXPECT_THAT(Plan(o).enroller.process.argv,
              ElementsAre("/usr/bin/carlos", "boxes", "auto-enroll", "--watch"));
  o.enroller_every = "1s";
  EXPECT_THAT(Plan(o).enroller.process.argv,
              ElementsAre("/usr/bin/carlos", "boxes", "auto-enroll", "--watch", "--every", "1s"));
}

}  // namespace
}  // namespace carlos::dev
