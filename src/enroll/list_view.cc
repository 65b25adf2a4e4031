#include "enroll/list_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "enroll/stage.h"
#include "protocol/guard_ready.h"

namespace carlos::enroll {

BoxRow MakeRow(const BoxDocs& docs, const Verdict& verdict, SystemTime now) {
  BoxRow row;
  row.box = docs.box;
  if (docs.record.parsed) {
    row.region = docs.record.parsed->doc.region;
    row.instance_id = docs.record.parsed->doc.instance_id;
  }
  StatusOr<protocol::Stage> stage = StoreStage(docs);
  row.stage = stage.ok() ? std::string(protocol::StageName(*stage)) : "unknown";
  if (docs.report.valid()) {
    const identity::StatusReport& r = docs.report.parsed->doc;
    row.reported_at = r.reported_at;
    row.report_age =
        protocol::FreshnessOf(docs.report_written_at.value_or(now), now, Milliseconds::max()).age;
    if (r.guard) row.guard_armed = r.guard->armed;
  }
  // A box that is enrolled publishes its own edges file as it hosts: that
  // makes it referenced to neither the stage function nor the enroller's
  // rules (protocol/stage.h, verdict.h: referenced counts only for a box
  // that is not enrolled), so the list does not show it either.
  if (!docs.enrollment.valid()) row.referenced_by = docs.referenced_by.value_or("");
  row.next = std::string(VerdictKindName(verdict.kind));
  if (verdict.kind == VerdictKind::kRefused || verdict.kind == VerdictKind::kWaiting ||
      verdict.kind == VerdictKind::kError) {
    row.refused_because = std::string(ReasonName(verdict.reason));
    row.detail = verdict.detail;
  }
  return row;
}

namespace {

std::string AgeText(const BoxRow& row) {
  if (!row.report_age) return "-";
  // Whole seconds: a table of ages to the millisecond is noise.
  return FormatDuration(std::chrono::duration_cast<Seconds>(*row.report_age));
}

std::string OrDash(const std::string& s) { return s.empty() ? "-" : s; }

}  // namespace

std::string FormatTable(const std::vector<BoxRow>& rows) {
  constexpr size_t kColumns = 8;
  using Line = std::array<std::string, kColumns>;
  std::vector<Line> lines;
  lines.push_back({"BOX", "REGION", "STAGE", "INSTANCE", "REPORT-AGE", "ARMED", "REFERENCED",
                   "REFUSED-BECAUSE"});
  for (const BoxRow& r : rows) {
    std::string armed = r.guard_armed ? (*r.guard_armed ? "yes" : "no") : "-";
    lines.push_back({r.box, OrDash(r.region), r.stage, OrDash(r.instance_id), AgeText(r), armed,
                     r.referenced_by.empty() ? "no" : "yes", OrDash(r.refused_because)});
  }
  std::array<size_t, kColumns> width{};
  for (const Line& l : lines) {
    for (size_t c = 0; c < kColumns; ++c) width[c] = std::max(width[c], l[c].size());
  }
  std::string out;
  for (const Line& l : lines) {
    std::string line;
    for (size_t c = 0; c < kColumns; ++c) {
      if (c + 1 < kColumns) {
        line += fmt::format("{:<{}}  ", l[c], width[c]);
      } else {
        line += l[c];
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

nlohmann::json RowsToJson(const std::vector<BoxRow>& rows, SystemTime now) {
  auto str_or_null = [](const std::string& s) -> nlohmann::json {
    return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
  };
  nlohmann::json boxes = nlohmann::json::array();
  for (const BoxRow& r : rows) {
    nlohmann::json o;
    o["box"] = r.box;
    o["region"] = r.region;
    o["stage"] = r.stage;
    o["instance_id"] = r.instance_id;
    o["reported_at"] = r.reported_at ? nlohmann::json(FormatRfc3339(*r.reported_at)) : nullptr;
    o["report_age_seconds"] =
        r.report_age ? nlohmann::json(std::chrono::duration_cast<Seconds>(*r.report_age).count())
                     : nullptr;
    o["guard_armed"] = r.guard_armed ? nlohmann::json(*r.guard_armed) : nullptr;
    o["referenced"] = !r.referenced_by.empty();
    o["referenced_by"] = str_or_null(r.referenced_by);
    o["next"] = r.next;
    o["refused_because"] = str_or_null(r.refused_because);
    o["detail"] = str_or_null(r.detail);
    boxes.push_back(std::move(o));
  }
  return nlohmann::json{
      {"format", "carlos.boxes-list/v1"}, {"now", FormatRfc3339(now)}, {"boxes", boxes}};
}

}  // namespace carlos::enroll
