// The fleet as one pass sees it: which protocol keys exist, from one listing
// of each prefix (DESIGN.md, "The deployment store"). Knowing which keys
// exist lets a pass skip every Get of a document that is not there, which is
// what keeps a pass with nothing to do within 4 store requests per box
// (docs/enroll.md, "Cost of a pass"): a listing is one request per 1000 keys.
//
// Thread-safety: a FleetListing is a value, read-only once built; many
// threads may read one at once.
#pragma once

#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/status.h"
#include "store/store.h"

namespace carlos::enroll {

struct FleetListing {
  // Labels with an identity record (control/boxes/<box>.json), ascending.
  std::vector<std::string> records;
  // Labels with each other document.
  std::unordered_set<std::string> invitations;
  std::unordered_set<std::string> enrollments;
  std::unordered_set<std::string> retired;
  std::unordered_set<std::string> edges;  // Writers of an edges file.
  std::unordered_set<std::string> reports;
  // Each listed document's version tag by key (records, invitations,
  // enrollments, retirements, reports; not edges files, whose presence is
  // all a pass uses), when listed with versions; else empty.
  std::unordered_map<std::string, std::string> versions;

  // Labels that have some document but no identity record, ascending:
  // `carlos boxes list` shows them as unrecorded.
  std::vector<std::string> Unrecorded() const;
};

// Lists the six prefixes (identity/store_keys.h), on up to `workers`
// threads; with `versions`, the documents' prefixes through
// Store::ListVersions, filling `versions` (the informer, informer.h). Keys
// that are not "<prefix><label>.json" are skipped. Errors: the first listing
// error, as Store::List (the pass cannot know the fleet, so it does nothing).
StatusOr<FleetListing> ListFleet(Store& store, int workers, bool versions = false);

}  // namespace carlos::enroll
