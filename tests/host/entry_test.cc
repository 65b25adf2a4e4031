// The entry (seed: agentEntry, awaitGroupReference, groupReferenceBackoff)
// with a FakeClock and an injected resolver: exact log lines, attempts and
// waits, no sleeps.
#include "host/entry.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace carlos::host {
namespace {

using namespace std::chrono_literals;

SystemTime T0() { return SystemTime(std::chrono::seconds(1'800'000'000)); }

TEST(GroupReferenceBackoff, OneSecondDoublingAtMostThirty) {
  std::vector<Milliseconds> want = {1s, 2s, 4s, 8s, 16s, 30s, 30s, 30s};
  for (size_t i = 0; i < want.size(); i++) {
    EXPECT_EQ(GroupReferenceBackoff(static_cast<int>(i) + 1), want[i]) << "n=" << i + 1;
  }
  EXPECT_EQ(GroupReferenceBackoff(1000), 30s);
  EXPECT_EQ(GroupReferenceBackoff(0), 1s);
}

TEST(AwaitGroupReference, LogsEachFailureWithAttemptAndWaitThenTheReference) {
  FakeClock clock(T0());
  Stop stop;
  std::vector<std::string> lines;
  int calls = 0;
  std::vector<SystemTime> asked;
  auto resolve = [&]() -> StatusOr<std::string> {
    asked.push_back(clock.Now());
    calls++;
    if (calls == 1) return DeadlineExceeded("IMDS did not answer");
    if (calls <= 6) return NotFound("the instance has neither tag carlos:group nor x");
    return std::string("web-eu");
  };
  bool ok = AwaitGroupReference(stop, resolve, GroupReferenceBackoff, clock,
                                [&](const std::string& l) { lines.push_back(l); });
  EXPECT_TRUE(ok);
  EXPECT_EQ(calls, 7);
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[0],
            "agent: this box's group reference could not be read from its identity document "
            "(attempt 1): IMDS did not answer; the agent starts once it is, asking again in 1s");
  EXPECT_EQ(lines[1],
            "agent: this box's group reference could not be read from its identity document "
            "(attempt 2): the instance has neither tag carlos:group nor x; the agent starts once "
            "it is, asking again in 2s");
  EXPECT_NE(lines[4].find("(attempt 5): "), std::string::npos);
  EXPECT_NE(lines[4].find("asking again in 16s"), std::string::npos);
  EXPECT_NE(lines[5].find("(attempt 6): "), std::string::npos);
  EXPECT_NE(lines[5].find("asking again in 30s"), std::string::npos);
  EXPECT_EQ(lines[6], "agent: this box's group reference is web-eu");
  // Waits 1+2+4+8+16+30 s between the asks.
  std::vector<Milliseconds> gaps;
  for (size_t i = 1; i < asked.size(); i++) {
    gaps.push_back(std::chrono::duration_cast<Milliseconds>(asked[i] - asked[i - 1]));
  }
  EXPECT_EQ(gaps, (std::vector<Milliseconds>{1s, 2s, 4s, 8s, 16s, 30s}));
  EXPECT_EQ(clock.sleeps(), 6);
}

TEST(AwaitGroupReference, ResolvedAtOnceLogsOnlyTheReference) {
  FakeClock clock(T0());
  Stop stop;
  std::vector<std::string> lines;
  EXPECT_TRUE(AwaitGroupReference(
      stop, [] { return StatusOr<std::string>(std::string("g")); }, GroupReferenceBackoff, clock,
      [&](const std::string& l) { lines.push_back(l); }));
  EXPECT_EQ(lines, (std::vector<std::string>{"agent: this box's group reference is g"}));
  EXPECT_EQ(clock.sleeps(), 0);
}

TEST(AwaitGroupReference, StopWhileWaitingReturnsFalse) {
  FakeClock clock(T0());
  Stop stop;
  int calls = 0;
  clock.OnSleep([&](SystemTime now) {
    if (now - T0() >= 3s) stop.Request();  // After the second wait (1 s + 2 s).
  });
  std::vector<std::string> lines;
  bool ok = AwaitGroupReference(
      stop,
      [&]() -> StatusOr<std::string> {
        calls++;
        return Unavailable("IMDS answered 500");
      },
      GroupReferenceBackoff, clock, [&](const std::string& l) { lines.push_back(l); });
  EXPECT_FALSE(ok);
  // Asked at 0 s and 1 s; the stop comes during the second wait (at 3 s),
  // which then ends without a third ask.
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(lines.size(), 2u);
  EXPECT_EQ(clock.Now() - T0(), 3s);
  EXPECT_NE(lines.back().find("(attempt 2): IMDS answered 500; the agent starts once it is, "
                              "asking again in 2s"),
            std::string::npos);
}

TEST(AgentEntry, GroupBoxResolvesFirstThenGateThenRun) {
  FakeClock clock(T0());
  Stop stop;
  std::vector<std::string> order;
  int calls = 0;
  AgentEntry(
      MapGetenv({{"CARLOS_BOX_REFERENCE", "group"}}),  // Claim and HA switches off.
      [&]() -> StatusOr<std::string> {
        order.push_back("resolve");
        if (++calls < 3) return DeadlineExceeded("timeout");
        return std::string("asg-1");
      },
      GroupReferenceBackoff, clock, [&](const std::string& l) { order.push_back("log: " + l); },
      stop,
      [&] {
        order.push_back("gate");
        return true;
      },
      [&] { order.push_back("run"); });
  ASSERT_EQ(order.size(), 8u);
  EXPECT_EQ(order[0], "resolve");
  EXPECT_EQ(order[1],
            "log: agent: this box's group reference could not be read from its identity document "
            "(attempt 1): timeout; the agent starts once it is, asking again in 1s");
  EXPECT_EQ(order[4], "resolve");
  EXPECT_EQ(order[5], "log: agent: this box's group reference is asg-1");
  EXPECT_EQ(order[6], "gate");
  EXPECT_EQ(order[7], "run");
  EXPECT_EQ(clock.Now() - T0(), 3s);
}

TEST(AgentEntry, GateSaysNoMeansNoRun) {
  FakeClock clock(T0());
  Stop stop;
  bool ran = false;
  AgentEntry(
      MapGetenv({{"CARLOS_BOX_REFERENCE", "group"}}),
      [] { return StatusOr<std::string>(std::string("g")); }, GroupReferenceBackoff, clock,
      [](const std::string&) {}, stop, [] { return false; }, [&] { ran = true; });
  EXPECT_FALSE(ran);
}

TEST(AgentEntry, StopWhileAwaitingSkipsGateAndRun) {
  FakeClock clock(T0());
  Stop stop;
  clock.OnSleep([&](SystemTime) { stop.Request(); });
  bool gated = false, ran = false;
  int calls = 0;
  AgentEntry(
      MapGetenv({{"CARLOS_BOX_REFERENCE", "group"}, {"CARLOS_HOST_CLAIM", "1"}}),
      [&]() -> StatusOr<std::string> {
        calls++;
        return PreconditionFailed("instance tags are not enabled");
      },
      GroupReferenceBackoff, clock, [](const std::string&) {}, stop,
      [&] {
        gated = true;
        return true;
      },
      [&] { ran = true; });
  EXPECT_GE(calls, 1);
  EXPECT_LE(calls, 2);
  EXPECT_FALSE(gated);
  EXPECT_FALSE(ran);
}

TEST(AgentEntry, NonGroupBoxResolvesNothing) {
  for (std::string ref : {"", "label", "Group", "groups"}) {
    FakeClock clock(T0());
    Stop stop;
    int resolved = 0;
    std::vector<std::string> lines;
    bool ran = false;
    AgentEntry(
        MapGetenv(
            {{"CARLOS_BOX_REFERENCE", ref}, {"CARLOS_HOST_CLAIM", "1"}, {"CARLOS_REGION_HA", "1"}}),
        [&]() -> StatusOr<std::string> {
          resolved++;
          return std::string("g");
        },
        GroupReferenceBackoff, clock, [&](const std::string& l) { lines.push_back(l); }, stop,
        [] { return true; }, [&] { ran = true; });
    EXPECT_EQ(resolved, 0) << ref;
    EXPECT_TRUE(lines.empty()) << ref;
    EXPECT_TRUE(ran) << ref;
  }
}

}  // namespace
}  // namespace carlos::host
