// The reasons' stable names (docs/enroll.md, "Rules of automatic
// enrollment": what is logged, listed and counted) and the once-per-reason
// log, which compares reasons as values.
#include "enroll/reason.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "enroll/reason_log.h"

namespace carlos::enroll {
namespace {

TEST(ReasonName, EachReasonHasItsDocumentedName) {
  const std::vector<std::pair<Reason, std::string_view>> names = {
      {Reason::kNone, ""},
      {Reason::kRecordRefused, "record refused"},
      {Reason::kRetired, "retired"},
      {Reason::kRetirementRefused, "retirement refused"},
      {Reason::kOtherRegion, "other region"},
      {Reason::kUnattested, "unattested"},
      {Reason::kForeignAccount, "foreign account"},
      {Reason::kConflict, "conflict"},
      {Reason::kEnrollmentRefused, "enrollment refused"},
      {Reason::kReferenced, "referenced"},
      {Reason::kInvitationRefused, "invitation refused"},
      {Reason::kNoReport, "no report"},
      {Reason::kReportRefused, "report refused"},
      {Reason::kNotGuardReady, "not guard-ready"},
      {Reason::kReportStale, "report stale"},
      {Reason::kReportMismatch, "report mismatch"},
      {Reason::kGuardNotArmed, "guard not armed"},
      {Reason::kGuardBoundElsewhere, "guard bound elsewhere"},
      {Reason::kStore, "store"},
  };
  std::set<std::string_view> seen;
  for (const auto& [reason, name] : names) {
    EXPECT_EQ(ReasonName(reason), name);
    EXPECT_TRUE(seen.insert(ReasonName(reason)).second) << name;
  }
  // The last enumerator: a reason added without a name fails here.
  EXPECT_EQ(static_cast<int>(Reason::kStore) + 1, static_cast<int>(names.size()));
}

TEST(ReasonOf, TheGuardReadyRowsMapToTheirReasons) {
  using protocol::GuardReadiness;
  EXPECT_EQ(ReasonOf(GuardReadiness::kReady), Reason::kNone);
  EXPECT_EQ(ReasonOf(GuardReadiness::kWrongKey), Reason::kConflict);
  EXPECT_EQ(ReasonOf(GuardReadiness::kStoreError), Reason::kStore);
  for (GuardReadiness r :
       {GuardReadiness::kNoReport, GuardReadiness::kRefused, GuardReadiness::kNotGuardReady,
        GuardReadiness::kStale, GuardReadiness::kMismatch, GuardReadiness::kNotArmed,
        GuardReadiness::kBoundElsewhere, GuardReadiness::kWrongKey, GuardReadiness::kStoreError}) {
    EXPECT_EQ(ReasonName(ReasonOf(r)), protocol::GuardReadinessName(r));
  }
}

TEST(ReasonLog, LogsEachBoxsReasonOnceUntilItChanges) {
  std::vector<std::string> lines;
  Logf logf = [&](const std::string& l) { lines.push_back(l); };
  ReasonLog log;
  EXPECT_TRUE(log.Note(logf, "web-1", Reason::kReportStale, "stale 1"));
  EXPECT_FALSE(log.Note(logf, "web-1", Reason::kReportStale, "stale 2"));
  EXPECT_TRUE(log.Note(logf, "web-2", Reason::kReportStale, "other box"));
  EXPECT_TRUE(log.Note(logf, "web-1", Reason::kGuardNotArmed, "not armed"));
  log.Clear("web-1");
  EXPECT_TRUE(log.Note(logf, "web-1", Reason::kGuardNotArmed, "not armed again"));
  EXPECT_EQ(lines,
            (std::vector<std::string>{"stale 1", "other box", "not armed", "not armed again"}));
}

}  // namespace
}  // namespace carlos::enroll
