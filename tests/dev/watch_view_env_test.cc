// The marker watch, the view (table and change lines) and the children's
// environments.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "base/files.h"
#include "dev/region_env.h"
#include "dev/region_layout.h"
#include "dev/region_view.h"
#include "dev/region_watch.h"

namespace carlos::dev {
namespace {

using std::chrono::milliseconds;

std::string TempDir() {
  std::string tmpl = ::testing::TempDir() + "region_watch_XXXXXX";
  EXPECT_NE(mkdtemp(tmpl.data()), nullptr);
  return tmpl;
}

// Sets the file's mtime to `sec`.`nsec`, as a touch at a chosen time.
void SetMtime(const std::string& path, time_t sec, long nsec) {
  struct timespec times[2] = {{sec, nsec}, {sec, nsec}};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

TEST(FileWatch, SeesCreationTouchesAndReplacesButNotAnOldMarker) {
  std::string dir = TempDir();
  std::string old_marker = dir + "/old";
  ASSERT_TRUE(WriteFileAtomic(old_marker, "then\n", 0644).ok());
  FileWatch old(old_marker);
  EXPECT_FALSE(old.Changed()) << "a marker from an earlier run is not a request";

  std::string marker = dir + "/system-join-requested";
  FileWatch w(marker);
  EXPECT_FALSE(w.Changed());
  ASSERT_TRUE(WriteFileAtomic(marker, "2026-11-29T19:00:00Z\n", 0644).ok());
  EXPECT_TRUE(w.Changed());
  EXPECT_FALSE(w.Changed()) << "one change is seen once";
  SetMtime(marker, 1'800'000'000, 5);
  EXPECT_TRUE(w.Changed()) << "a touch (new mtime) is a change";
  SetMtime(marker, 1'800'000'000, 6);
  EXPECT_TRUE(w.Changed()) << "a nanosecond apart is still a change";
  // A replace with the same size and mtime is a new inode.
  ASSERT_TRUE(WriteFileAtomic(marker, "2026-11-29T19:00:01Z\n", 0644).ok());
  SetMtime(marker, 1'800'000'000, 6);
  EXPECT_TRUE(w.Changed());
  ASSERT_EQ(unlink(marker.c_str()), 0);
  EXPECT_FALSE(w.Changed()) << "removal asks root nothing";
  ASSERT_TRUE(WriteFileAtomic(marker, "again\n", 0644).ok());
  EXPECT_TRUE(w.Changed());
}

const SystemTime kT0 = SystemTime(std::chrono::seconds(1'800'000'000));

TEST(RegionView, ReportsEachChangeOnceWithHowLongTheLastLasted) {
  RegionView v({"box-1", "box-2"}, {"http://127.0.0.1:8401/_carlos/lb", "u2"}, kT0);
  auto c1 = v.Update(0, {503, "joining: recorded"}, kT0 + milliseconds(300));
  ASSERT_TRUE(c1.has_value());
  EXPECT_EQ(*c1, "box-1: 503 joining: recorded (after 300ms - not asked yet)");
  EXPECT_FALSE(v.Update(0, {503, "joining: recorded"}, kT0 + milliseconds(600)).has_value());
  auto c2 = v.Update(0, {200, "hosting"}, kT0 + milliseconds(2800));
  ASSERT_TRUE(c2.has_value());
  EXPECT_EQ(*c2, "box-1: 200 hosting (after 2.5s 503 joining: recorded)");
  auto c3 = v.Update(1, {0, "no answer (connection refused)"}, kT0 + milliseconds(100));
  EXPECT_EQ(*c3, "box-2: - no answer (connection refused) (after 100ms - not asked yet)");
  EXPECT_EQ(v.Hosting(), 1u);
}

TEST(RegionView, TableAlignsColumnsAndShowsTheAgent) {
  RegionView v({"box-1", "box-10"}, {"a", "b"}, kT0);
  v.Update(0, {200, "hosting"}, kT0);
  v.Update(1, {503, "joining: invited"}, kT0 + milliseconds(1000));
  v.SetAgent(0, 4242, 2);
  std::string t = v.Table(kT0 + milliseconds(12'300), {"logs: /x/logs"});
  EXPECT_EQ(t,
            "BOX     HEALTH  STAGE             FOR    AGENT\n"
            "box-1   200     hosting           12.3s  pid 4242 (start 2)\n"
            "box-10  503     joining: invited  11.3s  not running\n"
            "logs: /x/logs\n");
}

TEST(ShortDuration, PicksAUnitForTheColumn) {
  EXPECT_EQ(ShortDuration(milliseconds(850)), "850ms");
  EXPECT_EQ(ShortDuration(milliseconds(12'345)), "12.3s");
  EXPECT_EQ(ShortDuration(milliseconds(245'000)), "4m05s");
  EXPECT_EQ(ShortDuration(milliseconds(7'380'000)), "2h03m");
  EXPECT_EQ(ShortDuration(milliseconds(-5)), "0ms");
}

TEST(ChildEnv, DropsTheRegionsOwnCarlosSettingsButKeepsTimingsAndTheRest) {
  std::vector<std::string> parent = {
      "PATH=/usr/bin",
      "CARLOS_DEPLOYMENT_BUCKET=prod-bucket",
      "CARLOS_DRAIN=5s",
      "AWS_ACCESS_KEY_ID=AK",
      "CARLOS_DATA_DIR=/data",
      "CARLOS_JOIN_EVERY=1s",
      "MALFORMED",
  };
  auto env =
      ChildEnv(parent, {{"CARLOS_DATA_DIR", "/r/boxes/box-1"}, {"CARLOS_JOIN_EVERY", "300ms"}});
  EXPECT_EQ(EnvValue(env, "PATH"), "/usr/bin");
  EXPECT_EQ(EnvValue(env, "AWS_ACCESS_KEY_ID"), "AK");
  EXPECT_EQ(EnvValue(env, "CARLOS_DEPLOYMENT_BUCKET"), "")
      << "a production bucket must not leak in";
  EXPECT_EQ(EnvValue(env, "CARLOS_DATA_DIR"), "/r/boxes/box-1");
  EXPECT_EQ(EnvValue(env, "CARLOS_DRAIN"), "5s") << "the operator's timing wins over the default";
  EXPECT_EQ(EnvValue(env, "CARLOS_JOIN_EVERY"), "300ms") << "the region's explicit setting wins";
  EXPECT_EQ(EnvValue(env, "CARLOS_JOIN_NUDGE_EVERY"), "1s");
  EXPECT_EQ(EnvValue(env, "MALFORMED"), "");
  EXPECT_TRUE(std::is_sorted(env.begin(), env.end()));
}

TEST(RegionLayout, NamesAndPorts) {
  RegionLayout l{"/r"};
  EXPECT_EQ(l.marker("box-2"), "/r/boxes/box-2/system-join-requested");
  EXPECT_EQ(l.agent_log("box-2"), "/r/logs/box-2.agent.log");
  EXPECT_EQ(BoxLabel(3), "box-3");
  EXPECT_EQ(BoxHealthUrl(8400, 3), "http://127.0.0.1:8403/_carlos/lb");
  EXPECT_EQ(BoxImdsPort(8400, 3), 8503);
  EXPECT_EQ(BoxInstanceId(10), "i-0c4a105000000000a");
  EXPECT_EQ(BoxInstanceId(10).size(), 19u);
}

}  // namespace
}  // namespace carlos::dev
