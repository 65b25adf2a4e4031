#include "base/log.h"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <chrono>
#include <ctime>
#include <string>

#include "base/log_layout.h"

namespace carlos {

namespace {

spdlog::logger* Logger() {
  static spdlog::logger* logger = [] {
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    auto* l = new spdlog::logger("carlos", sink);
    // The time stamp, when there is one, is formatted by FormatLogLine.
    l->set_pattern("%v");
    l->flush_on(spdlog::level::trace);
    return l;
  }();
  return logger;
}

LogLayout ProcessLayout() {
  static const LogLayout layout = LogLayoutFromEnv(ProcessGetenv());
  return layout;
}

std::string LocalTimeNow() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  ::localtime_r(&t, &tm);
  char buf[32];
  size_t n = std::strftime(buf, sizeof(buf), "%Y/%m/%d %H:%M:%S", &tm);
  return std::string(buf, n);
}

}  // namespace

LogLayout LogLayoutFromEnv(const Getenv& getenv) {
  std::string stream = getenv("JOURNAL_STREAM");
  if (stream.empty()) return LogLayout::kGo;
  struct stat st {};
  if (::fstat(2, &st) != 0) return LogLayout::kGo;
  const std::string mine = fmt::format("{}:{}", static_cast<unsigned long long>(st.st_dev),
                                       static_cast<unsigned long long>(st.st_ino));
  return stream == mine ? LogLayout::kJournal : LogLayout::kGo;
}

std::string FormatLogLine(LogLayout layout, Priority priority, std::string_view line,
                          std::string_view local_time) {
  if (layout == LogLayout::kJournal) {
    return fmt::format("<{}>{}", static_cast<int>(priority), line);
  }
  return fmt::format("{} {}", local_time.substr(0, 19), line);
}

void LogLine(Priority priority, const std::string& line) {
  const LogLayout layout = ProcessLayout();
  Logger()->info(
      FormatLogLine(layout, priority, line, layout == LogLayout::kGo ? LocalTimeNow() : ""));
}

void LogLine(const std::string& line) { LogLine(Priority::kInfo, line); }

Logf StderrLogf() { return PriorityLogf(Priority::kInfo); }

Logf PriorityLogf(Priority priority) {
  return [priority](const std::string& line) { LogLine(priority, line); };
}

}  // namespace carlos
