#include "enroll/fleet.h"

#include <algorithm>
#include <array>
#include <mutex>

#include "enroll/parallel.h"
#include "identity/store_keys.h"

namespace carlos::enroll {

namespace {

// Lists `prefix` and keeps the labels of its "<label>.json" keys; with
// `versions`, their version tags too.
StatusOr<std::vector<std::string>> ListLabels(Store& store, std::string_view prefix,
                                              std::vector<ListedKey>* versions) {
  std::vector<ListedKey> listed;
  if (versions != nullptr) {
    CARLOS_ASSIGN_OR_RETURN(listed, ListAllVersions(store, prefix));
  } else {
    CARLOS_ASSIGN_OR_RETURN(std::vector<std::string> keys, ListAll(store, prefix));
    listed.reserve(keys.size());
    for (auto& k : keys) listed.push_back({std::move(k), ""});
  }
  std::vector<std::string> labels;
  labels.reserve(listed.size());
  for (auto& l : listed) {
    if (auto box = identity::BoxOfKey(prefix, l.key)) {
      labels.push_back(std::move(*box));
      if (versions != nullptr) versions->push_back(std::move(l));
    }
  }
  return labels;
}

}  // namespace

std::vector<std::string> FleetListing::Unrecorded() const {
  std::set<std::string> all;
  for (const auto* set : {&invitations, &enrollments, &retired, &edges, &reports}) {
    all.insert(set->begin(), set->end());
  }
  for (const auto& box : records) all.erase(box);
  return std::vector<std::string>(all.begin(), all.end());
}

StatusOr<FleetListing> ListFleet(Store& store, int workers, bool versions) {
  const std::array<std::string_view, 6> prefixes = {
      identity::kRecordsPrefix, identity::kInvitationsPrefix, identity::kEnrollmentsPrefix,
      identity::kRetiredPrefix, identity::kEdgesPrefix,       identity::kStatusPrefix};
  std::array<StatusOr<std::vector<std::string>>, 6> lists = {
      Internal("unlisted"), Internal("unlisted"), Internal("unlisted"),
      Internal("unlisted"), Internal("unlisted"), Internal("unlisted")};
  std::array<std::vector<ListedKey>, 6> tags;
  ParallelFor(prefixes.size(), workers, [&](size_t i) {
    // Edges files (i == 4) count by presence alone.
    lists[i] = ListLabels(store, prefixes[i], versions && i != 4 ? &tags[i] : nullptr);
  });
  for (const auto& list : lists) {
    if (!list.ok()) return list.status();
  }
  FleetListing fleet;
  fleet.records = std::move(lists[0]).value();
  std::sort(fleet.records.begin(), fleet.records.end());
  auto to_set = [](std::vector<std::string> v) {
    return std::unordered_set<std::string>(std::make_move_iterator(v.begin()),
                                           std::make_move_iterator(v.end()));
  };
  fleet.invitations = to_set(std::move(lists[1]).value());
  fleet.enrollments = to_set(std::move(lists[2]).value());
  fleet.retired = to_set(std::move(lists[3]).value());
  fleet.edges = to_set(std::move(lists[4]).value());
  fleet.reports = to_set(std::move(lists[5]).value());
  for (auto& list : tags) {
    for (auto& l : list) fleet.versions.emplace(std::move(l.key), std::move(l.version));
  }
  return fleet;
}

}  // namespace carlos::enroll
