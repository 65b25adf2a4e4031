// RaiseOpenFileLimit (base/open_files.h) on this test process: a lowered
// soft limit comes back up to the hard limit.
#include "base/open_files.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

namespace carlos {
namespace {

TEST(OpenFiles, SoftLimitIsRaisedToTheHardLimit) {
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &before), 0);
  ASSERT_GT(before.rlim_max, 64u);
  rlimit lowered{.rlim_cur = 64, .rlim_max = before.rlim_max};
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lowered), 0);

  StatusOr<uint64_t> raised = RaiseOpenFileLimit();
  ASSERT_TRUE(raised.ok()) << raised.status().ToString();
  EXPECT_EQ(*raised, static_cast<uint64_t>(before.rlim_max));
  rlimit after{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &after), 0);
  EXPECT_EQ(after.rlim_cur, before.rlim_max);
  EXPECT_EQ(after.rlim_max, before.rlim_max);

  // Already at the hard limit: nothing to do, the same answer.
  StatusOr<uint64_t> again = RaiseOpenFileLimit();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, static_cast<uint64_t>(before.rlim_max));
}

}  // namespace
}  // namespace carlos
