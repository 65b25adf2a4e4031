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

StatusOr<References> LoadReferences(Store& store, const FleetListing& fleet,
                                    const std::vector<BoxDocs>& boxes, int workers) {
  std::unordered_map<std::string_view, const identity::PublicKey*> writer_keys;
  for (const BoxDocs& b : boxes) {
    if (b.record.valid()) writer_keys[b.box] = &b.record.parsed->doc.public_key;
  }
  std::vector<std::string> writers(fleet.edges.begin(), fleet.edges.end());
  std::sort(writers.begin(), writers.end());

  struct One {
    Status store_error;
    std::vector<std::string> names;
    std::string refused;
  };
  std::vector<One> read(writers.size());
  ParallelFor(writers.size(), workers, [&](size_t i) {
    const std::string key = identity::EdgesKey(writers[i]);
    StatusOr<Object> obj = store.Get(key);
    if (!obj.ok()) {
      if (obj.status().code() != Code::kNotFound) {
        read[i].store_error = obj.status().Annotate(fmt::format("reading {}", key));
      }
      return;
    }
    auto parsed = identity::ParseEdgesFile(obj->data);
    if (!parsed.ok()) {
      read[i].refused = fmt::format("{}: {}; the boxes it names are not counted as referenced", key,
                                    parsed.status().message());
      return;
    }
    auto writer = writer_keys.find(writers[i]);
    if (writer != writer_keys.end()) {
      Status verified = identity::VerifyEdgesFile(*parsed, *writer->second, writers[i]);
      if (!verified.ok()) {
        read[i].refused = fmt::format("{}: {}; the boxes it names are not counted as referenced",
                                      key, verified.message());
        return;
      }
    }
    read[i].names = parsed->doc.edges;
  });

  References refs;
  for (size_t i = 0; i < writers.size(); ++i) {
    if (!read[i].store_error.ok()) return read[i].store_error;
    if (!read[i].refused.empty()) refs.refused.push_back(std::move(read[i].refused));
    for (const auto& name : read[i].names) {
      refs.named_by.emplace(name, identity::EdgesKey(writers[i]));
    }
  }
  return refs;
}

}  // namespace carlos::enroll
