// `carlos boxes list`: one row per box, as a table for people and as stable
// JSON for scripts (docs/enroll.md, "carlos boxes list" documents the
// fields).
//
// Thread-safety: pure functions over values; safe from any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "enroll/box_docs.h"
#include "enroll/verdict.h"

namespace carlos::enroll {

struct BoxRow {
  std::string box;          // The label.
  std::string region;       // From the identity record; "" when unrecorded or refused.
  std::string stage;        // protocol/mode.h StageName, or "unknown" (a store error).
  std::string instance_id;  // From the identity record.
  // The latest status report's time (the box's stamp) and its age since the
  // enroller saw it written (its own clock: BoxDocs::report_written_at),
  // when one verifies.
  std::optional<SystemTime> reported_at;
  std::optional<Milliseconds> report_age;
  // The report's guard facts: armed or not; nullopt without guard facts.
  std::optional<bool> guard_armed;
  // The box's edges file when it makes the box referenced: published while
  // the box is not enrolled (a hosting box's own file does not); "" else.
  std::string referenced_by;
  // What automatic enrollment would do next (verdict.h VerdictKindName) and,
  // when it refuses, waits or cannot read, why: the reason's stable name and
  // its facts.
  std::string next;
  std::string refused_because;
  std::string detail;
};

// The row of `docs` (read with ReadDepth::kEverything, references marked)
// and its verdict, at `now`.
BoxRow MakeRow(const BoxDocs& docs, const Verdict& verdict, SystemTime now);

// The rows as an aligned table with a header line, columns BOX REGION STAGE
// INSTANCE REPORT-AGE ARMED REFERENCED REFUSED-BECAUSE ("-" for an empty
// cell), one row per line, in the order given; ends with a newline.
std::string FormatTable(const std::vector<BoxRow>& rows);

// The rows as JSON: {"format": "carlos.boxes-list/v1", "now": RFC 3339,
// "boxes": [row...]}, each row an object with the members box, region,
// stage, instance_id, reported_at (RFC 3339 or null), report_age_seconds
// (integer or null), guard_armed (bool or null), referenced (bool),
// referenced_by (string or null), next, refused_because (string or null),
// detail (string or null). Members are written in sorted order.
nlohmann::json RowsToJson(const std::vector<BoxRow>& rows, SystemTime now);

}  // namespace carlos::enroll
