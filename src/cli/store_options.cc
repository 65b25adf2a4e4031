#include "cli/store_options.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <mutex>

#include "base/duration.h"

namespace carlos::cli {

namespace {

StatusOr<Milliseconds> Timeout(const std::string& s) {
  StatusOr<std::chrono::nanoseconds> d = ParseDuration(s);
  if (!d.ok()) return d.status();
  auto ms = std::chrono::duration_cast<Milliseconds>(*d);
  if (ms.count() <= 0) return InvalidArgument(fmt::format("{:?} is not above 0", s));
  return ms;
}

size_t TerminalWidth() {
  winsize ws{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1) return ws.ws_col - 1;
  return 0;
}

}  // namespace

void AddTimeoutFlag(CLI::App* cmd, std::string* timeout) {
  cmd->add_option("--timeout", *timeout,
                  "The most one store request waits, retries included, a Go duration (20s)")
      ->type_name("DURATION")
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            StatusOr<Milliseconds> t = Timeout(s);
            return t.ok() ? "" : t.status().message();
          },
          "DURATION"));
}

std::string ProgressLine(std::string_view command, const RetryNote& note, size_t width) {
  std::string line = fmt::format("{}: {}: attempt {} failed: {}; next try in {}", command,
                                 note.what, note.attempt, note.cause, FormatDuration(note.next_in));
  if (width > 0 && line.size() > width) line.resize(width);
  return line;
}

StoreOpenOptions CommandStoreOptions(std::string_view command, const std::string& timeout) {
  StoreOpenOptions o;
  if (!timeout.empty()) {
    StatusOr<Milliseconds> t = Timeout(timeout);
    if (t.ok()) o.deadline = *t;  // AddTimeoutFlag's check refused the others.
  }
  if (isatty(STDERR_FILENO) == 1) {
    struct Line {
      std::mutex mu;
      bool drawn = false;
    };
    auto state = std::make_shared<Line>();
    o.on_retry = [state, command = std::string(command)](const RetryNote& note) {
      std::lock_guard<std::mutex> lock(state->mu);
      if (note.ended) {
        if (state->drawn) std::fputs("\r\033[K", stderr);
        state->drawn = false;
      } else {
        std::fprintf(stderr, "\r\033[K%s", ProgressLine(command, note, TerminalWidth()).c_str());
        state->drawn = true;
      }
      std::fflush(stderr);
    };
  }
  return o;
}

}  // namespace carlos::cli
