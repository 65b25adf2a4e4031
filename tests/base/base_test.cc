#include <gtest/gtest.h>

#include "base/clock.h"
#include "base/env.h"
#include "base/files.h"
#include "base/status.h"
#include "base/strings.h"
#include "cli/commands.h"

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

struct TestPayload {
  int value;
};

TEST(Status, CarriesATypedPayloadThroughRephrasing) {
  Status st = Unavailable("store down").WithPayload(TestPayload{7});
  ASSERT_NE(st.Payload<TestPayload>(), nullptr);
  EXPECT_EQ(st.Payload<TestPayload>()->value, 7);
  EXPECT_EQ(st.Payload<int>(), nullptr);  // Another type: none.
  Status annotated = st.Annotate("reading control/boxes/web-1.json");
  EXPECT_EQ(annotated.message(), "reading control/boxes/web-1.json: store down");
  ASSERT_NE(annotated.Payload<TestPayload>(), nullptr);
  EXPECT_EQ(annotated.Payload<TestPayload>()->value, 7);
  Status rephrased = st.WithMessage("the store could not say");
  EXPECT_EQ(rephrased.code(), Code::kUnavailable);
  EXPECT_EQ(rephrased.Payload<TestPayload>()->value, 7);
  // OK carries nothing.
  EXPECT_EQ(OkStatus().WithPayload(TestPayload{1}).Payload<TestPayload>(), nullptr);
  // A status built anew from the code and message has no payload.
  EXPECT_EQ(Status(st.code(), st.message()).Payload<TestPayload>(), nullptr);
}

}  // namespace
}  // namespace carlos
