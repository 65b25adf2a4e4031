// What `carlos dev region` shows while it runs: per box, the
// stage the load balancer sees (the health check's answer: "hosting", or
// the 503's stage such as "joining: invited"), the HTTP code, and for how
// long it has been so; on a terminal as a table redrawn in place, and
// otherwise as one line per change (for logs and tests).
//
// Time is injected: every method takes `now`.
//
// Thread-safety: not thread-safe; the region's loop owns it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "dev/region_health.h"

namespace carlos::dev {

struct BoxRow {
  std::string box;  // Label: "box-1".
  std::string url;  // Its health URL.
  HealthAnswer answer{0, "not asked yet"};
  SystemTime since{};  // When `answer` was first seen.
  int agent_pid = 0;   // The running agent's pid; 0 while none runs.
  int agent_starts = 0;
};

class RegionView {
 public:
  // Rows for `boxes` (labels) and their health URLs, all "not asked yet"
  // since `start`.
  RegionView(std::vector<std::string> boxes, std::vector<std::string> urls, SystemTime start);

  // Records box `i`'s latest answer at `now`. Returns the change line
  // "box-1: 503 joining: invited (after 1.2s 503 joining: recorded)" when
  // the code or text differs from the last answer, nullopt otherwise. A box
  // whose answer changes only by "no answer" reasons is still a change.
  std::optional<std::string> Update(size_t i, const HealthAnswer& answer, SystemTime now);

  // Records box `i`'s agent process (pid 0: none runs) and how many times
  // it was started.
  void SetAgent(size_t i, int pid, int starts);

  // The table, one line per box under a header, each line padded to its
  // column widths, e.g.
  //   BOX     HEALTH  STAGE              FOR    AGENT
  //   box-1   200     hosting            12.3s  pid 4242 (start 2)
  // followed by `footer` lines (may be empty). No escape codes.
  std::string Table(SystemTime now, const std::vector<std::string>& footer) const;

  // How many boxes answer 200.
  size_t Hosting() const;

  const std::vector<BoxRow>& rows() const { return rows_; }

 private:
  std::vector<BoxRow> rows_;
};

// A duration for the FOR column: "850ms", "12.3s", "4m05s", "2h03m".
std::string ShortDuration(Milliseconds d);

}  // namespace carlos::dev
