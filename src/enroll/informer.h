// The enroller's memory between passes (docs/enroll.md, "The informer"): a
// cache of what it read, keyed by each object's version tag, as a
// Kubernetes controller keeps a list-and-watch cache ("client-go
// informers": list, then act on what changed). A pass lists the prefixes
// with version tags (Store::ListVersions: one request per 1,000 keys on S3)
// and reads a document only when the listing shows a version it does not
// hold; a box none of whose documents changed is not read or verified again.
//
// It also keeps when each version was written, on the enroller's own clock
// (docs/protocol.md, "Clocks"): the time of the first read less the store's
// own age of the object (Object::age), or the time of the enroller's own
// write. The guard-ready report's freshness is judged by that.
//
// Correctness with other writers: the informer only saves reads. Every
// write stays create-only or compare-and-swap on the version read, so a
// kept version that another enroller replaced meanwhile makes the write
// fail, and the loser re-reads (enroller.h). A kept document is served only
// while the latest listing shows its version.
//
// Thread-safety: every method may be called from many threads at once (one
// mutex guards what is kept); the enroller calls List and Changed from its
// loop, Read, ReuseBox and KeepBox from a pass's workers.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/status.h"
#include "enroll/box_docs.h"
#include "enroll/fleet.h"
#include "protocol/documents.h"
#include "store/store.h"

namespace carlos::enroll {

class Informer {
 public:
  // `store` and `clock` must outlive the Informer.
  Informer(Store* store, Clock* clock) : store_(store), clock_(clock) {}

  // Lists the fleet with version tags (ListFleet with versions), keeps the
  // listing's tags for Read, and drops what it keeps of keys no longer
  // listed. Errors: ListFleet's; what is kept stays as it was.
  StatusOr<FleetListing> List(int workers);

  // The change check (wakeup.h): lists the records and the reports with
  // version tags (one request per 1,000 keys each) and returns the keys
  // whose version differs from what the latest List showed (new, replaced
  // or gone), and nothing else; what is kept does not change. Errors: the
  // listing's.
  StatusOr<std::vector<std::string>> Changed();

  // Reads `key` for protocol::ReadDoc: the kept bytes when the latest
  // listing shows the kept version (no request), else the store's
  // GetIfExists, whose answer is kept. The object's `age` is measured from
  // when the informer saw that version written (its clock). Errors: as
  // GetIfExists (nothing is kept then).
  StatusOr<std::optional<Object>> Read(const std::string& key);
  // Read as a protocol::ReadKey.
  protocol::ReadKey Reader();

  // Records this enroller's own write of `data` at `key`, version `version`
  // (what Put returned), written now: the next listing showing it costs no
  // read.
  void Wrote(const std::string& key, std::string data, std::string version);
  // Forgets `key` (deleted by this enroller).
  void Forget(const std::string& key);

  // A box's documents as read by the last pass, when none of the keys it
  // read changed version in `listing`, the documents it did not read have
  // the same presence, it was read to `depth`, and `now` is before any
  // time-bound verdict in it changes (its invitation's expiry). Its
  // `conflict` is cleared (MarkConflicts sets it again) and its
  // `referenced_by` is the listing's.
  std::optional<BoxDocs> ReuseBox(const FleetListing& listing, const std::string& box,
                                  ReadDepth depth, SystemTime now);
  // Keeps `docs` (read to `depth` with this informer's Reader) for ReuseBox,
  // unless a read failed in the store.
  void KeepBox(const FleetListing& listing, const BoxDocs& docs, ReadDepth depth);

 private:
  struct Known {
    std::string version;
    std::string data;
    SystemTime written_at;  // On the enroller's clock.
  };
  struct BoxEntry {
    BoxDocs docs;
    ReadDepth depth = ReadDepth::kAutomatic;
    // Each key read and its version; the presence of every key.
    std::vector<std::pair<std::string, std::string>> read;
    std::string presence;
    SystemTime recheck_at;
  };
  static std::string PresenceOf(const FleetListing& listing, const std::string& box);

  Store* store_;
  Clock* clock_;
  mutable Mutex mu_;
  std::unordered_map<std::string, std::string> listed_ CARLOS_GUARDED_BY(mu_);
  std::unordered_map<std::string, Known> known_ CARLOS_GUARDED_BY(mu_);
  std::unordered_map<std::string, BoxEntry> boxes_ CARLOS_GUARDED_BY(mu_);
};

}  // namespace carlos::enroll
