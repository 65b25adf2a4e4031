// The switches' rules (protocol/settings.h): region HA applies with both
// switches on or an armed guard; a warning when its settings are present
// and a switch is off.
#include "protocol/settings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace carlos::protocol {
namespace {

using ::testing::HasSubstr;

TEST(RegionHAApplies, BothSwitchesOrAnArmedGuard) {
  Getenv both = MapGetenv({{"CARLOS_HOST_CLAIM", "1"}, {"CARLOS_REGION_HA", "0"}});
  Getenv one = MapGetenv({{"CARLOS_HOST_CLAIM", "1"}, {"CARLOS_REGION_HA", " "}});
  Getenv none = MapGetenv({});
  EXPECT_TRUE(RegionHAApplies(both, false));
  EXPECT_FALSE(RegionHAApplies(one, false));
  EXPECT_FALSE(RegionHAApplies(none, false));
  EXPECT_TRUE(RegionHAApplies(one, true));
  EXPECT_TRUE(RegionHAApplies(none, true));
}

TEST(SwitchesOffWarning, OnlyWhenRegionHASettingsArePresentAndASwitchIsOff) {
  EXPECT_EQ(SwitchesOffWarning(MapGetenv({})), "");
  EXPECT_EQ(SwitchesOffWarning(MapGetenv({{"CARLOS_HOST_CLAIM", "1"},
                                          {"CARLOS_REGION_HA", "1"},
                                          {"CARLOS_ENROLLMENT_PUBKEY", "ed25519:x"}})),
            "");
  EXPECT_EQ(
      SwitchesOffWarning(MapGetenv({{"CARLOS_ENROLLMENT_PUBKEY", "ed25519:x"}})),
      "region HA is off: CARLOS_HOST_CLAIM and CARLOS_REGION_HA are blank, while "
      "CARLOS_ENROLLMENT_PUBKEY is set; unless its guard is armed, this box hosts as before region "
      "HA (no joining, no enrollment): set both switches in /etc/carlos/host.env to join");
  EXPECT_THAT(SwitchesOffWarning(MapGetenv({{"CARLOS_HOST_CLAIM", "1"}})),
              HasSubstr("CARLOS_REGION_HA is blank, while the other switch is set"));
  EXPECT_THAT(SwitchesOffWarning(MapGetenv({{"CARLOS_REGION_HA", "1"}})),
              HasSubstr("CARLOS_HOST_CLAIM is blank"));
}

}  // namespace
}  // namespace carlos::protocol
