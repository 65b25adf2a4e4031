// When the watch loop passes (enroll/wakeup.h): the schedule alone, the
// loop with the change check under a FakeClock (a new record or report is
// acted on within check_every, a full pass still every joinEvery, an
// enrolled box's reports wake nothing), and the directory store's inotify
// watcher on real files.
#include "enroll/wakeup.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "identity/store_keys.h"
#include "metrics/measured_store.h"
#include "world.h"

namespace carlos::enroll::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
using A = WakeSchedule::Action;

SystemTime T0() {
  SystemTime t;
  ParseRfc3339("2026-11-29T18:00:00Z", &t);
  return t;
}

TEST(WakeSchedule, ChecksEverySecondAndPassesEveryFifteen) {
  WakeSchedule s(Milliseconds(15'000), Milliseconds(1'000), /*events=*/false);
  EXPECT_EQ(s.Due(T0()), A::kPass);  // The first pass, at once.
  s.Passed(T0());
  EXPECT_EQ(s.Due(T0()), A::kWait);
  EXPECT_EQ(s.NextAt(), T0() + Seconds(1));
  EXPECT_EQ(s.Due(T0() + Milliseconds(999)), A::kWait);
  EXPECT_EQ(s.Due(T0() + Seconds(1)), A::kCheck);
  s.Checked(T0() + Seconds(1));
  EXPECT_EQ(s.NextAt(), T0() + Seconds(2));
  // Nothing changes: checks until the full pass at 15 s.
  for (int i = 2; i < 15; ++i) {
    EXPECT_EQ(s.Due(T0() + Seconds(i)), A::kCheck) << i;
    s.Checked(T0() + Seconds(i));
  }
  EXPECT_EQ(s.NextAt(), T0() + Seconds(15));
  EXPECT_EQ(s.Due(T0() + Seconds(15)), A::kPass);
}

TEST(WakeSchedule, AChangePassesAtOnceButNotTwiceWithinCheckEvery) {
  WakeSchedule s(Milliseconds(15'000), Milliseconds(1'000), /*events=*/true);
  s.Passed(T0());
  // With events there are no checks: the next wake-up is the full pass.
  EXPECT_EQ(s.NextAt(), T0() + Seconds(15));
  EXPECT_EQ(s.Due(T0() + Seconds(5)), A::kWait);
  // A change 300 ms after a pass waits until 1 s after it.
  s.Changed();
  EXPECT_EQ(s.Due(T0() + Milliseconds(300)), A::kWait);
  EXPECT_EQ(s.NextAt(), T0() + Seconds(1));
  EXPECT_EQ(s.Due(T0() + Seconds(1)), A::kPass);
  s.Passed(T0() + Seconds(1));
  EXPECT_EQ(s.NextAt(), T0() + Seconds(16));
  // A change long after the last pass passes at once.
  s.Changed();
  EXPECT_EQ(s.Due(T0() + Seconds(9)), A::kPass);
}

TEST(WakeSchedule, CheckEveryIsNeverLongerThanEvery) {
  WakeSchedule s(Milliseconds(5'000), Milliseconds(60'000), /*events=*/false);
  s.Passed(T0());
  EXPECT_EQ(s.NextAt(), T0() + Seconds(5));
  EXPECT_EQ(s.Due(T0() + Seconds(5)), A::kPass);
}

// The loop on a store without events (as S3): a record written at 2.5 s is
// invited at the next check, 3 s; its report at 20.2 s is enrolled at 21 s;
// the enrolled box's report at 33.3 s wakes nothing; a full pass comes 15 s
// after the last one (18 s, 36 s). Each change check costs two listings and
// no read.
TEST(WatchWakeUp, ANewRecordOrReportIsActedOnWithinCheckEvery) {
  TempDir tmp;
  std::map<std::string, std::string> env;
  auto store = MakeStore("dir", tmp.path(), &env);
  ASSERT_TRUE(store.ok());
  World w(store->get());
  metrics::MeasuredStore counting(store->get());
  LogSink log;
  auto e = w.MakeEnroller(&log, nullptr, &counting);
  const SystemTime start = w.clock().Now();
  std::vector<double> passes;  // Seconds after start.
  Enroller::PassObserver observed = [&](const StatusOr<PassSummary>& pass, double) {
    EXPECT_TRUE(pass.ok());
    passes.push_back(std::chrono::duration<double>(w.clock().Now() - start).count());
  };
  std::optional<TestBox> web1;
  bool added = false, reported = false, hosted = false;
  Stop stop;
  w.clock().OnSleep([&](SystemTime now) {
    auto t = now - start;
    if (!added && t >= Milliseconds(2'500)) {
      web1 = w.AddBox("web-1");
      added = true;
    }
    if (!reported && t >= Milliseconds(20'200)) {
      w.PutReport(*web1);
      reported = true;
    }
    if (!hosted && t >= Milliseconds(33'300)) {
      // Enrolled: its next report (as while hosting) wakes nothing.
      w.PutReport(*web1, {.age = Milliseconds(0)});
      hosted = true;
    }
    if (t >= Seconds(50)) stop.Request();
  });
  counting.Reset();
  ASSERT_TRUE(e->Watch(stop, observed).ok());

  EXPECT_THAT(passes, ElementsAre(0, 3, 18, 21, 36));
  auto inv = w.Invitation("web-1");
  ASSERT_TRUE(inv.has_value());
  EXPECT_EQ(inv->doc.issued_at, start + Seconds(3));
  auto enr = w.Enrollment("web-1");
  ASSERT_TRUE(enr.has_value());
  EXPECT_EQ(enr->doc.enrolled_at, start + Seconds(21));
  // 5 passes of 6 listings; a check (2 listings) at each whole second from
  // 1 to 49 but 18 and 36 (full passes due): 47 checks.
  metrics::StoreCounts c = counting.counts();
  EXPECT_EQ(c.lists, 5 * 6 + 47 * 2);
  EXPECT_EQ(c.gets, 2);  // The record, the report; the invitation is its own.
  EXPECT_EQ(c.puts, 2);  // The invitation, the enrollment.
}

TEST(DirWatcher, ReportsTheKeysWrittenUnderTheWatchedFolders) {
  TempDir tmp;
  std::map<std::string, std::string> env;
  auto store = MakeStore("dir", tmp.path(), &env);
  ASSERT_TRUE(store.ok());
  std::string root = env["CARLOS_DEPLOYMENT_DIR"];
  auto watcher = WatchDirStore(root);
  ASSERT_TRUE(watcher.ok()) << watcher.status().message();
  Stop stop;
  // Nothing written: nothing reported (at the timeout).
  EXPECT_THAT((*watcher)->Wait(Milliseconds(50), stop), IsEmpty());

  // The folders do not exist yet: their creation is reported, and they are
  // watched from then on.
  ASSERT_TRUE((*store)->Put("control/boxes/web-1.json", "r1", {}).ok());
  std::vector<std::string> keys = (*watcher)->Wait(Milliseconds(5'000), stop);
  ASSERT_FALSE(keys.empty());
  EXPECT_EQ(keys[0], "control/");
  (*watcher)->Wait(Milliseconds(50), stop);  // Drain what else came.

  ASSERT_TRUE((*store)->Put("control/boxes/web-2.json", "r2", {}).ok());
  keys = (*watcher)->Wait(Milliseconds(5'000), stop);
  EXPECT_THAT(keys, ElementsAre("control/boxes/web-2.json"));

  ASSERT_TRUE((*store)->Put("status/boxes/web-2.json", "s", {}).ok());
  keys = (*watcher)->Wait(Milliseconds(5'000), stop);
  ASSERT_FALSE(keys.empty());
  (*watcher)->Wait(Milliseconds(50), stop);
  ASSERT_TRUE((*store)->Put("status/boxes/web-2.json", "s2", {}).ok());
  keys = (*watcher)->Wait(Milliseconds(5'000), stop);
  EXPECT_THAT(keys, ElementsAre("status/boxes/web-2.json"));

  // Edges files are not watched.
  ASSERT_TRUE((*store)->Put("control/edges/web-2.json", "e", {}).ok());
  EXPECT_THAT((*watcher)->Wait(Milliseconds(100), stop), IsEmpty());

  ASSERT_TRUE((*store)->Delete("control/boxes/web-1.json").ok());
  keys = (*watcher)->Wait(Milliseconds(5'000), stop);
  EXPECT_THAT(keys, ElementsAre("control/boxes/web-1.json"));

  // A stop ends the wait.
  stop.Request();
  EXPECT_THAT((*watcher)->Wait(Milliseconds(60'000), stop), IsEmpty());
}

}  // namespace
}  // namespace carlos::enroll::testing
