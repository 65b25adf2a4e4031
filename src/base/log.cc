#include "base/log.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace carlos {

namespace {

spdlog::logger* Logger() {
  static spdlog::logger* logger = [] {
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    auto* l = new spdlog::logger("carlos", sink);
    l->set_pattern("%Y/%m/%d %H:%M:%S %v");
    l->flush_on(spdlog::level::trace);
    return l;
  }();
  return logger;
}

}  // namespace

void LogLine(const std::string& line) { Logger()->info(line); }

Logf StderrLogf() {
  return [](const std::string& line) { LogLine(line); };
}

}  // namespace carlos
