#include <algorithm>

#include "cli/commands.h"

namespace carlos::cli {

std::vector<std::string> NormalizeGoFlags(int argc, const char* const* argv) {
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(argc));
  bool passthrough = false;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (i > 0 && !passthrough) {
      if (a == "--") {
        passthrough = true;
      } else if (a.size() > 2 && a[0] == '-' && a[1] != '-' &&
                 ((a[1] >= 'a' && a[1] <= 'z') || (a[1] >= 'A' && a[1] <= 'Z'))) {
        // "-http" or "-http=:80": Go's flag package spelling of a long flag.
        // "-h" alone stays short; "-hx" cannot be a bundle of short flags
        // because no command here defines bundles.
        a = "-" + a;
      }
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::string NearestName(std::string_view typed, const std::vector<std::string>& names) {
  std::string best;
  size_t best_d = 3;
  std::string prefixed;
  int prefixes = 0;
  for (const auto& n : names) {
    // Levenshtein distance, one row at a time.
    std::vector<size_t> row(n.size() + 1);
    for (size_t j = 0; j <= n.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= typed.size(); ++i) {
      size_t diag = row[0];
      row[0] = i;
      for (size_t j = 1; j <= n.size(); ++j) {
        size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (typed[i - 1] != n[j - 1])});
        diag = up;
      }
    }
    if (row[n.size()] < best_d && row[n.size()] < typed.size()) {
      best_d = row[n.size()];
      best = n;
    }
    if (!typed.empty() && n.starts_with(typed)) {
      ++prefixes;
      prefixed = n;
    }
  }
  if (!best.empty()) return best;
  return prefixes == 1 ? prefixed : "";
}

std::string UnknownCommandError(CLI::App& app, const std::vector<std::string>& args) {
  CLI::App* cur = &app;
  std::string path = app.get_name();
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.empty() || a[0] == '-') return "";  // Flags: CLI11's to judge.
    std::vector<CLI::App*> subs = cur->get_subcommands([](CLI::App*) { return true; });
    if (subs.empty()) return "";
    CLI::App* next = nullptr;
    std::vector<std::string> names;
    for (CLI::App* s : subs) {
      if (s->check_name(a)) next = s;
      names.push_back(s->get_name());
    }
    if (!next) {
      std::string hint = NearestName(a, names);
      return path + ": unknown command \"" + a + "\"" +
             (hint.empty() ? "" : "; did you mean \"" + hint + "\"?") + " (" + path +
             " -h lists them)";
    }
    cur = next;
    path += " " + next->get_name();
  }
  return "";
}

std::string ParsedCommandPath(CLI::App& app) {
  std::string path = app.get_name();
  CLI::App* cur = &app;
  for (;;) {
    std::vector<CLI::App*> parsed = cur->get_subcommands();
    if (parsed.empty()) return path;
    cur = parsed.front();
    path += " " + cur->get_name();
  }
}

}  // namespace carlos::cli
