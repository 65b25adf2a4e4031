// The log layout (base/log_layout.h): Go's on a terminal, sd-daemon
// priority prefixes without a time stamp under the journal.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "base/log_layout.h"

namespace carlos {
namespace {

TEST(FormatLogLine, GoLayoutHasTheTimeStampAndNoPriority) {
  EXPECT_EQ(FormatLogLine(LogLayout::kGo, Priority::kWarning, "agent: x", "2026/11/29 18:56:26"),
            "2026/11/29 18:56:26 agent: x");
}

TEST(FormatLogLine, JournalLayoutHasThePriorityAndNoTimeStamp) {
  EXPECT_EQ(FormatLogLine(LogLayout::kJournal, Priority::kErr, "agent: x", ""), "<3>agent: x");
  EXPECT_EQ(FormatLogLine(LogLayout::kJournal, Priority::kWarning, "w", ""), "<4>w");
  EXPECT_EQ(FormatLogLine(LogLayout::kJournal, Priority::kNotice, "n", ""), "<5>n");
  EXPECT_EQ(FormatLogLine(LogLayout::kJournal, Priority::kInfo, "i", ""), "<6>i");
  EXPECT_EQ(FormatLogLine(LogLayout::kJournal, Priority::kDebug, "d", ""), "<7>d");
}

TEST(LogLayoutFromEnv, JournalOnlyWhenJournalStreamNamesStderr) {
  struct stat st {};
  ASSERT_EQ(::fstat(2, &st), 0);
  const std::string mine = std::to_string(static_cast<unsigned long long>(st.st_dev)) + ":" +
                           std::to_string(static_cast<unsigned long long>(st.st_ino));
  EXPECT_EQ(LogLayoutFromEnv(MapGetenv({{"JOURNAL_STREAM", mine}})), LogLayout::kJournal);
  EXPECT_EQ(LogLayoutFromEnv(MapGetenv({})), LogLayout::kGo);
  // Inherited from a service but redirected since (a terminal, a file).
  EXPECT_EQ(LogLayoutFromEnv(MapGetenv({{"JOURNAL_STREAM", mine + "1"}})), LogLayout::kGo);
}

}  // namespace
}  // namespace carlos
