// A repeating failure: once per distinct cause, one line when it ends
// (base/failure_log.h).
#include "base/failure_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace carlos {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(FailureLog, OncePerCauseThenOneRecoveryLine) {
  FakeClock clock(SystemTime(std::chrono::seconds(1'800'000'000)));
  std::vector<std::string> lines;
  FailureLog log([&](const std::string& l) { lines.push_back(l); }, &clock);
  log.Succeeded("store reachable");  // Nothing failed: nothing to say.
  EXPECT_THAT(lines, IsEmpty());
  for (int i = 0; i < 5; ++i) {
    log.Failed("connection refused", "store: connection refused; checking again");
    clock.Advance(Milliseconds(20'000));
  }
  log.Failed("503 SlowDown", "store: 503 SlowDown; checking again");
  clock.Advance(Milliseconds(33'000));
  log.Succeeded("store reachable");
  log.Succeeded("store reachable");
  EXPECT_THAT(lines, ElementsAre("store: connection refused; checking again",
                                 "store: 503 SlowDown; checking again",
                                 "store reachable again after 2m13s"));
  // A new outage is logged again, even with the first cause.
  log.Failed("connection refused", "store: connection refused; checking again");
  EXPECT_EQ(lines.size(), 4u);
}

// Failure lines go to the failure Logf (warning priority under the journal),
// a cause that needs an operator to the one given, the recovery to logf.
TEST(FailureLog, FailuresAndRecoveryHaveTheirOwnLogf) {
  FakeClock clock(SystemTime(std::chrono::seconds(1'800'000'000)));
  std::vector<std::string> info, warn, err;
  FailureLog log([&](const std::string& l) { info.push_back(l); }, &clock,
                 [&](const std::string& l) { warn.push_back(l); });
  log.Failed("refused", "store: refused");
  log.Failed("conflict", "record: conflict", [&](const std::string& l) { err.push_back(l); });
  clock.Advance(Milliseconds(61'000));
  log.Succeeded("store reachable");
  EXPECT_THAT(warn, ElementsAre("store: refused"));
  EXPECT_THAT(err, ElementsAre("record: conflict"));
  EXPECT_THAT(info, ElementsAre("store reachable again after 1m1s"));
}

}  // namespace
}  // namespace carlos
