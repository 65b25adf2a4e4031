// host/event_wake.h on real inotify(7): a temporary directory, real files,
// real renames (the guard's and the directory store's writes).
#include "host/event_wake.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "base/files.h"

namespace carlos::host {
namespace {

// Long enough never to pass on a loaded machine when an event is due; the
// waits that must time out are short.
constexpr Milliseconds kLong{20'000};
constexpr Milliseconds kShort{200};

class EventWakeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/carlos-wake-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<EventWake> Open(std::vector<EventWake::Watch> w) {
    auto wake = EventWake::Open(std::move(w));
    EXPECT_TRUE(wake.ok()) << wake.status().ToString();
    return std::move(wake).value();
  }
  void Write(const std::string& path) {
    ASSERT_TRUE(WriteFileAtomic(path, "x\n", 0644).ok()) << path;
  }

  std::string dir_;
  Stop stop_;
};

TEST_F(EventWakeTest, AWatchedNameRenamedIntoPlaceEndsTheWait) {
  auto w = Open({{dir_, {"armed.json"}}});
  EXPECT_EQ(w->watching(), 1);
  std::thread writer([&] { Write(dir_ + "/armed.json"); });
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(w->Wait(kLong, stop_), Woke::kEvent);
  writer.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, kLong);
  // Removed: an event too (a withdrawn document is news).
  ASSERT_EQ(::unlink((dir_ + "/armed.json").c_str()), 0);
  EXPECT_EQ(w->Wait(kLong, stop_), Woke::kEvent);
}

TEST_F(EventWakeTest, OtherNamesDoNotEndTheWait) {
  auto w = Open({{dir_, {"web-1.json"}}});
  Write(dir_ + "/web-2.json");
  Write(dir_ + "/.tmp-web-1.json");
  EXPECT_EQ(w->Wait(kShort, stop_), Woke::kTimeout);
}

TEST_F(EventWakeTest, AnEmptyNameSetWatchesEveryName) {
  auto w = Open({{dir_, {}}});
  Write(dir_ + "/anything");
  EXPECT_EQ(w->Wait(kLong, stop_), Woke::kEvent);
}

TEST_F(EventWakeTest, NotifyEndsTheCurrentOrTheNextWait) {
  auto w = Open({{dir_, {"x"}}});
  w->Notify();  // Before the wait: the next one ends at once.
  EXPECT_EQ(w->Wait(kLong, stop_), Woke::kEvent);
  EXPECT_EQ(w->Wait(kShort, stop_), Woke::kTimeout) << "one notify ends one wait";
  std::thread t([&] {
    std::this_thread::sleep_for(Milliseconds(50));
    w->Notify();
  });
  EXPECT_EQ(w->Wait(kLong, stop_), Woke::kEvent);
  t.join();
}

TEST_F(EventWakeTest, TheStopEndsTheWait) {
  auto w = Open({{dir_, {"x"}}});
  std::thread t([&] {
    std::this_thread::sleep_for(Milliseconds(50));
    stop_.Request();
  });
  EXPECT_EQ(w->Wait(kLong, stop_), Woke::kStopped);
  t.join();
  EXPECT_EQ(w->Wait(kLong, stop_), Woke::kStopped) << "already requested";
}

TEST_F(EventWakeTest, ADirectoryMadeLaterIsWatchedFromThenOn) {
  // As the directory store's control/invitations/ before the first
  // invitation: the parent watches its name.
  const std::string sub = dir_ + "/invitations";
  auto w = Open({{dir_, {"invitations"}}, {sub, {"web-1.json"}}});
  EXPECT_EQ(w->watching(), 1);
  ASSERT_EQ(::mkdir(sub.c_str(), 0755), 0);
  EXPECT_EQ(w->Wait(kLong, stop_), Woke::kEvent);  // The parent's event.
  // Newly watched: the next wait looks once more at once.
  EXPECT_EQ(w->Wait(kLong, stop_), Woke::kEvent);
  EXPECT_EQ(w->watching(), 2);
  EXPECT_EQ(w->Wait(kShort, stop_), Woke::kTimeout);
  std::thread writer([&] { Write(sub + "/web-1.json"); });
  EXPECT_EQ(w->Wait(kLong, stop_), Woke::kEvent);
  writer.join();
}

TEST_F(EventWakeTest, ADirectoryRemovedAndMadeAgainIsWatchedAgain) {
  const std::string sub = dir_ + "/hostguard";
  ASSERT_EQ(::mkdir(sub.c_str(), 0755), 0);
  auto w = Open({{dir_, {"hostguard"}}, {sub, {"armed.json"}}});
  EXPECT_EQ(w->watching(), 2);
  ASSERT_EQ(::rmdir(sub.c_str()), 0);
  EXPECT_EQ(w->Wait(kLong, stop_), Woke::kEvent);
  ASSERT_EQ(::mkdir(sub.c_str(), 0755), 0);
  // Whichever comes first, the parent's event or the new watch, the waits
  // end until the directory is watched again.
  for (int i = 0; i < 3 && w->watching() < 2; ++i) w->Wait(kShort, stop_);
  EXPECT_EQ(w->watching(), 2);
  while (w->Wait(kShort, stop_) != Woke::kTimeout) {
  }
  std::thread writer([&] { Write(sub + "/armed.json"); });
  EXPECT_EQ(w->Wait(kLong, stop_), Woke::kEvent);
  writer.join();
}

}  // namespace
}  // namespace carlos::host
