#include <gtest/gtest.h>

#include "base/clock.h"
#include "base/env.h"
#include "base/files.h"
#include "base/status.h"
#include "base/strings.h"
#include "cli/commands.h"
#include "host/version.h"

namespace carlos {
namespace {

TEST(Status, CodesAndAnnotate) {
  Status s = NotFound("no such key control/boxes/a.json");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_EQ(s.Annotate("get").message(), "get: no such key control/boxes/a.json");
  EXPECT_EQ(CodeName(Code::kPreconditionFailed), "precondition failed");
  StatusOr<int> v = 7;
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 7);
  StatusOr<int> e = Unavailable("down");
  EXPECT_EQ(e.status().code(), Code::kUnavailable);
  StatusOr<int> bad = OkStatus();
  EXPECT_EQ(bad.status().code(), Code::kInternal);
}

TEST(Clock, Rfc3339RoundTrip) {
  SystemTime t{};
  ASSERT_TRUE(ParseRfc3339("2026-11-29T18:56:26.123456789Z", &t));
  EXPECT_EQ(FormatRfc3339Nano(t), "2026-11-29T18:56:26.123456789Z");
  EXPECT_EQ(FormatRfc3339(t), "2026-11-29T18:56:26Z");
  ASSERT_TRUE(ParseRfc3339("2026-11-29T18:56:26.5Z", &t));
  EXPECT_EQ(FormatRfc3339Nano(t), "2026-11-29T18:56:26.5Z");
  EXPECT_FALSE(ParseRfc3339("2026-11-29T18:56:26+01:00", &t));
  EXPECT_FALSE(ParseRfc3339("2026-02-31T00:00:00Z", &t));
  EXPECT_FALSE(ParseRfc3339("2026-11-29 18:56:26Z", &t));
  EXPECT_FALSE(ParseRfc3339("", &t));
  EXPECT_FALSE(ParseRfc3339("9999-12-31T23:59:59Z", &t));  // Past SystemTime's range.
  EXPECT_FALSE(ParseRfc3339("1969-12-31T23:59:59Z", &t));
}

TEST(Clock, FormatDurationAsGo) {
  EXPECT_EQ(FormatDuration(Milliseconds(15000)), "15s");
  EXPECT_EQ(FormatDuration(Milliseconds(60000)), "1m0s");
  EXPECT_EQ(FormatDuration(Milliseconds(500)), "500ms");
  EXPECT_EQ(FormatDuration(Milliseconds(1500)), "1.5s");
  EXPECT_EQ(FormatDuration(Milliseconds(150000)), "2m30s");
}

TEST(Clock, FakeClockSleepAdvancesAndStops) {
  FakeClock clock(SystemTime(Seconds(1000)));
  Stop stop;
  int calls = 0;
  clock.OnSleep([&](SystemTime now) {
    ++calls;
    if (now >= SystemTime(Seconds(1030))) stop.Request();
  });
  EXPECT_TRUE(clock.Sleep(Seconds(15), stop));
  EXPECT_FALSE(clock.Sleep(Seconds(15), stop));
  EXPECT_FALSE(clock.Sleep(Seconds(15), stop));  // Already stopped: no advance.
  EXPECT_EQ(clock.Now(), SystemTime(Seconds(1030)));
  EXPECT_EQ(calls, 2);
}

TEST(Env, SwitchesAreOnWhenNotBlank) {
  Getenv env = MapGetenv({{"A", "0"}, {"B", "false"}, {"C", "  "}, {"CARLOS_DATA_DIR", " /srv "}});
  EXPECT_TRUE(SwitchOn(env, "A"));
  EXPECT_TRUE(SwitchOn(env, "B"));
  EXPECT_FALSE(SwitchOn(env, "C"));
  EXPECT_FALSE(SwitchOn(env, "D"));
  EXPECT_EQ(DataDir(env), "/srv");
  EXPECT_EQ(DataDir(MapGetenv({})), "/data");
}

TEST(Strings, Labels) {
  EXPECT_TRUE(IsLabel("web-1"));
  EXPECT_TRUE(IsLabel(std::string(63, 'a')));
  EXPECT_FALSE(IsLabel(std::string(64, 'a')));
  EXPECT_FALSE(IsLabel(""));
  EXPECT_FALSE(IsLabel("Web"));
  EXPECT_FALSE(IsLabel("a.b"));
}

TEST(Version, CompareReleases) {
  EXPECT_LT(CompareReleases("1.9.2", "1.10.0"), 0);
  EXPECT_EQ(CompareReleases("1.2", "1.2.0"), 0);
  EXPECT_GT(CompareReleases("2.0", "1.99.99"), 0);
  EXPECT_EQ(Platform().rfind("linux-", 0), 0u);
}

TEST(Cli, GoFlagsBecomeGnuFlags) {
  const char* argv[] = {"carlos", "agent",        "-http",          ":8080", "-dev",
                        "-h",     "--https=:443", "-acme-cache=/x", "--",    "-keep"};
  auto out = cli::NormalizeGoFlags(10, argv);
  std::vector<std::string> want = {"carlos", "agent",        "--http",          ":8080", "--dev",
                                   "-h",     "--https=:443", "--acme-cache=/x", "--",    "-keep"};
  EXPECT_EQ(out, want);
}

TEST(Files, AtomicWriteAndCreateExclusive) {
  char tmpl[] = "/tmp/carlos-files-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  std::string path = dir + "/a/b/doc.json";
  ASSERT_TRUE(MakeDirs(dir + "/a/b", 0755).ok());
  ASSERT_TRUE(WriteFileAtomic(path, "one", 0600).ok());
  ASSERT_TRUE(WriteFileAtomic(path, "two", 0600).ok());
  auto got = ReadFileLimited(path, 100);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, "two");
  EXPECT_EQ(ReadFileLimited(path, 2).status().code(), Code::kCorrupt);
  EXPECT_EQ(CreateFileExclusive(path, "three", 0600).code(), Code::kPreconditionFailed);
  EXPECT_EQ(*ReadFileLimited(path, 100), "two");
  EXPECT_TRUE(CreateFileExclusive(dir + "/a/b/new.json", "x", 0644).ok());
  EXPECT_EQ(ReadFileLimited(dir + "/nope", 10).status().code(), Code::kNotFound);
  std::system(("rm -rf " + dir).c_str());
}

}  // namespace
}  // namespace carlos
