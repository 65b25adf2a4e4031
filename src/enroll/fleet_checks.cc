#include "enroll/fleet_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "enroll/parallel.h"
#include "identity/edges_file.h"
#include "identity/store_keys.h"

namespace carlos::enroll {

void MarkConflicts(std::vector<BoxDocs>& boxes) {
  std::unordered_map<std::string, std::vector<size_t>> by_instance;
  for (size_t i = 0; i < boxes.size(); ++i) {
    const BoxDocs& b = boxes[i];
    if (!b.record.valid() || b.retirement.valid()) continue;
    const std::string& instance = b.record.parsed->doc.instance_id;
    if (!instance.empty()) by_instance[instance].push_back(i);
  }
  for (const auto& [instance, members] : by_instance) {
    if (members.size() < 2) continue;
    for (size_t i : members) {
      BoxDocs& b = boxes[i];
      if (b.enrollment.valid()) continue;
      std::vector<std::string> others;
      for (size_t j : members) {
        if (j != i) others.push_back(boxes[j].box);
      }
      std::sort(others.begin(), others.end());
      b.conflict =
          fmt::format("its instance {} is also recorded as {}", instance, fmt::join(others, ", "));
    }
  }
}

}  // namespace carlos::enroll
