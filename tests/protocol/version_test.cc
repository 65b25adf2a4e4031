#include "protocol/version.h"

#include <gtest/gtest.h>

namespace carlos::protocol {
namespace {

TEST(Version, CompareReleases) {
  EXPECT_LT(CompareReleases("1.9.2", "1.10.0"), 0);
  EXPECT_EQ(CompareReleases("1.2", "1.2.0"), 0);
  EXPECT_GT(CompareReleases("2.0", "1.99.99"), 0);
  EXPECT_EQ(Platform().rfind("linux-", 0), 0u);
}

}  // namespace
}  // namespace carlos::protocol
