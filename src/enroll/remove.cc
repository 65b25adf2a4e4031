#include "enroll/remove.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "base/strings.h"
#include "enroll/box_docs.h"
#include "enroll/fleet.h"
#include "identity/store_keys.h"

namespace carlos::enroll {

namespace {

// Whether `box` has the document `key` by the listing.
bool Listed(const FleetListing& fleet, std::string_view box, const std::string& key) {
  std::string b(box);
  if (key == identity::StatusKey(box)) return fleet.reports.contains(b);
  if (key == identity::EdgesKey(box)) return fleet.edges.contains(b);
  if (key == identity::EnrollmentKey(box)) return fleet.enrollments.contains(b);
  if (key == identity::InvitationKey(box)) return fleet.invitations.contains(b);
  if (key == identity::RetiredKey(box)) return fleet.retired.contains(b);
  return std::binary_search(fleet.records.begin(), fleet.records.end(), b);
}

Removal Delete(Store& store, const FleetListing& fleet, std::string_view box) {
  Removal r;
  r.box = std::string(box);
  for (const std::string& key : RemovalKeys(box)) {
    if (!Listed(fleet, box, key)) continue;
    if (!r.status.ok()) {
      r.kept.push_back(key);
      continue;
    }
    Status st = store.Delete(key);
    if (st.ok()) {
      r.removed.push_back(key);
    } else {
      r.status = st;
      r.kept.push_back(key);
    }
  }
  return r;
}

// Why `docs` is a box that hosts now (enrolled and reporting), or "".
// Freshness as the guard-ready rule reads it (protocol/guard_ready.h): a
// report dated within reportFreshness before `now`, and at most the clock
// skew after it.
std::string HostsNow(const BoxDocs& docs, const EnrollerSettings& settings, SystemTime now) {
  if (!docs.enrollment.valid() || !docs.report.valid()) return "";
  SystemTime at = docs.report.parsed->doc.reported_at;
  auto age = std::chrono::duration_cast<Milliseconds>(now - at);
  if (age >= settings.report_freshness || -age > settings.report_clock_skew) return "";
  return fmt::format("it is enrolled (enrollment {}) and reporting (its status report is {} old)",
                     docs.enrollment.parsed->digest,
                     FormatDuration(std::chrono::duration_cast<Seconds>(age)));
}

}  // namespace

std::vector<std::string> RemovalKeys(std::string_view box) {
  return {identity::StatusKey(box),     identity::EdgesKey(box),  identity::EnrollmentKey(box),
          identity::InvitationKey(box), identity::RecordKey(box), identity::RetiredKey(box)};
}

StatusOr<Removal> RemoveBox(Store& store, const EnrollerSettings& settings, SystemTime now,
                            std::string_view box, bool force) {
  if (!IsLabel(box)) {
    return InvalidArgument(fmt::format("{} is not a box label ([a-z0-9-]{{1,63}})", box));
  }
  CARLOS_ASSIGN_OR_RETURN(FleetListing fleet, ListFleet(store, settings.workers));
  bool any = false;
  for (const std::string& key : RemovalKeys(box)) any = any || Listed(fleet, box, key);
  if (!any) {
    return NotFound(
        fmt::format("{} has no documents in the deployment store ({})", box, store.Describe()));
  }
  if (!force) {
    RecordChecker checker(&settings);
    BoxDocs docs =
        ReadBoxDocs(StoreReader(store), fleet, box, settings, checker, now, ReadDepth::kEverything);
    for (const Status* st : {docs.record.store_error() ? &docs.record.status : nullptr,
                             docs.enrollment.store_error() ? &docs.enrollment.status : nullptr,
                             docs.report.store_error() ? &docs.report.status : nullptr}) {
      if (st == nullptr) continue;
      return Status(st->code(), fmt::format("{} was not removed: whether it hosts now cannot be "
                                            "told: {}; try again, or remove it with --force",
                                            box, st->message()));
    }
    std::string hosts = HostsNow(docs, settings, now);
    if (!hosts.empty()) {
      return PreconditionFailed(fmt::format(
          "{} was not removed: {}; retire it first (carlos boxes retire {}) and remove it once "
          "it has stopped, or remove it anyway with --force",
          box, hosts, box));
    }
  }
  return Delete(store, fleet, box);
}

StatusOr<std::vector<Removal>> PruneRetired(Store& store, const EnrollerSettings& settings,
                                            SystemTime now, Milliseconds older_than) {
  CARLOS_ASSIGN_OR_RETURN(FleetListing fleet, ListFleet(store, settings.workers));
  std::vector<std::string> retired(fleet.retired.begin(), fleet.retired.end());
  std::sort(retired.begin(), retired.end());
  RecordChecker checker(&settings);
  std::vector<Removal> out;
  for (const std::string& box : retired) {
    BoxDocs docs =
        ReadBoxDocs(StoreReader(store), fleet, box, settings, checker, now, ReadDepth::kEverything);
    if (!docs.retirement.valid()) continue;
    if (now - docs.retirement.parsed->doc.retired_at < older_than) continue;
    out.push_back(Delete(store, fleet, box));
  }
  return out;
}

std::string RemovalLine(const Removal& r) {
  std::string line = fmt::format(
      "removed {}: {}", r.box,
      r.removed.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(r.removed, ", ")));
  if (!r.kept.empty()) {
    line += fmt::format("; not removed: {} ({})", fmt::join(r.kept, ", "), r.status.message());
  }
  return line;
}

}  // namespace carlos::enroll
