#include "dev/region_view.h"

#include <fmt/format.h>

#include <algorithm>

namespace carlos::dev {

namespace {

std::string HealthColumn(const HealthAnswer& a) {
  return a.code == 0 ? "-" : std::to_string(a.code);
}

std::string StageColumn(const HealthAnswer& a) {
  if (a.code == 200 && a.text.empty()) return "hosting";
  return a.text.empty() ? "(empty answer)" : a.text;
}

std::string Describe(const HealthAnswer& a) { return HealthColumn(a) + " " + StageColumn(a); }

}  // namespace

std::string ShortDuration(Milliseconds d) {
  long long ms = std::max<long long>(0, d.count());
  if (ms < 1000) return fmt::format("{}ms", ms);
  if (ms < 60'000) return fmt::format("{:.1f}s", static_cast<double>(ms) / 1000.0);
  long long s = ms / 1000;
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

RegionView::RegionView(std::vector<std::string> boxes, std::vector<std::string> urls,
                       SystemTime start) {
  for (size_t i = 0; i < boxes.size(); ++i) {
    BoxRow r;
    r.box = boxes[i];
    r.url = i < urls.size() ? urls[i] : "";
    r.since = start;
    rows_.push_back(std::move(r));
  }
}

std::optional<std::string> RegionView::Update(size_t i, const HealthAnswer& answer,
                                              SystemTime now) {
  BoxRow& r = rows_[i];
  if (r.answer == answer) return std::nullopt;
  std::string line = fmt::format(
      "{}: {} (after {} {})", r.box, Describe(answer),
      ShortDuration(std::chrono::duration_cast<Milliseconds>(now - r.since)), Describe(r.answer));
  r.answer = answer;
  r.since = now;
  return line;
}

void RegionView::SetAgent(size_t i, int pid, int starts) {
  rows_[i].agent_pid = pid;
  rows_[i].agent_starts = starts;
}

std::string RegionView::Table(SystemTime now, const std::vector<std::string>& footer) const {
  std::vector<std::vector<std::string>> cells;
  cells.push_back({"BOX", "HEALTH", "STAGE", "FOR", "AGENT"});
  for (const BoxRow& r : rows_) {
    std::string agent = r.agent_pid == 0
                            ? "not running"
                            : fmt::format("pid {} (start {})", r.agent_pid, r.agent_starts);
    cells.push_back({r.box, HealthColumn(r.answer), StageColumn(r.answer),
                     ShortDuration(std::chrono::duration_cast<Milliseconds>(now - r.since)),
                     agent});
  }
  std::vector<size_t> width(cells[0].size(), 0);
  for (const auto& row : cells)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  std::string out;
  for (const auto& row : cells) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    out += line + "\n";
  }
  for (const auto& f : footer) out += f + "\n";
  return out;
}

size_t RegionView::Hosting() const {
  return static_cast<size_t>(std::count_if(rows_.begin(), rows_.end(),
                                           [](const BoxRow& r) { return r.answer.code == 200; }));
}

}  // namespace carlos::dev
