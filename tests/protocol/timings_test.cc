#include "protocol/timings.h"

#include <gtest/gtest.h>

namespace carlos::protocol {
namespace {

TEST(Timings, DefaultsAreTheDesigns) {
  auto t = TimingsFromEnv(MapGetenv({}));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->join_every, Milliseconds(15'000));
  EXPECT_EQ(t->join_nudge_every, Milliseconds(60'000));
  EXPECT_EQ(t->report_freshness, Milliseconds(300'000));
  EXPECT_EQ(t->hosting_report_every, Milliseconds(30'000));
  EXPECT_EQ(t->drain, Milliseconds(10'000));
  EXPECT_EQ(t->invitation_lifetime, Milliseconds(86'400'000));
  EXPECT_EQ(t->health_header_timeout, Milliseconds(10'000));
}

TEST(Timings, EnvironmentOverrides) {
  auto t = TimingsFromEnv(MapGetenv({{"CARLOS_JOIN_EVERY", "200ms"},
                                     {"CARLOS_JOIN_NUDGE_EVERY", " 1s "},
                                     {"CARLOS_REPORT_FRESHNESS", "2m"},
                                     {"CARLOS_HOSTING_REPORT_EVERY", "1.5s"},
                                     {"CARLOS_DRAIN", "0"},
                                     {"CARLOS_INVITATION_LIFETIME", "1h"},
                                     {"CARLOS_HEALTH_HEADER_TIMEOUT", "3s"}}));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->join_every, Milliseconds(200));
  EXPECT_EQ(t->join_nudge_every, Milliseconds(1000));
  EXPECT_EQ(t->report_freshness, Milliseconds(120'000));
  EXPECT_EQ(t->hosting_report_every, Milliseconds(1500));
  EXPECT_EQ(t->drain, Milliseconds(0));
  EXPECT_EQ(t->invitation_lifetime, Milliseconds(3'600'000));
  EXPECT_EQ(t->health_header_timeout, Milliseconds(3000));
}

TEST(Timings, RefusesBadValuesNamingTheVariable) {
  auto bad = TimingsFromEnv(MapGetenv({{"CARLOS_JOIN_EVERY", "15"}}));
  EXPECT_EQ(bad.status().message(), "CARLOS_JOIN_EVERY: time: missing unit in duration \"15\"");
  bad = TimingsFromEnv(MapGetenv({{"CARLOS_DRAIN", "-1s"}}));
  EXPECT_EQ(bad.status().message(), "CARLOS_DRAIN: -1s is negative");
  bad = TimingsFromEnv(MapGetenv({{"CARLOS_JOIN_NUDGE_EVERY", "0"}}));
  EXPECT_EQ(bad.status().message(), "CARLOS_JOIN_NUDGE_EVERY: 0 is under a millisecond");
  bad = TimingsFromEnv(MapGetenv({{"CARLOS_JOIN_EVERY", "500us"}}));
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace carlos::protocol
